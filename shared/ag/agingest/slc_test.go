package agingest_test

import (
	"bytes"
	"math"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"meridian/shared/ag/agingest"
	"meridian/shared/ingest/shp"
	"meridian/shared/teamdata"
)

const (
	slcCMP = "slc-v3.2/ca_all_slc_v3r2_cmp_excerpt.csv"
	slcSNT = "slc-v3.2/soil_name_ab_sk_mb_excerpt.csv"
	slcSLT = "slc-v3.2/soil_layer_ab_sk_mb_excerpt.csv"
	slcPAT = "slc-v3.2/ca_all_slc_v3r2_pat_excerpt.csv"
)

// dbfOf converts a sample CSV to a dBASE table in memory, every column as
// text, the way the real tables are released.
func dbfOf(t testing.TB, rel string) []byte {
	t.Helper()
	rows := teamdata.Rows(t, "samples/"+rel, ',')
	fields := make([]shp.Field, len(rows[0]))
	for i, h := range rows[0] {
		fields[i] = shp.Field{Name: h, Type: shp.Character, Length: 1}
		for _, r := range rows[1:] {
			fields[i].Length = max(fields[i].Length, len(r[i]))
		}
	}
	var s, x, d shp.Buffer
	w, err := shp.NewWriter(&s, &x, &d, shp.Null, fields, shp.WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rows[1:] {
		if err := w.Write(nil, r); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return d.Bytes()
}

func TestSLCSample(t *testing.T) {
	t.Parallel()
	cmps := collect(t, agingest.ReadComponents, sample(t, slcCMP))
	if len(cmps) != 1085 {
		t.Errorf("components = %d, want 1085", len(cmps))
	}
	polys := collect(t, agingest.ReadPolygonComponents, sample(t, slcCMP))
	if len(polys) != 180 {
		t.Errorf("polygons = %d, want 180", len(polys))
	}
	byProv := map[string]int{}
	below40 := 0
	for _, p := range polys {
		d, _ := p.Dominant()
		byProv[d.Province]++
		if d.Percent < 40 {
			below40++
		}
	}
	if want := map[string]int{"AB": 60, "SK": 60, "MB": 60}; !cmp.Equal(byProv, want) {
		t.Errorf("polygons by province = %v, want %v", byProv, want)
	}
	// The SLC documentation says the dominant component covers 40 % or
	// more; the real data often has none that large.
	if below40 != 90 {
		t.Errorf("polygons whose largest component is under 40 %% = %d, want 90", below40)
	}
	names := collect(t, agingest.ReadSoilNames, sample(t, slcSNT))
	if len(names) != 510 {
		t.Errorf("soil names = %d, want 510", len(names))
	}
	layers := collect(t, agingest.ReadSoilLayers, sample(t, slcSLT))
	if len(layers) != 2247 {
		t.Errorf("soil layers = %d, want 2247", len(layers))
	}
	pat := collect(t, agingest.ReadSLCPolygons, sample(t, slcPAT))
	if len(pat) != 180 {
		t.Errorf("PAT rows = %d, want 180", len(pat))
	}
	if got, want := pat[0], (agingest.SLCPolygon{PolyID: 243004, EcoID: 243, Area: 0.275724063, Perimeter: 2.671783669}); !cmp.Equal(got, want) {
		t.Errorf("PAT row 1 = %+v, want %+v", got, want)
	}

	byID := map[string]agingest.SoilName{}
	for _, n := range names {
		byID[n.SoilID] = n
	}
	byPoly := map[int]agingest.PolygonSoils{}
	for _, p := range polys {
		byPoly[p.PolyID] = p
	}
	tests := []struct {
		poly int
		want agingest.Soil
	}{
		{243004, agingest.Soil{
			PolyID: 243004, Percent: 40, SoilID: "ABBUF~~~~~N", Name: "BUFFALO", Kind: "Mineral",
			Classification: agingest.Classification{OrderCode: "LU", Order: "Luvisolic", GreatGroupCode: "GL", GreatGroup: "Gray Luvisol", SubgroupCode: "O.GL", Subgroup: "Orthic Gray Luvisol"},
			DrainageCode:   "W", Drainage: "Well drained",
			Slope: agingest.SlopeClass{Code: "B", Range: "4-9%", Label: "Gently sloping"},
		}},
		// Components 1 and 2 both cover 30 %: the first listed wins.
		{244058, agingest.Soil{
			PolyID: 244058, Percent: 30, SoilID: "ABKEGpt~~~N", Name: "KEG", Kind: "Mineral",
			Classification: agingest.Classify(byID["ABKEGpt~~~N"]),
			DrainageCode:   "P", Drainage: "Poorly drained",
			Slope: agingest.SlopeClass{Code: "A", Range: "0-3%", Label: "Level to nearly level"},
		}},
		{647012, agingest.Soil{
			PolyID: 647012, Percent: 21, SoilID: "SKSYA~~~~~A", Name: byID["SKSYA~~~~~A"].Name, Kind: "Mineral",
			Classification: agingest.Classify(byID["SKSYA~~~~~A"]),
			DrainageCode:   byID["SKSYA~~~~~A"].Drainage,
			Slope:          agingest.SlopeClass{Code: "A", Range: "0-3%", Label: "Level to nearly level"},
		}},
	}
	for _, tc := range tests {
		d, ok := byPoly[tc.poly].Dominant()
		if !ok {
			t.Fatalf("polygon %d has no components", tc.poly)
		}
		got, err := agingest.DescribeSoil(d, byID[d.SoilID])
		if err != nil {
			t.Fatal(err)
		}
		if tc.want.Drainage == "" {
			tc.want.Drainage, _ = agingest.Drainage(tc.want.DrainageCode)
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("dominant soil of polygon %d (-want +got):\n%s", tc.poly, diff)
		}
	}
	// A Manitoba name with a comma inside quotes, a Gleyed Rego subgroup.
	capell := byID["MBCXT1~~~~A"]
	if capell.Name != "Capell, shaly var." {
		t.Errorf("MBCXT1~~~~A name = %q", capell.Name)
	}
	if got := agingest.Classify(capell); got.Subgroup != "Gleyed Rego Black Chernozem" || got.SubgroupCode != "GLR.BLC" {
		t.Errorf("Classify(MBCXT1~~~~A) = %+v", got)
	}
	if d, _ := agingest.Drainage(capell.Drainage); d != "Imperfectly drained" {
		t.Errorf("MBCXT1~~~~A drainage = %q", d)
	}
	// Layer values: the first layer of the first soil.
	l := layers[0]
	if l.SoilID != "ABABC~~~~~A" || l.LayerNo != 1 || l.Upper != 0 || l.Lower != 18 || l.HorizonMaster != "A" ||
		l.Sand != 45 || l.Silt != 30 || l.Clay != 25 || l.OrganicCarbon != 1.5 || l.PHWater != 5.8 || l.BulkDensity != 1.25 || !math.IsNaN(l.KP10) {
		t.Errorf("first layer = %+v", l)
	}
}

// TestSLCCodeLabels checks that every code the sample uses has a label.
func TestSLCCodeLabels(t *testing.T) {
	t.Parallel()
	for _, n := range collect(t, agingest.ReadSoilNames, sample(t, slcSNT)) {
		if _, ok := agingest.SoilOrder(n.Order3); !ok {
			t.Errorf("%s: ORDER3 %q has no label", n.SoilID, n.Order3)
		}
		if _, ok := agingest.SoilKind(n.Kind); !ok {
			t.Errorf("%s: KIND %q has no label", n.SoilID, n.Kind)
		}
		if _, ok := agingest.Drainage(n.Drainage); !ok && n.Drainage != "-" && n.Drainage != "" {
			t.Errorf("%s: DRAINAGE %q has no label", n.SoilID, n.Drainage)
		}
		c := agingest.Classify(n)
		if n.GreatGroup3 != "-" && c.GreatGroup == "" {
			t.Errorf("%s: G_GROUP3 %q has no label", n.SoilID, n.GreatGroup3)
		}
		if n.GreatGroup3 != "-" && n.Subgroup3 != "-" && n.Subgroup3 != "" && c.Subgroup == "" {
			t.Errorf("%s: subgroup %s.%s has no name", n.SoilID, n.Subgroup3, n.GreatGroup3)
		}
	}
	for _, c := range collect(t, agingest.ReadComponents, sample(t, slcCMP)) {
		if _, ok := agingest.Slope(c.Slope); !ok {
			t.Errorf("polygon %d: SLOPE %q has no class", c.PolyID, c.Slope)
		}
		if _, ok := agingest.Stoniness(c.Stone); !ok {
			t.Errorf("polygon %d: STONE %q has no label", c.PolyID, c.Stone)
		}
	}
}

// TestSLCDBF reads the sample tables as the DBFs AAFC releases and checks
// that they give the same records as the CSV exports.
func TestSLCDBF(t *testing.T) {
	t.Parallel()
	dbf := func(rel string) agingest.Source {
		return agingest.Source{Name: "t.dbf", Format: agingest.DBF, R: bytes.NewReader(dbfOf(t, rel))}
	}
	nan := cmpopts.EquateNaNs()
	if a, b := collect(t, agingest.ReadComponents, sample(t, slcCMP)), collect(t, agingest.ReadComponents, dbf(slcCMP)); !cmp.Equal(a, b) {
		t.Errorf("CMP from DBF differs from CSV: %s", cmp.Diff(a, b))
	}
	if a, b := collect(t, agingest.ReadSoilNames, sample(t, slcSNT)), collect(t, agingest.ReadSoilNames, dbf(slcSNT)); !cmp.Equal(a, b) {
		t.Errorf("SNT from DBF differs from CSV: %s", cmp.Diff(a, b))
	}
	if a, b := collect(t, agingest.ReadSoilLayers, sample(t, slcSLT)), collect(t, agingest.ReadSoilLayers, dbf(slcSLT)); !cmp.Equal(a, b, nan) {
		t.Errorf("SLT from DBF differs from CSV: %s", cmp.Diff(a, b, nan))
	}
	if a, b := collect(t, agingest.ReadSLCPolygons, sample(t, slcPAT)), collect(t, agingest.ReadSLCPolygons, dbf(slcPAT)); !cmp.Equal(a, b) {
		t.Errorf("PAT from DBF differs from CSV: %s", cmp.Diff(a, b))
	}
}

func TestSubgroupName(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ order, code, want string }{
		{"", "O.BLC", "Orthic Black Chernozem"},
		{"CH", "GLR.BLC", "Gleyed Rego Black Chernozem"},
		{"", "B.SS", "Brown Solodized Solonetz"},
		{"LU", "BR.GL", "Brunisolic Gray Luvisol"},
		{"OR", "TFI.M", "Terric Fibric Mesisol"},
		{"GL", "HU.LG", "Humic Luvic Gleysol"},
		{"", "X.BLC", ""},
		{"", "OBLC", ""},
	} {
		if got, _ := agingest.SubgroupName(tc.order, tc.code); got != tc.want {
			t.Errorf("SubgroupName(%q, %q) = %q, want %q", tc.order, tc.code, got, tc.want)
		}
	}
}

const cmpHeader = "POLY_ID,CMP,PERCENT,SLOPE,STONE,LOCSF,PROVINCE,SOIL_CODE,MODIFIER,PROFILE,SOIL_ID,CMP_ID\n"

// componentErrorTests are files ReadComponents or ReadPolygonComponents
// must reject, with the line and reason.
var componentErrorTests = []struct {
	name    string
	in      string
	grouped bool // only the grouped reader sees it
	line    int
	want    string
}{
	{"empty", "", false, 1, "empty file"},
	{"missing column", "POLY_ID,CMP\n1,1\n", false, 1, "missing column PERCENT"},
	{"duplicate column", "POLY_ID,POLY_ID\n", false, 1, "appears twice"},
	{"bad poly", cmpHeader + "x,1,100,A,N,U,AB,BUF,~~~~~,N,ABBUF~~~~~N,\n", false, 2, "POLY_ID"},
	{"percent over 100", cmpHeader + "1,1,101,A,N,U,AB,BUF,~~~~~,N,ABBUF~~~~~N,101\n", false, 2, "PERCENT"},
	{"soil id mismatch", cmpHeader + "1,1,100,A,N,U,AB,BUF,~~~~~,N,ABBUX~~~~~N,101\n", false, 2, "SOIL_ID"},
	{"bad profile", cmpHeader + "1,1,100,A,N,U,AB,BUF,~~~~~,X,ABBUF~~~~~X,101\n", false, 2, "PROFILE"},
	{"cmp id mismatch", cmpHeader + "1,1,100,A,N,U,AB,BUF,~~~~~,N,ABBUF~~~~~N,102\n", false, 2, "CMP_ID"},
	{"field count", cmpHeader + "1,1,100\n", false, 2, "wrong number of fields"},
	{"bad quote", cmpHeader + "1,1,100,A,N,U,AB,\"BUF,~~~~~,N,ABBUF~~~~~N,101\n", false, 2, "malformed CSV"},
	{"shares", cmpHeader + "1,1,60,A,N,U,AB,BUF,~~~~~,N,ABBUF~~~~~N,101\n1,2,30,A,N,U,AB,BUF,~~~~~,N,ABBUF~~~~~N,102\n", true, 3, "add up to 90"},
	{"split polygon", cmpHeader + "1,1,100,A,N,U,AB,BUF,~~~~~,N,ABBUF~~~~~N,101\n2,1,100,A,N,U,AB,BUF,~~~~~,N,ABBUF~~~~~N,201\n1,2,0,A,N,U,AB,BUF,~~~~~,N,ABBUF~~~~~N,102\n", true, 4, "must be together"},
}

func TestComponentErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range componentErrorTests {
		t.Run(tc.name, func(t *testing.T) {
			if !tc.grouped {
				err := agingest.ReadComponents(csvSource("cmp.csv", tc.in), func(agingest.Component) error { return nil })
				wantError(t, err, "cmp.csv", tc.line, tc.want)
			}
			err := agingest.ReadPolygonComponents(csvSource("cmp.csv", tc.in), func(agingest.PolygonSoils) error { return nil })
			wantError(t, err, "cmp.csv", tc.line, tc.want)
		})
	}
}

func TestSoilNameAndLayerErrors(t *testing.T) {
	t.Parallel()
	snt := "SOIL_ID,PROVINCE,SOIL_CODE,MODIFIER,PROFILE,SOILNAME,KIND,DRAINAGE,ORDER3,G_GROUP3,S_GROUP3\n"
	slt := "SOIL_ID,PROVINCE,SOIL_CODE,MODIFIER,PROFILE,LAYER_NO,UDEPTH,LDEPTH,TCLAY\n"
	for _, tc := range []struct {
		name, in string
		layers   bool
		line     int
		want     string
	}{
		{"no name", snt + "ABBUF~~~~~N,AB,BUF,~~~~~,N,,M,W,LU,GL,O\n", false, 2, "SOILNAME is empty"},
		{"long kind", snt + "ABBUF~~~~~N,AB,BUF,~~~~~,N,B,MM,W,LU,GL,O\n", false, 2, "KIND"},
		{"bad order", snt + "ABBUF~~~~~N,AB,BUF,~~~~~,N,B,M,W,LUV,GL,O\n", false, 2, "ORDER3"},
		{"short modifier", snt + "ABBUF~~~~N,AB,BUF,~~~~,N,B,M,W,LU,GL,O\n", false, 2, "MODIFIER"},
		{"layer order", slt + "ABBUF~~~~~N,AB,BUF,~~~~~,N,1,20,10,5\n", true, 2, "above UDEPTH"},
		{"bad measure", slt + "ABBUF~~~~~N,AB,BUF,~~~~~,N,1,0,10,NaN\n", true, 2, "TCLAY"},
		{"bad layer", slt + "ABBUF~~~~~N,AB,BUF,~~~~~,N,0,0,10,5\n", true, 2, "LAYER_NO"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var err error
			if tc.layers {
				err = agingest.ReadSoilLayers(csvSource("s.csv", tc.in), func(agingest.SoilLayer) error { return nil })
			} else {
				err = agingest.ReadSoilNames(csvSource("s.csv", tc.in), func(agingest.SoilName) error { return nil })
			}
			wantError(t, err, "s.csv", tc.line, tc.want)
		})
	}
}

// TestDBFErrors checks that a damaged DBF is rejected with the record.
func TestDBFErrors(t *testing.T) {
	t.Parallel()
	good := dbfOf(t, slcPAT)
	read := func(b []byte) error {
		return agingest.ReadSLCPolygons(agingest.Source{Name: "pat.dbf", Format: agingest.DBF, R: bytes.NewReader(b)}, func(agingest.SLCPolygon) error { return nil })
	}
	if err := read(good); err != nil {
		t.Fatal(err)
	}
	wantError(t, read(good[:len(good)-100]), "pat.dbf", 178, "truncated")
	wantError(t, read(good[:10]), "pat.dbf", 0, "truncated")
	bad := bytes.Clone(good)
	i := bytes.Index(bad, []byte("243004"))
	copy(bad[i:], "24x004")
	wantError(t, read(bad), "pat.dbf", 1, "POLY_ID")
	if strings.Count(string(good), "243004") != 1 {
		t.Fatal("test assumes one 243004")
	}
}
