package main

import (
	"log/slog"
	"testing"
	"time"

	"meridian/shared/api/apigw/apigwtest"
	"meridian/shared/energy/energytest"
	"meridian/shared/gridstore"
	"meridian/shared/kv"
	"meridian/shared/kv/dynamokv"
	"meridian/shared/kv/dynamokv/dynamokvtest"
	"meridian/shared/lambdafn"
)

// events are this function's recorded API Gateway requests.
const events = "../../events/changes-*.json"

// wantEvents are the answers over the demo data: one version, so no
// changes yet (the changes of a second version are checked on the local
// server, functions/local TestEnergyChangesAfterARefresh, and the items
// themselves in shared/dataingest).
var wantEvents = map[string]apigwtest.Want{
	"changes-township": {Status: 200, ContentType: "application/json", Contains: []string{`"legal_location":"24-1-W5"`, `"province":"AB"`,
		`"unit":"township"`, `"rows":[]`, `"total":0`, `"next_cursor":null`}},
	"changes-bad-kinds": {Status: 400, ContentType: "application/json", Contains: []string{`"code":"invalid_parameter"`, `kinds: 'volcano'`}},
}

// TestReplayEvents runs every events/changes-*.json through the handler.
func TestReplayEvents(t *testing.T) {
	t.Parallel()
	store := kv.NewMem()
	energytest.IngestDemo(t, store)
	h := function().Handler(slog.New(slog.DiscardHandler), lambdafn.Config{}, store, gridstore.Fixed(nil))
	apigwtest.Replay(t, h, events, wantEvents)
}

// TestBootstrap runs the built function as Lambda would, against a DynamoDB
// emulator holding the demo data.
func TestBootstrap(t *testing.T) {
	t.Parallel()
	client, endpoint := dynamokvtest.Minidyn(t, "reports")
	energytest.IngestDemo(t, dynamokv.New(client, "reports", dynamokv.Options{Timeout: time.Minute}))
	rss := apigwtest.CheckBootstrap(t, ".", events, wantEvents,
		"REPORTS_TABLE=reports", "AWS_ENDPOINT_URL_DYNAMODB="+endpoint, "AWS_ACCESS_KEY_ID=test", "AWS_SECRET_ACCESS_KEY=test")
	t.Logf("peak RSS of the changes function: %.1f MB", float64(rss)/(1<<20))
}
