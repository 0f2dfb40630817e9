package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/browser"
	"github.com/chromedp/chromedp"

	"meridian/shared/survey/datum"
)

// The parts of TestBrowserMapPage that check the page's tools: the first
// view, click-to-identify with its reports, and batch paste with its
// download. Each drives the page as a user does and checks what it shows
// against what the API answers.

// identifyPoint is a demo well's position, in LSD 6-3-24-1-W5 (demo energy
// data: one gas well of an invented operator), south of Calgary.
var identifyPoint = [2]float64{-114.062667, 51.013723}

type (
	stepFunc func(what string, steps ...chromedp.Action[chromedp.Void])
	evalFunc func(what, js string) int
)

// checkFirstView checks the page opened with no view in its URL: the
// offline basemap's land, boundaries and places are drawn from this
// server, and every DLS province and BC's NTS show where their grids are.
func checkFirstView(t *testing.T, eval evalFunc, requests *syncList[request]) {
	t.Helper()
	if got := requests.matching(func(r request) bool { return strings.HasPrefix(r.path, "/map/basemap/") && r.status == 200 }); len(got) == 0 {
		t.Errorf("no basemap tile answered 200; requests:\n%s", requests)
	}
	for _, id := range []string{"basemap-land", "basemap-water", "basemap-provinces", "basemap-countries", "basemap-places",
		"ab-twp-cover", "sk-twp-cover", "mb-twp-cover", "bc-series-lines"} {
		n := eval("count "+id, fmt.Sprintf(`meridianMap.queryRenderedFeatures({layers: [%q]}).length`, id))
		t.Logf("first view: %s: %d features drawn", id, n)
		if n == 0 {
			t.Errorf("first view: nothing of %s drawn", id)
		}
	}
	// Place names are the real ones, at their places: Calgary within 0.1°.
	calgary := eval("find Calgary", `meridianMap.queryRenderedFeatures({layers: ['basemap-places']})
		.filter((f) => f.properties.name === 'Calgary' && Math.abs(f.geometry.coordinates[0] + 114.07) < 0.1 && Math.abs(f.geometry.coordinates[1] - 51.05) < 0.1).length`)
	if calgary == 0 {
		t.Error("first view: no Calgary label near 51.05 N, 114.07 W")
	}
	if n := eval("read the notice", `document.getElementById('notice').hidden ? 0 : document.getElementById('notice').textContent.includes('fixture') ? 1 : 0`); n != 1 {
		t.Error("first view: the fixture grids are drawn but the notice on the map does not say they are fixtures")
	}
}

// checkIdentify clicks the demo well's LSD, compares the panel with the
// API's unit=all answer and the NTv1 grid's NAD27 position, then opens the
// LSD's energy report and the quarter's agriculture report.
func checkIdentify(t *testing.T, ctx context.Context, base, key string, step stepFunc, eval evalFunc, waitIdle func(string)) {
	t.Helper()
	step("go to the demo well", chromedp.Evaluate[chromedp.Void](fmt.Sprintf(`(() => {
		document.body.dataset.map = 'moving';
		meridianMap.jumpTo({center: [%f, %f], zoom: 14});
	})()`, identifyPoint[0], identifyPoint[1])))
	waitIdle("wait for the map at the well")
	js := fmt.Sprintf(`(() => { const p = meridianMap.project([%f, %f]); return [p.x, p.y]; })()`, identifyPoint[0], identifyPoint[1])
	xy, err := chromedp.Run(ctx, chromedp.Evaluate[[2]float64](js))
	if err != nil {
		t.Fatal(err)
	}
	step("click the map", chromedp.Evaluate[chromedp.Void](`delete document.body.dataset.identify`),
		chromedp.MouseClickXY(xy[0], xy[1]),
		chromedp.Poll[chromedp.Void](`['done', 'error'].includes(document.body.dataset.identify)`,
			chromedp.WithPollingInterval(100*time.Millisecond), chromedp.WithPollingTimeout(20*time.Second)))
	copies, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll('#identify button.copy')].map((b) => b.dataset.copy)`))
	if err != nil {
		t.Fatal(err)
	}
	// Every block the API finds at the point, with a copy button.
	for _, want := range blocksAt(t, base, key, identifyPoint) {
		if !slices.Contains(copies, want) {
			t.Errorf("identify: no copy button for %s; buttons copy %q", want, copies)
		}
	}
	if !slices.Contains(copies, "6-3-24-1-W5") {
		t.Errorf("identify at the demo well: copy buttons %q, want the LSD 6-3-24-1-W5", copies)
	}
	// The coordinates to copy: the point clicked on NAD83 (within a pixel,
	// some 10 m at zoom 14, of the well), then the same point on NAD27 as
	// NRCan's NTv1 grid places it.
	var pairs [][2]float64
	for _, c := range copies {
		var lat, lng float64
		if _, err := fmt.Sscanf(c, "%f, %f", &lat, &lng); err == nil {
			pairs = append(pairs, [2]float64{lng, lat})
		}
	}
	if len(pairs) != 2 {
		t.Fatalf("identify: coordinate pairs to copy %v, want NAD83 and NAD27", pairs)
	}
	if d := max(abs(pairs[0][0]-identifyPoint[0]), abs(pairs[0][1]-identifyPoint[1])); d > 3e-4 {
		t.Errorf("identify: NAD83 %v, clicked at %v", pairs[0], identifyPoint)
	}
	want27, err := datum.NAD83ToNAD27(pairs[0])
	if err != nil {
		t.Fatal(err)
	}
	if d := max(abs(want27[0]-pairs[1][0]), abs(want27[1]-pairs[1][1])); d > 2e-6 {
		t.Errorf("identify: NAD27 %v; the NTv1 grid gives %v", pairs[1], want27)
	}
	if n := eval("DMS", `[...document.querySelectorAll('#identify button.copy')].filter((b) => /^51°00'\d\d\.\d\d"N 114°0[34]'\d\d\.\d\d"W$/.test(b.dataset.copy)).length`); n != 2 {
		t.Errorf("identify: %d DMS coordinates like 51°00'49.40\"N 114°03'45.60\"W, want 2 (NAD83 and NAD27)", n)
	}
	if n := eval("result drawn", `meridianMap.queryRenderedFeatures({layers: ['result-outline']}).length`); n == 0 {
		t.Error("identify: the LSD clicked is not drawn")
	}
	checkScreenshot(t, ctx, "map-identify.png", 0.02)

	for _, r := range []struct{ kind, want string }{
		{"energy", "ASPEN COULEE"}, // the demo well's name, from the wells table (and, below, its recent changes: none in one version)
		{"ag", "LSRS"},
	} {
		step("open the "+r.kind+" report", chromedp.Evaluate[chromedp.Void](`delete document.body.dataset.report`),
			chromedp.Click(chromedp.CSS(fmt.Sprintf(`#identify button[data-report=%q]`, r.kind))),
			chromedp.Poll[chromedp.Void](`['done', 'error'].includes(document.body.dataset.report)`,
				chromedp.WithPollingInterval(100*time.Millisecond), chromedp.WithPollingTimeout(20*time.Second)))
		text, err := chromedp.Run(ctx, chromedp.TextContent(chromedp.ID("report")))
		if err != nil {
			t.Fatal(err)
		}
		if state, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`document.body.dataset.report`)); state != "done" {
			t.Fatalf("%s report: %s: %s", r.kind, state, text)
		}
		wants := []string{r.want, "Demo data: invented by Meridian", "Sources"}
		if r.kind == "energy" {
			wants = append(wants, "Recent changes", "No changes recorded")
		}
		for _, want := range wants {
			if !strings.Contains(text, want) {
				t.Errorf("%s report panel lacks %q:\n%s", r.kind, want, text)
			}
		}
		if strings.Contains(text, `{"`) {
			t.Errorf("%s report panel shows raw JSON:\n%s", r.kind, text)
		}
		checkScreenshot(t, ctx, "map-report-"+r.kind+".png", 0.02)
	}
}

// checkBatch pastes four lines, one of them invalid, and downloads the
// result as GeoJSON.
func checkBatch(t *testing.T, ctx context.Context, step stepFunc, eval evalFunc, waitIdle func(string)) {
	t.Helper()
	const lines = "NW-25-24-1-W5\nXX-99\n51.0447, -114.0719\nA-2-F/93-P-8\n"
	dir := t.TempDir()
	events := true
	step("allow downloads", chromedp.Func(func(ctx context.Context, _ *chromedp.Target) error {
		_, err := chromedp.Call(ctx, browser.SetDownloadBehavior, browser.SetDownloadBehaviorParams{
			Behavior: browser.SetDownloadBehaviorBehaviorAllow, DownloadPath: dir, EventsEnabled: &events})
		return err
	}))
	step("paste a batch", chromedp.Evaluate[chromedp.Void](`(() => {
		delete document.body.dataset.batch;
		document.getElementById('batch').open = true;
		document.getElementById('report').hidden = true;
	})()`),
		chromedp.SetValue(chromedp.ID("batch-input"), lines),
		chromedp.Click(chromedp.ID("batch-run")),
		chromedp.Poll[chromedp.Void](`['done', 'error'].includes(document.body.dataset.batch)`,
			chromedp.WithPollingInterval(100*time.Millisecond), chromedp.WithPollingTimeout(20*time.Second)))
	summary, _ := chromedp.Run(ctx, chromedp.TextContent(chromedp.ID("batch-summary")))
	errs, _ := chromedp.Run(ctx, chromedp.TextContent(chromedp.ID("batch-errors")))
	if !strings.Contains(summary, "3 of 4 lines mapped") || !strings.Contains(errs, "line 2: XX-99") {
		t.Errorf("batch: summary %q, errors %q; want 3 of 4 mapped and line 2 refused", summary, errs)
	}
	waitIdle("wait for the batch to draw")
	if n := eval("batch drawn", `meridianMap.queryRenderedFeatures({layers: ['batch-outline', 'batch-fill']}).length`); n == 0 {
		t.Error("batch: nothing drawn")
	}
	// The map flew to show them all.
	if n := eval("batch in view", `meridianMap.getSource('batch').getData().then((d) => {
		const b = meridianMap.getBounds();
		return d.features.filter((f) => f.geometry.type === 'Point' && !b.contains(f.geometry.coordinates)).length;
	})`); n != 0 {
		t.Errorf("batch: %d of the results are outside the view the map flew to", n)
	}
	checkScreenshot(t, ctx, "map-batch.png", 0.02)

	step("download GeoJSON", chromedp.Click(chromedp.CSS(`#batch-downloads button[data-format="geojson"]`)))
	file := filepath.Join(dir, "meridian-batch.geojson")
	var body []byte
	for deadline := time.Now().Add(15 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		var err error
		if body, err = os.ReadFile(file); err == nil && len(body) > 0 {
			break
		}
		if time.Now().After(deadline) {
			entries, _ := os.ReadDir(dir)
			t.Fatalf("no %s within 15 s of the click; the download directory holds %v", file, entries)
		}
	}
	var fc struct {
		Features []struct {
			Geometry   struct{ Type string }
			Properties struct {
				Line          int
				LegalLocation string `json:"legal_location"`
			}
		}
		Errors []struct {
			Line  int
			Input string
			Code  string
		}
	}
	if err := json.Unmarshal(body, &fc); err != nil {
		t.Fatalf("meridian-batch.geojson: %v", err)
	}
	got := map[int]string{}
	for _, f := range fc.Features {
		if f.Geometry.Type == "Polygon" {
			got[f.Properties.Line] = f.Properties.LegalLocation
		}
	}
	want := map[int]string{1: "NW-25-24-1-W5", 3: "", 4: "A-2-F/93-P-8"}
	for line, loc := range want {
		if g, ok := got[line]; !ok || (loc != "" && g != loc) {
			t.Errorf("downloaded GeoJSON: line %d polygon %q, want %q", line, g, loc)
		}
	}
	if len(fc.Errors) != 1 || fc.Errors[0].Line != 2 || fc.Errors[0].Input != "XX-99" || fc.Errors[0].Code != "invalid_legal_location" {
		t.Errorf("downloaded GeoJSON errors %+v, want line 2 XX-99 invalid_legal_location", fc.Errors)
	}
	t.Logf("downloaded meridian-batch.geojson: %d bytes, %d features, %d errors", len(body), len(fc.Features), len(fc.Errors))
}

// blocksAt returns the descriptions of every block at p, as the API answers
// /search/coordinates?unit=all.
func blocksAt(t *testing.T, base, key string, p [2]float64) []string {
	t.Helper()
	var fc struct {
		Features []struct {
			Properties struct {
				LegalLocation string `json:"legal_location"`
				Shape         string
			}
		}
	}
	if status := getJSON(t, fmt.Sprintf("%s/search/coordinates?location=%f,%f&unit=all", base, p[0], p[1]), key, &fc); status != 200 {
		t.Fatalf("search/coordinates at %v: %d", p, status)
	}
	var out []string
	for _, f := range fc.Features {
		if f.Properties.Shape == "grid" {
			out = append(out, f.Properties.LegalLocation)
		}
	}
	if len(out) < 4 {
		t.Fatalf("search/coordinates unit=all at %v: %v, want township to LSD", p, out)
	}
	return out
}

func abs(v float64) float64 { return max(v, -v) }

// TestBrowserOnlineBasemap draws the page over the two kinds of online
// basemap serve -basemap takes, a raster XYZ template and a MapLibre style,
// served here by a local stand-in for a tile provider: the provider's tiles
// are asked for and drawn under the grid, and its attribution is shown.
func TestBrowserOnlineBasemap(t *testing.T) {
	chromium := requireBrowser(t)
	green := color.RGBA{0x4c, 0xaf, 0x50, 0xff}
	var png256 bytes.Buffer
	img := image.NewRGBA(image.Rect(0, 0, 256, 256))
	draw.Draw(img, img.Bounds(), &image.Uniform{green}, image.Point{}, draw.Src)
	if err := png.Encode(&png256, img); err != nil {
		t.Fatal(err)
	}
	tiles := &syncList[request]{}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /raster/{z}/{x}/{y}", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "image/png")
		w.Header().Set("Access-Control-Allow-Origin", "*")
		w.Write(png256.Bytes())
	})
	var providerURL string
	mux.HandleFunc("GET /style.json", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Access-Control-Allow-Origin", "*")
		json.NewEncoder(w).Encode(map[string]any{
			"version": 8,
			"sources": map[string]any{"provider": map[string]any{"type": "raster", "tileSize": 256,
				"tiles": []string{providerURL + "/raster/{z}/{x}/{y}.png"}, "attribution": "Test style provider"}},
			"layers": []any{map[string]any{"id": "provider", "type": "raster", "source": "provider"}},
		})
	})
	provider := httptest.NewServer(recordRequests(tiles, mux))
	t.Cleanup(provider.Close)
	providerURL = provider.URL

	bctx := startBrowser(t, chromium)
	for _, tc := range []struct {
		name, attribution string
		basemap           basemap
	}{
		{"raster", "Test raster provider", basemap{Kind: "raster", URL: provider.URL + "/raster/{z}/{x}/{y}.png", Attribution: "Test raster provider"}},
		{"style", "Test style provider", basemap{Kind: "style", URL: provider.URL + "/style.json"}},
	} {
		srv, _ := newTestServerIn(t, t.TempDir(), func(c *serverConfig) { c.basemap = tc.basemap })
		ts := httptest.NewServer(srv.handler)
		t.Cleanup(ts.Close)
		before := len(tiles.matching(func(r request) bool { return strings.HasPrefix(r.path, "/raster/") }))
		err := chromedp.Do(bctx, chromedp.Navigate(ts.URL+"/#9/51.07/-114.07"),
			chromedp.Poll[chromedp.Void](`document.body.dataset.map === 'idle'`,
				chromedp.WithPollingInterval(100*time.Millisecond), chromedp.WithPollingTimeout(45*time.Second)))
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if n := len(tiles.matching(func(r request) bool { return strings.HasPrefix(r.path, "/raster/") })) - before; n == 0 {
			t.Errorf("%s: no tile asked of the provider", tc.name)
		}
		attrib, err := chromedp.Run(bctx, chromedp.Evaluate[string](`document.querySelector('.maplibregl-ctrl-attrib-inner')?.textContent ?? ''`))
		if err != nil || !strings.Contains(attrib, tc.attribution) {
			t.Errorf("%s: attribution %q, %v; want it to name %q", tc.name, attrib, err, tc.attribution)
		}
		lines, err := chromedp.Run(bctx, chromedp.Evaluate[int](renderedJS("line", "-lines")))
		if err != nil || lines == 0 {
			t.Errorf("%s: %d grid lines drawn over the basemap, %v", tc.name, lines, err)
		}
		buf, err := chromedp.Run(bctx, chromedp.CaptureScreenshot())
		if err != nil {
			t.Fatal(err)
		}
		saveScreenshot(t, "map-basemap-"+tc.name+".png", buf)
		shot, err := png.Decode(bytes.NewReader(buf))
		if err != nil {
			t.Fatal(err)
		}
		// The provider's green shows between the grid lines.
		if f := 1 - drawnFraction(shot, [3]uint8{green.R, green.G, green.B}); f < 0.3 {
			t.Errorf("%s: %.0f%% of the central pixels are the provider's green, want most", tc.name, 100*f)
		} else {
			t.Logf("%s: %.0f%% of the central pixels are the provider's green", tc.name, 100*f)
		}
	}
}
