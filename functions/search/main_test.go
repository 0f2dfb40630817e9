package main

import (
	"log/slog"
	"testing"

	"meridian/shared/api/apigw/apigwtest"
	"meridian/shared/gridstore"
	"meridian/shared/lambdafn"
	"meridian/shared/survey/gridindex/gridindextest"
)

const geoJSON = "application/geo+json"

// events are this function's recorded API Gateway requests.
const events = "../../events/search-*.json"

// wantEvents is the answer to each event, whether it goes through the
// handler in-process or through the built binary.
var wantEvents = map[string]apigwtest.Want{
	"search-legal-location-ontario":   {Status: 200, Contains: []string{`"legal_location":"Lot 10 Con 1 Adjala"`, `"survey_system":"Geographic Township"`, `"unit":"Lot"`, `"province":"Ontario"`, `"source":"Meridian demo data (invented): LIO Geographic Lot Fabric format"`}},
	"search-legal-location-river-lot": {Status: 200, Contains: []string{`"legal_location":"RL-22-St. Norbert"`, `"unit":"River/Parish Lot"`, `"geometry":null`, `"source":"Meridian demo data (invented): Manitoba Original Survey format"`}},
	"search-coordinates-ontario-all":  {Status: 200, Contains: []string{`"legal_location":"Adjala Township"`, `"legal_location":"Con 1 Adjala"`, `"legal_location":"Lot 10 Con 1 Adjala"`}},
	"search-coordinates-river-lot":    {Status: 200, Contains: []string{`"legal_location":"RL-22-St. Norbert"`, `"survey_system":"River Lot"`}},
	"search-legal-location":           {Status: 200, ContentType: geoJSON, Contains: []string{`"shape":"grid"`, `"shape":"centroid"`, `"legal_location":"NW-25-24-1-W5"`, `"province":"Alberta"`, `"unit":"Quarter Section"`}},
	"search-legal-location-uwi":       {Status: 200, Contains: []string{`"legal_location":"6-32-48-7-W5"`, `"unit":"LSD"`, `"search_term":"100/06-32-048-07W5/00"`}},
	"search-legal-location-nts":       {Status: 200, Contains: []string{`"legal_location":"A-2-F/93-P-8"`, `"survey_system":"NTS"`, `"accuracy_m":2`}},
	"search-legal-location-invalid":   {Status: 400, Contains: []string{`"code":"invalid_legal_location"`, `37`}},
	"search-legal-location-missing":   {Status: 400, Contains: []string{`"code":"invalid_parameter"`}},
	"search-legal-location-not-found": {Status: 404, Contains: []string{`"code":"not_found"`}},
	"search-coordinates":              {Status: 200, Contains: []string{`"unit":"LSD"`, `"search_term":"-114.01924,51.077932"`}},
	"search-coordinates-lat-lng-all":  {Status: 200, Contains: []string{`"unit":"Township"`, `"unit":"Section"`, `"legal_location":"NW-25-24-1-W5"`, `"unit":"LSD"`}},
	"search-coordinates-quarter":      {Status: 200, Contains: []string{`"legal_location":"NW-25-24-1-W5"`}},
	"search-coordinates-nts":          {Status: 200, Contains: []string{`"legal_location":"D-80-H/92-G-3"`, `"survey_system":"NTS"`}},
	"search-coordinates-outside":      {Status: 404, Contains: []string{`"code":"not_found"`}},
	"search-coordinates-bad-unit":     {Status: 400, Contains: []string{`"code":"invalid_parameter"`, `Acre`}},
	"search-coordinates-nad27":        {Status: 200, Contains: []string{`"legal_location":"A-2-F/93-P-8"`, `"datum":"NAD27"`, `"accuracy_m":0`, `"coordinates":[-120.265625,55.335417]`}},
	"search-coordinates-bad-datum":    {Status: 400, Contains: []string{`"code":"invalid_parameter"`, `NAD27`}},
}

// TestReplayEvents runs every events/search-*.json through the real handler.
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
	t.Logf("peak RSS of the search function over %s: %.1f MB", events, float64(rss)/(1<<20))
}
