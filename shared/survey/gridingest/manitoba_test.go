package gridingest_test

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/paulmach/orb"

	"meridian/shared/demo/griddemo"
	"meridian/shared/ingest"
	"meridian/shared/ingest/proj"
	"meridian/shared/lld"
	"meridian/shared/survey"
	"meridian/shared/survey/gridindex"
	"meridian/shared/survey/gridingest"
	"meridian/shared/teamdata"
)

const (
	mbSurveyName  = "Original_Survey_Legal_Descriptions_FIXTURE.csv"
	mbCornersName = "MB_QuarterSectionCorners_FIXTURE.csv"
)

func readMBSurveyFixture(t testing.TB) ([]gridindex.Record, gridingest.Stats) {
	t.Helper()
	var recs []gridindex.Record
	st, err := gridingest.ReadManitobaSurvey(bytes.NewReader(fixtureFile(t, griddemo.MBSurveyFile)), mbSurveyName, collect(&recs), gridingest.ManitobaOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return recs, st
}

func TestReadManitobaSurveyFixture(t *testing.T) {
	t.Parallel()
	recs, st := readMBSurveyFixture(t)
	quarters := len(griddemo.MBOfficial) + 143*len(griddemo.MBFilledTownships)
	lots := len(griddemo.MBLots)
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
	for _, lot := range griddemo.MBLots {
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
	if _, ok := m["RL-5-Ste. Élodie Fictive"]; !ok {
		t.Errorf("the Latin-1 row did not decode to RL-5-Ste. Élodie Fictive")
	}
}

// TestManitobaFixtureLotsAreHonest: a fixture lot of a real parish sits at
// its published centroid (docs/real-layouts.md, from DataMB's file via
// mbquartR); every other lot is in a parish that does not exist.
func TestManitobaFixtureLotsAreHonest(t *testing.T) {
	t.Parallel()
	published := map[string]orb.Point{
		"RL-22-St. Norbert": {-97.142269, 49.678794},
		"PL-R-St. Andrews":  {-97.01819, 50.090537},
	}
	recs, _ := readMBSurveyFixture(t)
	m := byLocation(t, recs)
	for name, want := range published {
		r, ok := m[name]
		if !ok {
			t.Errorf("%s is not in the fixture", name)
			continue
		}
		if d := metres(r.Centroid, want); d > 0.5 {
			t.Errorf("%s at %v, %.0f m from its published centroid %v", name, r.Centroid, d, want)
		}
	}
	for _, lot := range griddemo.MBLots {
		l, _ := lld.Parse(lot.LLD)
		_, real := published[l.String()]
		invented := strings.Contains(lot.Parish, "Fictive") || strings.Contains(lot.Parish, "Demo")
		if real != lot.Real || (!real && !invented) {
			t.Errorf("lot %s (Real %v): a real lot must be at its published place, any other in an invented parish", lot.LLD, lot.Real)
		}
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
				"Quarter,NE,1,12,12,E1,,,,-10667526.27,6441196.56\n" +
				"Quarter,SW,20,2,1,W1,,,,-10861000,6303000\n" +
				"Quarter,NE,2,12,12,1,E,,,-10669000,6441196.56\n" +
				"RL,,,,,,,22,St. Norbert,-10813827.9,6390833.3\n",
			want: []string{"NE-1-12-12-E1", "SW-20-2-1-W1", "NE-2-12-12-E1", "RL-22-St. Norbert"},
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
			name: "the real header and its Type vocabulary",
			in: "FID,Informal Legal Description,Formal Legal Description,Type,Quarter,SECTION,TOWNSHIP,RANGE,LOT NO,MERIDIAN,PARISH NAME,RANGEADD,x,y\n" +
				"1,NE-1-12-12E1,NE-01-012-12E1,Quarter,NE,1,12,12,,E1,,,-10667526.27,6441196.56\n" +
				"2,RL-22-St. Norbert,RL-0022-St. Norbert,RL,,,,,22,,St. Norbert,,-10813827.9,6390833.3\n" +
				"3,PL-R-St. Andrews,PL-000R-St. Andrews,PL,,,,,R,,St. Andrews,,-10800015.5,6461970.0\n" +
				"4,OT-11A-Demo Plains,OT-011A-Demo Plains,OT,,,,,11A,,Demo Plains,,-11178703.3,6348140.9\n" +
				"5,SL-3-Demo Plains,SL-0003-Demo Plains,SL,,,,,3,,Demo Plains,,-11178703.3,6348140.9\n" +
				"6,WL-179-Demo Plains,WL-0179-Demo Plains,WL,,,,,179,,Demo Plains,,-11178703.3,6348140.9\n" +
				"7,10-54-27W1,10-054-27W1,Lot,,10,54,27,10,W1,,,-11282641.8,7104250.5\n",
			want: []string{"NE-1-12-12-E1", "RL-22-St. Norbert", "PL-R-St. Andrews", "OT-11A-Demo Plains", "SL-3-Demo Plains", "WL-179-Demo Plains"},
			skip: map[string]int{"township lot": 1},
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
			var layout ingest.Layout
			st, err := gridingest.ReadManitobaSurvey(strings.NewReader(tc.in), "t.csv", collect(&recs), gridingest.ManitobaOptions{Layout: func(l ingest.Layout) { layout = l }})
			if err != nil {
				t.Fatal(err)
			}
			if layout != gridingest.MBSurveyLayout {
				t.Errorf("layout %v, want MBSurveyLayout", layout)
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
			_, err := gridingest.ReadManitobaSurvey(strings.NewReader(tc.in), "s.csv", func(gridindex.Record) error { return nil }, gridingest.ManitobaOptions{})
			if err == nil {
				t.Fatalf("succeeded on %q", tc.in)
			}
			wantError(t, err, "s.csv", tc.line, tc.reason)
		})
	}
}

// An unknown Type is a notice: the row is skipped and counted, the file
// is read on.
func TestReadManitobaSurveyNotices(t *testing.T) {
	t.Parallel()
	in := "FID,Informal Legal Description,Type,x,y\n" +
		"1,RA-1-Somewhere,Road Allowance,-10814911.16,6405366.8\n" +
		"2,RA-2-Somewhere,Road Allowance,-10814911.16,6405366.8\n" +
		"3,NE-1-12-12E1,Quarter,-10667526.27,6441196.56\n"
	var ns ingest.Notices
	var recs []gridindex.Record
	st, err := gridingest.ReadManitobaSurvey(strings.NewReader(in), "n.csv", collect(&recs), gridingest.ManitobaOptions{Notices: &ns})
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 1 || st.Skipped[`type "Road Allowance"`] != 2 {
		t.Errorf("%d records, skipped %v; want 1 record, 2 road allowances skipped", len(recs), st.Skipped)
	}
	lines := ns.Lines()
	if ns.Total() != 2 || len(lines) != 1 || !strings.Contains(lines[0], `n.csv:2: column Type: new value "Road Allowance"`) {
		t.Errorf("notices %d %q, want 2 of Type \"Road Allowance\" first on n.csv:2", ns.Total(), lines)
	}
}

func readMBCornersFixture(t testing.TB) ([]gridindex.Record, gridingest.Stats) {
	t.Helper()
	var recs []gridindex.Record
	st, err := gridingest.ReadManitobaCorners(bytes.NewReader(fixtureFile(t, griddemo.MBCornersFile)), mbCornersName, collect(&recs), gridingest.ManitobaOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if st.Records != len(recs) || st.Rows != len(recs) {
		t.Errorf("stats %v for %d records", st, len(recs))
	}
	return recs, st
}

func TestReadManitobaCornersFixture(t *testing.T) {
	t.Parallel()
	recs, st := readMBCornersFixture(t)
	want := len(griddemo.MBOfficial) + 143*len(griddemo.MBFilledTownships)
	if len(recs) != want {
		t.Errorf("%d quarters, want %d", len(recs), want)
	}
	if n := st.Skipped["polygon: blank corners, centroid kept"]; n != len(griddemo.MBBlankCorners) {
		t.Errorf("skipped %v, want %d polygons with blank corners", st.Skipped, len(griddemo.MBBlankCorners))
	}
	m := byLocation(t, recs)
	for _, r := range recs {
		checkRecord(t, r, survey.MB)
		_, blank := griddemo.MBBlankCorners[r.Location.String()]
		if blank != (r.Geometry == nil) || blank != r.HasCentroid {
			t.Errorf("%s: geometry %v, centroid %v; blank corners %v", r.Location, r.Geometry != nil, r.HasCentroid, blank)
		}
	}
	for _, s := range []string{"NE-1-12-12E1", "SW-36-12-12E1", "NW-15-11-19W1", "SE-8-34-17E1", "NE-7-5-6W1"} {
		l, _ := lld.Parse(s)
		want, ok := griddemo.MBQuarterCorners(l)
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
			// 3 decimals of UTM metres: within a millimetre or two.
			if d := metres(ring[i], w); d > 0.01 {
				t.Errorf("%s corner %d = %v, %.4f m from %v", s, i, ring[i], d, w)
			}
		}
	}
}

// TestManitobaMerge merges the corners file's polygons with the survey
// file's centroids as the index does.
func TestManitobaMerge(t *testing.T) {
	t.Parallel()
	centroids, _ := readMBSurveyFixture(t)
	recs, _ := readMBCornersFixture(t)
	polys := byLocation(t, recs)
	merged := 0
	for _, c := range centroids {
		p, ok := polys[c.Location.String()]
		if !ok || p.Geometry == nil {
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
	if merged != len(polys)-len(griddemo.MBBlankCorners) {
		t.Errorf("merged %d quarters, want %d", merged, len(polys)-len(griddemo.MBBlankCorners))
	}
}

// utm14 returns lng, lat as NAD83 / UTM zone 14N easting, northing.
func utm14(t testing.TB, lng, lat float64) (float64, float64) {
	t.Helper()
	p, err := proj.FromEPSG(26914)
	if err != nil {
		t.Fatal(err)
	}
	x, y, err := p.FromLngLat(orb.Point{lng, lat})
	if err != nil {
		t.Fatal(err)
	}
	return x, y
}

// mbCornerRow writes a row of MB_QuarterSectionCorners.csv in the real
// column order for an 800 m quarter centred on lng, lat, leaving the named
// corners blank.
func mbCornerRow(t testing.TB, key string, lng, lat float64, blank ...string) string {
	t.Helper()
	e, n := utm14(t, lng, lat)
	row := fmt.Sprintf("%s,%.3f,%.3f", key, e, n)
	for _, c := range []struct {
		name   string
		dx, dy float64
	}{{"NE", 400, 400}, {"NW", -400, 400}, {"SW", -400, -400}, {"SE", 400, -400}} {
		if slices.Contains(blank, c.name) {
			row += ",,"
			continue
		}
		row += fmt.Sprintf(",%.3f,%.3f", e+c.dx, n+c.dy)
	}
	return row + "\r\n"
}

const mbCornersHeader = "DLS_KEY,EASTING,NORTHING,NE_E,NE_N,NW_E,NW_N,SW_E,SW_N,SE_E,SE_N\r\n"

// TestReadManitobaCornersLayout reads the published layout: one row per
// quarter, DLS_KEY of 11 characters (E/W, meridian 1, range, township,
// section, quarter), UTM 14N metres, blank corners.
func TestReadManitobaCornersLayout(t *testing.T) {
	t.Parallel()
	in := mbCornersHeader +
		mbCornerRow(t, "W12903311NE", -101.4656, 51.81913) + // the evidence's NE-11-33-29W
		mbCornerRow(t, "w10100220sw", -97.566556, 49.136683) +
		mbCornerRow(t, "E11201201NE", -95.828019, 49.970662) +
		mbCornerRow(t, "E10100822NE", -97.373757, 49.676168, "NW") +
		mbCornerRow(t, "W10600507SE", -98.25626, 49.373292, "NE", "NW", "SW", "SE") +
		"W10600507SW,,,,,,,,,,\r\n"
	var recs []gridindex.Record
	var layout ingest.Layout
	st, err := gridingest.ReadManitobaCorners(strings.NewReader(in), "c.csv", collect(&recs), gridingest.ManitobaOptions{Layout: func(l ingest.Layout) { layout = l }})
	if err != nil {
		t.Fatal(err)
	}
	if layout != gridingest.MBCornersLayout || !layout.Verified {
		t.Errorf("layout %v, want MBCornersLayout (verified)", layout)
	}
	var got []string
	for _, r := range recs {
		got = append(got, fmt.Sprintf("%s poly=%v centroid=%v", r.Location, r.Geometry != nil, r.HasCentroid))
	}
	want := []string{
		"NE-11-33-29-W1 poly=true centroid=false",
		"SW-20-2-1-W1 poly=true centroid=false",
		"NE-1-12-12-E1 poly=true centroid=false",
		"NE-22-8-1-E1 poly=false centroid=true",
		"SE-7-5-6-W1 poly=false centroid=true",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("records\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if st.Rows != 6 || st.Skipped["polygon: blank corners, centroid kept"] != 2 || st.Skipped["quarter with blank corners and no centroid"] != 1 {
		t.Errorf("stats %v", st)
	}
	// The polygon is the corners, converted from UTM 14N; the centroid
	// of a blank-corners quarter is EASTING, NORTHING.
	if c := recs[0].Geometry.Bound().Center(); metres(c, orb.Point{-101.4656, 51.81913}) > 1 {
		t.Errorf("NE-11-33-29W1 centred on %v, want -101.4656, 51.81913", c)
	}
	if d := metres(recs[4].Centroid, orb.Point{-98.25626, 49.373292}); d > 0.01 {
		t.Errorf("SE-7-5-6W1 centroid %v is %.3f m off", recs[4].Centroid, d)
	}
	// Columns are found by name, in any order.
	shuffled := "SE_N,SE_E,SW_N,SW_E,NW_N,NW_E,NE_N,NE_E,NORTHING,EASTING,Note,DLS_KEY\r\n"
	e, n := utm14(t, -95.828019, 49.970662)
	shuffled += fmt.Sprintf("%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,x,E11201201NE\r\n",
		n-400, e+400, n-400, e-400, n+400, e-400, n+400, e+400, n, e)
	recs = nil
	if _, err := gridingest.ReadManitobaCorners(strings.NewReader(shuffled), "c.csv", collect(&recs), gridingest.ManitobaOptions{}); err != nil {
		t.Fatal(err)
	}
	if len(recs) != 1 || recs[0].Location.String() != "NE-1-12-12-E1" || recs[0].Geometry == nil {
		t.Errorf("shuffled columns: %v", recs)
	}
}

func TestReadManitobaCornersErrors(t *testing.T) {
	t.Parallel()
	good := mbCornerRow(t, "E11201201NE", -95.828019, 49.970662)
	cells := strings.Split(good, ",")
	cells[3] = "abc"
	notNumber := strings.Join(cells, ",")
	e, n := utm14(t, -95.828019, 49.970662)
	tests := []struct {
		name   string
		in     string
		line   int
		reason string
	}{
		{"old 10-character key", mbCornersHeader + good + strings.Replace(good, "E11201201NE", "21201201NE", 1), 3, `column DLS_KEY: value "21201201NE"`},
		{"meridian 2", mbCornersHeader + strings.Replace(good, "E11201201NE", "E21201201NE", 1), 2, `column DLS_KEY: value "E21201201NE" is not one of 11 characters`},
		{"no direction", mbCornersHeader + strings.Replace(good, "E11201201NE", "X11201201NE", 1), 2, "DLS_KEY"},
		{"bad quarter in key", mbCornersHeader + strings.Replace(good, "E11201201NE", "E11201201XX", 1), 2, "quarter NE/NW/SW/SE"},
		{"section 37", mbCornersHeader + strings.Replace(good, "E11201201NE", "E11201237NE", 1), 2, "section 1-36"},
		{"not a number", mbCornersHeader + notNumber, 2, `column NE_E: value "abc" is not one of metres in NAD83 / UTM zone 14N`},
		{"half a corner", mbCornersHeader + fmt.Sprintf("E11201201NE,%.3f,%.3f,%.3f,,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f\r\n", e, n, e+400, e-400, n+400, e-400, n-400, e+400, n-400), 2, `column NE_N: value ""`},
		{"web mercator", mbCornersHeader + "E11201201NE,-10667526.27,6441196.56,,,,,,,,\r\n", 2, "not in Manitoba"},
		{"corners swapped", mbCornersHeader + fmt.Sprintf("E11201201NE,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f\r\n", e, n, e-400, n+400, e+400, n+400, e-400, n-400, e+400, n-400), 2, "counter-clockwise"},
		{"no key column", "KEY,EASTING,NORTHING,NE_E,NE_N,NW_E,NW_N,SW_E,SW_N,SE_E,SE_N\r\n", 1, "no DLS_KEY"},
		{"old long form", "DLS_KEY,CORNER,X,Y\n", 1, "no SW_E, SW_N"},
		{"no centroid columns", "DLS_KEY,NE_E,NE_N,NW_E,NW_N,SW_E,SW_N,SE_E,SE_N\r\n", 1, "EASTING, NORTHING"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := gridingest.ReadManitobaCorners(strings.NewReader(tc.in), "c.csv", func(gridindex.Record) error { return nil }, gridingest.ManitobaOptions{})
			if err == nil {
				t.Fatalf("succeeded on %q", tc.in)
			}
			wantError(t, err, "c.csv", tc.line, tc.reason)
		})
	}
}

func BenchmarkReadManitobaSurvey(b *testing.B) {
	data := fixtureFile(b, griddemo.MBSurveyFile)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	rows := 0
	for b.Loop() {
		st, err := gridingest.ReadManitobaSurvey(bytes.NewReader(data), mbSurveyName, func(gridindex.Record) error { return nil }, gridingest.ManitobaOptions{})
		if err != nil {
			b.Fatal(err)
		}
		rows = st.Rows
	}
	b.ReportMetric(float64(rows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
}

func BenchmarkReadManitobaCorners(b *testing.B) {
	data := fixtureFile(b, griddemo.MBCornersFile)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	rows := 0
	for b.Loop() {
		st, err := gridingest.ReadManitobaCorners(bytes.NewReader(data), mbCornersName, func(gridindex.Record) error { return nil }, gridingest.ManitobaOptions{})
		if err != nil {
			b.Fatal(err)
		}
		rows = st.Rows
	}
	b.ReportMetric(float64(rows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
}

func FuzzReadManitobaSurvey(f *testing.F) {
	data := string(fixtureFile(f, griddemo.MBSurveyFile))
	lines := strings.SplitAfter(data, "\n")
	f.Add(strings.Join(lines[:8], ""))
	f.Add(lines[0] + strings.Join(lines[len(lines)-8:], ""))
	f.Add("Type,Quarter,SECTION,TOWNSHIP,RANGE,MERIDIAN,RANGEADD,x,y\nQuarter,NE,1,12,12,E1,,-10667526.27,6441196.56\nRoad,NE,1,12,12,E1,,-10667526.27,6441196.56\n")
	f.Add("Informal Legal Description,x,y\n\"RL-5-St. Fran\xe7ois Xavier\",-10858103.1,6433297.3\n")
	f.Fuzz(func(t *testing.T, in string) {
		_, err := gridingest.ReadManitobaSurvey(strings.NewReader(in), "f.csv", func(r gridindex.Record) error {
			if !r.HasCentroid || r.Province != survey.MB {
				t.Fatalf("%s: HasCentroid %v, province %v", r.Location, r.HasCentroid, r.Province)
			}
			if _, err := lld.Parse(r.Location.String()); err != nil {
				t.Fatalf("%s does not parse back: %v", r.Location, err)
			}
			return nil
		}, gridingest.ManitobaOptions{Notices: &ingest.Notices{}})
		if !isIngestError(err) {
			t.Fatalf("error %v (%T) is not an *ingest.Error", err, err)
		}
	})
}

func FuzzReadManitobaCorners(f *testing.F) {
	data := string(fixtureFile(f, griddemo.MBCornersFile))
	lines := strings.SplitAfter(data, "\n")
	f.Add(strings.Join(lines[:13], ""))
	f.Add(lines[0] + strings.Join(lines[100:140], ""))
	f.Add(mbCornersHeader + mbCornerRow(f, "E10100822NE", -97.373757, 49.676168, "NW") + "W10600507SW,,,,,,,,,,\r\n")
	f.Fuzz(func(t *testing.T, in string) {
		_, err := gridingest.ReadManitobaCorners(strings.NewReader(in), "f.csv", func(r gridindex.Record) error {
			if _, ok := r.Geometry.(orb.Polygon); !ok && !r.HasCentroid {
				t.Fatalf("%s: geometry %T and no centroid", r.Location, r.Geometry)
			}
			return nil
		}, gridingest.ManitobaOptions{})
		if !isIngestError(err) {
			t.Fatalf("error %v (%T) is not an *ingest.Error", err, err)
		}
	})
}
