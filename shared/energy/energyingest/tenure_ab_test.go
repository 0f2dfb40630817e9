package energyingest_test

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/paulmach/orb"

	"meridian/shared/energy/energyingest"
	"meridian/shared/ingest"
)

// abFeature is one feature of a GeoView Mineral_Agreements_Ext_PROD layer
// query saved as GeoJSON, with the layer's field names (dates in epoch
// milliseconds as ArcGIS writes them). The holder is invented.
func abFeature(props string) string {
	return `{"type":"Feature","id":7,"geometry":{"type":"Polygon","coordinates":[[[-114.2,51.0],[-114.2,51.1],[-114.1,51.1],[-114.1,51.0],[-114.2,51.0]]]},` +
		`"properties":{` + props + `}}`
}

const abProps = `"OBJECTID":7,"AgreementType":"004","AgreementNumber":"0521050123","Tract":"1","Status":"Active",` +
	`"DesRep":"ASPEN COULEE PETROLEUM LTD (DEMO)","DesRepId":"Z9A1","Participants":"ASPEN COULEE PETROLEUM LTD (DEMO) 100%",` +
	`"TermDate":1620800000000,"CurrentExpiryDate":1778566400000,"ContinuationDate":null,"CancelDate":null,"ZoneDesc":"ALL PNG"`

func abCollection(features ...string) string {
	return "{\"type\":\"FeatureCollection\",\n\"features\":[\n" + strings.Join(features, ",\n") + "\n]}\n"
}

func TestReadAlbertaAgreements(t *testing.T) {
	t.Parallel()
	continued := strings.NewReplacer(`"AgreementNumber":"0521050123"`, `"AgreementNumber":"0498070011"`, `"Status":"Active"`, `"Status":"Continued"`,
		`"CurrentExpiryDate":1778566400000`, `"CurrentExpiryDate":253402214400000`).Replace(abProps)
	coal := strings.NewReplacer(`"AgreementType":"004"`, `"AgreementType":"013"`, `"DesRep":"ASPEN COULEE PETROLEUM LTD (DEMO)"`, `"DesRep":null`,
		`"Participants":"ASPEN COULEE PETROLEUM LTD (DEMO) 100%"`, `"Participants":"QUILLWORT MIDSTREAM ULC (DEMO) 60%; GULLWING RESOURCES LTD (DEMO) 40%"`,
		`"TermDate":1620800000000`, `"TermDate":"1961-03-02"`, `"Status":"Active"`, `"Status":"Cancelled Pending"`).Replace(abProps)
	in := abCollection(abFeature(abProps), abFeature(strings.Replace(abProps, `"Tract":"1"`, `"Tract":"2"`, 1)), abFeature(continued), abFeature(coal))
	var got []energyingest.Disposition
	var notices ingest.Notices
	if err := energyingest.ReadAlbertaAgreements(strings.NewReader(in), "Mineral_Agreements_Ext_PROD_31.geojson", &notices, func(d energyingest.Disposition) error {
		got = append(got, d)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if len(got) != 4 {
		t.Fatalf("%d dispositions, want 4", len(got))
	}
	d := got[0]
	// 1620800000000 ms is 2021-05-12T06:13:20Z; 1778566400000 is 2026-05-12T06:13:20Z.
	if d.Number != "0521050123" || d.Tract != "1" || d.Kind != energyingest.KindPNG || d.Type != "PNG Lease (Plains)" || d.Province != "AB" ||
		d.Holder != "ASPEN COULEE PETROLEUM LTD (DEMO)" || d.Status != "Active" || d.IssueDate != day(2021, 5, 12) ||
		d.ExpiryDate != day(2026, 5, 12) || d.Continued || !d.AreaHa.Empty || len(d.Lands) != 0 {
		t.Errorf("first tract %+v", d)
	}
	if _, ok := d.Geometry.(orb.Polygon); !ok {
		t.Errorf("geometry %T", d.Geometry)
	}
	if got[1].Number != d.Number || got[1].Tract != "2" {
		t.Errorf("second tract %+v", got[1])
	}
	if c := got[2]; !c.Continued || !c.ExpiryDate.IsZero() || c.Number != "0498070011" {
		t.Errorf("continued agreement (expiry 9999-12-31) %+v", c)
	}
	if c := got[3]; c.Kind != energyingest.KindMineral || c.Type != "Coal Lease" || c.Holder != "QUILLWORT MIDSTREAM ULC (DEMO)" ||
		c.IssueDate != day(1961, 3, 2) || c.Status != "Cancelled Pending" {
		t.Errorf("coal lease %+v", c)
	}
	// The new status word is a notice, with its file, line and column.
	if notices.Total() != 1 {
		t.Fatalf("notices %v", notices.Lines())
	}
	if l := notices.Lines()[0]; !strings.Contains(l, "Mineral_Agreements_Ext_PROD_31.geojson:6") || !strings.Contains(l, `column Status: new value "Cancelled Pending"`) {
		t.Errorf("notice %q", l)
	}
	// A nil *Notices discards.
	if err := energyingest.ReadAlbertaAgreements(strings.NewReader(in), "a.geojson", nil, func(energyingest.Disposition) error { return nil }); err != nil {
		t.Fatal(err)
	}
}

func TestReadAlbertaAgreementsRejects(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		props  string
		column string
		value  string
	}{
		{"unknown type", strings.Replace(abProps, `"AgreementType":"004"`, `"AgreementType":"A59"`, 1), "AgreementType", `"A59"`},
		{"no number", strings.Replace(abProps, `"AgreementNumber":"0521050123"`, `"AgreementNumber":null`, 1), "AgreementNumber", `""`},
		{"bad date", strings.Replace(abProps, `"TermDate":1620800000000`, `"TermDate":"12/05/2021"`, 1), "TermDate", `"12/05/2021"`},
		{"fractional ms", strings.Replace(abProps, `"CurrentExpiryDate":1778566400000`, `"CurrentExpiryDate":17785.5`, 1), "CurrentExpiryDate", `"17785.5"`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			in := abCollection(abFeature(abProps), abFeature(tc.props))
			err := energyingest.ReadAlbertaAgreements(strings.NewReader(in), "ab.geojson", nil, func(energyingest.Disposition) error { return nil })
			wantIngestError(t, err, "ab.geojson", 4, "column "+tc.column, "value "+tc.value, "is not one of")
		})
	}
	// The accepted types are listed in the error.
	in := abCollection(abFeature(strings.Replace(abProps, `"AgreementType":"004"`, `"AgreementType":"999"`, 1)))
	err := energyingest.ReadAlbertaAgreements(strings.NewReader(in), "ab.geojson", nil, func(energyingest.Disposition) error { return nil })
	wantIngestError(t, err, "ab.geojson", 3, "004", "055", "099")
}

func TestDispositionLayoutOf(t *testing.T) {
	t.Parallel()
	own := `{"type":"FeatureCollection","features":[{"type":"Feature","properties":{"DispositionNumber":"PN00310","Kind":"PNG"},"geometry":null}]}`
	for _, tc := range []struct {
		file, in string
		want     ingest.Layout
	}{
		{"Mineral_Agreements_Ext_PROD_31.geojson", abCollection(abFeature(abProps)), energyingest.AlbertaAgreementLayout},
		{"Crown_Dispositions_SK.geojson", own, energyingest.DispositionGeoJSONLayout},
		{"Crown_Dispositions_SK.csv", dispositionHeader + dispositionRow, energyingest.DispositionCSVLayout},
	} {
		got, err := energyingest.DispositionLayoutOf(strings.NewReader(tc.in), tc.file)
		if err != nil || got != tc.want {
			t.Errorf("%s: %v, %v; want %s", tc.file, got.Form, err, tc.want.Form)
		}
	}
	if !energyingest.AlbertaAgreementLayout.Verified || energyingest.DispositionCSVLayout.Verified || energyingest.DispositionGeoJSONLayout.Verified {
		t.Error("only the Alberta GeoView layout is verified")
	}
	if b := energyingest.DispositionCSVLayout.Banner(); !strings.HasPrefix(b, "WARNING ") || !strings.Contains(b, "GUESSED") {
		t.Errorf("guessed banner %q", b)
	}
	if _, err := energyingest.DispositionLayoutOf(strings.NewReader(`{"type":"FeatureCollection","features":[{`), "x.geojson"); err == nil {
		t.Error("a broken GeoJSON has a layout")
	}
}

func FuzzReadAlbertaAgreements(f *testing.F) {
	f.Add([]byte(abCollection(abFeature(abProps))))
	f.Add([]byte(abCollection(abFeature(strings.Replace(abProps, `"TermDate":1620800000000`, `"TermDate":-315619200000`, 1)))))
	f.Fuzz(func(t *testing.T, in []byte) {
		var ns ingest.Notices
		err := energyingest.ReadAlbertaAgreements(bytes.NewReader(in), "ab.geojson", &ns, func(d energyingest.Disposition) error {
			if d.Number == "" || d.Province != "AB" || (d.Kind != energyingest.KindPNG && d.Kind != energyingest.KindMineral) {
				t.Fatalf("disposition %+v", d)
			}
			if d.Continued && !d.ExpiryDate.IsZero() {
				t.Fatalf("continued with an expiry: %+v", d)
			}
			if !d.IssueDate.IsZero() && d.IssueDate.Location() != time.UTC {
				t.Fatalf("issue date %v", d.IssueDate)
			}
			return nil
		})
		checkFuzzError(t, err, 1)
	})
}
