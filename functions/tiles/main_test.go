package main

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/paulmach/orb"
	"github.com/paulmach/orb/encoding/mvt"

	"meridian/shared/api/apigw/apigwtest"
	"meridian/shared/blob"
	"meridian/shared/blob/s3blob"
	"meridian/shared/blob/s3blob/s3blobtest"
	"meridian/shared/gridstore"
	"meridian/shared/lambdafn"
	"meridian/shared/survey/grid"
	"meridian/shared/survey/gridindex"
	"meridian/shared/survey/gridindex/gridindextest"
	"meridian/shared/tile"
	"meridian/shared/tile/archive"
	"meridian/shared/tile/archive/writer"
)

// events are this function's recorded API Gateway requests.
const events = "../../events/tiles-*.json"

var wantEvents = map[string]apigwtest.Want{
	"tiles-tilejson": {Status: 200, ContentType: "application/json", Contains: []string{`"tilejson":"3.0.0"`, `"id":"ab_sec"`,
		`"tiles":["https://a1b2c3d4e5.execute-api.ca-central-1.amazonaws.com/tiles/ab/sec/{z}/{x}/{y}.mvt?api_key=mk_example_maps"]`, `"minzoom":9`, `"maxzoom":14`}},
	"tiles-label-tilejson": {Status: 200, Contains: []string{`"id":"mb_sec_label"`, `"quarter_section"`, `"descriptor"`}},
	"tiles-sec":            {Status: 200, ContentType: tile.ContentType, Binary: true, Check: mvtLayer("ab_sec", "gzip")},
	"tiles-sec-plain":      {Status: 200, ContentType: tile.ContentType, Binary: true, Check: mvtLayer("ab_sec", "")},
	"tiles-lsd-label":      {Status: 200, ContentType: tile.ContentType, Binary: true, Check: mvtLayer("ab_lsd_label", "gzip")},
	"tiles-twp-archive":    {Status: 200, ContentType: tile.ContentType, Binary: true, Check: mvtLayer("ab_twp", "gzip")},
	"tiles-empty":          {Status: 204},
	"tiles-not-published":  {Status: 403, Contains: []string{`"code":"archive_not_published"`}},
	"tiles-bad-tile":       {Status: 400, Contains: []string{`"code":"invalid_parameter"`, `0 to 4095`}},
	"tiles-ag-not-built":   {Status: 404, Contains: []string{`"code":"not_found"`, `ag/soils`}},
}

// mvtLayer checks a tile response: its Content-Encoding, and that it
// decodes to one layer of that name with features.
func mvtLayer(name, encoding string) func(map[string][]string, []byte) error {
	return func(h map[string][]string, body []byte) error {
		if got := strings.Join(h["Content-Encoding"], ","); got != encoding {
			return fmt.Errorf("Content-Encoding %q, want %q", got, encoding)
		}
		decode := mvt.Unmarshal
		if encoding == "gzip" {
			decode = mvt.UnmarshalGzipped
		}
		ls, err := decode(body)
		if err != nil {
			return fmt.Errorf("not an MVT tile: %v", err)
		}
		if len(ls) != 1 || ls[0].Name != name || len(ls[0].Features) == 0 {
			return fmt.Errorf("tile layers %v, want %s with features", ls, name)
		}
		return nil
	}
}

// twpArchive builds ab/twp at zoom 10 around Calgary, as build-tiles does,
// over the fixture grid indexes.
func twpArchive(t testing.TB) []byte {
	t.Helper()
	grids, _ := gridindextest.FixtureGrids(t)
	svc := grid.New()
	svc.SetIndexes(grids)
	l, _ := tile.Lookup("ab", "twp")
	b := orb.Bound{Min: orb.Point{-114.5, 50.8}, Max: orb.Point{-113.5, 51.3}}
	w, err := writer.New(t.TempDir(), archive.Metadata{Name: l.Path(), Bounds: b, MinZoom: 10, MaxZoom: 10,
		VectorLayers: []archive.VectorLayer{{ID: l.SourceLayer, MinZoom: 10, MaxZoom: 10, Fields: map[string]string{"id": "String"}}}})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if _, err := tile.Build(context.Background(), l, tile.NewGenerator(svc).Tile, w, tile.BuildOptions{MinZoom: 10, MaxZoom: 10, Bounds: b}); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if _, err := w.Finish(&buf); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// loadConfig reads the function's own environment as its cold start does.
func loadConfig(getenv func(string) string) (config, error) {
	t := &tiles{}
	_, err := t.function().LoadConfig(getenv)
	return t.config, err
}

// newHandler builds the function's handler over the grid indexes and the
// archive store (nil: no archives), as its cold start does.
func newHandler(logger *slog.Logger, c config, grids []*gridindex.Index, archives blob.Store) http.Handler {
	t := &tiles{config: c}
	if archives != nil {
		t.archives = archive.NewReleaseSet(archives, c.Recheck) // as `meridian-publish` writes them
	}
	return t.function().Handler(logger, lambdafn.Config{}, nil, gridstore.Fixed(grids))
}

// TestReplayEvents runs every events/tiles-*.json through the handler, with
// the twp archive in a store whose reads are counted.
func TestReplayEvents(t *testing.T) {
	t.Parallel()
	grids, _ := gridindextest.FixtureGrids(t)
	mem := blob.NewMem()
	if err := mem.Put(context.Background(), "ab/twp.pmtiles", bytes.NewReader(twpArchive(t))); err != nil {
		t.Fatal(err)
	}
	store := blob.NewCounting(mem)
	c, err := loadConfig(func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	h := newHandler(slog.New(slog.DiscardHandler), c, grids, store)
	apigwtest.Replay(t, h, events, wantEvents)
	if store.Stats().Reads == 0 {
		t.Error("the twp tile did not come from its archive: no range reads")
	}
}

// TestBootstrap runs the built function as Lambda would, reading the grid
// indexes and the archive from an S3 emulator by range requests.
func TestBootstrap(t *testing.T) {
	t.Parallel()
	_, env := gridindextest.FixtureGrids(t)
	var endpoint string
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "AWS_ENDPOINT_URL_S3="); ok {
			endpoint = v
		}
	}
	client := s3blobtest.Client(t, endpoint, "test", "test")
	s3 := s3blob.New(client, "meridian-grids", "tiles/", s3blob.Options{})
	if err := s3.Put(context.Background(), "ab/twp.pmtiles", bytes.NewReader(twpArchive(t))); err != nil {
		t.Fatal(err)
	}
	env = append(env, "TILES_BUCKET=meridian-grids", "TILES_PREFIX=tiles/")
	rss := apigwtest.CheckBootstrap(t, ".", events, wantEvents, env...)
	t.Logf("peak RSS of the tiles function over %s: %.1f MB", events, float64(rss)/(1<<20))
}

func TestLoadConfig(t *testing.T) {
	t.Parallel()
	vars := map[string]string{"TILE_CACHE_MIB": "4", "PUBLIC_TILES_URL": "cdn.example.com", "ARCHIVE_RECHECK_SECONDS": "x"}
	_, err := loadConfig(func(k string) string { return vars[k] })
	for _, name := range []string{"TILE_CACHE_MIB", "PUBLIC_TILES_URL", "ARCHIVE_RECHECK_SECONDS"} {
		if err == nil || !strings.Contains(err.Error(), name) {
			t.Errorf("error %v does not name %s", err, name)
		}
	}
	c, err := loadConfig(func(k string) string {
		return map[string]string{"TILES_BUCKET": "tiles-bucket", "PUBLIC_TILES_URL": "https://cdn.example.com/tiles"}[k]
	})
	if err != nil || c.Bucket != "tiles-bucket" || c.Prefix != "tiles/" || c.CacheMiB != 64 {
		t.Errorf("loadConfig = %+v, %v", c, err)
	}
}

// The tiles are generated and attributed by the conversion service the
// grid indexes are attached to: with the fixture indexes, a survey layer's
// TileJSON names them as its official data.
func TestHandlerUsesTheAttachedGrids(t *testing.T) {
	t.Parallel()
	grids, _ := gridindextest.FixtureGrids(t)
	c, err := loadConfig(func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	h := newHandler(slog.New(slog.DiscardHandler), c, grids, nil)
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", "/tiles/ab/twp.json", nil))
	if !strings.Contains(rec.Body.String(), "official data: Meridian demo data (invented): AltaLIS") {
		t.Errorf("GET /tiles/ab/twp.json: %d %s; want the attribution to name the fixture AltaLIS index", rec.Code, rec.Body)
	}
}
