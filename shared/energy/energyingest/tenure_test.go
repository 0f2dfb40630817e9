package energyingest_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/paulmach/orb"

	demodata "meridian/shared/demo"
	"meridian/shared/energy/energyingest"
	"meridian/shared/lld"
)

var dispositionHeader = strings.Join(energyingest.DispositionColumns(), ",") + "\r\n"

const dispositionRow = `0519030010,PNG,PNG Lease,"Aspen Coulee Petroleum Ltd. (demo)",Continued,2019-03-14,,Y,518.42,AB,10-24-1-W5;NE-15-24-1-W5` + "\r\n"

func TestReadDispositionsCSV(t *testing.T) {
	t.Parallel()
	var got []energyingest.Disposition
	if err := energyingest.ReadDispositionsCSV(strings.NewReader(dispositionHeader+dispositionRow), "d.csv", func(d energyingest.Disposition) error {
		got = append(got, d)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	want := energyingest.Disposition{Number: "0519030010", Kind: energyingest.KindPNG, Type: "PNG Lease", Holder: "Aspen Coulee Petroleum Ltd. (demo)",
		Status: "Continued", IssueDate: day(2019, 3, 14), Continued: true, AreaHa: energyingest.Amount{Value: 518.42}, Province: "AB",
		Lands: []lld.Location{mustLLD(t, "10-24-1-W5"), mustLLD(t, "NE-15-24-1-W5")}}
	if d := cmp.Diff([]energyingest.Disposition{want}, got); d != "" {
		t.Errorf("ReadDispositionsCSV (-want +got):\n%s", d)
	}
	if want.ExpiresWithin(demodata.AsOf(), 24) {
		t.Error("a continued disposition does not expire")
	}
	exp := want
	exp.Continued, exp.ExpiryDate = false, day(2028, 11, 20)
	if !exp.ExpiresWithin(demodata.AsOf(), 24) {
		t.Error("2028-11-20 is within 24 months of 2026-11-21")
	}
	exp.ExpiryDate = day(2028, 11, 21)
	if exp.ExpiresWithin(demodata.AsOf(), 24) {
		t.Error("2028-11-21 is 24 months after 2026-11-21")
	}
}

func TestReadDispositionsGeoJSON(t *testing.T) {
	t.Parallel()
	in := `{"type":"FeatureCollection","features":[{"type":"Feature","properties":{"DispositionNumber":"PN00310","Kind":"PNG","Type":"PNG Lease",` +
		`"Holder":"Juniper Bend Energy Corp. (demo)","Status":"Active","IssueDate":"2015-04-02","ExpiryDate":"","Continued":"N","AreaHa":259.1,"Province":"SK",` +
		`"LandDescription":""},"geometry":{"type":"Polygon","coordinates":[[[-103.9,49.8],[-103.8,49.8],[-103.8,49.9],[-103.9,49.9],[-103.9,49.8]]]}}]}`
	n := 0
	if err := energyingest.ReadDispositionsGeoJSON(strings.NewReader(in), "d.geojson", func(d energyingest.Disposition) error {
		n++
		if _, ok := d.Geometry.(orb.Polygon); !ok || d.AreaHa.Value != 259.1 || len(d.Lands) != 0 || !d.ExpiryDate.IsZero() {
			t.Errorf("disposition %+v", d)
		}
		return nil
	}); err != nil || n != 1 {
		t.Fatalf("ReadDispositionsGeoJSON: %d, %v", n, err)
	}
	bad := strings.Replace(in, `"Kind":"PNG"`, `"Kind":"COAL"`, 1)
	err := energyingest.ReadDispositionsGeoJSON(strings.NewReader(bad), "d.geojson", func(energyingest.Disposition) error { return nil })
	wantIngestError(t, err, "d.geojson", 1, "Kind", "COAL")
	line := strings.Replace(in, `"type":"Polygon"`, `"type":"LineString"`, 1)
	err = energyingest.ReadDispositionsGeoJSON(strings.NewReader(line), "d.geojson", func(energyingest.Disposition) error { return nil })
	wantIngestError(t, err, "d.geojson", 1, "want Polygon or MultiPolygon")
}

func TestReadDispositionsRejects(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		in   string
		line int
		want []string
	}{
		{"missing column", "DispositionNumber,Kind\n1,PNG\n", 1, []string{"no Type column"}},
		{"10 fields", dispositionHeader + dispositionRow + "1,PNG,x,y,z,2019-01-01,,N,1,AB\r\n", 3, []string{"10 fields", "want 11"}},
		{"bad kind", dispositionHeader + strings.Replace(dispositionRow, ",PNG,", ",OIL SANDS,", 1), 2, []string{"Kind"}},
		{"bad date", dispositionHeader + strings.Replace(dispositionRow, "2019-03-14", "2019/03/14", 1), 2, []string{"IssueDate", "YYYY-MM-DD"}},
		{"bad province", dispositionHeader + strings.Replace(dispositionRow, ",AB,", ",BC,", 1), 2, []string{"Province"}},
		{"bad land", dispositionHeader + strings.Replace(dispositionRow, "NE-15-24-1-W5", "NE-15-24-1", 1), 2, []string{"LandDescription"}},
		{"NTS land", dispositionHeader + strings.Replace(dispositionRow, "NE-15-24-1-W5", "A-2-F/93-P-8", 1), 2, []string{"not a DLS location"}},
		{"no land", dispositionHeader + strings.Replace(dispositionRow, "10-24-1-W5;NE-15-24-1-W5", "", 1), 2, []string{"no land"}},
		{"bad area", dispositionHeader + strings.Replace(dispositionRow, "518.42", "-5", 1), 2, []string{"AreaHa"}},
		{"bad flag", dispositionHeader + strings.Replace(dispositionRow, ",Y,", ",perpetual,", 1), 2, []string{"Continued"}},
		{"no number", dispositionHeader + strings.Replace(dispositionRow, "0519030010", "", 1), 2, []string{"DispositionNumber"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := energyingest.ReadDispositionsCSV(strings.NewReader(tc.in), "d.csv", func(energyingest.Disposition) error { return nil })
			wantIngestError(t, err, "d.csv", tc.line, tc.want...)
		})
	}
}

func FuzzReadDispositionsCSV(f *testing.F) {
	f.Add(dispositionHeader + dispositionRow)
	if b, err := demoOnce(); err == nil {
		f.Add(firstLines(b["Crown_Dispositions_MB.csv"], 4))
	}
	f.Fuzz(func(t *testing.T, in string) {
		err := energyingest.ReadDispositionsCSV(strings.NewReader(in), "d.csv", func(d energyingest.Disposition) error {
			if len(d.Lands) == 0 || d.Number == "" {
				t.Fatalf("disposition %+v", d)
			}
			return nil
		})
		checkFuzzError(t, err, 1)
	})
}

func FuzzReadDispositionsGeoJSON(f *testing.F) {
	if b, err := demoOnce(); err == nil {
		f.Add(b["Crown_Dispositions_MB.geojson"])
	}
	f.Add([]byte(`{"type":"FeatureCollection","features":[{"type":"Feature","properties":{"DispositionNumber":"1","Kind":"PNG","Type":"","Holder":"","Status":"","IssueDate":"","ExpiryDate":"","Continued":"","AreaHa":1,"Province":"MB"},"geometry":{"type":"MultiPolygon","coordinates":[[[[-98,49],[-97.9,49],[-97.9,49.1],[-98,49]]]]}}]}`))
	f.Fuzz(func(t *testing.T, in []byte) {
		err := energyingest.ReadDispositionsGeoJSON(bytes.NewReader(in), "d.geojson", func(d energyingest.Disposition) error {
			if d.Geometry == nil && len(d.Lands) == 0 {
				t.Fatalf("disposition %+v without land or geometry", d)
			}
			return nil
		})
		checkFuzzError(t, err, 1)
	})
}
