package main

import (
	"log/slog"
	"testing"

	"meridian/shared/api/apigw/apigwtest"
	"meridian/shared/gridstore"
	"meridian/shared/lambdafn"
	"meridian/shared/survey/gridindex/gridindextest"
)

// events are this function's recorded API Gateway requests.
const events = "../../events/autocomplete-*.json"

// wantEvents is the answer to each event, whether it goes through the
// handler in-process or through the built binary.
var wantEvents = map[string]apigwtest.Want{
	"autocomplete-legal-location-lot":       {Status: 200, Contains: []string{`"legal_location":"Lot 10 Con 1 Adjala"`, `"search_term":"Lot 10 Con 1 Adj"`}},
	"autocomplete-legal-location":           {Status: 200, ContentType: "application/geo+json", Contains: []string{`"legal_location":"NW-25-24-1-W5"`, `"search_term":"NW-25-24"`}},
	"autocomplete-legal-location-proximity": {Status: 200, Contains: []string{`"legal_location":"10-36-42-3-W5"`, `"unit":"LSD"`}},
	"autocomplete-legal-location-bad-limit": {Status: 400, Contains: []string{`"code":"invalid_parameter"`, `1 to 10`}},
}

// TestReplayEvents runs every events/autocomplete-*.json through the real handler.
func TestReplayEvents(t *testing.T) {
	t.Parallel()
	grids, _ := gridindextest.FixtureGrids(t)
	h := function.Handler(slog.New(slog.DiscardHandler), lambdafn.Config{}, nil, gridstore.Fixed(grids))
	apigwtest.Replay(t, h, events, wantEvents)
}

// TestBootstrap runs the built function as Lambda would: a process polling
// the Runtime API, reading the fixture grid indexes from an S3 emulator by
// range requests, over every event, within its memory.
func TestBootstrap(t *testing.T) {
	t.Parallel()
	_, env := gridindextest.FixtureGrids(t)
	rss := apigwtest.CheckBootstrap(t, ".", events, wantEvents, env...)
	t.Logf("peak RSS of the autocomplete function over %s: %.1f MB", events, float64(rss)/(1<<20))
}
