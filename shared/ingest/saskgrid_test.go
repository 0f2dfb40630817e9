package ingest_test

import (
	"bytes"
	"testing"

	"github.com/paulmach/orb"

	"meridian/shared/fixture"
	"meridian/shared/ingest"
	"meridian/shared/ingest/shp"
	"meridian/shared/lld"
	"meridian/shared/survey"
	"meridian/shared/survey/dls"
	"meridian/shared/survey/gridindex"
)

// shapefileParts returns a fixture layer's .shp, .dbf and .prj.
func shapefileParts(t testing.TB, layer string) (shpB, dbfB []byte, prj string) {
	t.Helper()
	return fixtureFile(t, layer+".shp"), fixtureFile(t, layer+".dbf"), string(fixtureFile(t, layer+".prj"))
}

func TestReadSaskGridFixture(t *testing.T) {
	t.Parallel()
	n := len(fixture.SKTownships)
	for _, tc := range []struct {
		layer string
		unit  lld.Unit
		count int
	}{
		{fixture.SKTownshipLayer, lld.Township, n},
		{fixture.SKSectionLayer, lld.Section, 36 * n},
		{fixture.SKQuarterLayer, lld.QuarterSection, 144 * n},
		{fixture.SKLSDLayer, lld.LSD, 576 * n},
	} {
		t.Run(tc.layer, func(t *testing.T) {
			s, d, prj := shapefileParts(t, tc.layer)
			var recs []gridindex.Record
			st, err := ingest.ReadSaskGrid(bytes.NewReader(s), bytes.NewReader(d), prj, tc.layer+".shp", collect(&recs))
			if err != nil {
				t.Fatal(err)
			}
			if st.Rows != tc.count || len(recs) != tc.count {
				t.Errorf("stats %v, %d records; want %d", st, len(recs), tc.count)
			}
			for _, r := range recs {
				checkRecord(t, r, survey.SK)
				if r.Location.Unit != tc.unit {
					t.Fatalf("%s in the %s layer", r.Location, tc.unit)
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

// skShapefile writes a one-field SaskGrid-style layer of model boxes.
func skShapefile(t testing.TB, field string, descs ...string) (shpB, dbfB []byte) {
	t.Helper()
	var s, x, d shp.Buffer
	w, err := shp.NewWriter(&s, &x, &d, shp.Polygon, []shp.Field{{Name: field, Type: shp.Character, Length: 40}}, shp.WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// Coordinates in UTM 13N near Regina.
	for i, desc := range descs {
		x0, y0 := 520000.0+float64(i)*2000, 5590000.0
		ring := orb.Ring{{x0, y0}, {x0 + 1600, y0}, {x0 + 1600, y0 + 1600}, {x0, y0 + 1600}, {x0, y0}}
		if err := w.Write(orb.Polygon{ring}, []string{desc}); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return s.Bytes(), d.Bytes()
}

func TestReadSaskGridFields(t *testing.T) {
	t.Parallel()
	_, _, prj := shapefileParts(t, fixture.SKTownshipLayer)
	for _, tc := range []struct {
		field, desc, want string
	}{
		{"LEGAL", "NE-1-17-19-W2", "NE-1-17-19-W2"},
		{"lld", "SW 36-17-19 W2M", "SW-36-17-19-W2"},
		{"Label", "17-19-W3", "17-19-W3"},
		{"DESCRIPTOR", "QS-NE SEC-25 TWP-024 RGE-01 MER-1", "NE-25-24-1-W1"},
		{"DESCRIPTOR", "TWP-017 RGE-19 MER-2", "17-19-W2"},
	} {
		s, d := skShapefile(t, tc.field, tc.desc)
		var recs []gridindex.Record
		if _, err := ingest.ReadSaskGrid(bytes.NewReader(s), bytes.NewReader(d), prj, "t.shp", collect(&recs)); err != nil {
			t.Fatalf("%s %q: %v", tc.field, tc.desc, err)
		}
		if got := recs[0].Location.String(); got != tc.want {
			t.Errorf("%s %q = %s, want %s", tc.field, tc.desc, got, tc.want)
		}
	}
}

func TestReadSaskGridErrors(t *testing.T) {
	t.Parallel()
	s, d, prj := shapefileParts(t, fixture.SKSectionLayer)
	// A projection package proj does not convert (Lambert Conformal Conic,
	// used here before, now converts).
	unsupported := `PROJCS["NAD_1983_Lambert_Azimuthal",GEOGCS["GCS_North_American_1983",DATUM["D_North_American_1983",SPHEROID["GRS_1980",6378137.0,298.257222101]],PRIMEM["Greenwich",0.0],UNIT["Degree",0.0174532925199433]],PROJECTION["Lambert_Azimuthal_Equal_Area"],PARAMETER["False_Easting",0.0],PARAMETER["False_Northing",0.0],PARAMETER["Central_Meridian",-106.0],PARAMETER["Latitude_Of_Origin",49.0],UNIT["Meter",1.0]]`
	badS, badD := skShapefile(t, "LEGAL", "NE-1-17-19-W2", "not a description")
	w4S, w4D := skShapefile(t, "LEGAL", "NE-1-17-19-W4")
	noneS, noneD := skShapefile(t, "NAME", "Regina")
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
		{"truncated dbf", s, d[:len(d)-100], prj, 68, ".dbf"},
		{"bad description", badS, badD, prj, 2, "not a description"},
		{"not Saskatchewan", w4S, w4D, prj, 1, "not in Saskatchewan"},
		{"no description fields", noneS, noneD, prj, 1, "no legal description"},
		{"not a shapefile", []byte("hello"), d, prj, 0, "header"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ingest.ReadSaskGrid(bytes.NewReader(tc.shp), bytes.NewReader(tc.dbf), tc.prj, "g.shp", func(gridindex.Record) error { return nil })
			if err == nil {
				t.Fatal("succeeded")
			}
			wantError(t, err, "g.shp", tc.line, tc.reason)
		})
	}
}

func FuzzReadSaskGrid(f *testing.F) {
	s, d, prj := shapefileParts(f, fixture.SKTownshipLayer)
	f.Add(s, d)
	s2, d2, _ := shapefileParts(f, fixture.SKQuarterLayer)
	f.Add(s2[:2000], d2[:600])
	ds, dd := skShapefile(f, "DESCRIPTOR", "LSD-01 SEC-01 TWP-017 RGE-19 MER-2")
	f.Add(ds, dd)
	f.Fuzz(func(t *testing.T, shpB, dbfB []byte) {
		_, err := ingest.ReadSaskGrid(bytes.NewReader(shpB), bytes.NewReader(dbfB), prj, "f.shp", func(r gridindex.Record) error {
			if r.Province != survey.SK || r.Geometry == nil {
				t.Fatalf("%s: province %v, geometry %v", r.Location, r.Province, r.Geometry)
			}
			return nil
		})
		if !isIngestError(err) {
			t.Fatalf("error %v (%T) is not an *ingest.Error", err, err)
		}
	})
}

func BenchmarkReadSaskGridLSD(b *testing.B) {
	s, d, prj := shapefileParts(b, fixture.SKLSDLayer)
	b.SetBytes(int64(len(s) + len(d)))
	b.ReportAllocs()
	n := 0
	for b.Loop() {
		st, err := ingest.ReadSaskGrid(bytes.NewReader(s), bytes.NewReader(d), prj, "lsd.shp", func(gridindex.Record) error { return nil })
		if err != nil {
			b.Fatal(err)
		}
		n = st.Records
	}
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "records/s")
}
