package energyingest_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/paulmach/orb"

	"meridian/shared/energy/energyingest"
	"meridian/shared/ingest"
	"meridian/shared/ingest/proj"
	"meridian/shared/ingest/shp"
)

func readPipelines(t testing.TB, r io.Reader) []energyingest.Pipeline {
	t.Helper()
	var ps []energyingest.Pipeline
	if err := energyingest.ReadPipelinesGeoJSON(r, "pipelines.geojson", energyingest.ReadOptions{}, func(p energyingest.Pipeline) error {
		ps = append(ps, p)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return ps
}

// TestReadPipelinesSample reads the one real segment, licence 61408 line 2.
func TestReadPipelinesSample(t *testing.T) {
	t.Parallel()
	raw, err := io.ReadAll(openSample(t, pipelineSample))
	if err != nil {
		t.Fatal(err)
	}
	var fc struct {
		Features []struct {
			Properties map[string]any `json:"properties"`
		} `json:"features"`
	}
	if err := json.Unmarshal(raw, &fc); err != nil {
		t.Fatal(err)
	}
	var names []string
	for k := range fc.Features[0].Properties {
		names = append(names, k)
	}
	if d := cmp.Diff(slices.Sorted(slices.Values(energyingest.PipelineAttributes())), slices.Sorted(slices.Values(names))); d != "" || len(names) != 50 {
		t.Errorf("the sample's %d attributes differ from PipelineAttributes (-want +got):\n%s", len(names), d)
	}

	ps := readPipelines(t, bytes.NewReader(raw))
	if len(ps) != 1 {
		t.Fatalf("%d segments, want 1", len(ps))
	}
	p := ps[0]
	geom := p.Geometry
	p.Geometry = nil
	want := energyingest.Pipeline{
		ObjectID: 48326386, Licence: "61408", LineNo: "2", LicenceLine: "61408-2", SegmentID: "347051",
		Company: "Secure Energy Services Inc.", BA: "A267", SpecID: "1", LengthKM: energyingest.Amount{Value: 12.18},
		Status: "Operating", FromFacility: "Pipeline", FromText: "09-10-060-22W5", From: mustLLD(t, "9-10-60-22-W5"),
		ToFacility: "Pipeline", ToText: "16-10-060-21W5", To: mustLLD(t, "16-10-60-21-W5"),
		H2SReleaseVolume: energyingest.Amount{Empty: true}, H2SContent: energyingest.Amount{Value: 1},
		OutsideDiameterMM: energyingest.Amount{Value: 114.3}, WallThicknessMM: energyingest.Amount{Value: 4},
		PipeType: "Z245.1", PipeGrade: "3592", Material: "Steel", MAOPkPa: energyingest.Amount{Value: 9930}, HDD: true,
		ExternalCoating: "POLYE", Environment: "Creek Crossing", ClassLocation: "Class 1",
		StressLevel: energyingest.Amount{Value: 40}, JointMethod: "Welded", InternalCoating: "Uncoated",
		FieldCentre: "Grande Prairie", Substances: [3]string{"Condensate", "Crude Oil", ""},
		OrigLicence: "61408", OrigSpecID: "1", OrigLineNo: "2",
		ApplicationDate: day(2020, 12, 19), OriginalIssueDate: day(2019, 12, 19),
		PermitApprovedDate: day(2019, 12, 19), PermitExpiryDate: day(2020, 12, 19), LastOccupiedYear: 2019,
		GeometrySource: "ROW centre line", ShapeLength: energyingest.Amount{Value: 20785.3059338303},
	}
	if d := cmp.Diff(want, p); d != "" {
		t.Errorf("segment (-want +got):\n%s", d)
	}
	mls, ok := geom.(orb.MultiLineString)
	if !ok || len(mls) != 1 || len(mls[0]) != 59 {
		t.Fatalf("geometry %T with %d lines, want a MultiLineString of one 59-point line", geom, len(mls))
	}
	if first := mls[0][0]; first != (orb.Point{-117.20606953484537, 54.17485218842016}) {
		t.Errorf("first point %v", first)
	}
}

// TestReadPipelinesShapefile writes the real segment as the product's
// shapefile (every attribute a text field, dates YYYY/MM/DD) and reads it
// back: the same Pipeline as from GeoJSON.
func TestReadPipelinesShapefile(t *testing.T) {
	t.Parallel()
	raw, err := io.ReadAll(openSample(t, pipelineSample))
	if err != nil {
		t.Fatal(err)
	}
	var fc struct {
		Features []struct {
			Properties map[string]any `json:"properties"`
		} `json:"features"`
	}
	if err := json.Unmarshal(raw, &fc); err != nil {
		t.Fatal(err)
	}
	want := readPipelines(t, bytes.NewReader(raw))[0]
	var fields []shp.Field
	var attrs []string
	for _, name := range energyingest.PipelineAttributes() {
		fields = append(fields, shp.Field{Name: name, Type: shp.Character, Length: 40})
		v := fc.Features[0].Properties[name]
		switch v := v.(type) {
		case nil:
			attrs = append(attrs, "")
		case string:
			attrs = append(attrs, v)
		case float64:
			attrs = append(attrs, "48326386")
		}
	}
	var shpB, shxB, dbfB shp.Buffer
	w, err := shp.NewWriter(&shpB, &shxB, &dbfB, shp.PolyLine, fields, shp.WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(want.Geometry, attrs); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	var got []energyingest.Pipeline
	err = energyingest.ReadPipelinesShapefile(bytes.NewReader(shpB.Bytes()), bytes.NewReader(dbfB.Bytes()), `GEOGCS["GCS_North_American_1983"]`, "Pipelines_GCS_NAD83.shp", energyingest.ReadOptions{}, func(p energyingest.Pipeline) error {
		got = append(got, p)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// The shapefile reader returns a one-part line as a LineString.
	want.Geometry = want.Geometry.(orb.MultiLineString)[0]
	if d := cmp.Diff([]energyingest.Pipeline{want}, got); d != "" {
		t.Errorf("from the shapefile (-geojson +shapefile):\n%s", d)
	}

	err = energyingest.ReadPipelinesShapefile(bytes.NewReader(shpB.Bytes()), bytes.NewReader(dbfB.Bytes()), `PROJCS["NAD_1983_10TM_AEP_Forest"]`, "Pipelines_10TM.shp", energyingest.ReadOptions{}, func(energyingest.Pipeline) error { return nil })
	wantIngestError(t, err, "Pipelines_10TM.shp", 0, "not a geographic")
}

const pipelineMinimal = `{"type":"FeatureCollection","features":[
{"type":"Feature","properties":{"LICENCE_NO":"61408","LINE_NO":"2","BA_CODE":"A267","SEG_STATUS":"Operating","H2S_CONTNT":"12.5","PERMT_EXPI":"2020/12/19"},
 "geometry":{"type":"LineString","coordinates":[[-117.2,54.17],[-117.1,54.18]]}},
{"type":"Feature","properties":{"LICENCE_NO":"61409","LINE_NO":"1","BA_CODE":null,"SEG_STATUS":"Removed"},"geometry":null}
]}`

func TestReadPipelinesGeoJSONVariants(t *testing.T) {
	t.Parallel()
	ps := readPipelines(t, strings.NewReader(pipelineMinimal))
	if len(ps) != 2 || ps[0].H2SContent.Value != 12.5 || ps[0].PermitExpiryDate != day(2020, 12, 19) || ps[1].Geometry != nil || ps[1].BA != "" {
		t.Errorf("ReadPipelinesGeoJSON = %+v", ps)
	}
	// A legacy crs member naming UTM zone 11N: converted to lng/lat.
	utm, err := proj.FromEPSG(26911)
	if err != nil {
		t.Fatal(err)
	}
	x0, y0, _ := utm.FromLngLat(orb.Point{-117.2, 54.17})
	x1, y1, _ := utm.FromLngLat(orb.Point{-117.1, 54.18})
	in := strings.Replace(pipelineMinimal, `"features":[`, `"crs":{"type":"name","properties":{"name":"urn:ogc:def:crs:EPSG::26911"}},"features":[`, 1)
	in = strings.Replace(in, "[[-117.2,54.17],[-117.1,54.18]]", fmt.Sprintf("[[%f,%f],[%f,%f]]", x0, y0, x1, y1), 1)
	ps = readPipelines(t, strings.NewReader(in))
	if l := ps[0].Geometry.(orb.LineString); math.Abs(l[0][0]+117.2) > 1e-6 || math.Abs(l[1][1]-54.18) > 1e-6 {
		t.Errorf("UTM 11N line read as %v, want [[-117.2 54.17] [-117.1 54.18]]", l)
	}
}

// An older export (docs/real-layouts.md id 25686593994): FRM_LOC, a single
// SUBSTANCE, H2S_CONTNT, INT_PROTEC and CROSS_TYPE. Licence and company are
// invented.
var olderPipelineAttrs = [][2]string{
	{"LICENCE_NO", "99999"}, {"LINE_NO", "1"}, {"LIC_LI_NO", "99999-1"}, {"COMP_NAME", "DEMO PIPELINE CO (INVENTED)"},
	{"BA_CODE", "0ZZ9"}, {"SEG_STATUS", "Operating"}, {"FROM_FAC", "Well"}, {"FRM_LOC", "09-10-060-22W5"},
	{"TO_FAC", "Battery"}, {"TO_LOC", "16-10-060-22W5"}, {"SUBSTANCE", "Crude Oil"}, {"H2S_CONTNT", "0"},
	{"INT_PROTEC", "Uncoated"}, {"CROSS_TYPE", "Road"}, {"LICAPPDATE", "1998/05/04"},
}

func olderPipelineGeoJSON() string {
	var props []string
	for _, a := range olderPipelineAttrs {
		props = append(props, fmt.Sprintf("%q:%q", a[0], a[1]))
	}
	return `{"type":"FeatureCollection","features":[{"type":"Feature","properties":{` + strings.Join(props, ",") +
		`},"geometry":{"type":"LineString","coordinates":[[-117.2,54.17],[-117.1,54.18]]}}]}`
}

func TestReadPipelinesOlderForm(t *testing.T) {
	t.Parallel()
	check := func(how string, ps []energyingest.Pipeline, layouts []ingest.Layout) {
		t.Helper()
		if len(ps) != 1 {
			t.Fatalf("%s: %d segments, want 1", how, len(ps))
		}
		p := ps[0]
		if p.FromText != "09-10-060-22W5" || p.From != mustLLD(t, "9-10-60-22-W5") || p.To != mustLLD(t, "16-10-60-22-W5") ||
			p.Substances != [3]string{"Crude Oil"} || !p.H2SContent.Known() || p.InternalProtection != "Uncoated" || p.CrossingType != "Road" ||
			p.ApplicationDate != day(1998, 5, 4) || p.Licence != "99999" {
			t.Errorf("%s: %+v", how, p)
		}
		if len(layouts) != 1 || layouts[0] != energyingest.PipelineOlderLayout {
			t.Errorf("%s: layouts %v, want PipelineOlderLayout", how, layouts)
		}
	}
	var ps []energyingest.Pipeline
	var layouts []ingest.Layout
	opt := energyingest.ReadOptions{Layout: func(l ingest.Layout) { layouts = append(layouts, l) }}
	collect := func(p energyingest.Pipeline) error { ps = append(ps, p); return nil }
	if err := energyingest.ReadPipelinesGeoJSON(strings.NewReader(olderPipelineGeoJSON()), "pipelines.geojson", opt, collect); err != nil {
		t.Fatal(err)
	}
	check("GeoJSON", ps, layouts)

	var fields []shp.Field
	var attrs []string
	for _, a := range olderPipelineAttrs {
		fields = append(fields, shp.Field{Name: a[0], Type: shp.Character, Length: 40})
		attrs = append(attrs, a[1])
	}
	var shpB, shxB, dbfB shp.Buffer
	w, err := shp.NewWriter(&shpB, &shxB, &dbfB, shp.PolyLine, fields, shp.WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(orb.LineString{{-117.2, 54.17}, {-117.1, 54.18}}, attrs); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	ps, layouts = nil, nil
	if err := energyingest.ReadPipelinesShapefile(bytes.NewReader(shpB.Bytes()), bytes.NewReader(dbfB.Bytes()), `GEOGCS["GCS_North_American_1983"]`, "pipelines.shp", opt, collect); err != nil {
		t.Fatal(err)
	}
	check("shapefile", ps, layouts)
}

// The current product says so; a SEG_STATUS outside the published list is a
// notice, kept as given.
func TestReadPipelinesLayoutAndNotices(t *testing.T) {
	t.Parallel()
	var layouts []ingest.Layout
	var ns ingest.Notices
	opt := energyingest.ReadOptions{Notices: &ns, Layout: func(l ingest.Layout) { layouts = append(layouts, l) }}
	var got []energyingest.Pipeline
	if err := energyingest.ReadPipelinesGeoJSON(openSample(t, pipelineSample), "p.geojson", opt, func(p energyingest.Pipeline) error { got = append(got, p); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || len(layouts) != 1 || layouts[0] != energyingest.PipelineLayout || ns.Total() != 0 {
		t.Errorf("sample: %d segments, layouts %v, notices %v; want 1, PipelineLayout, none", len(got), layouts, ns.Lines())
	}
	in := strings.Replace(pipelineMinimal, `"SEG_STATUS":"Removed"`, `"SEG_STATUS":"Under Review"`, 1)
	got = nil
	if err := energyingest.ReadPipelinesGeoJSON(strings.NewReader(in), "p.geojson", opt, func(p energyingest.Pipeline) error { got = append(got, p); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[1].Status != "Under Review" || ns.Total() != 1 || !strings.Contains(ns.Lines()[0], `p.geojson:4: column SEG_STATUS: new value "Under Review"`) {
		t.Errorf("segments %+v, notices %q: want the status kept and one notice at line 4", got, ns.Lines())
	}
}

func TestReadPipelinesRejects(t *testing.T) {
	t.Parallel()
	feature := func(props, geom string) string {
		return "{\"type\": \"FeatureCollection\",\n\"features\": [\n{\"type\":\"Feature\",\"properties\":{\"LICENCE_NO\":\"1\",\"LINE_NO\":\"2\",\"BA_CODE\":\"A267\",\"SEG_STATUS\":\"Operating\"},\"geometry\":null},\n" +
			"{\"type\":\"Feature\",\"properties\":{" + props + "},\"geometry\":" + geom + "}\n]}\n"
	}
	base := `"LICENCE_NO":"61408","LINE_NO":"2","BA_CODE":"A267","SEG_STATUS":"Operating"`
	line := `{"type":"LineString","coordinates":[[-117.2,54.17],[-117.1,54.18]]}`
	cases := []struct {
		name string
		in   string
		line int
		want []string
	}{
		{"missing attribute", feature(`"LICENCE_NO":"61408","LINE_NO":"2","BA_CODE":"A267"`, line), 4, []string{"no SEG_STATUS"}},
		{"bad date", feature(base+`,"PERMT_EXPI":"2020/13/19"`, line), 4, []string{"PERMT_EXPI", "not a valid date"}},
		{"bad number", feature(base+`,"PIPE_MAOP":"9930 kPa"`, line), 4, []string{"PIPE_MAOP", "not a number"}},
		{"bad BA", feature(`"LICENCE_NO":"61408","LINE_NO":"2","BA_CODE":"A26","SEG_STATUS":"Operating"`, line), 4, []string{"BA_CODE"}},
		{"bad flag", feature(base+`,"HDD_IND":"maybe"`, line), 4, []string{"HDD_IND"}},
		{"polygon", feature(base, `{"type":"Polygon","coordinates":[[[0,0],[1,0],[1,1],[0,0]]]}`), 4, []string{"Polygon", "want LineString or MultiLineString"}},
		{"projected", feature(base, `{"type":"LineString","coordinates":[[512000,6000000],[512100,6000100]]}`), 4, []string{"not longitude, latitude"}},
		{"nested property", feature(base+`,"COMP_NAME":{"a":1}`, line), 4, []string{"COMP_NAME"}},
		{"truncated", feature(base, line)[:200], 4, []string{"unexpected end"}},
		{"syntax", "{\"type\": \"FeatureCollection\",\n\"features\": [\n{\"type\":\"Feature\",,}]}", 3, []string{"not JSON"}},
		{"not a collection", `{"type":"Feature","properties":{}}`, 1, []string{"want a FeatureCollection"}},
		{"projected crs", "{\"type\":\"FeatureCollection\",\n\"crs\":{\"type\":\"name\",\"properties\":{\"name\":\"urn:ogc:def:crs:EPSG::3400\"}},\"features\":[]}", 2, []string{"crs", "EPSG::3400"}},
		{"empty", "", 1, []string{"unexpected end"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := energyingest.ReadPipelinesGeoJSON(strings.NewReader(tc.in), "p.geojson", energyingest.ReadOptions{}, func(energyingest.Pipeline) error { return nil })
			wantIngestError(t, err, "p.geojson", tc.line, tc.want...)
		})
	}
}

func FuzzReadPipelinesGeoJSON(f *testing.F) {
	f.Add([]byte(pipelineMinimal))
	f.Add([]byte(olderPipelineGeoJSON()))
	if b := sampleSeed(pipelineSample); b != nil {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		err := energyingest.ReadPipelinesGeoJSON(bytes.NewReader(in), "p.geojson", energyingest.ReadOptions{Notices: &ingest.Notices{}}, func(p energyingest.Pipeline) error {
			switch p.Geometry.(type) {
			case nil, orb.LineString, orb.MultiLineString:
			default:
				t.Fatalf("geometry %T", p.Geometry)
			}
			return nil
		})
		checkFuzzError(t, err, 1)
	})
}
