package energyingest_test

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"unicode"

	"github.com/google/go-cmp/cmp"
	"github.com/paulmach/orb"

	demodata "meridian/shared/demo"
	"meridian/shared/demo/energydemo"
	"meridian/shared/energy/energyingest"
	"meridian/shared/ingest"
	"meridian/shared/lld"
)

var demoOnce = sync.OnceValues(func() (map[string][]byte, error) {
	files, err := energydemo.Generate()
	if err != nil {
		return nil, err
	}
	m := make(map[string][]byte, len(files))
	for _, f := range files {
		m[f.Name] = f.Data
	}
	return m, nil
})

func demoFiles(t testing.TB) map[string][]byte {
	t.Helper()
	m, err := demoOnce()
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func demoFile(t testing.TB, name string) []byte {
	t.Helper()
	b, ok := demoFiles(t)[name]
	if !ok {
		t.Fatalf("no demo file %q", name)
	}
	return b
}

func demoMonths() []string {
	var ms []string
	for y, m := 2025, 9; len(ms) < 14; m++ {
		if m == 13 {
			y, m = y+1, 1
		}
		ms = append(ms, time2(y, m))
	}
	return ms
}

func time2(y, m int) string { return day(y, 1, 1).AddDate(0, m-1, 0).Format("2006-01") }

func TestGenerateDeterministic(t *testing.T) {
	t.Parallel()
	a, err := energydemo.Generate()
	if err != nil {
		t.Fatal(err)
	}
	b, err := energydemo.Generate()
	if err != nil {
		t.Fatal(err)
	}
	if len(a) != len(b) {
		t.Fatalf("%d then %d files", len(a), len(b))
	}
	for i := range a {
		if a[i].Name != b[i].Name || !bytes.Equal(a[i].Data, b[i].Data) {
			t.Errorf("file %d: %s (%d bytes) then %s (%d bytes)", i, a[i].Name, len(a[i].Data), b[i].Name, len(b[i].Data))
		}
	}
	dir := t.TempDir()
	if err := energydemo.Write(dir); err != nil {
		t.Fatal(err)
	}
	for _, f := range a {
		got, err := os.ReadFile(filepath.Join(dir, f.Name))
		if err != nil || !bytes.Equal(got, f.Data) {
			t.Errorf("WriteDemo %s: %d bytes, %v; want the generated %d bytes", f.Name, len(got), err, len(f.Data))
		}
	}
}

func TestDemoFileList(t *testing.T) {
	t.Parallel()
	var names []string
	for n := range demoFiles(t) {
		names = append(names, n)
	}
	want := []string{
		"NGL_AB_marketable_gas_volumes.csv", "Pipelines_GCS_NAD83.cpg", "Pipelines_GCS_NAD83.dbf",
		"Pipelines_GCS_NAD83.geojson", "Pipelines_GCS_NAD83.prj", "Pipelines_GCS_NAD83.shp", "Pipelines_GCS_NAD83.shx",
		"README.md", "Reporting - Full Inventory - 2026-11-01 13.41.42.xlsx", "ST104A_BusinessAssociate_Codes_2026-11.csv",
		"WellList_2026-10.txt", "WellList_2026-11.txt",
	}
	for _, p := range []string{"AB", "SK", "MB"} {
		want = append(want, "Crown_Dispositions_"+p+".csv", "Crown_Dispositions_"+p+".geojson",
			"Facility Infrastructure-"+p+".csv", "Well Infrastructure-"+p+".csv")
		for _, m := range demoMonths() {
			want = append(want, "Vol_"+m+"-"+p+".csv")
		}
	}
	slices.Sort(names)
	slices.Sort(want)
	if d := cmp.Diff(want, names); d != "" || len(names) != 66 {
		t.Errorf("%d demo files (-want +got):\n%s", len(names), d)
	}
}

// demoWells reads a demo ST37 snapshot by 16-character UWI.
func demoWells(t testing.TB, name string) map[string]energyingest.Well {
	t.Helper()
	m := map[string]energyingest.Well{}
	err := energyingest.ReadWellList(bytes.NewReader(demoFile(t, name)), name, func(w energyingest.Well) error {
		if _, dup := m[w.UWI16()]; dup {
			t.Errorf("%s twice", w.UWI)
		}
		m[w.UWI16()] = w
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestDemoST37(t *testing.T) {
	t.Parallel()
	cur := demoWells(t, "WellList_2026-11.txt")
	prev := demoWells(t, "WellList_2026-10.txt")
	if len(cur) != 120 || len(prev) != 118 {
		t.Fatalf("%d wells now, %d last month; want 120 (8 townships x 15) and 118", len(cur), len(prev))
	}
	statuses := map[string]int{}
	les := map[string]int{}
	events, latin1 := 0, 0
	for _, w := range cur {
		statuses[w.LicenceStatus]++
		les[w.LE]++
		if w.Event == 2 {
			events++
		}
		if w.Columns != 24 || w.FluidShort != w.Status.Short(energyingest.Fluid) || w.ModeShort != w.Status.Short(energyingest.Mode) {
			t.Errorf("%s: %d columns, descriptions %s/%s for %s", w.UWI, w.Columns, w.FluidShort, w.ModeShort, w.Status.Code)
		}
		if strings.Contains(w.Name, "É") {
			latin1++
		}
	}
	// Every status bucket of package meridian/shared/energy occurs (its
	// tests count them).
	for _, st := range []string{"Issued", "Suspension", "Abandoned", "RecCertified"} {
		if statuses[st] == 0 {
			t.Errorf("no %s well in the demo: %v", st, statuses)
		}
	}
	// 02: roles 1 and 8 and 25-1-W5's role 10; 03: role 2; F1: the water
	// wells (role 12); AA (62-20-W5) and W0 (48-7-W5): role 10.
	wantLE := map[string]int{"00": 85, "02": 17, "03": 8, "F1": 8, "AA": 1, "W0": 1}
	if d := cmp.Diff(wantLE, les); d != "" {
		t.Errorf("location exceptions (-want +got):\n%s", d)
	}
	if events != 8 || latin1 != 1 {
		t.Errorf("%d re-entries (event 2), %d Latin-1 names; want 8, 1", events, latin1)
	}
	// The identifiers of docs/data-sources.md §0.1.
	for _, u := range []string{"1AA120406220W500", "100071901015W400", "100042205618W502"} {
		if _, ok := cur[u]; !ok {
			t.Errorf("no demo well %s", u)
		}
	}
	// Between the snapshots: three licence transfers (licensee changed),
	// one well suspended, two licences issued this month.
	transfers, changed, added := 0, 0, 0
	for u, w := range cur {
		p, ok := prev[u]
		switch {
		case !ok:
			added++
			if w.LicenceIssueDate.Before(day(2026, 11, 1)) || !w.FinalDrillDate.IsZero() {
				t.Errorf("new licence %s issued %v", w.UWI, w.LicenceIssueDate)
			}
		case p.LicenseeBA != w.LicenseeBA:
			transfers++
		case p.LicenceStatus != w.LicenceStatus:
			changed++
			if p.LicenceStatus != "Issued" || w.LicenceStatus != "Suspension" {
				t.Errorf("%s went from %s to %s", w.UWI, p.LicenceStatus, w.LicenceStatus)
			}
		}
	}
	if transfers != 3 || changed != 1 || added != 2 {
		t.Errorf("%d transfers, %d status changes, %d new licences; want 3, 1, 2", transfers, changed, added)
	}
}

func TestDemoBACodes(t *testing.T) {
	t.Parallel()
	names := map[string]string{}
	if err := energyingest.ReadBACodes(bytes.NewReader(demoFile(t, "ST104A_BusinessAssociate_Codes_2026-11.csv")), "ba.csv", energyingest.ReadOptions{}, func(b energyingest.BA) error {
		names[b.Code] = b.Name
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if len(names) != 15 || names["Z9A1"] != "Aspen Coulee Petroleum Ltd. (demo)" || names["Z9A2"] != "Badger Flats Energy Inc. (demo)" || names["Z9B2"] != "Mossback Disposal Services Inc. (demo)" {
		t.Errorf("BA codes %v", names)
	}
	for _, w := range demoWells(t, "WellList_2026-11.txt") {
		if _, ok := names[w.LicenseeBA]; !ok {
			t.Errorf("%s: licensee %s is not in the BA list", w.UWI, w.LicenseeBA)
		}
	}
}

// TestDemoOperatorsAreInvented: no invented record may point at a real
// company. Every BA of the demo register is marked "(demo)", and neither its
// code nor its name (letters and digits, "(demo)" and legal suffixes left
// out) is one of the real AER register sample's.
func TestDemoOperatorsAreInvented(t *testing.T) {
	t.Parallel()
	key := func(name string) string {
		name = strings.ToLower(strings.ReplaceAll(name, "(demo)", ""))
		words := strings.FieldsFunc(name, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
		for len(words) > 1 {
			switch words[len(words)-1] {
			case "ltd", "limited", "inc", "corp", "corporation", "ulc", "co", "company", "partnership":
				words = words[:len(words)-1]
				continue
			}
			break
		}
		return strings.Join(words, "")
	}
	demo := map[string]string{}
	if err := energyingest.ReadBACodes(bytes.NewReader(demoFile(t, "ST104A_BusinessAssociate_Codes_2026-11.csv")), "ba.csv", energyingest.ReadOptions{}, func(b energyingest.BA) error {
		if !strings.HasSuffix(b.Name, " (demo)") {
			t.Errorf("demo BA %s %q is not marked (demo)", b.Code, b.Name)
		}
		demo[b.Code] = b.Name
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	realNames := map[string]string{}
	realCodes := map[string]string{}
	if err := energyingest.ReadBACodes(openSample(t, baSample), "ST104A.csv", energyingest.ReadOptions{}, func(b energyingest.BA) error {
		realNames[key(b.Name)] = b.Name
		realCodes[b.Code] = b.Name
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if len(realCodes) < 400 {
		t.Fatalf("the real register sample has %d codes; want its 428", len(realCodes))
	}
	for code, name := range demo {
		if r, ok := realCodes[code]; ok {
			t.Errorf("demo BA code %s (%q) is the real code of %q", code, name, r)
		}
		if r, ok := realNames[key(name)]; ok {
			t.Errorf("demo operator %q is the real %q", name, r)
		}
	}
	// Disposition holders (mineral holders are not operators) and OWA
	// licensees are invented too.
	for _, prov := range []string{"AB", "SK", "MB"} {
		name := "Crown_Dispositions_" + prov + ".csv"
		if err := energyingest.ReadDispositionsCSV(bytes.NewReader(demoFile(t, name)), name, func(d energyingest.Disposition) error {
			if _, ok := realNames[key(d.Holder)]; ok || !strings.HasSuffix(d.Holder, " (demo)") {
				t.Errorf("%s: disposition %s holder %q", name, d.Number, d.Holder)
			}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
	}
	for _, s := range demoOrphans(t) {
		if _, ok := realNames[key(s.Licensee)]; ok || !strings.HasSuffix(s.Licensee, " (DEMO)") {
			t.Errorf("orphan site %s licensee %q", s.SiteName, s.Licensee)
		}
	}
	// The key is strict enough to catch the real names the demo used to carry.
	if _, ok := realNames[key("Gulf Canada Limited")]; !ok {
		t.Error("key does not find a real register name")
	}
}

func demoPetrinexWells(t testing.TB, prov string) map[string]energyingest.PetrinexWell {
	t.Helper()
	name := "Well Infrastructure-" + prov + ".csv"
	m := map[string]energyingest.PetrinexWell{}
	var ns ingest.Notices
	if err := energyingest.ReadPetrinexWells(bytes.NewReader(demoFile(t, name)), name, energyingest.ReadOptions{Notices: &ns}, func(w energyingest.PetrinexWell) error {
		if _, ok := energyingest.ParseTrajectory(string(w.Trajectory)); !ok {
			t.Errorf("%s: HorizontalDrill %q is not a real trajectory word", w.Identifier, w.Trajectory)
		}
		m[w.Identifier] = w
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if ns.Total() != 0 {
		t.Errorf("the demo %s writes values the real file does not have: %v", name, ns.Lines())
	}
	return m
}

func TestDemoWellInfrastructure(t *testing.T) {
	t.Parallel()
	st37 := demoWells(t, "WellList_2026-11.txt")
	// Horizontal: roles 1, 2 and 8 of AB townships, 0, 1 and 9 of SK, 0
	// and 1 of MB.
	for prov, want := range map[string][3]int{"AB": {120, 8, 24}, "SK": {40, 1, 12}, "MB": {24, 0, 6}} {
		ws := demoPetrinexWells(t, prov)
		orphans, hz := 0, 0
		for u, w := range ws {
			if w.Orphan {
				orphans++
			}
			if w.Trajectory == energyingest.Horizontal {
				hz++
			}
			if w.WellID != prov+"WI"+u || w.Province != prov || w.Location.Unit != lld.LSD {
				t.Errorf("%s: %+v", u, w)
			}
			if prov == "AB" {
				s, ok := st37[u]
				if !ok || s.Licence != w.LicenceNumber || s.LicenseeBA != w.LicenseeBA || s.Status != w.Status || s.Location != w.Location {
					t.Errorf("%s: ST37 %+v and Petrinex %+v disagree", u, s, w)
				}
			}
		}
		if len(ws) != want[0] || orphans != want[1] || hz != want[2] {
			t.Errorf("%s: %d wells, %d orphans, %d horizontal; want %v", prov, len(ws), orphans, hz, want)
		}
	}
}

func TestDemoFacilities(t *testing.T) {
	t.Parallel()
	subtypes := map[string]bool{}
	for prov, want := range map[string]int{"AB": 36, "SK": 8, "MB": 4} {
		name := "Facility Infrastructure-" + prov + ".csv"
		n, orphans := 0, 0
		if err := energyingest.ReadFacilities(bytes.NewReader(demoFile(t, name)), name, func(f energyingest.Facility) error {
			n++
			subtypes[f.SubType] = true
			if f.Orphan {
				orphans++
			}
			if f.Location.Unit != lld.LSD || !strings.HasPrefix(f.ID, prov+f.Type) || f.SubTypeDesc == "" {
				t.Errorf("facility %+v", f)
			}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		if n != want || prov == "AB" && orphans != 3 {
			t.Errorf("%s: %d facilities (%d orphaned), want %d", prov, n, orphans, want)
		}
	}
	if len(subtypes) != 11 {
		t.Errorf("subtypes %v, want the 11 of docs/data-sources.md §0.2", subtypes)
	}
}

// TestDemoVolumetrics reads the 42 monthly files and checks what the
// energy report needs: trailing-12-month production per well, shut-ins,
// confidential and amended rows, and that every well row joins to Well
// Infrastructure.
func TestDemoVolumetrics(t *testing.T) {
	t.Parallel()
	type stats struct{ rows, conf, confVol, negative, shutin, prodRows int }
	got := map[string]*stats{}
	ttm := map[string]float64{} // AB gas, trailing 12 months to 2026-10
	months := demoMonths()
	for _, prov := range []string{"AB", "SK", "MB"} {
		st := &stats{}
		got[prov] = st
		wells := demoPetrinexWells(t, prov)
		for _, m := range months {
			name := "Vol_" + m + "-" + prov + ".csv"
			err := energyingest.ReadVolumetrics(bytes.NewReader(demoFile(t, name)), name, func(v energyingest.Volumetric) error {
				st.rows++
				if v.Month != m || v.Facility.Location.Unit != lld.LSD {
					t.Errorf("%s: month %s location %v", name, v.Month, v.Facility.Location)
				}
				if v.FromToConfidential {
					st.conf++
				}
				if v.Volume.Confidential {
					st.confVol++
				}
				if v.Volume.Value < 0 {
					st.negative++
				}
				if v.Activity == "SHUTIN" {
					st.shutin++
				}
				if u, ok := v.WellUWI(); ok {
					if _, ok := wells[u]; !ok {
						t.Errorf("%s: well %s is not in Well Infrastructure", name, u)
					}
					if v.Activity == "PROD" {
						st.prodRows++
						if prov == "AB" && v.Product == "GAS" && m >= "2025-11" {
							ttm[u] += v.Volume.Value
						}
					}
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
		}
	}
	// conf: DISP OIL to "***" for every oil battery month (AB 134, SK 56,
	// MB 42) plus the PROD rows of the confidential wells (AB 2 wells x 11
	// months x 3 products, SK 1 x 14 x 3). confVol: the one AB well whose
	// volumes are withheld too. shutin: 8 AB wells x 6 months, 4 SK and 3
	// MB wells x 5 months. prodRows: PROD rows that name a well (see the
	// package's demo roles).
	want := map[string]*stats{
		"AB": {rows: 3815, conf: 200, confVol: 33, negative: 2, shutin: 48, prodRows: 1327},
		"SK": {rows: 1476, conf: 98, confVol: 0, negative: 0, shutin: 20, prodRows: 669},
		"MB": {rows: 765, conf: 42, confVol: 0, negative: 0, shutin: 15, prodRows: 414},
	}
	if d := cmp.Diff(want, got, cmp.AllowUnexported(stats{})); d != "" {
		t.Errorf("volumetrics (-want +got):\n%s", d)
	}
	// Wells with gas in the trailing 12 months: 5 producers in each of 8
	// townships, less the 2 confidential ones.
	if len(ttm) != 38 {
		t.Errorf("%d AB wells with trailing-12-month gas, want 38", len(ttm))
	}
}

func TestDemoNGL(t *testing.T) {
	t.Parallel()
	n, wells := 0, map[string]bool{}
	var gas float64
	name := "NGL_AB_marketable_gas_volumes.csv"
	if err := energyingest.ReadNGLVolumes(bytes.NewReader(demoFile(t, name)), name, energyingest.ReadOptions{}, func(v energyingest.NGLVolume) error {
		n++
		wells[v.UWI] = true
		gas += v.Gas.Value
		if v.ResidueGas.Value >= v.Gas.Value || len(v.WellLicence) != 7 {
			t.Errorf("row %+v", v)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	// Gas wells: roles 0 and 3 for 14 months and role 4 for 8, in 8 townships.
	if n != 8*(14+14+8) || len(wells) != 24 {
		t.Errorf("%d rows, %d wells; want 288, 24", n, len(wells))
	}
	// The same gas as the volumetrics' PROD rows (without the amendment).
	prod := 0.0
	for _, m := range demoMonths() {
		name := "Vol_" + m + "-AB.csv"
		err := energyingest.ReadVolumetrics(bytes.NewReader(demoFile(t, name)), name, func(v energyingest.Volumetric) error {
			if u, ok := v.WellUWI(); ok && wells[u] && v.Activity == "PROD" && v.Product == "GAS" && v.Volume.Value > 0 {
				prod += v.Volume.Value
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if math.Abs(prod-gas) > 1e-6 {
		t.Errorf("NGL gas %.1f, volumetrics %.1f", gas, prod)
	}
}

func TestDemoPipelines(t *testing.T) {
	t.Parallel()
	var fromJSON, fromSHP []energyingest.Pipeline
	if err := energyingest.ReadPipelinesGeoJSON(bytes.NewReader(demoFile(t, "Pipelines_GCS_NAD83.geojson")), "p.geojson", energyingest.ReadOptions{}, func(p energyingest.Pipeline) error {
		fromJSON = append(fromJSON, p)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if err := energyingest.ReadPipelinesShapefile(bytes.NewReader(demoFile(t, "Pipelines_GCS_NAD83.shp")), bytes.NewReader(demoFile(t, "Pipelines_GCS_NAD83.dbf")),
		string(demoFile(t, "Pipelines_GCS_NAD83.prj")), "Pipelines_GCS_NAD83.shp", energyingest.ReadOptions{}, func(p energyingest.Pipeline) error {
			fromSHP = append(fromSHP, p)
			return nil
		}); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(fromJSON, fromSHP); d != "" {
		t.Errorf("GeoJSON and shapefile differ (-geojson +shapefile):\n%s", d)
	}
	statuses := map[string]int{}
	sour, multi := 0, 0
	for _, p := range fromJSON {
		statuses[p.Status]++
		if p.Substances[0] == "Sour Natural Gas" {
			sour++
			if p.H2SContent.Value < 5 {
				t.Errorf("%s: sour with H2S %v", p.LicenceLine, p.H2SContent)
			}
		}
		if _, ok := p.Geometry.(orb.MultiLineString); ok {
			multi++
		}
		if p.From.Unit != lld.LSD || p.To.Unit != lld.LSD || p.LengthKM.Value <= 0 || p.MAOPkPa.Value <= 0 {
			t.Errorf("segment %+v", p)
		}
	}
	if len(fromJSON) != 42 || sour != 8 || multi != 1 {
		t.Errorf("%d segments, %d sour, %d multi-part; want 42, 8, 1", len(fromJSON), sour, multi)
	}
	// 3 operating lines per township and the 2 trunks; the orphan wells'
	// lines discontinued; the salt water lines in every status.
	want := map[string]int{"Operating": 28, "Discontinued": 10, "Abandoned": 1, "Removed": 1, "Permitted": 1, "Not Constructed": 1}
	if d := cmp.Diff(want, statuses); d != "" {
		t.Errorf("statuses (-want +got):\n%s", d)
	}
}

func TestDemoDispositions(t *testing.T) {
	t.Parallel()
	// Count, PNG, mineral, continued, expiring within 24 months of
	// demo.AsOf: AB 4 licences + 1 lease + 1 permit; MB 2 leases + 1
	// licence; SK publishes no expiry.
	for prov, want := range map[string][5]int{"AB": {32, 24, 8, 8, 6}, "SK": {8, 4, 4, 0, 0}, "MB": {6, 3, 3, 0, 3}} {
		var fromCSV, fromGeo []energyingest.Disposition
		name := "Crown_Dispositions_" + prov
		if err := energyingest.ReadDispositionsCSV(bytes.NewReader(demoFile(t, name+".csv")), name+".csv", func(d energyingest.Disposition) error {
			fromCSV = append(fromCSV, d)
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		if err := energyingest.ReadDispositionsGeoJSON(bytes.NewReader(demoFile(t, name+".geojson")), name+".geojson", func(d energyingest.Disposition) error {
			if d.Geometry == nil {
				t.Errorf("%s without geometry", d.Number)
			}
			d.Geometry = nil
			fromGeo = append(fromGeo, d)
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(fromCSV, fromGeo); d != "" {
			t.Errorf("%s: CSV and GeoJSON differ (-csv +geojson):\n%s", prov, d)
		}
		png, mineral, continued, expiring := 0, 0, 0, 0
		for _, d := range fromCSV {
			switch d.Kind {
			case energyingest.KindPNG:
				png++
			case energyingest.KindMineral:
				mineral++
			}
			if d.Continued {
				continued++
			}
			if d.ExpiresWithin(demodata.AsOf(), 24) {
				expiring++
			}
			if d.Province != prov || len(d.Lands) == 0 || d.AreaHa.Value <= 0 {
				t.Errorf("disposition %+v", d)
			}
		}
		if got := [5]int{len(fromCSV), png, mineral, continued, expiring}; got != want {
			t.Errorf("%s: %d dispositions, %d PNG, %d mineral, %d continued, %d expiring within 24 months; want %v", prov, got[0], got[1], got[2], got[3], got[4], want)
		}
	}
}

// demoOrphans reads the demo OWA inventory.
func demoOrphans(t *testing.T) []energyingest.OrphanSite {
	t.Helper()
	b := demoFile(t, "Reporting - Full Inventory - 2026-11-01 13.41.42.xlsx")
	var rows []energyingest.OrphanSite
	if err := energyingest.ReadOrphanInventory(bytes.NewReader(b), int64(len(b)), "owa.xlsx", func(s energyingest.OrphanSite) error {
		rows = append(rows, s)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return rows
}

func TestDemoOrphans(t *testing.T) {
	t.Parallel()
	rows := demoOrphans(t)
	components := map[string]int{}
	qualifiers := map[string]int{}
	suffixes := map[string]int{}
	for _, s := range rows {
		components[s.ComponentType]++
		qualifiers[s.Qualifier]++
		suffixes[s.Suffix]++
	}
	if len(rows) != 15 {
		t.Errorf("%d rows, want 15", len(rows))
	}
	if d := cmp.Diff(map[string]int{"Well & Access Road": 8, "Facility": 3, "Pipeline": 4}, components); d != "" {
		t.Errorf("components (-want +got):\n%s", d)
	}
	if d := cmp.Diff(map[string]int{"100": 11, "Multi": 2, "Facility": 2}, qualifiers); d != "" {
		t.Errorf("qualifiers (-want +got):\n%s", d)
	}
	if d := cmp.Diff(map[string]int{"": 11, "WIPA": 2, "MIXED": 2}, suffixes); d != "" {
		t.Errorf("suffixes (-want +got):\n%s", d)
	}
	// Every orphan well joins to ST37 by licence and to its site's LSD.
	byLicence := map[string]energyingest.Well{}
	for _, w := range demoWells(t, "WellList_2026-11.txt") {
		byLicence[w.Licence] = w
	}
	for _, s := range rows {
		if s.ComponentType != "Well & Access Road" {
			continue
		}
		w, ok := byLicence[s.LicenceNumber]
		if !ok || w.Location != s.Location || w.LicenceStatus == "Issued" {
			t.Errorf("orphan %+v: ST37 well %+v", s, w)
		}
		if le, ok := s.LE(); s.Qualifier == "100" && (!ok || le != w.LE) {
			t.Errorf("orphan %s: LE %q, well %s", s.SiteName, le, w.UWI)
		}
	}
}
