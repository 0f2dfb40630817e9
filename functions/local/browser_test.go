package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image"
	"image/png"
	"iter"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/paulmach/orb"

	"meridian/shared/tile"
	"meridian/shared/tile/datalayers"
)

// Where the browser test looks at the map: over Calgary, around NW-25-24-1-W5.
const browserTestView = "#11/51.07/-114.07"

// TestBrowserMapPage loads the map page of the real local server in headless
// Chromium: the grid tiles must load and draw, the console must stay free of
// errors, and a search must draw its polygon. It takes screenshots and checks
// that they are not blank; MERIDIAN_SCREENSHOT_DIR keeps a copy of them.
//
// It needs Chromium (apt-get install -y chromium) and MapLibre GL JS embedded
// by `make web`. Without them it skips, unless MERIDIAN_BROWSER_TEST=1 (as in
// CI), which makes their absence a failure.
func TestBrowserMapPage(t *testing.T) {
	chromium := requireBrowser(t)
	// Not parallel: on a small machine the browser wants the CPU to itself.

	srv, key := newTestServer(t)
	// One energy and one agriculture archive around the view, built from
	// the demo report data as build-tiles does.
	view := orb.Bound{Min: orb.Point{-114.4, 50.9}, Max: orb.Point{-113.7, 51.25}}
	for _, path := range []string{"energy/og_activity_lsd", "ag/lsrs_productivity"} {
		region, name, _ := strings.Cut(path, "/")
		l, _ := tile.Lookup(region, name)
		data := datalayers.New(servedReports(t, string(srv.data), region), srv.svc)
		attribution, err := data.Attribution(context.Background(), l)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := datalayers.BuildArchive(context.Background(), l, data.Tile, srv.data.Tiles(), attribution,
			tile.BuildOptions{MinZoom: 9, MaxZoom: 12, Bounds: view}); err != nil {
			t.Fatalf("build %s: %v", path, err)
		}
	}
	requests := &syncList[request]{}
	ts := httptest.NewServer(recordRequests(requests, srv.handler))
	t.Cleanup(ts.Close)
	if n := mapLayerCount(t, ts.URL); n == 0 {
		t.Fatal("GET /map/config.json lists no layers: the page would show an empty map")
	}

	bctx := startBrowser(t, chromium)
	console := &syncList[consoleMessage]{}
	go collectConsole(console, chromedp.Console(bctx)) // subscribed before the page loads

	step := func(what string, steps ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		if err := chromedp.Do(bctx, steps...); err != nil {
			t.Fatalf("%s: %v\nrequests:\n%s\nconsole:\n%s", what, err, requests, console)
		}
	}
	waitIdle := func(what string) {
		t.Helper()
		step(what, chromedp.Poll[chromedp.Void](`document.body.dataset.map === 'idle'`,
			chromedp.WithPollingInterval(100*time.Millisecond), chromedp.WithPollingTimeout(45*time.Second)))
	}
	waitSearch := chromedp.Poll[chromedp.Void](`['done', 'error'].includes(document.body.dataset.search)`,
		chromedp.WithPollingInterval(100*time.Millisecond), chromedp.WithPollingTimeout(30*time.Second))
	eval := func(what, js string) int {
		t.Helper()
		n, err := chromedp.Run(bctx, chromedp.Evaluate[int](js, chromedp.EvalAwaitPromise))
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		return n
	}

	// The first view, as a new user opens it: geography from the offline
	// basemap and every survey system shown where it is.
	step("open the page", chromedp.Navigate(ts.URL+"/"))
	waitIdle("wait for the first view to draw")
	checkFirstView(t, eval, requests)
	checkScreenshot(t, bctx, "map-first-view.png", 0.3)

	step("load the page", chromedp.Navigate(ts.URL+"/"+browserTestView))
	waitIdle("wait for the grid to draw")

	if tiles := requests.matching(func(r request) bool { return strings.HasSuffix(r.path, ".mvt") && r.status == 200 }); len(tiles) == 0 {
		t.Errorf("no tile was answered 200; requests:\n%s", requests)
	}
	if bad := requests.matching(func(r request) bool { return r.status >= 400 }); len(bad) > 0 {
		t.Errorf("requests answered with errors:\n%s", lines(bad))
	}
	gridLines := eval("count drawn grid lines", renderedJS("line", "-lines"))
	labels := eval("count drawn labels", renderedJS("symbol", "-labels"))
	t.Logf("at %s: %d grid line features and %d labels drawn", browserTestView, gridLines, labels)
	if gridLines == 0 || labels == 0 {
		t.Errorf("at %s: %d grid line features and %d labels drawn, want some of both", browserTestView, gridLines, labels)
	}
	checkScreenshot(t, bctx, "map-grid.png", 0.02)

	// The energy and agriculture layers built, turned on from the switcher.
	// The page says 'idle' from before: clear it, so that the wait is for
	// the map's next idle, once the layers turned on are loaded and drawn.
	step("show the data layers", chromedp.Evaluate[chromedp.Void](`(() => {
		document.body.dataset.map = 'toggled';
		for (const id of ['energy-og_activity_lsd', 'ag-lsrs_productivity', 'energy-mineral_tenure_labels']) {
			document.querySelector('#layer-list label[data-layer="' + id + '"] input').click();
		}
	})()`))
	waitIdle("wait for the data layers to draw")
	for _, prefix := range []string{"/tiles/energy/og_activity_lsd/", "/tiles/ag/lsrs_productivity/"} {
		if got := requests.matching(func(r request) bool { return strings.HasPrefix(r.path, prefix) && r.status == 200 }); len(got) == 0 {
			t.Errorf("no %s tile answered 200; requests:\n%s", prefix, requests)
		}
	}
	for _, id := range []string{"energy-og_activity_lsd-data", "ag-lsrs_productivity-data"} {
		if n := eval("count "+id, fmt.Sprintf(`meridianMap.queryRenderedFeatures({layers: [%q]}).length`, id)); n == 0 {
			t.Errorf("%s: nothing drawn", id)
		}
	}
	// The notice on the map says the data drawn is invented.
	if n := eval("read the notice", `(() => {
		const text = document.getElementById('notice').textContent;
		return !document.getElementById('notice').hidden && text.includes('invented') && text.includes('Well activity, LSD') ? 1 : 0;
	})()`); n != 1 {
		t.Error("demo data layers are on but the notice on the map does not say they are invented")
	}
	// A label archive draws its labels as text.
	if n := eval("count mineral tenure labels", renderedJS("symbol", "mineral_tenure_labels-data")); n == 0 {
		t.Errorf("energy-mineral_tenure_labels-data: no label drawn")
	}
	checkScreenshot(t, bctx, "map-data.png", 0.02)

	step("type a search and see it suggested", chromedp.SendKeys(chromedp.ID("search-input"), "NW-25-24-1-W5"),
		chromedp.Poll[chromedp.Void](`document.querySelector('#suggestions li')?.textContent.startsWith('NW-25-24-1-W5')`,
			chromedp.WithPollingInterval(100*time.Millisecond), chromedp.WithPollingTimeout(20*time.Second)))
	step("search", chromedp.Click(chromedp.CSS("#search button")), waitSearch)
	if state, _ := chromedp.Run(bctx, chromedp.Evaluate[string](`document.body.dataset.search`)); state != "done" {
		msg, _ := chromedp.Run(bctx, chromedp.Text(chromedp.ID("message")))
		t.Fatalf("search NW-25-24-1-W5: state %q, message %q", state, msg)
	}
	waitIdle("wait for the map at the result")
	polygons := eval("read the result source", `meridianMap.getSource('result').getData()
		.then((d) => d.features.filter((f) => f.geometry.type === 'Polygon').length)`)
	if polygons != 1 {
		t.Errorf("result source has %d polygons, want 1", polygons)
	}
	if got := eval("count drawn result", `meridianMap.queryRenderedFeatures({layers: ['result-fill']}).length`); got == 0 {
		t.Error("the result polygon is in its source but not drawn")
	}
	checkScreenshot(t, bctx, "map-search.png", 0.02)

	checkIdentify(t, bctx, ts.URL, key, step, eval, waitIdle)
	checkBatch(t, bctx, step, eval, waitIdle)

	// Errors: console.error calls, uncaught exceptions and browser log
	// errors such as failed requests.
	if errs := console.matching(func(m consoleMessage) bool { return m.Type == chromedp.ConsoleError || m.IsException() }); len(errs) > 0 {
		t.Errorf("console errors:\n%s", lines(errs))
	}

	// The page shows the API's error message. (Checked after the console:
	// Chromium logs the 400 response there as an error.)
	const invalid = "XX-99"
	want := apiErrorMessage(t, ts.URL+"/search/legal-location?location="+invalid, key)
	step("search an invalid description", chromedp.Evaluate[chromedp.Void](`delete document.body.dataset.search`),
		chromedp.SetValue(chromedp.ID("search-input"), invalid),
		chromedp.Click(chromedp.CSS("#search button")), waitSearch)
	msg, err := chromedp.Run(bctx, chromedp.Text(chromedp.ID("message")))
	if err != nil {
		t.Fatal(err)
	}
	if state, _ := chromedp.Run(bctx, chromedp.Evaluate[string](`document.body.dataset.search`)); state != "error" || msg != want {
		t.Errorf("search %s: state %q, message %q; want error and %q", invalid, state, msg, want)
	}
	checkScreenshot(t, bctx, "map-error.png", 0) // for people: the message in the panel
}

// requireBrowser returns the Chromium to run, skipping the test when there
// is none or when MapLibre GL JS is not embedded, unless
// MERIDIAN_BROWSER_TEST=1 (as in CI), which makes either a failure.
func requireBrowser(t *testing.T) string {
	t.Helper()
	required := os.Getenv("MERIDIAN_BROWSER_TEST") == "1"
	missing := func(format string, args ...any) {
		t.Helper()
		if required {
			t.Fatalf(format+" (a failure because MERIDIAN_BROWSER_TEST=1)", args...)
		}
		t.Skipf(format+" (set MERIDIAN_BROWSER_TEST=1 to fail instead of skipping)", args...)
	}
	chromium := findChromium()
	if chromium == "" {
		missing("no Chromium: neither `chromium` on PATH nor /usr/bin/chromium; apt-get install -y chromium")
	}
	if !vendorBundled() {
		missing("MapLibre GL JS is not embedded in this test binary: run `make web` first")
	}
	return chromium
}

// startBrowser starts headless Chromium with a 1024x768 viewport for the
// test; it ends with the test, or after 90 s.
func startBrowser(t *testing.T, chromium string) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	t.Cleanup(cancel)
	allocCtx, cancel := chromedp.NewExecAllocator(ctx, append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(chromium),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU, // WebGL from SwiftShader
		chromedp.NoFirstRun,
		// Without these Chromium waits on a closed network for updates,
		// sync and QUIC probes.
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
	)...)
	t.Cleanup(cancel)
	bctx, cancel := chromedp.NewContext(allocCtx)
	t.Cleanup(cancel)
	if err := chromedp.Do(bctx, chromedp.EmulateViewport(1024, 768)); err != nil {
		t.Fatalf("start %s: %v", chromium, err)
	}
	return bctx
}

// mapLayerCount returns the number of layers in the page's configuration,
// failing when the server does not serve it.
func mapLayerCount(t *testing.T, base string) int {
	t.Helper()
	resp, err := http.Get(base + "/map/config.json")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var cfg mapConfig
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /map/config.json: %s; newServer must mount webRoutes", resp.Status)
	}
	if err := json.NewDecoder(resp.Body).Decode(&cfg); err != nil {
		t.Fatalf("GET /map/config.json: %v", err)
	}
	return len(cfg.Layers)
}

// apiErrorMessage returns error.message of the response to a GET of url.
func apiErrorMessage(t *testing.T, url, key string) string {
	t.Helper()
	var body struct {
		Error struct{ Message string } `json:"error"`
	}
	if status := getJSON(t, url, key, &body); status < 400 || body.Error.Message == "" {
		t.Fatalf("GET %s: %d; want an error body", url, status)
	}
	return body.Error.Message
}

// getJSON GETs url with the key, decodes the body into v and returns the
// status.
func getJSON(t *testing.T, url, key string, v any) int {
	t.Helper()
	req, err := http.NewRequest("GET", url, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("X-API-Key", key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if err := json.NewDecoder(resp.Body).Decode(v); err != nil {
		t.Fatalf("GET %s: %d, %v", url, resp.StatusCode, err)
	}
	return resp.StatusCode
}

// renderedJS counts the features drawn by the layers of type typ whose id
// ends in suffix.
func renderedJS(typ, suffix string) string {
	return fmt.Sprintf(`(() => {
		const layers = meridianMap.getStyle().layers
			.filter((l) => l.type === %q && l.id.endsWith(%q)).map((l) => l.id);
		return meridianMap.queryRenderedFeatures({layers}).length;
	})()`, typ, suffix)
}

// checkScreenshot captures the viewport into name, in t.TempDir() and in
// $MERIDIAN_SCREENSHOT_DIR when set, and fails when less than the fraction
// minDrawn of the central part (where the grid and the result are drawn) is
// other than background.
func checkScreenshot(t *testing.T, ctx context.Context, name string, minDrawn float64) {
	t.Helper()
	buf, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatalf("screenshot %s: %v", name, err)
	}
	saveScreenshot(t, name, buf)
	img, err := png.Decode(bytes.NewReader(buf))
	if err != nil {
		t.Fatalf("screenshot %s: %v", name, err)
	}
	if f := drawnFraction(img, [3]uint8{0xf5, 0xf3, 0xee}); f < minDrawn {
		t.Errorf("screenshot %s: %.1f%% of the central pixels differ from the background, want at least %.0f%%", name, 100*f, 100*minDrawn)
	} else {
		t.Logf("screenshot %s: %.1f%% of the central pixels drawn", name, 100*f)
	}
}

// saveScreenshot writes a screenshot into t.TempDir() and into
// $MERIDIAN_SCREENSHOT_DIR when set.
func saveScreenshot(t *testing.T, name string, buf []byte) {
	t.Helper()
	dirs := []string{t.TempDir()}
	if d := os.Getenv("MERIDIAN_SCREENSHOT_DIR"); d != "" {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		dirs = append(dirs, d)
	}
	for _, d := range dirs {
		p := filepath.Join(d, name)
		if err := os.WriteFile(p, buf, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("screenshot %s", p)
	}
}

// drawnFraction is the fraction of the pixels of the central half of img
// (a quarter of its area) that are visibly not the background colour bg.
func drawnFraction(img image.Image, bg [3]uint8) float64 {
	b := img.Bounds()
	inner := image.Rect(b.Min.X+b.Dx()/4, b.Min.Y+b.Dy()/4, b.Max.X-b.Dx()/4, b.Max.Y-b.Dy()/4)
	drawn, total := 0, 0
	for y := inner.Min.Y; y < inner.Max.Y; y++ {
		for x := inner.Min.X; x < inner.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			total++
			for i, c := range [3]uint32{r >> 8, g >> 8, bl >> 8} {
				if d := int(c) - int(bg[i]); d > 16 || d < -16 {
					drawn++
					break
				}
			}
		}
	}
	return float64(drawn) / float64(total)
}

// findChromium returns the Chromium to run, or "".
func findChromium() string {
	if p, err := exec.LookPath("chromium"); err == nil {
		return p
	}
	if _, err := os.Stat("/usr/bin/chromium"); err == nil {
		return "/usr/bin/chromium"
	}
	return ""
}

// syncList is a list that other goroutines append to while the test reads it.
type syncList[T fmt.Stringer] struct {
	mu    sync.Mutex
	items []T
}

func (l *syncList[T]) add(v T) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.items = append(l.items, v)
}

// matching returns the items for which keep is true.
func (l *syncList[T]) matching(keep func(T) bool) []T {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []T
	for _, v := range l.items {
		if keep(v) {
			out = append(out, v)
		}
	}
	return out
}

// String lists the items, one an indented line.
func (l *syncList[T]) String() string {
	return lines(l.matching(func(T) bool { return true }))
}

func lines[T fmt.Stringer](items []T) string {
	var b strings.Builder
	for _, v := range items {
		fmt.Fprintf(&b, "  %s\n", v)
	}
	return b.String()
}

// request is one request the browser made to the server.
type request struct {
	method, path string
	status       int
}

func (r request) String() string { return fmt.Sprintf("%s %s: %d", r.method, r.path, r.status) }

// recordRequests returns next, adding each request it answers to log.
func recordRequests(log *syncList[request], next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sw := &statusWriter{ResponseWriter: w, status: http.StatusOK}
		next.ServeHTTP(sw, r)
		log.add(request{r.Method, r.URL.Path, sw.status})
	})
}

type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(code int) {
	w.status = code
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// consoleMessage is what the page wrote to the console, with where from.
type consoleMessage struct{ chromedp.ConsoleMessage }

func (m consoleMessage) String() string {
	return fmt.Sprintf("%s (%s:%d)", m.ConsoleMessage, m.URL, m.Line+1)
}

// collectConsole adds messages to log until their context ends.
func collectConsole(log *syncList[consoleMessage], messages iter.Seq2[chromedp.ConsoleMessage, error]) {
	for m, err := range messages {
		if err != nil {
			return
		}
		log.add(consoleMessage{m})
	}
}
