package main

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"meridian/shared/datadir"
)

// serveHeadroomMiB is the server's soft memory limit above its grid
// caches: the report stores' and tile caches' bounds, the request buffers,
// the garbage of a warm, and the room the collector has between cycles
// under load. With a province held, each cycle marks the cache whatever
// the garbage, so this room sets how often that cost is paid: at 320 MiB
// a cycle came about every second under the change feed's load. With the
// default cache (512 MiB) the limit is 1,024 MiB: the server's resident
// memory also counts the report stores' mapped pages: what the kernel
// mapped since their last release (boltdir.ServeRelease), up to about
// 340 MB under this load; before the releases they stayed mapped, 760 MB
// of both stores just after a build, when the files are all in the page
// cache (1,543 MB in all at a limit of 1,088 MiB).
const serveHeadroomMiB = 512

// serve starts the server on data as a child process, loads it with every
// scenario and records its peak RSS.
func (r *scaleRun) serve(ctx context.Context, data string) error {
	sample, err := sampleKeys(ctx, data, 2000)
	if err != nil {
		return err
	}
	addr, err := freeAddr()
	if err != nil {
		return err
	}
	logf, err := os.Create(filepath.Join(r.dir, "logs", "serve.log"))
	if err != nil {
		return err
	}
	defer logf.Close()
	t0 := time.Now()
	// The server holds Alberta's index whole (-grid-cache-mib): a soft
	// memory limit keeps the collector from letting the heap grow to twice
	// that between cycles (GOGC's default), as the archive builds' lanes do.
	srv, err := startServeEnv(ctx, r.bin, logf, []string{fmt.Sprintf("GOMEMLIMIT=%dMiB", r.gridCacheMiB+serveHeadroomMiB)}, "-addr", addr, "-data", data, "-log-level", "error",
		"-grid-cache-mib", strconv.FormatInt(r.gridCacheMiB, 10), "-grid-warm-mib", strconv.FormatInt(r.gridCacheMiB, 10))
	if err != nil {
		return fmt.Errorf("%w (see %s)", err, logf.Name())
	}
	stopped := false
	defer func() {
		if !stopped {
			srv.stop()
		}
	}()
	base, key := srv.base, srv.key
	pid := srv.cmd.Process.Pid
	r.add(measure{step: "serve: start", time: time.Since(t0), rss: procHWM(pid)})

	scenarios := append(sample.scenarios(), scenarios()...)
	// Every tile archive served is read from this server and from pmtiles
	// serve, one process over the whole tiles directory (its archive names
	// may hold slashes: /energy/og_activity_lsd/{z}/{x}/{y}.mvt), side by
	// side on the same sampled tiles.
	tilesDir := datadir.Dir(data).Tiles()
	var tileLayers []string
	for _, l := range sampleTileLayers {
		if _, err := os.Stat(datadir.TileArchive(tilesDir, l+".pmtiles")); err == nil {
			tileLayers = append(tileLayers, l)
		}
	}
	pmURL := ""
	if r.pmtiles != "" && len(tileLayers) > 0 {
		port, err := freeAddr()
		if err != nil {
			return err
		}
		_, portOnly, _ := net.SplitHostPort(port)
		pm := exec.CommandContext(ctx, r.pmtiles, "serve", tilesDir, "--port", portOnly)
		pm.Stdout, pm.Stderr = logf, logf
		if err := pm.Start(); err != nil {
			return fmt.Errorf("pmtiles serve: %w", err)
		}
		defer func() { pm.Process.Kill(); pm.Wait() }()
		pmURL = "http://127.0.0.1:" + portOnly
		if err := waitHTTP(ctx, pmURL+"/"+tileLayers[0]+".json"); err != nil {
			return fmt.Errorf("pmtiles serve: %w", err)
		}
	}
	for _, l := range tileLayers {
		ts, err := sampleArchive(ctx, datadir.TileArchive(tilesDir, l+".pmtiles"), 2048)
		if err != nil {
			return err
		}
		ts.name = l // pmtiles serve's name of it, under the tiles directory
		for _, s := range ts.scenarios(pmURL) {
			if s.name == "tiles" {
				s.name = "tiles " + ts.layer
			} else { // the same tiles from pmtiles serve
				s.name = "tiles " + ts.layer + pmtilesSuffix
			}
			scenarios = append(scenarios, s)
		}
	}
	hello, stopHello, err := startHello()
	if err != nil {
		return err
	}
	defer stopHello()
	scenarios = append([]scenario{helloScenario(hello)}, scenarios...)
	byName := map[string]scenario{}
	for _, s := range scenarios {
		byName[s.name] = s
	}
	pending := map[string]result{} // pmtiles serve's, measured beside this server's tiles
	for _, s := range scenarios {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		var res result
		var helloRPS float64
		if pm, ok := byName[s.name+pmtilesSuffix]; ok && strings.HasPrefix(s.name, "tiles ") {
			// Unmeasured first, from both servers: the second to read
			// the archive's pages would otherwise find them in the page
			// cache the first had filled (in CI's 1 s runs pmtiles
			// serve came out ahead of us by that alone).
			runScenario(ctx, base, key, s, r.conns, tileWarmup(r.duration), 200000)
			runScenario(ctx, base, key, pm, r.conns, tileWarmup(r.duration), 200000)
			res, pending[pm.name] = r.alternate(ctx, base, key, s, pm)
		} else if pre, ok := pending[s.name]; ok {
			res = pre
		} else {
			res, helloRPS = r.beside(ctx, base, key, hello, s, pid)
		}
		m := measure{step: "GET " + s.name, rows: int64(res.n) * int64(max(1, s.perRequest)), unit: "requests", time: r.duration,
			rate: res.rps * float64(max(1, s.perRequest)), p50: res.p50, p99: res.p99, errors: res.errors, hello: helloRPS}
		if s.perRequest > 1 {
			m.unit = "locations"
		}
		if s.name == helloName {
			m.step = helloStep
		}
		// An answer of kilobytes costs its bytes whatever the server: each
		// such route is measured beside a static answer of its mean size
		// from the hello-world server, the most any server could do here.
		var static *measure
		if avg := res.bytes / int64(max(1, res.n)); avg >= staticFloorBytes && s.perRequest <= 1 && !strings.HasPrefix(s.name, "tiles ") {
			st := runScenario(ctx, hello, "", staticScenario(hello, avg), r.conns, min(r.duration, 2*time.Second), 200000)
			static = &measure{step: "GET " + s.name + ": a static answer of its size", rows: int64(st.n), unit: "requests", time: min(r.duration, 2*time.Second),
				rate: st.rps, p50: st.p50, p99: st.p99, errors: st.errors, note: fmt.Sprintf("%d bytes", avg)}
			if st.rps > 0 {
				m.note = fmt.Sprintf("%.2f x static", res.rps/st.rps)
			}
		}
		r.add(m)
		if static != nil {
			r.add(*static)
		}
		if res.errors > 0 {
			fmt.Fprintf(r.log, "scale-test: %s: first error: %s\n", s.name, res.firstErr)
		}
		if layer, ok := strings.CutSuffix(s.name, pmtilesSuffix); ok {
			r.add(againstPMTiles(r.rows, layer))
		}
	}
	hwm := procHWM(pid)
	stopped = true
	if rss := maxRSS(srv.stop()); rss > hwm {
		hwm = rss
	}
	r.add(measure{step: "serve: whole load", time: time.Since(t0), rss: hwm})
	return nil
}

// staticFloorBytes is the mean answer size from which a route is also
// measured against a static answer of that size.
const staticFloorBytes = 2048

// pmtilesSuffix ends the name of a scenario reading tiles from pmtiles
// serve: "tiles ab/sec from pmtiles serve".
const pmtilesSuffix = " from pmtiles serve"

// againstPMTiles is the row comparing the tiles/s of layer ("tiles ab/sec")
// from this server with those from pmtiles serve, measured just before:
// "1.23x pmtiles serve".
func againstPMTiles(rows []measure, layer string) measure {
	var ours, theirs float64
	for _, m := range rows {
		switch m.step {
		case "GET " + layer:
			ours = m.rate
		case "GET " + layer + pmtilesSuffix:
			theirs = m.rate
		}
	}
	m := measure{step: layer + " against pmtiles serve", note: "-"}
	if ours > 0 && theirs > 0 {
		m.note = fmt.Sprintf("%.2fx pmtiles serve", ours/theirs)
	}
	return m
}

// tileWarmup is how long a tile scenario runs unmeasured before it is
// measured: half the measured time, at most a second (about 7,000 reads
// of 2,048 sampled tiles at this machine's rates: nearly every one).
func tileWarmup(d time.Duration) time.Duration { return min(d/2, time.Second) }

// procHWM reads the peak resident memory of a running process (VmHWM),
// 0 where /proc is not there.
func procHWM(pid int) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return kb << 10
		}
	}
	return 0
}

func freeAddr() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer ln.Close()
	return ln.Addr().String(), nil
}

func waitHTTP(ctx context.Context, u string) error {
	for i := 0; i < 100; i++ {
		resp, err := http.Get(u)
		if err == nil {
			resp.Body.Close()
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
	return fmt.Errorf("%s did not answer", u)
}

// beside runs route s for r.duration in pairedRounds parts, with
// hello-world before, between and after them (pairedHelloTime in all), and
// returns the route's result over its parts and hello-world's requests a
// second over its own. On this shared machine the load of others comes and
// goes within seconds: a route measured in one stretch between two runs of
// hello-world met it, or missed it, alone (x hello of one route, same
// binary and data, 0.45 to 0.69 in six runs; a static answer from the
// hello-world server 0.62 to 1.01 of hello-world). The baseline itself and
// tiles (compared with pmtiles serve instead) run in one stretch, with
// hello-world rate 0.
//
// The log line gives each part's rate, and the server's CPU time (from
// /proc, pid's) a request over the parts: the steadier figure when the
// rates move.
func (r *scaleRun) beside(ctx context.Context, base, key, hello string, s scenario, pid int) (result, float64) {
	if s.name == helloName || strings.HasPrefix(s.name, "tiles ") {
		return runScenario(ctx, base, key, s, r.conns, r.duration, 200000), 0
	}
	helloPart := min(r.duration, pairedHelloTime) / (pairedRounds + 1)
	var parts, hellos []result
	var cpu time.Duration
	for i := range pairedRounds + 1 {
		hellos = append(hellos, runScenario(ctx, hello, "", helloScenario(hello), r.conns, helloPart, 200000))
		if i < pairedRounds {
			c0 := procCPU(pid)
			parts = append(parts, runScenario(ctx, base, key, s, r.conns, r.duration/pairedRounds, 200000))
			cpu += procCPU(pid) - c0
		}
	}
	res := merge(parts)
	perReq := 0.0
	if res.n > 0 {
		perReq = float64(cpu.Microseconds()) / float64(res.n)
	}
	fmt.Fprintf(r.log, "scale-test: %s: GET %s: hello-world beside it %s req/s; its parts %s req/s, %.1f µs of server CPU a request\n",
		r.name, s.name, partRates(hellos), partRates(parts), perReq)
	return res, merge(hellos).rps
}

// alternate runs this server's tiles (a) and the same tiles from pmtiles
// serve (b) for r.duration each, in pairedRounds parts, a then b, then b
// then a, and returns each one's result over its parts: the comparison
// then does not rest on one stretch of a noisy machine each (in one run of
// twelve measured that way, `ab/sec` came out at 1.07x, against 1.29x to
// 1.52x in the others).
func (r *scaleRun) alternate(ctx context.Context, base, key string, a, b scenario) (result, result) {
	sc := [2]scenario{a, b}
	parts := abba(pairedRounds, func(k int) result {
		return runScenario(ctx, base, key, sc[k], r.conns, r.duration/pairedRounds, 200000)
	})
	fmt.Fprintf(r.log, "scale-test: %s: GET %s: its parts %s req/s; from pmtiles serve, alternating with them, %s req/s\n",
		r.name, a.name, partRates(parts[0]), partRates(parts[1]))
	return merge(parts[0]), merge(parts[1])
}

// partRates lists the requests a second of each of parts.
func partRates(parts []result) string {
	f := make([]string, len(parts))
	for i, x := range parts {
		f[i] = fmt.Sprintf("%.0f", x.rps)
	}
	return strings.Join(f, ", ")
}

// pairedHelloTime is how long hello-world runs beside a route, in all;
// pairedRounds how many parts the route's time is cut into.
const (
	pairedHelloTime = 2500 * time.Millisecond
	pairedRounds    = 4
)
