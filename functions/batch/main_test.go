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
const events = "../../events/batch-*.json"

// wantEvents is the answer to each event, whether it goes through the
// handler in-process or through the built binary.
var wantEvents = map[string]apigwtest.Want{
	"batch-legal-location-official":  {Status: 200, Contains: []string{`"source":"Meridian demo data (invented): AltaLIS ATS v4.1 format"`, `"legal_location":"Lot 10 Con 1 Adjala"`, `"legal_location":"RL-22-St. Norbert"`, `"legal_location":"SE-7-5-6-W1"`, `"source":"Meridian demo data (invented): ISC SaskGrid format"`, `"errors":[]`}},
	"batch-legal-location":           {Status: 200, ContentType: "application/geo+json", Contains: []string{`"legal_location":"NE-7-102-19-W4"`, `"legal_location":"1-24-60-1-W5"`, `"legal_location":"7-66-4-W6"`, `"errors":[{"index":3,"input":"not a location","code":"invalid_legal_location"`}},
	"batch-legal-location-too-large": {Status: 413, Contains: []string{`"code":"batch_too_large"`, `101`}},
	"batch-legal-location-malformed": {Status: 400, Contains: []string{`"code":"invalid_parameter"`}},
	"batch-coordinates":              {Status: 200, Contains: []string{`"unit":"Quarter Section"`, `"errors":[{"index":2,"input":[200,100],"code":"invalid_coordinates"`}},
	"batch-coordinates-nad27":        {Status: 200, Contains: []string{`"legal_location":"A-2-F/93-P-8"`, `"datum":"NAD27"`, `"errors":[{"index":1,"input":[-150,61],"code":"invalid_coordinates"`}},
}

// TestReplayEvents runs every events/batch-*.json through the real handler.
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
	t.Logf("peak RSS of the batch function over %s: %.1f MB", events, float64(rss)/(1<<20))
}
