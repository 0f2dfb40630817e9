package main

import (
	"log/slog"
	"testing"
	"time"

	"meridian/shared/ag/agtest"
	"meridian/shared/api/apigw/apigwtest"
	"meridian/shared/golden"
	"meridian/shared/gridstore"
	"meridian/shared/kv"
	"meridian/shared/kv/dynamokv"
	"meridian/shared/kv/dynamokv/dynamokvtest"
	"meridian/shared/lambdafn"
)

// events are this function's recorded API Gateway requests.
const events = "../../events/ag-*.json"

var wantEvents = map[string]apigwtest.Want{
	"ag-report": {Status: 200, ContentType: "application/json", Contains: []string{`"legal_location":"NE-25-10-14-W2"`, `"grain":"quarter_section"`,
		`"province":"SK"`, `"unavailable":[]`, `"pastures":[{"name":"Demo Community Pasture A"`, `"geometry":null`, `"units":{"area":"ha","distance":"m"}`}},
	"ag-report-lsd-include": {Status: 200, Contains: []string{`"legal_location":"10-25-24-1-W5"`, `"resolved_legal_location":"NE-25-24-1-W5"`, `"grain":"lsd"`,
		`"geometry":{"type":"Polygon"`, `"soil":{`, `"drought":{`}},
	"ag-report-ab":          {Status: 200, Check: sameAs("ag/ab-full"), Contains: []string{`"provincial_detail":null`, `{"section":"provincial_detail","reason":"not_published_in_province"}`}},
	"ag-report-unavailable": {Status: 200, Contains: []string{`"productivity":null`, `{"section":"cropping","reason":"no_data"}`}},
	"ag-report-bc":          {Status: 400, Contains: []string{`"code":"bc_not_supported"`, `BC locations are not yet supported`}},
	"ag-report-nts":         {Status: 400, Contains: []string{`"code":"bc_not_supported"`}},
	"ag-report-section":     {Status: 400, Contains: []string{`"code":"invalid_legal_location"`, `Not a quarter section or LSD`}},
	"ag-report-bad-include": {Status: 400, Contains: []string{`"code":"invalid_parameter"`, `weather`}},
	"ag-report-not-found":   {Status: 404, Contains: []string{`"code":"not_found"`, `No agriculture data`}},
	"ag-report-missing":     {Status: 400, Contains: []string{`"code":"invalid_parameter"`, `legal_location`}},
}

// demoStore is an in-memory report store holding the demo agriculture data.
func demoStore(t *testing.T) kv.Store {
	store := kv.NewMem()
	agtest.IngestDemo(t, store)
	return store
}

// TestReplayEvents runs every events/ag-*.json through the real handler.
func TestReplayEvents(t *testing.T) {
	t.Parallel()
	h := function.Handler(slog.New(slog.DiscardHandler), lambdafn.Config{}, demoStore(t), gridstore.Fixed(nil))
	apigwtest.Replay(t, h, events, wantEvents)
}

// TestBootstrap runs the built function as Lambda would, against a DynamoDB
// emulator holding the demo data, over every event.
func TestBootstrap(t *testing.T) {
	t.Parallel()
	client, endpoint := dynamokvtest.Minidyn(t, "reports")
	// The ingest's batch writes wait on the in-process emulator as long as
	// they need: with the 3 s a Lambda gives a call, a loaded machine (make
	// test runs two packages at once beside other work) timed them out.
	agtest.IngestDemo(t, dynamokv.New(client, "reports", dynamokv.Options{Timeout: time.Minute}))
	rss := apigwtest.CheckBootstrap(t, ".", events, wantEvents,
		"REPORTS_TABLE=reports", "AWS_ENDPOINT_URL_DYNAMODB="+endpoint, "AWS_ACCESS_KEY_ID=test", "AWS_SECRET_ACCESS_KEY=test")
	t.Logf("peak RSS of the ag function: %.1f MB", float64(rss)/(1<<20))
}

// sameAs checks an answer against the golden file the handler's own tests
// check (testdata/golden): the Lambda answers what the handler does, byte
// for byte once indented.
func sameAs(name string) func(map[string][]string, []byte) error {
	return func(_ map[string][]string, body []byte) error { return golden.Compare(name, body) }
}
