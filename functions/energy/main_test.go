package main

import (
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"meridian/shared/api/apigw/apigwtest"
	"meridian/shared/demo"
	"meridian/shared/energy/energytest"
	"meridian/shared/golden"
	"meridian/shared/gridstore"
	"meridian/shared/kv"
	"meridian/shared/kv/dynamokv"
	"meridian/shared/kv/dynamokv/dynamokvtest"
	"meridian/shared/lambdafn"
)

// events are this function's recorded API Gateway requests.
const events = "../../events/energy-*.json"

// wantEvents are the answers over the demo data, with the clock at the
// demo's as-of date (2026-11-21).
var wantEvents = map[string]apigwtest.Want{
	"energy-report": {Status: 200, ContentType: "application/json", Check: sameAs("energy/report-full"), Contains: []string{`"legal_location":"9-10-60-22-W5"`, `"province":"AB"`,
		`"geometry":null`, `"primary_source":"regulator"`, `"dominant":{"name":"Aspen Coulee Petroleum Ltd. (demo)","ba_code":"Z9A1"`,
		`"last_producing_month":"2026-10"`, `"oil_m3":6300.2`, `"dominant_product":"oil"`,
		`"tenure":{"total":3,"returned":3,"truncated":false,"more":"/energy/tenure?legal_location=9-10-60-22-W5"`, `"days_to_expiry":1297`,
		`"uwi":"02/09-10-060-22W5/0"`, `"id":"ABBT0905005"`, `"alternative_energy":null`,
		`"unavailable":[{"section":"alternative_energy","reason":"not_ingested"}]`, `"gas":"e3m3"`}},
	"energy-report-include": {Status: 200, ContentType: "application/json", Contains: []string{`"legal_location":"09-10-060-22W5"`, `"geometry":null`,
		`"production":{"window_months":12,"last_producing_month":"2026-10"`, `"producing_well_count":1`,
		`"wells":{"total":1,"returned":1,"truncated":false,"more":"/energy/wells?legal_location=9-10-60-22-W5"`, `"unavailable":[]`},
		Check: lacks(`"summary":`, `"tenure":`, `"pipelines":`, `"facilities":`, `"alternative_energy":`)},
	"energy-wells": {Status: 200, ContentType: "application/json", Contains: []string{`"id":"02/09-10-060-22W5/0"`, `"well_name":"ASPEN COULEE HZ KAYBOBS 9-10-60-22"`,
		`"status":"active"`, `"total_depth_m":5289.1`, `"meta":{"dir":"asc","operator":null,"page":1,"per_page":50,"sort":"status","status":null,"total":1}`}},
	"energy-pipelines": {Status: 200, ContentType: "application/json", Contains: []string{`"id":"900196","href":"/energy/pipelines/40822"`, `"h2s_pct":0.05`,
		`"length_m_on_parcel":201`, `"sort":"h2s"`, `"dir":"desc"`, `"total":1`}},
	"energy-facilities": {Status: 200, ContentType: "application/json", Contains: []string{`"id":"ABBT0905005"`, `"facility_name":"Kaybob South Oil Battery 09-10-060-22W5"`,
		`"category":"battery"`, `"meta":{"category":"BATTERY"`, `"total":1`}},
	"energy-tenure": {Status: 200, ContentType: "application/json", Contains: []string{
		`"rows":[{"id":"metallic-and-industrial-minerals-permit:9323060045"`, `"days_to_expiry":1297,"expiry_state":"active"`,
		`"id":"0519080035"`, `"days_to_expiry":1724`, `"id":"0514110015"`, `"days_to_expiry":null,"expiry_state":"perpetual"`,
		`"sort":"urgency"`, `"total":3`}},
	"energy-operators": {Status: 200, ContentType: "application/json", Contains: []string{`"rows":[{"ba_code":"Z9X1","name":"Prairie Sunset Petroleum Ltd. (demo)"`,
		`"orphan_wells":4`, `{"ba_code":"Z9A9","name":"Juniper Bend Energy Corp. (demo)","slug":"juniper-bend-energy-corp-demo","active_wells":15`,
		`"meta":{"dir":"desc","next_cursor":null,"page":1,"per_page":50,"q":null,"sort":"orphan","total":12}`}},
	"energy-operator": {Status: 200, ContentType: "application/json", Contains: []string{`"ba_code":"Z9A9","name":"Juniper Bend Energy Corp. (demo)"`,
		`"liability":{"total_wells":23,"active_wells":15`, `"total_dispositions":4`, `"id":"MB-0700"`, `"days_to_expiry":100,"expiry_state":"expiring_soon"`,
		`"footprint":[{"legal_location":"1-9-10-14-W2"`}},
	"energy-tenure-expiring": {Status: 200, ContentType: "application/json", Contains: []string{`"rows":[{"id":"0522020020"`, `"issue_date":"2022-02-26"`,
		`"expiry_date":"2027-01-15","days_to_expiry":55,"expiry_state":"expiring_soon"`, `"expires_within_days":365`}},
	"energy-disposition": {Status: 200, ContentType: "application/json", Contains: []string{`"id":"0512020016"`, `"holder":{"name":"Ironwood Slough Energy Ltd. (demo)","ba_code":"Z9A8"`,
		`"status":"continued"`, `"expiry_state":"perpetual"`, `"area_ha":525.9`, `"lsds":["1-10-10-15-W4"`}},
	"energy-pipeline-licence": {Status: 200, ContentType: "application/json", Contains: []string{`"licence_number":"40137"`,
		`"operator":{"name":"Aspen Coulee Petroleum Ltd. (demo)","ba_code":"Z9A1"`, `"segment_id":"900007"`, `"substance":"Sour Natural Gas"`,
		`"meta":{"total":5,"returned":5,"truncated":false}`}},
	"energy-report-quarter": {Status: 400, ContentType: "application/json", Contains: []string{`"code":"invalid_legal_location"`,
		`'NW-25-24-1-W5' is not an LSD`}},
	"energy-report-bc": {Status: 400, ContentType: "application/json", Contains: []string{`"code":"bc_not_supported"`, `is in British Columbia`}},
	"energy-wells-per-page": {Status: 400, ContentType: "application/json", Contains: []string{`"code":"invalid_parameter"`,
		`per_page '201' is out of range`}},
	"energy-operator-not-found": {Status: 404, ContentType: "application/json", Contains: []string{`"code":"not_found"`,
		`no operator 'nobody-at-all'`}},
}

// lacks checks that the body holds none of keys (include projects the
// report onto the sections asked for).
func lacks(keys ...string) func(map[string][]string, []byte) error {
	return func(_ map[string][]string, body []byte) error {
		for _, k := range keys {
			if strings.Contains(string(body), k) {
				return fmt.Errorf("body has %s", k)
			}
		}
		return nil
	}
}

// demoStore is an in-memory report store holding the demo energy data.
func demoStore(t *testing.T) kv.Store {
	store := kv.NewMem()
	energytest.IngestDemo(t, store)
	return store
}

// demoNow is the clock of the tests: the demo's as-of date, so that days to
// expiry do not drift with the calendar.
func demoNow() time.Time { return demo.AsOf() }

// TestReplayEvents runs every events/energy-*.json through the real handler.
func TestReplayEvents(t *testing.T) {
	t.Parallel()
	h := functionAt(demoNow).Handler(slog.New(slog.DiscardHandler), lambdafn.Config{}, demoStore(t), gridstore.Fixed(nil))
	apigwtest.Replay(t, h, events, wantEvents)
}

// TestBootstrap runs the built function as Lambda would, against a DynamoDB
// emulator holding the demo data, over the events whose answers do not
// depend on the day (the binary counts days from the real clock).
func TestBootstrap(t *testing.T) {
	t.Parallel()
	client, endpoint := dynamokvtest.Minidyn(t, "reports")
	// The ingest's batch writes wait on the in-process emulator as long as
	// they need: with the 3 s a Lambda gives a call, a loaded machine (make
	// test runs two packages at once beside other work) timed them out.
	energytest.IngestDemo(t, dynamokv.New(client, "reports", dynamokv.Options{Timeout: time.Minute}))
	rss := apigwtest.CheckBootstrap(t, ".", "../../events/energy-wells*.json", wantEvents,
		"REPORTS_TABLE=reports", "AWS_ENDPOINT_URL_DYNAMODB="+endpoint, "AWS_ACCESS_KEY_ID=test", "AWS_SECRET_ACCESS_KEY=test")
	t.Logf("peak RSS of the energy function: %.1f MB", float64(rss)/(1<<20))
}

// sameAs checks an answer against the golden file the handler's own tests
// check (testdata/golden): the Lambda answers what the handler does, byte
// for byte once indented.
func sameAs(name string) func(map[string][]string, []byte) error {
	return func(_ map[string][]string, body []byte) error { return golden.Compare(name, body) }
}
