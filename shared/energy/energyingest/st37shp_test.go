package energyingest_test

import (
	"bytes"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/paulmach/orb"

	"meridian/shared/energy/energyingest"
	"meridian/shared/ingest"
	"meridian/shared/ingest/shp"
)

// The ST37 shapefiles' fields as a loader of the real files reads them
// (docs/real-layouts.md, id 23718322573). Licences and companies here are
// invented; OBJECTID stands for the fields the loader does not name.
var (
	surfaceHoleFields = []shp.Field{
		{Name: "OBJECTID", Type: shp.Numeric, Length: 10}, {Name: "Licence", Type: shp.Character, Length: 10},
		{Name: "CompName", Type: shp.Character, Length: 60}, {Name: "Latitude", Type: shp.Numeric, Length: 19, Decimals: 8},
		{Name: "Longitude", Type: shp.Numeric, Length: 19, Decimals: 8}, {Name: "LicStatDat", Type: shp.Date, Length: 8},
	}
	bottomHoleFields = []shp.Field{
		{Name: "License", Type: shp.Character, Length: 10}, {Name: "Operator", Type: shp.Character, Length: 60},
		{Name: "BH_Lat", Type: shp.Numeric, Length: 19, Decimals: 8}, {Name: "BH_Long", Type: shp.Numeric, Length: 19, Decimals: 8},
		{Name: "LicDate", Type: shp.Date, Length: 8}, {Name: "StatDate", Type: shp.Date, Length: 8},
	}
)

type holeRecord struct {
	geom  orb.Geometry
	attrs []string
}

func holeShapefile(t testing.TB, typ shp.ShapeType, fields []shp.Field, recs ...holeRecord) (shpB, dbfB []byte) {
	t.Helper()
	var s, x, d shp.Buffer
	w, err := shp.NewWriter(&s, &x, &d, typ, fields, shp.WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range recs {
		if err := w.Write(r.geom, r.attrs); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return s.Bytes(), d.Bytes()
}

func readHoles(t *testing.T, shpB, dbfB []byte, prj string) ([]energyingest.WellHole, []ingest.Layout, error) {
	t.Helper()
	var got []energyingest.WellHole
	var layouts []ingest.Layout
	err := energyingest.ReadWellHoles(bytes.NewReader(shpB), bytes.NewReader(dbfB), prj, "ST37_SH_GCS_NAD83.shp",
		energyingest.ReadOptions{Layout: func(l ingest.Layout) { layouts = append(layouts, l) }}, func(h energyingest.WellHole) error {
			got = append(got, h)
			return nil
		})
	return got, layouts, err
}

const gcsNAD83 = `GEOGCS["GCS_North_American_1983",DATUM["D_North_American_1983",SPHEROID["GRS_1980",6378137.0,298.257222101]],PRIMEM["Greenwich",0.0],UNIT["Degree",0.0174532925199433]]`

func TestReadWellHolesSurface(t *testing.T) {
	t.Parallel()
	shpB, dbfB := holeShapefile(t, shp.Point, surfaceHoleFields,
		holeRecord{orb.Point{-113.5, 53.5}, []string{"1", "9999901", "DEMO OPERATOR LTD (INVENTED)", "53.50000100", "-113.50000200", "20190314"}},
		// No coordinate fields: the shape places it.
		holeRecord{orb.Point{-114.25, 51.75}, []string{"2", "9999902", "DEMO OPERATOR LTD (INVENTED)", "", "", ""}},
	)
	got, layouts, err := readHoles(t, shpB, dbfB, gcsNAD83)
	if err != nil {
		t.Fatal(err)
	}
	want := []energyingest.WellHole{
		{Kind: energyingest.SurfaceHole, Licence: "9999901", Company: "DEMO OPERATOR LTD (INVENTED)", Point: orb.Point{-113.500002, 53.500001},
			LicenceStatusDate: day(2019, 3, 14), Other: map[string]string{"OBJECTID": "1"}},
		{Kind: energyingest.SurfaceHole, Licence: "9999902", Company: "DEMO OPERATOR LTD (INVENTED)", Point: orb.Point{-114.25, 51.75},
			Other: map[string]string{"OBJECTID": "2"}},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("ReadWellHoles (-want +got):\n%s", d)
	}
	if len(layouts) != 1 || layouts[0] != energyingest.ST37SurfaceHoleLayout {
		t.Errorf("layouts %v, want ST37SurfaceHoleLayout", layouts)
	}
}

func TestReadWellHolesBottom(t *testing.T) {
	t.Parallel()
	shpB, dbfB := holeShapefile(t, shp.MultiPoint, bottomHoleFields,
		holeRecord{orb.MultiPoint{{-113.49, 53.51}}, []string{"9999901", "DEMO OPERATOR LTD (INVENTED)", "53.51", "-113.49", "20181102", "20190314"}})
	got, layouts, err := readHoles(t, shpB, dbfB, "")
	if err != nil {
		t.Fatal(err)
	}
	want := []energyingest.WellHole{{Kind: energyingest.BottomHole, Licence: "9999901", Company: "DEMO OPERATOR LTD (INVENTED)", Point: orb.Point{-113.49, 53.51},
		LicenceDate: day(2018, 11, 2), StatusDate: day(2019, 3, 14)}}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("ReadWellHoles (-want +got):\n%s", d)
	}
	if len(layouts) != 1 || layouts[0] != energyingest.ST37BottomHoleLayout {
		t.Errorf("layouts %v, want ST37BottomHoleLayout", layouts)
	}
}

func TestReadWellHolesRejects(t *testing.T) {
	t.Parallel()
	good := []string{"1", "9999901", "DEMO", "53.5", "-113.5", "20190314"}
	with := func(i int, v string) []string {
		a := append([]string(nil), good...)
		a[i] = v
		return a
	}
	pt := orb.Point{-113.5, 53.5}
	textCoords := append([]shp.Field(nil), surfaceHoleFields...)
	textCoords[3] = shp.Field{Name: "Latitude", Type: shp.Character, Length: 20}
	cases := []struct {
		name   string
		fields []shp.Field
		rec    holeRecord
		prj    string
		line   int
		want   []string
	}{
		{"unknown fields", []shp.Field{{Name: "UWI", Type: shp.Character, Length: 20}}, holeRecord{pt, []string{"x"}}, "", 0, []string{"neither Licence and Latitude"}},
		{"projected", surfaceHoleFields, holeRecord{pt, good}, `PROJCS["NAD_1983_10TM_AEP_Forest"]`, 0, []string{"not a geographic"}},
		{"no licence", surfaceHoleFields, holeRecord{pt, with(1, "")}, gcsNAD83, 1, []string{"Licence: empty"}},
		{"bad latitude", textCoords, holeRecord{pt, with(3, "5.3e")}, gcsNAD83, 1, []string{"column Latitude/Longitude", `"5.3e -113.5"`, "decimal degrees"}},
		{"swapped", surfaceHoleFields, holeRecord{pt, with(3, "-113.5")}, gcsNAD83, 1, []string{"not in Alberta"}},
		{"no place", surfaceHoleFields, holeRecord{nil, with(4, "")}, gcsNAD83, 1, []string{"no place"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			shpB, dbfB := holeShapefile(t, shp.Point, tc.fields, tc.rec)
			_, _, err := readHoles(t, shpB, dbfB, tc.prj)
			wantIngestError(t, err, "ST37_SH_GCS_NAD83.shp", tc.line, tc.want...)
		})
	}
}

func FuzzReadWellHoles(f *testing.F) {
	shpB, dbfB := holeShapefile(f, shp.Point, surfaceHoleFields,
		holeRecord{orb.Point{-113.5, 53.5}, []string{"1", "9999901", "DEMO", "53.5", "-113.5", "20190314"}})
	f.Add(shpB, dbfB)
	shpB, dbfB = holeShapefile(f, shp.MultiPoint, bottomHoleFields,
		holeRecord{orb.MultiPoint{{-113.49, 53.51}}, []string{"9999901", "DEMO", "53.51", "-113.49", "20181102", "20190314"}})
	f.Add(shpB, dbfB)
	f.Fuzz(func(t *testing.T, shpB, dbfB []byte) {
		err := energyingest.ReadWellHoles(bytes.NewReader(shpB), bytes.NewReader(dbfB), "", "h.shp", energyingest.ReadOptions{}, func(h energyingest.WellHole) error {
			if h.Licence == "" || h.Kind == 0 {
				t.Fatalf("hole %+v", h)
			}
			return nil
		})
		checkFuzzError(t, err, 0)
	})
}

func TestWellListLayout(t *testing.T) {
	t.Parallel()
	var columns []int
	if err := energyingest.ReadWellList(openSample(t, st37Sample), "WellList.txt", func(w energyingest.Well) error {
		if len(columns) == 0 {
			columns = append(columns, w.Columns)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if l, ok := energyingest.WellListLayout(columns[0]); !ok || l != energyingest.WellList18Layout || !l.Verified {
		t.Errorf("the 2017 sample: %d columns, layout %v", columns[0], l)
	}
	if l, ok := energyingest.WellListLayout(24); !ok || l != energyingest.WellList24Layout {
		t.Errorf("24 columns: %v", l)
	}
	if _, ok := energyingest.WellListLayout(20); ok {
		t.Error("20 columns have a layout")
	}
}
