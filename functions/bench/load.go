package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"os/signal"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"meridian/shared/datadir"
)

// loadCommand drives a server with concurrent keep-alive clients and
// reports requests per second and latency percentiles per scenario. Without
// -url it starts two `meridian serve` children on free 127.0.0.1 ports over
// one fresh data directory, with the demo key (unlimited): one logs every
// request line (serve -log-sample 0; into a pipe drained here), the
// other runs with -log-level error, which logs none; the search scenario
// runs on both in alternating rounds, which prices the request log.
//
// Every run first measures a hello-world net/http handler in this process
// (its own 127.0.0.1 listener, the same client, connections and limits) and
// prints each scenario's req/s as a fraction of it: the ceiling this
// machine and this client give an HTTP server, so figures taken at
// different times or on different machines can be compared by ratio.
func loadCommand(args []string, stdout, stderr io.Writer) int {
	return load("load", args, stdout, stderr)
}

// tilesCommand is load over the tiles of one archive: -archive is
// required and the scenarios are tiles and, with -pmtiles, the same tiles
// from pmtiles serve.
func tilesCommand(args []string, stdout, stderr io.Writer) int {
	return load("tiles", args, stdout, stderr)
}

func load(name string, args []string, stdout, stderr io.Writer) int {
	cmd := "meridian-bench " + name
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	bin := meridianFlag(fs)
	baseURL := fs.String("url", "", "server base URL (default: start meridian serve on 127.0.0.1 with a fresh data directory)")
	key := fs.String("key", "", "API key (required with -url; it should be on the unlimited plan)")
	duration := fs.Duration("duration", 5*time.Second, "time per scenario")
	maxRequests := fs.Int("requests", 100000, "at most this many requests per scenario")
	conns := fs.Int("c", 8, "concurrent connections")
	archivePath := fs.String("archive", "", "a PMTiles archive from build-tiles: adds a tiles scenario reading random tiles it holds")
	only := fs.String("scenarios", "", "comma-separated scenarios to run (default: all)")
	pmtilesURL := fs.String("pmtiles", "", "with -archive: base URL of `pmtiles serve` on the archive's directory, for a side-by-side scenario")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if name == "tiles" {
		if *archivePath == "" {
			fmt.Fprintf(stderr, "%s: -archive is required\n", cmd)
			return 2
		}
		if *only == "" {
			*only = "tiles"
			if *pmtilesURL != "" {
				*only += ",pmtiles"
			}
		}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	var tiles *tileSample
	if *archivePath != "" {
		var err error
		if tiles, err = sampleArchive(ctx, *archivePath, 4096); err != nil {
			fmt.Fprintf(stderr, "%s: -archive: %v\n", cmd, err)
			return 1
		}
	}
	noLogURL := ""
	var pids [2]int // the logging and the quiet server
	if *baseURL == "" {
		dir, err := os.MkdirTemp("", "meridian-loadtest-")
		if err != nil {
			fmt.Fprintln(stderr, err)
			return 1
		}
		defer os.RemoveAll(dir)
		if tiles != nil { // serve the archive from the server's data directory
			if err := placeArchive(*archivePath, datadir.TileArchive(datadir.Dir(dir).Tiles(), tiles.layer+".pmtiles")); err != nil {
				fmt.Fprintln(stderr, err)
				return 1
			}
		}
		// A first server writes the data directory (fixtures, demo data,
		// archives) and stops; the two measured start on it as written, so
		// that neither carries the heap of having built it.
		first, err := startServe(ctx, *bin, nil, "-addr", "127.0.0.1:0", "-data", dir, "-log-level", "error")
		if err != nil {
			fmt.Fprintf(stderr, "%s: %v\n", cmd, err)
			return 1
		}
		first.stop()
		logged, err := startServe(ctx, *bin, nil, "-addr", "127.0.0.1:0", "-data", dir, "-log-sample", "0")
		if err != nil {
			fmt.Fprintf(stderr, "%s: %v\n", cmd, err)
			return 1
		}
		defer logged.stop()
		quiet, err := startServe(ctx, *bin, nil, "-addr", "127.0.0.1:0", "-data", dir, "-log-level", "error")
		if err != nil {
			fmt.Fprintf(stderr, "%s: %v\n", cmd, err)
			return 1
		}
		defer quiet.stop()
		*baseURL, *key, noLogURL = logged.base, logged.key, quiet.base
		pids = [2]int{logged.cmd.Process.Pid, quiet.cmd.Process.Pid}
	} else if *key == "" {
		fmt.Fprintf(stderr, "%s: -key is required with -url\n", cmd)
		return 2
	}
	helloURL, stopHello, err := startHello()
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	defer stopHello()
	fmt.Fprintf(stdout, "%s %s: %d connections, at most %s or %d requests per scenario\n", name, *baseURL, *conns, *duration, *maxRequests)
	fmt.Fprintf(stdout, "%-10s %9s %9s %7s %9s %9s %9s %7s\n", "scenario", "requests", "req/s", "x hello", "p50", "p99", "max", "errors")
	failed := false
	all := scenarios()
	if tiles != nil {
		all = append(all, tiles.scenarios(*pmtilesURL)...)
	}
	if *only != "" {
		want := strings.Split(*only, ",")
		all = slices.DeleteFunc(all, func(sc scenario) bool { return !slices.Contains(want, sc.name) })
	}
	all = append([]scenario{helloScenario(helloURL)}, all...)
	var helloRPS float64
	for _, sc := range all {
		res := runScenario(ctx, *baseURL, *key, sc, *conns, *duration, *maxRequests)
		if sc.name == helloName {
			helloRPS = res.rps
		}
		if sc.name == "search" && noLogURL != "" {
			p := pairedRates(ctx, *key, sc, [2]string{*baseURL, noLogURL}, pids, *conns, *duration)
			defer fmt.Fprintf(stdout, "request log: search %.0f req/s with it, %.0f without (alternating rounds): it costs %.1f%% of a search's rate; server CPU %.1f and %.1f µs a search: %.1f%%\n",
				p.rps[0], p.rps[1], 100*(1-p.rps[0]/p.rps[1]), p.cpuMicros[0], p.cpuMicros[1], 100*(p.cpuMicros[0]/p.cpuMicros[1]-1))
		}
		frac := 0.0
		if helloRPS > 0 {
			frac = res.rps / helloRPS
		}
		fmt.Fprintf(stdout, "%-10s %9d %9.0f %7.2f %9s %9s %9s %7d\n", sc.name, res.n, res.rps, frac,
			res.p50.Round(time.Microsecond), res.p99.Round(time.Microsecond), res.max.Round(time.Microsecond), res.errors)
		if sc.perRequest > 1 {
			fmt.Fprintf(stdout, "  %s: %.0f locations/s\n", sc.name, res.rps*float64(sc.perRequest))
		}
		if res.errors > 0 {
			fmt.Fprintf(stdout, "  first error: %s\n", res.firstErr)
			failed = true
		}
	}
	if failed {
		return 1
	}
	return 0
}

type scenario struct {
	name string
	// perRequest is how many locations one request asks for (batches).
	perRequest int
	// request builds the i-th request.
	request func(base string, rng *rand.Rand) (*http.Request, error)
}

var quarters = []string{"NE", "NW", "SE", "SW"}

func randomQuarter(rng *rand.Rand) string {
	return fmt.Sprintf("%s-%d-%d-%d-W%d", quarters[rng.IntN(4)], 1+rng.IntN(36), 1+rng.IntN(100), 1+rng.IntN(25), 4+rng.IntN(2))
}

func scenarios() []scenario {
	return []scenario{
		{"search", 1, func(base string, rng *rand.Rand) (*http.Request, error) {
			return http.NewRequest("GET", base+"/search/legal-location?location="+randomQuarter(rng), nil)
		}},
		{"reverse", 1, func(base string, rng *rand.Rand) (*http.Request, error) {
			lng, lat := -119.5+rng.Float64()*9, 49.1+rng.Float64()*9
			return http.NewRequest("GET", fmt.Sprintf("%s/search/coordinates?location=%.6f,%.6f", base, lng, lat), nil)
		}},
		{"batch100", 100, func(base string, rng *rand.Rand) (*http.Request, error) {
			lls := make([]string, 100)
			for i := range lls {
				lls[i] = randomQuarter(rng)
			}
			body, _ := json.Marshal(lls)
			req, err := http.NewRequest("POST", base+"/batch/legal-location", bytes.NewReader(body))
			if err == nil {
				req.Header.Set("Content-Type", "application/json")
			}
			return req, err
		}},
	}
}

type result struct {
	n, errors     int
	bytes         int64 // body bytes read, over the n answers
	rps           float64
	p50, p99, max time.Duration
	firstErr      string
	lat           []time.Duration // every answer's, sorted
	elapsed       time.Duration
}

// merge is the result of rs run one after the other: their requests over
// their summed time, percentiles over all their answers.
func merge(rs []result) result {
	var m result
	for _, r := range rs {
		m.errors += r.errors
		m.bytes += r.bytes
		m.elapsed += r.elapsed
		m.lat = append(m.lat, r.lat...)
		if m.firstErr == "" {
			m.firstErr = r.firstErr
		}
	}
	slices.Sort(m.lat)
	m.n = len(m.lat)
	if m.elapsed > 0 {
		m.rps = float64(m.n) / m.elapsed.Seconds()
	}
	if m.n > 0 {
		m.p50, m.p99, m.max = m.lat[m.n*50/100], m.lat[m.n*99/100], m.lat[m.n-1]
	}
	return m
}

func runScenario(ctx context.Context, base, key string, sc scenario, conns int, d time.Duration, maxRequests int) result {
	client := &http.Client{
		Timeout: 10 * time.Second,
		// No transparent gunzip: tiles are read as served (gzip passed
		// through), the same work for every server compared.
		Transport: &http.Transport{MaxIdleConnsPerHost: conns, MaxConnsPerHost: conns, DisableCompression: true},
	}
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	var (
		mu       sync.Mutex
		lat      []time.Duration
		bytes    int64
		errs     int
		firstErr string
		issued   = make(chan struct{}, maxRequests)
	)
	for range maxRequests {
		issued <- struct{}{}
	}
	close(issued)
	start := time.Now()
	var wg sync.WaitGroup
	for w := range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(w), 42))
			var local []time.Duration
			var localBytes int64
			localErrs, localFirst := 0, ""
			for range issued {
				if ctx.Err() != nil {
					break
				}
				req, err := sc.request(base, rng)
				if err != nil {
					localErrs++
					continue
				}
				req.Header.Set("X-API-Key", key)
				t0 := time.Now()
				resp, err := client.Do(req)
				var nb int64
				if err == nil {
					nb, _ = io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
				}
				el := time.Since(t0)
				switch {
				case err != nil:
					if ctx.Err() != nil {
						break
					}
					localErrs++
					if localFirst == "" {
						localFirst = err.Error()
					}
				case resp.StatusCode != http.StatusOK && resp.StatusCode != http.StatusNotFound:
					// 404 is a valid answer for a random point outside the grid.
					localErrs++
					if localFirst == "" {
						localFirst = fmt.Sprintf("%s %s: %s", req.Method, req.URL.Path, resp.Status)
					}
				default:
					local = append(local, el)
					localBytes += nb
				}
			}
			mu.Lock()
			lat = append(lat, local...)
			bytes += localBytes
			errs += localErrs
			if firstErr == "" {
				firstErr = localFirst
			}
			mu.Unlock()
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	client.CloseIdleConnections()
	slices.Sort(lat)
	r := result{n: len(lat), bytes: bytes, errors: errs, firstErr: firstErr, rps: float64(len(lat)) / elapsed.Seconds(), lat: lat, elapsed: elapsed}
	if len(lat) > 0 {
		r.p50 = lat[len(lat)*50/100]
		r.p99 = lat[len(lat)*99/100]
		r.max = lat[len(lat)-1]
	}
	return r
}

// pairedRates runs sc against two servers in twenty alternating rounds of
// d/10 each (a then b, then b then a) and returns what each did over its
// rounds: on a shared, noisy machine, a load that comes and goes falls on
// both alike, where two runs one after the other compared two moments.
func pairedRates(ctx context.Context, key string, sc scenario, bases [2]string, pids [2]int, conns int, d time.Duration) paired {
	const rounds = 20
	var n [2]int
	var t, cpu [2]time.Duration
	abba(rounds, func(i int) result {
		c0 := procCPU(pids[i])
		t0 := time.Now()
		res := runScenario(ctx, bases[i], key, sc, conns, d/(rounds/2), 200000)
		t[i] += time.Since(t0)
		cpu[i] += procCPU(pids[i]) - c0
		n[i] += res.n
		return res
	})
	var p paired
	for i := range p.rps {
		p.rps[i] = float64(n[i]) / t[i].Seconds()
		if n[i] > 0 {
			p.cpuMicros[i] = float64(cpu[i].Microseconds()) / float64(n[i])
		}
	}
	return p
}

// abba runs parts of two measures in rounds, the first then the second,
// then the second then the first, so that neither always follows the
// other, and returns each one's parts in order: run(k) runs a part of
// measure k (0 or 1).
func abba(rounds int, run func(k int) result) [2][]result {
	var parts [2][]result
	for r := range rounds {
		for j := range 2 {
			k := j ^ r&1
			parts[k] = append(parts[k], run(k))
		}
	}
	return parts
}

// paired is what pairedRates measured of each server: requests a second,
// and the server's CPU time (user and system, from /proc) a request. The
// CPU a request is the steadier figure on a shared machine: it does not
// count the time the server waited for a core.
type paired struct {
	rps, cpuMicros [2]float64
}

// procCPU is the CPU time a process has used (user and system, all its
// threads), 0 where /proc is not there; its resolution is the kernel's
// clock tick (10 ms at USER_HZ 100).
func procCPU(pid int) time.Duration {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	// The command name (field 2) is in parentheses and may hold spaces:
	// count fields after its closing one. utime and stime are fields 14
	// and 15.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 13 {
		return 0
	}
	u, _ := strconv.ParseInt(f[11], 10, 64)
	s, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(u+s) * time.Second / userHZ
}

// userHZ is the unit of /proc's CPU times on Linux.
const userHZ = 100

// helloName is the scenario of the hello-world baseline.
const helloName = "hello"

// helloBody is what the hello-world handler answers: a small JSON object,
// about the size of a search answer's headers alone.
var helloBody = []byte(`{"hello":"world"}` + "\n")

// startHello serves a hello-world handler on a free 127.0.0.1 port (one
// http.Server, default settings), and
// returns its base URL and a function that stops it. /bytes?n=N answers
// N bytes instead (at most maxStaticBytes, written at once from memory):
// the most a server can do that sends an answer of that size
// (staticScenario).
func startHello() (string, func(), error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, err
	}
	static := bytes.Repeat([]byte{' '}, maxStaticBytes)
	hs := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if r.URL.Path == "/bytes" {
			n, _ := strconv.Atoi(r.URL.Query().Get("n"))
			w.Write(static[:max(0, min(n, maxStaticBytes))])
			return
		}
		w.Write(helloBody)
	})}
	go hs.Serve(ln)
	return "http://" + ln.Addr().String(), func() { hs.Close() }, nil
}

// maxStaticBytes bounds the hello server's static answers.
const maxStaticBytes = 4 << 20

// staticScenario reads n bytes from the hello server at url (startHello's
// /bytes): what a route whose answers average n bytes is measured against
// beside hello-world, the ceiling of a server that only sends them.
func staticScenario(url string, n int64) scenario {
	return scenario{fmt.Sprintf("static %d bytes", n), 1, func(string, *rand.Rand) (*http.Request, error) {
		return http.NewRequest("GET", fmt.Sprintf("%s/bytes?n=%d", url, n), nil)
	}}
}

// helloScenario reads the hello-world handler at url, whatever base the
// other scenarios use.
func helloScenario(url string) scenario {
	return scenario{helloName, 1, func(string, *rand.Rand) (*http.Request, error) {
		return http.NewRequest("GET", url+"/", nil)
	}}
}
