package gridingest_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/paulmach/orb"

	"meridian/shared/demo/griddemo"
	"meridian/shared/ingest"
	"meridian/shared/ingest/shp"
	"meridian/shared/lld"
	"meridian/shared/survey"
	"meridian/shared/survey/dls"
	"meridian/shared/survey/gridindex"
	"meridian/shared/survey/gridingest"
)

// shapefileParts returns a fixture layer's .shp, .dbf and .prj.
func shapefileParts(t testing.TB, layer string) (shpB, dbfB []byte, prj string) {
	t.Helper()
	return fixtureFile(t, layer+".shp"), fixtureFile(t, layer+".dbf"), string(fixtureFile(t, layer+".prj"))
}

func TestReadSaskGridFixture(t *testing.T) {
	t.Parallel()
	n := len(griddemo.SKTownships)
	for _, tc := range []struct {
		layer  string
		unit   lld.Unit
		count  int
		layout ingest.Layout
	}{
		{griddemo.SKTownshipLayer, lld.Township, n, gridingest.SaskGridTownshipLayout},
		{griddemo.SKSectionLayer, lld.Section, 36 * n, gridingest.SaskGridSectionLayout},
		{griddemo.SKQuarterLayer, lld.QuarterSection, 144 * n, gridingest.SaskGridQuarterLayout},
		{griddemo.SKLSDLayer, lld.LSD, 576 * n, gridingest.SaskGridLSDLayout},
	} {
		t.Run(tc.layer, func(t *testing.T) {
			s, d, prj := shapefileParts(t, tc.layer)
			var recs []gridindex.Record
			var layouts []ingest.Layout
			var ns ingest.Notices
			st, err := gridingest.ReadSaskGrid(bytes.NewReader(s), bytes.NewReader(d), prj, tc.layer+".shp", collect(&recs),
				gridingest.SaskGridOptions{Notices: &ns, Layout: func(l ingest.Layout) { layouts = append(layouts, l) }})
			if err != nil {
				t.Fatal(err)
			}
			if st.Rows != tc.count || len(recs) != tc.count {
				t.Errorf("stats %v, %d records; want %d", st, len(recs), tc.count)
			}
			if len(layouts) != 1 || layouts[0] != tc.layout {
				t.Errorf("layouts %v, want %v once", layouts, tc.layout)
			}
			if ns.Total() != 0 {
				t.Errorf("notices %q: the fixture writes FEATURECD THEORETIC only", ns.Lines())
			}
			for _, r := range recs {
				checkRecord(t, r, survey.SK)
				if r.Location.Unit != tc.unit {
					t.Fatalf("%s in the %s layer", r.Location, tc.unit)
				}
				if r.AccuracyM != 200 {
					t.Fatalf("%s: AccuracyM %v, want 200", r.Location, r.AccuracyM)
				}
				// The fixture draws the model's boxes: vertices within
				// 1e-7° (1 cm) after the UTM round trip.
				b := dls.Bound(r.Location)
				want := orb.Ring{b.Min, {b.Max[0], b.Min[1]}, b.Max, {b.Min[0], b.Max[1]}, b.Min}
				got := r.Geometry.(orb.Polygon)[0]
				if len(got) != 5 {
					t.Fatalf("%s: %d vertices", r.Location, len(got))
				}
				// The reader may start the ring anywhere.
				start := -1
				for i := range 4 {
					if near(got[i], want[0], 1e-7) {
						start = i
					}
				}
				if start < 0 {
					t.Fatalf("%s = %v, want %v", r.Location, got, want)
				}
				for i := range 4 {
					if !near(got[(start+i)%4], want[i], 1e-7) {
						t.Fatalf("%s = %v, want %v", r.Location, got, want)
					}
				}
			}
			byLocation(t, recs)
		})
	}
}

// skShapefile writes a SaskGrid layer with text fields, one model-sized
// box per row (UTM 13N near Regina).
func skShapefile(t testing.TB, fields []string, rows ...[]string) (shpB, dbfB []byte) {
	t.Helper()
	var s, x, d shp.Buffer
	var fs []shp.Field
	for _, f := range fields {
		fs = append(fs, shp.Field{Name: f, Type: shp.Character, Length: 16})
	}
	w, err := shp.NewWriter(&s, &x, &d, shp.Polygon, fs, shp.WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for i, row := range rows {
		x0, y0 := 520000.0+float64(i)*2000, 5590000.0
		ring := orb.Ring{{x0, y0}, {x0 + 1600, y0}, {x0 + 1600, y0 + 1600}, {x0, y0 + 1600}, {x0, y0}}
		if err := w.Write(orb.Polygon{ring}, row); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return s.Bytes(), d.Bytes()
}

var skLSDFields = []string{"LSD", "PSECT", "PTWP", "PRGE", "PMER", "FEATURECD"}

// TestReadSaskGridFields reads the published field layout: text numbers
// with any zero padding, the layer told by its fields.
func TestReadSaskGridFields(t *testing.T) {
	t.Parallel()
	_, _, prj := shapefileParts(t, griddemo.SKTownshipLayer)
	for _, tc := range []struct {
		name   string
		fields []string
		row    []string
		want   string
		layout ingest.Layout
	}{
		{"LSD two digits", skLSDFields, []string{"06", "01", "017", "19", "2", "THEORETIC"}, "6-1-17-19-W2", gridingest.SaskGridLSDLayout},
		{"LSD one digit", skLSDFields, []string{"6", "1", "17", "19", "02", "THEORETIC"}, "6-1-17-19-W2", gridingest.SaskGridLSDLayout},
		{"LSD space padded", skLSDFields, []string{" 6", " 1", " 17", " 19", " 2", "THEORETIC"}, "6-1-17-19-W2", gridingest.SaskGridLSDLayout},
		{"LSD three digits", skLSDFields, []string{"006", "001", "017", "019", "002", "THEORETIC"}, "6-1-17-19-W2", gridingest.SaskGridLSDLayout},
		{"lower-case names, no FEATURECD", []string{"lsd", "psect", "ptwp", "prge", "pmer"}, []string{"16", "36", "1", "1", "3"}, "16-36-1-1-W3", gridingest.SaskGridLSDLayout},
		{"quarter", []string{"PQSECT", "PSECT", "PTWP", "PRGE", "PMER", "FEATURECD"}, []string{"ne", "01", "17", "19", "2", "THEORETIC"}, "NE-1-17-19-W2", gridingest.SaskGridQuarterLayout},
		{"section", []string{"PSECT", "PTWP", "PRGE", "PMER", "FEATURECD"}, []string{"25", "024", "01", "1", "THEORETIC"}, "25-24-1-W1", gridingest.SaskGridSectionLayout},
		{"township", []string{"PTWP", "PRGE", "PMER", "FEATURECD"}, []string{"017", "19", "2", "THEORETIC"}, "17-19-W2", gridingest.SaskGridTownshipLayout},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, d := skShapefile(t, tc.fields, tc.row)
			var recs []gridindex.Record
			var layout ingest.Layout
			if _, err := gridingest.ReadSaskGrid(bytes.NewReader(s), bytes.NewReader(d), prj, "t.shp", collect(&recs), gridingest.SaskGridOptions{Layout: func(l ingest.Layout) { layout = l }}); err != nil {
				t.Fatal(err)
			}
			if got := recs[0].Location.String(); got != tc.want {
				t.Errorf("%q = %s, want %s", tc.row, got, tc.want)
			}
			if layout != tc.layout {
				t.Errorf("layout %q, want %q", layout.Form, tc.layout.Form)
			}
		})
	}
}

// A FEATURECD other than THEORETIC is a notice: the block is kept.
func TestReadSaskGridNotices(t *testing.T) {
	t.Parallel()
	_, _, prj := shapefileParts(t, griddemo.SKTownshipLayer)
	s, d := skShapefile(t, skLSDFields,
		[]string{"1", "1", "17", "19", "2", "THEORETIC"},
		[]string{"2", "1", "17", "19", "2", "SURVEYED"},
		[]string{"3", "1", "17", "19", "2", "SURVEYED"},
		[]string{"4", "1", "17", "19", "2", ""})
	var recs []gridindex.Record
	var ns ingest.Notices
	if _, err := gridingest.ReadSaskGrid(bytes.NewReader(s), bytes.NewReader(d), prj, "n.shp", collect(&recs), gridingest.SaskGridOptions{Notices: &ns}); err != nil {
		t.Fatal(err)
	}
	if len(recs) != 4 {
		t.Errorf("%d records, want 4", len(recs))
	}
	lines := ns.Lines()
	if ns.Total() != 3 || len(lines) != 2 || !strings.HasPrefix(lines[0], `n.shp:2: column FEATURECD: new value "SURVEYED"`) || !strings.Contains(lines[0], "(2 rows)") || !strings.HasPrefix(lines[1], `n.shp:4: column FEATURECD: new value ""`) {
		t.Errorf("notices %d %q", ns.Total(), lines)
	}
}

func TestReadSaskGridErrors(t *testing.T) {
	t.Parallel()
	s, d, prj := shapefileParts(t, griddemo.SKSectionLayer)
	// A projection package proj does not convert (Lambert Conformal Conic,
	// used here before, now converts).
	unsupported := `PROJCS["NAD_1983_Lambert_Azimuthal",GEOGCS["GCS_North_American_1983",DATUM["D_North_American_1983",SPHEROID["GRS_1980",6378137.0,298.257222101]],PRIMEM["Greenwich",0.0],UNIT["Degree",0.0174532925199433]],PROJECTION["Lambert_Azimuthal_Equal_Area"],PARAMETER["False_Easting",0.0],PARAMETER["False_Northing",0.0],PARAMETER["Central_Meridian",-106.0],PARAMETER["Latitude_Of_Origin",49.0],UNIT["Meter",1.0]]`
	good := []string{"1", "1", "17", "19", "2", "THEORETIC"}
	lsd := func(bad ...[]string) ([]byte, []byte) {
		return skShapefile(t, skLSDFields, append([][]string{good}, bad...)...)
	}
	badSecS, badSecD := lsd([]string{"1", "37", "17", "19", "2", "THEORETIC"})
	merS, merD := lsd([]string{"1", "1", "17", "19", "W2", "THEORETIC"})
	mer4S, mer4D := lsd([]string{"1", "1", "17", "19", "4", "THEORETIC"})
	emptyS, emptyD := lsd([]string{"", "1", "17", "19", "2", "THEORETIC"})
	twpS, twpD := lsd([]string{"1", "1", "1 7", "19", "2", "THEORETIC"})
	qS, qD := skShapefile(t, []string{"PQSECT", "PSECT", "PTWP", "PRGE", "PMER"}, []string{"N", "1", "17", "19", "2"})
	w4S, w4D := skShapefile(t, []string{"PSECT", "PTWP", "PRGE", "PMER"}, []string{"1", "17", "19", "4"})
	legacyS, legacyD := skShapefile(t, []string{"LEGAL"}, []string{"NE-1-17-19-W2"})
	noSecS, noSecD := skShapefile(t, []string{"LSD", "PTWP", "PRGE", "PMER"}, []string{"1", "17", "19", "2"})
	tests := []struct {
		name     string
		shp, dbf []byte
		prj      string
		line     int
		reason   string
	}{
		{"unsupported projection", s, d, unsupported, 0, "unsupported"},
		{"no prj", s, d, "", 0, "no .prj"},
		{"truncated shp", s[:len(s)-50], d, prj, 72, "truncated"},
		{"truncated dbf", s, d[:len(d)-100], prj, 69, ".dbf"},
		{"section 37", badSecS, badSecD, prj, 2, `column PSECT: value "37" is not one of 1 to 36 as text`},
		{"meridian written W2", merS, merD, prj, 2, `column PMER: value "W2" is not one of 1 to 3`},
		{"meridian 4", mer4S, mer4D, prj, 2, `column PMER: value "4"`},
		{"empty LSD", emptyS, emptyD, prj, 2, `column LSD: value ""`},
		{"township with a space", twpS, twpD, prj, 2, `column PTWP: value "1 7"`},
		{"bad quarter", qS, qD, prj, 1, `column PQSECT: value "N" is not one of NE, NW, SW, SE`},
		{"not Saskatchewan", w4S, w4D, prj, 1, `column PMER: value "4"`},
		{"legacy LEGAL field", legacyS, legacyD, prj, 0, "not a SaskGrid layer"},
		{"LSD layer without PSECT", noSecS, noSecD, prj, 0, "needs the field PSECT"},
		{"not a shapefile", []byte("hello"), d, prj, 0, "header"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := gridingest.ReadSaskGrid(bytes.NewReader(tc.shp), bytes.NewReader(tc.dbf), tc.prj, "g.shp", func(gridindex.Record) error { return nil }, gridingest.SaskGridOptions{})
			if err == nil {
				t.Fatal("succeeded")
			}
			wantError(t, err, "g.shp", tc.line, tc.reason)
		})
	}
}

func FuzzReadSaskGrid(f *testing.F) {
	s, d, prj := shapefileParts(f, griddemo.SKTownshipLayer)
	f.Add(s, d)
	s2, d2, _ := shapefileParts(f, griddemo.SKQuarterLayer)
	f.Add(s2[:2000], d2[:600])
	ls, ld := skShapefile(f, skLSDFields, []string{" 6", "01", "017", "19", "002", "THEORETIC"}, []string{"7", "1", "17", "19", "2", "NEW"})
	f.Add(ls, ld)
	f.Fuzz(func(t *testing.T, shpB, dbfB []byte) {
		_, err := gridingest.ReadSaskGrid(bytes.NewReader(shpB), bytes.NewReader(dbfB), prj, "f.shp", func(r gridindex.Record) error {
			if r.Province != survey.SK || r.Geometry == nil {
				t.Fatalf("%s: province %v, geometry %v", r.Location, r.Province, r.Geometry)
			}
			return nil
		}, gridingest.SaskGridOptions{Notices: &ingest.Notices{}})
		if !isIngestError(err) {
			t.Fatalf("error %v (%T) is not an *ingest.Error", err, err)
		}
	})
}

func BenchmarkReadSaskGridLSD(b *testing.B) {
	s, d, prj := shapefileParts(b, griddemo.SKLSDLayer)
	b.SetBytes(int64(len(s) + len(d)))
	b.ReportAllocs()
	n := 0
	for b.Loop() {
		st, err := gridingest.ReadSaskGrid(bytes.NewReader(s), bytes.NewReader(d), prj, "lsd.shp", func(gridindex.Record) error { return nil }, gridingest.SaskGridOptions{})
		if err != nil {
			b.Fatal(err)
		}
		n = st.Records
	}
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "records/s")
}
