package agapi

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strconv"
	"testing"

	"meridian/shared/ag"
	"meridian/shared/report"
)

// encoderJSON is rep as api.WriteJSON writes it: what appendReport must
// write byte for byte.
func encoderJSON(t *testing.T, rep *ag.Report) []byte {
	t.Helper()
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(rep); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestAppendReportAsEncoder compares appendReport with encoding/json on
// reports with every section set (a field added to ag.Report and not to
// appendReport shows here), none set, sections with whitespace to
// compact, and strings the encoder would escape for HTML.
func TestAppendReportAsEncoder(t *testing.T) {
	full := func() *ag.Report {
		rep := &ag.Report{LegalLocation: "NE-6-40-20-W4 <&>", Resolved: "NE-6-40-20-W4", Grain: "quarter_section", Province: "AB",
			Units: ag.Units{Area: "ha", Distance: "m"}, Meta: report.NewMeta[json.RawMessage]()}
		v := reflect.ValueOf(rep).Elem()
		raw := reflect.TypeOf(json.RawMessage(nil))
		for i := range v.NumField() {
			if v.Field(i).Type() == raw {
				v.Field(i).Set(reflect.ValueOf(json.RawMessage(`{"field":` + strconv.Itoa(i) + `,"s":"a & b <c> \" x"}`)))
			}
		}
		rep.Meta.AddUnavailable("soil", report.ReasonNoData)
		rep.Meta.AddUnavailable("wetlands", report.ReasonNotIngested)
		rep.Parcel = report.Parcel{AreaHa: 64.75, Centroid: report.Point{Lat: 51.005123, Lng: -113.995}}
		rep.Meta.Sources["soil"] = json.RawMessage(`{"name":"x & y","as_of":"2025"}`)
		rep.Meta.Sources["cropping"] = json.RawMessage(`{ "name": "b" }`)
		rep.Meta.Sources["a<b"] = json.RawMessage(`{}`)
		return rep
	}
	spaced := full()
	spaced.Cropping = json.RawMessage("{ \"a\" :\t[1, 2 ,\n3],\r\n \"b\": \"x y\" }")
	spaced.Drought = json.RawMessage(" null ")
	spaced.Hydrology = json.RawMessage(`{"a":"x\\" ,"b":"y \" z" }`) // whitespace after a string ending in an escaped backslash
	empty := &ag.Report{Meta: report.NewMeta[json.RawMessage]()}
	zero := &ag.Report{} // meta's nil slice and map: null, as the encoder writes them
	some := full()
	some.Soil, some.Wetlands, some.ProvincialDetail = nil, json.RawMessage{}, json.RawMessage("null")
	escapes := full() // strings the encoder escapes, and other units
	escapes.LegalLocation, escapes.Resolved, escapes.Grain, escapes.Province = `q "s" \ x`, "é", "tab\there \u2028", "\x01\xff"
	escapes.Units = ag.Units{Area: "acre", Distance: "ft"}
	escapes.Meta.AddUnavailable(`drought "x" \`, "é\x01\u2028")
	escapes.Meta.Sources["k\"\\\t"] = json.RawMessage(`{}`)
	escapes.Parcel = report.Parcel{AreaHa: 1e-7, Centroid: report.Point{Lat: 1e21, Lng: -0.5}}
	known := full() // sources all of ag.SourceNames', written in its order
	known.Meta.Sources = map[string]json.RawMessage{}
	for i, k := range ag.SourceNames {
		known.Meta.Sources[k] = json.RawMessage(`{"n":` + strconv.Itoa(i) + `}`)
	}
	for name, rep := range map[string]*ag.Report{"known": known, "full": full(), "spaced": spaced, "empty": empty, "zero": zero, "some": some, "escapes": escapes} {
		got, err := appendReport([]byte("keep"), rep)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		want := append([]byte("keep"), encoderJSON(t, rep)...)
		if !bytes.Equal(got, want) {
			t.Errorf("%s:\n got %s\nwant %s", name, got, want)
		}
	}
	// A section that is not JSON is an error, as the encoder's.
	bad := full()
	bad.Soil = json.RawMessage("{ not json")
	if _, err := appendReport(nil, bad); err == nil {
		t.Error("a section with whitespace that is not JSON was written")
	}
}
