package ingest_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/paulmach/orb"

	"meridian/shared/fixture"
	"meridian/shared/ingest"
	"meridian/shared/lld"
	"meridian/shared/survey"
	"meridian/shared/survey/gridindex"
	"meridian/shared/teamdata"
)

const (
	mbSurveyName  = "Original_Survey_Legal_Descriptions_FIXTURE.csv"
	mbCornersName = "MB_QuarterSectionCorners_FIXTURE.csv"
)

func readMBSurveyFixture(t testing.TB) ([]gridindex.Record, ingest.Stats) {
	t.Helper()
	var recs []gridindex.Record
	st, err := ingest.ReadManitobaSurvey(bytes.NewReader(fixtureFile(t, fixture.MBSurveyFile)), mbSurveyName, collect(&recs))
	if err != nil {
		t.Fatal(err)
	}
	return recs, st
}

func TestReadManitobaSurveyFixture(t *testing.T) {
	t.Parallel()
	recs, st := readMBSurveyFixture(t)
	quarters := len(fixture.MBOfficial) + 143*len(fixture.MBFilledTownships)
	lots := len(fixture.MBLots)
	if st.Rows != quarters+lots+1 || st.Records != quarters+lots || len(recs) != st.Records {
		t.Errorf("stats %v (%d emitted), want %d rows, %d records", st, len(recs), quarters+lots+1, quarters+lots)
	}
	if st.Skipped["township lot"] != 1 || st.SkippedTotal() != 1 {
		t.Errorf("skipped %v, want 1 township lot", st.Skipped)
	}
	n := countUnits(recs)
	if n[lld.QuarterSection] != quarters || n[lld.RiverParishLot] != lots {
		t.Errorf("units %v, want %d quarters and %d lots", n, quarters, lots)
	}
	m := byLocation(t, recs)
	for _, r := range recs {
		checkRecord(t, r, survey.MB)
		if r.Geometry != nil || !r.HasCentroid || r.AccuracyM != 1 {
			t.Errorf("%s: geometry %v, HasCentroid %v, AccuracyM %v; want a centroid only, 1 m", r.Location, r.Geometry, r.HasCentroid, r.AccuracyM)
		}
	}
	for _, lot := range fixture.MBLots {
		l, err := lld.Parse(lot.LLD)
		if err != nil {
			t.Fatal(err)
		}
		r, ok := m[l.String()]
		if !ok {
			t.Errorf("no record for lot %s", lot.LLD)
			continue
		}
		if !near(r.Centroid, lot.Pt, 1e-7) {
			t.Errorf("%s centroid %v, want %v", lot.LLD, r.Centroid, lot.Pt)
		}
	}
	// The ISO-8859-1 row decodes to the accented parish.
	if _, ok := m["RL-5-St. François Xavier"]; !ok {
		t.Errorf("the Latin-1 row did not decode to RL-5-St. François Xavier")
	}
}

// TestManitobaOfficialCentroids checks the six official quarter centroids
// of the team's ground truth survive the fixture's EPSG:3857 round trip to
// well under a metre.
func TestManitobaOfficialCentroids(t *testing.T) {
	t.Parallel()
	recs, _ := readMBSurveyFixture(t)
	m := byLocation(t, recs)
	n := 0
	for _, p := range teamdata.GroundTruth(t) {
		if p.Kind != "centroid" {
			continue
		}
		l, err := lld.Parse(p.LLD)
		if err != nil {
			t.Fatalf("ground truth line %d: %v", p.Line, err)
		}
		if l.Unit != lld.QuarterSection {
			continue
		}
		r, ok := m[l.String()]
		if !ok {
			t.Errorf("ground truth %s (line %d) is not in the fixture", p.LLD, p.Line)
			continue
		}
		n++
		if d := metres(r.Centroid, p.Pt); d >= 0.5 {
			t.Errorf("%s: centroid %v is %.3f m from the official %v", p.LLD, r.Centroid, d, p.Pt)
		}
	}
	if n != 6 {
		t.Errorf("checked %d official quarters, want 6", n)
	}
}

func TestReadManitobaSurveyColumns(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   string
		want []string // canonical locations emitted
		skip map[string]int
	}{
		{
			name: "header in any case and order, extra columns, quoted commas and quotes",
			in: "\ufeffy , X,Note,informal_legal_description\r\n" +
				`6441196.56,-10667526.27,"a, ""quoted"" note",NE-1-12-12E1` + "\r\n" +
				`6405366.8,-10814911.16,"",RL-22-St. Norbert` + "\r\n",
			want: []string{"NE-1-12-12-E1", "RL-22-St. Norbert"},
		},
		{
			name: "no Type: section-shaped descriptions are township lots",
			in:   "Informal Legal Description,x,y\n10-54-27W1,-11282641.8,7104250.5\nPL-R-St. Andrews,-10795318.9,6466215.7\n",
			want: []string{"PL-R-St. Andrews"},
			skip: map[string]int{"township lot": 1},
		},
		{
			name: "parts when the description is missing",
			in: "Type,Quarter,SECTION,TOWNSHIP,RANGE,MERIDIAN,RANGEADD,LOT NO,PARISH NAME,x,y\n" +
				"Quarter,NE,1,12,12,1,E,,,-10667526.27,6441196.56\n" +
				"Quarter,SW,20,2,1,W1,,,,-10861000,6303000\n" +
				"RL,,,,,,,22,St. Norbert,-10814911.16,6405366.8\n",
			want: []string{"NE-1-12-12-E1", "SW-20-2-1-W1", "RL-22-St. Norbert"},
		},
		{
			name: "types: long names, unknown and township lots",
			in: "Type,Informal Legal Description,x,y\n" +
				"River Lot,RL-22-St. Norbert,-10814911.16,6405366.8\n" +
				"Road Allowance,RA-1-Somewhere,-10814911.16,6405366.8\n" +
				"Lot,10-54-27W1,-11282641.8,7104250.5\n",
			want: []string{"RL-22-St. Norbert"},
			skip: map[string]int{`type "Road Allowance"`: 1, "township lot": 1},
		},
		{
			name: "a lot lld cannot represent is skipped",
			in:   "Type,Informal Legal Description,x,y\nRL,RL-22-,-10814911.16,6405366.8\n",
			skip: map[string]int{"lot lld cannot parse": 1},
		},
		{
			name: "Windows-1252 text",
			in:   "Type,Informal Legal Description,x,y\nRL,RL-5-St. Fran\xe7ois Xavier,-10858103.1,6433297.3\n",
			want: []string{"RL-5-St. François Xavier"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var recs []gridindex.Record
			st, err := ingest.ReadManitobaSurvey(strings.NewReader(tc.in), "t.csv", collect(&recs))
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, r := range recs {
				got = append(got, r.Location.String())
			}
			if strings.Join(got, "|") != strings.Join(tc.want, "|") {
				t.Errorf("records %q, want %q", got, tc.want)
			}
			if len(st.Skipped) != len(tc.skip) {
				t.Errorf("skipped %v, want %v", st.Skipped, tc.skip)
			}
			for k, v := range tc.skip {
				if st.Skipped[k] != v {
					t.Errorf("skipped %v, want %v", st.Skipped, tc.skip)
				}
			}
		})
	}
}

func TestReadManitobaSurveyErrors(t *testing.T) {
	t.Parallel()
	const head = "FID,Informal Legal Description,Type,x,y\n"
	tests := []struct {
		name   string
		in     string
		line   int
		reason string
	}{
		{"unparseable x", head + "1,NE-1-12-12E1,Quarter,-10667526.27,6441196.56\n2,NE-2-12-12E1,Quarter,-1066x526,6441196.56\n", 3, "x \"-1066x526\""},
		{"empty y", head + "1,NE-1-12-12E1,Quarter,-10667526.27,\n", 2, "y"},
		{"not web mercator", head + "1,NE-1-12-12E1,Quarter,-95.8,49.9\n", 2, "not in Manitoba"},
		{"bad quarter", head + "1,NE-1-130-12E1,Quarter,-10667526.27,6441196.56\n", 2, "quarter"},
		{"quarter outside Manitoba", head + "1,NE-1-12-12W4,Quarter,-10667526.27,6441196.56\n", 2, "not in Manitoba"},
		{"field count", head + "1,NE-1-12-12E1,Quarter,-10667526.27\n", 2, "number of fields"},
		{"bad quoting", head + "1,\"NE-1-12\"-12E1,Quarter,-10667526.27,6441196.56\n", 2, "quote"},
		{"no x column", "FID,Informal Legal Description,y\n", 1, "no x and y"},
		{"no description", "FID,x,y\n", 1, "legal description"},
		{"empty file", "", 1, "empty"},
		{"no type, no description", "Informal Legal Description,Type,x,y\n,,-10667526.27,6441196.56\n", 2, "no Type"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ingest.ReadManitobaSurvey(strings.NewReader(tc.in), "s.csv", func(gridindex.Record) error { return nil })
			if err == nil {
				t.Fatalf("succeeded on %q", tc.in)
			}
			wantError(t, err, "s.csv", tc.line, tc.reason)
		})
	}
}

func readMBCornersFixture(t testing.TB) []gridindex.Record {
	t.Helper()
	var recs []gridindex.Record
	st, err := ingest.ReadManitobaCorners(bytes.NewReader(fixtureFile(t, fixture.MBCornersFile)), mbCornersName, collect(&recs))
	if err != nil {
		t.Fatal(err)
	}
	if st.Records != len(recs) || st.Rows != 4*len(recs) {
		t.Errorf("stats %v for %d records", st, len(recs))
	}
	return recs
}

func TestReadManitobaCornersFixture(t *testing.T) {
	t.Parallel()
	recs := readMBCornersFixture(t)
	want := len(fixture.MBOfficial) + 143*len(fixture.MBFilledTownships)
	if len(recs) != want {
		t.Errorf("%d quarters, want %d", len(recs), want)
	}
	m := byLocation(t, recs)
	for _, r := range recs {
		checkRecord(t, r, survey.MB)
		if r.HasCentroid {
			t.Errorf("%s has a centroid", r.Location)
		}
	}
	for _, s := range []string{"NE-1-12-12E1", "SW-36-12-12E1", "NW-15-11-19W1", "SE-8-34-17E1", "NE-7-5-6W1"} {
		l, _ := lld.Parse(s)
		want, ok := fixture.MBQuarterCorners(l)
		if !ok {
			t.Fatalf("fixture has no corners for %s", s)
		}
		r, ok := m[l.String()]
		if !ok {
			t.Errorf("no record for %s", s)
			continue
		}
		ring := r.Geometry.(orb.Polygon)[0]
		for i, w := range want {
			if !near(ring[i], w, 1e-7) {
				t.Errorf("%s corner %d = %v, want %v", s, i, ring[i], w)
			}
		}
	}
}

// TestManitobaMerge merges the corners file's polygons with the survey
// file's centroids as the index does.
func TestManitobaMerge(t *testing.T) {
	t.Parallel()
	centroids, _ := readMBSurveyFixture(t)
	polys := byLocation(t, readMBCornersFixture(t))
	merged := 0
	for _, c := range centroids {
		p, ok := polys[c.Location.String()]
		if !ok {
			continue
		}
		r := gridindex.Merge(c, p)
		if r.Geometry == nil || !r.HasCentroid {
			t.Errorf("%s: merge lost geometry or centroid", r.Location)
		}
		if !r.Geometry.Bound().Contains(r.Centroid) {
			t.Errorf("%s: centroid %v outside its quarter %v", r.Location, r.Centroid, r.Geometry.Bound())
		}
		merged++
	}
	if merged != len(polys) {
		t.Errorf("merged %d quarters, want %d", merged, len(polys))
	}
}

func TestReadManitobaCornersForms(t *testing.T) {
	t.Parallel()
	wide := "DLS_KEY,SE_X,SE_Y,SW_X,SW_Y,NW_X,NW_Y,NE_X,NE_Y\n" +
		"21201201NE,-10666900.9,6440570.5,-10668151.6,6440570.5,-10668151.6,6441822.6,-10666900.9,6441822.6\n"
	long := "dls_key,corner,x,y\n" +
		"E11201201NE,NW,-10668151.6,6441822.6\n" +
		"20100822NE,SW,-10840217.8,6389743.7\n" +
		"E11201201NE,SE,-10666900.9,6440570.5\n" +
		"E11201201NE,SW,-10668151.6,6440570.5\n" +
		"E11201201NE,NE,-10666900.9,6441822.6\n" +
		"20100822NE,SE,-10838976.2,6389743.7\n" +
		"20100822NE,NE,-10838976.2,6391019.4\n" +
		"20100822NE,NW,-10840217.8,6391019.4\n"
	for name, in := range map[string]string{"wide": wide, "long": long} {
		var recs []gridindex.Record
		if _, err := ingest.ReadManitobaCorners(strings.NewReader(in), "c.csv", collect(&recs)); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if len(recs) == 0 || recs[0].Location.String() != "NE-1-12-12-E1" {
			t.Errorf("%s: records %v", name, recs)
		}
	}
	// "1" is W1 and "2" E1 in the 10-character key.
	in := "DLS_KEY,SE_X,SE_Y,SW_X,SW_Y,NW_X,NW_Y,NE_X,NE_Y\n" +
		"10100220SW,-10861000,6303000,-10862200,6303000,-10862200,6304200,-10861000,6304200\n"
	var recs []gridindex.Record
	if _, err := ingest.ReadManitobaCorners(strings.NewReader(in), "c.csv", collect(&recs)); err != nil {
		t.Fatal(err)
	}
	if recs[0].Location.String() != "SW-20-2-1-W1" {
		t.Errorf("key 10100220SW = %s, want SW-20-2-1-W1", recs[0].Location)
	}
}

func TestReadManitobaCornersErrors(t *testing.T) {
	t.Parallel()
	const head = "DLS_KEY,CORNER,X,Y\n"
	quarter := func(key string) string {
		return key + ",SW,-10668151.6,6440570.5\n" + key + ",SE,-10666900.9,6440570.5\n" +
			key + ",NE,-10666900.9,6441822.6\n" + key + ",NW,-10668151.6,6441822.6\n"
	}
	tests := []struct {
		name   string
		in     string
		line   int
		reason string
	}{
		{"incomplete quarter", head + "21201201NW,SW,-10668151.6,6440570.5\n" + quarter("21201201NE") + "21201201SE,SW,-10668151.6,6440570.5\n", 2, "no SE, NE, NW corner"},
		{"bad key", head + "3120120NE,SW,-10668151.6,6440570.5\n", 2, "DLS_KEY"},
		{"bad quarter in key", head + "21201201XX,SW,-10668151.6,6440570.5\n", 2, "quarter"},
		{"bad corner", head + "21201201NE,MID,-10668151.6,6440570.5\n", 2, "CORNER"},
		{"bad X", head + "21201201NE,SW,abc,6440570.5\n", 2, "x \"abc\""},
		{"corners swapped", head +
			"21201201NE,SE,-10668151.6,6440570.5\n21201201NE,SW,-10666900.9,6440570.5\n21201201NE,NE,-10666900.9,6441822.6\n21201201NE,NW,-10668151.6,6441822.6\n", 5, "counter-clockwise"},
		{"corner disagrees", head + "21201201NE,SW,-10668151.6,6440570.5\n21201201NE,SW,-10668100,6440570.5\n", 3, "given again"},
		{"no key column", "KEY,CORNER,X,Y\n", 1, "DLS_KEY"},
		{"neither form", "DLS_KEY,X,Y\n", 1, "neither"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ingest.ReadManitobaCorners(strings.NewReader(tc.in), "c.csv", func(gridindex.Record) error { return nil })
			if err == nil {
				t.Fatalf("succeeded on %q", tc.in)
			}
			wantError(t, err, "c.csv", tc.line, tc.reason)
		})
	}
}

func BenchmarkReadManitobaSurvey(b *testing.B) {
	data := fixtureFile(b, fixture.MBSurveyFile)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	rows := 0
	for b.Loop() {
		st, err := ingest.ReadManitobaSurvey(bytes.NewReader(data), mbSurveyName, func(gridindex.Record) error { return nil })
		if err != nil {
			b.Fatal(err)
		}
		rows = st.Rows
	}
	b.ReportMetric(float64(rows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
}

func BenchmarkReadManitobaCorners(b *testing.B) {
	data := fixtureFile(b, fixture.MBCornersFile)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	rows := 0
	for b.Loop() {
		st, err := ingest.ReadManitobaCorners(bytes.NewReader(data), mbCornersName, func(gridindex.Record) error { return nil })
		if err != nil {
			b.Fatal(err)
		}
		rows = st.Rows
	}
	b.ReportMetric(float64(rows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
}

func FuzzReadManitobaSurvey(f *testing.F) {
	data := string(fixtureFile(f, fixture.MBSurveyFile))
	lines := strings.SplitAfter(data, "\n")
	f.Add(strings.Join(lines[:8], ""))
	f.Add(lines[0] + strings.Join(lines[len(lines)-8:], ""))
	f.Add("Type,Quarter,SECTION,TOWNSHIP,RANGE,MERIDIAN,RANGEADD,x,y\nQuarter,NE,1,12,12,1,E,-10667526.27,6441196.56\n")
	f.Add("Informal Legal Description,x,y\n\"RL-5-St. Fran\xe7ois Xavier\",-10858103.1,6433297.3\n")
	f.Fuzz(func(t *testing.T, in string) {
		_, err := ingest.ReadManitobaSurvey(strings.NewReader(in), "f.csv", func(r gridindex.Record) error {
			if !r.HasCentroid || r.Province != survey.MB {
				t.Fatalf("%s: HasCentroid %v, province %v", r.Location, r.HasCentroid, r.Province)
			}
			if _, err := lld.Parse(r.Location.String()); err != nil {
				t.Fatalf("%s does not parse back: %v", r.Location, err)
			}
			return nil
		})
		if !isIngestError(err) {
			t.Fatalf("error %v (%T) is not an *ingest.Error", err, err)
		}
	})
}

func FuzzReadManitobaCorners(f *testing.F) {
	data := string(fixtureFile(f, fixture.MBCornersFile))
	lines := strings.SplitAfter(data, "\n")
	f.Add(strings.Join(lines[:13], ""))
	f.Add(lines[0] + strings.Join(lines[100:140], ""))
	f.Add("DLS_KEY,SE_X,SE_Y,SW_X,SW_Y,NW_X,NW_Y,NE_X,NE_Y\n21201201NE,-10666900.9,6440570.5,-10668151.6,6440570.5,-10668151.6,6441822.6,-10666900.9,6441822.6\n")
	f.Fuzz(func(t *testing.T, in string) {
		_, err := ingest.ReadManitobaCorners(strings.NewReader(in), "f.csv", func(r gridindex.Record) error {
			if _, ok := r.Geometry.(orb.Polygon); !ok {
				t.Fatalf("%s: geometry %T", r.Location, r.Geometry)
			}
			return nil
		})
		if !isIngestError(err) {
			t.Fatalf("error %v (%T) is not an *ingest.Error", err, err)
		}
	})
}
