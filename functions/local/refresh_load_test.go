package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"meridian/shared/ag/agapi"
	"meridian/shared/api"
	"meridian/shared/api/apigw"
	"meridian/shared/blob"
	"meridian/shared/blob/s3blob"
	"meridian/shared/convert"
	"meridian/shared/datadir"
	"meridian/shared/dataingest"
	"meridian/shared/energy/energyapi"
	"meridian/shared/gateway"
	"meridian/shared/gridstore"
	"meridian/shared/kv"
	"meridian/shared/kv/dynamokv"
	"meridian/shared/lambdafn"
	"meridian/shared/publish"
	"meridian/shared/release"
	"meridian/shared/survey/grid"
	"meridian/shared/tile"
	"meridian/shared/tile/archive"
)

// A refresh under load (issue 15, item 4): a few workers keep search,
// autocomplete, batch, reports, the operator list and tiles busy while
// every dataset is refreshed from version A to version B (see
// refresh_data_test.go), on AWS (the Lambda handlers over the S3 and
// DynamoDB emulators, refreshed by `meridian-publish`) and locally (the
// server over a data directory, refreshed by `meridian ingest` and
// `meridian build-tiles` into that directory). Every response must be
// byte for byte the answer of A or of B for its probe: no failure, no
// mixture. By the end every probe answers B.
//
// Bounds: loadWorkers workers, at most loadMaxRequests requests and
// loadMaxTime per target; results are kept per request (a few dozen bytes
// each), so memory is bounded by loadMaxRequests. No timing is asserted
// (the machine is shared); the latencies are reported.

const (
	loadWorkers     = 4
	loadMaxRequests = 100000
	// loadMaxTime only stops a run that hangs: the refresh runs under the
	// load's context, and on a loaded 2-core machine the AWS publish of
	// version B took over the 60 s this was (its scan was canceled).
	loadMaxTime   = 5 * time.Minute
	loadBaseline  = 1500 * time.Millisecond // before the refresh
	loadAfter     = time.Second             // after every probe answers B
	loadSettleMax = 15 * time.Second        // for every probe to answer B once the refresh is done
	loadRecheck   = 200 * time.Millisecond  // GRID_RECHECK_SECONDS, ARCHIVE_RECHECK_SECONDS of the test's functions
	// loadPause is each worker's pause between requests, so that the
	// load leaves the refresh some of the 2 cores this runs on.
	loadPause = 10 * time.Millisecond
)

// Phases of a load run.
const (
	phaseBefore = iota
	phaseDuring // the refresh commands are running
	phaseSettle // they are done; waiting for every probe to answer B
	phaseAfter
	phases
)

var phaseNames = [phases]string{"before", "during", "settle", "after"}

// loadTarget is a running service and the refresh of its data.
type loadTarget struct {
	name string
	base string // loopback URL of the service
	key  string // API key to send, if any
	// reportPause is the report worker's pause between requests (see
	// runLoad); loadPause when zero.
	reportPause time.Duration
	refresh     func(ctx context.Context, logf func(string, ...any)) error
	// kept, when not nil, allows the refresh to fail: it then reports
	// whether a dataset's version A was kept (the failure came before
	// it), and those datasets must answer A to the end, never B.
	kept func(dataset string) bool
}

// outcome is one request's result.
type outcome struct {
	phase   int8
	probe   int16
	version int8 // 0 A, 1 B, 2 both alike; -1 failed, -2 mixed, -3 A after B
	dur     time.Duration
}

// loadReport is what a run measured.
type loadReport struct {
	n, failed, mixed [phases]int
	back             [phases]int // answers of A after B had been answered
	a, b             [phases]int // answers of version A, of B (not alike in the other)
	p50, p99         [phases]time.Duration
	errs             []string // the first few
	lastB            []bool   // per probe: its last answer was B's
	sawB             map[string]bool
	refreshTook      time.Duration
	refreshErr       error           // a refresh that failed where the target allows it (loadTarget.kept)
	refreshed        map[string]bool // by dataset: must end on B
}

// runLoad runs the load against tg, refreshing once after the baseline.
func runLoad(t *testing.T, tg loadTarget, ps []*probe) loadReport {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), loadMaxTime)
	defer cancel()
	client := &http.Client{Transport: &http.Transport{DisableCompression: true, MaxIdleConnsPerHost: loadWorkers}, Timeout: 10 * time.Second}
	defer client.CloseIdleConnections()

	var phase atomic.Int32
	var total atomic.Int64
	var mu sync.Mutex
	var all []outcome
	var errs []string
	last := make([]atomic.Int32, len(ps))   // per probe: last version seen
	firstB := make([]atomic.Int64, len(ps)) // per probe: when its first answer of B arrived (unix ns)
	// The report probes (DynamoDB) have one worker of their own, the
	// others share the rest: the DynamoDB emulator answers one request at
	// a time, slower as the table grows (a query of minidyn takes ~0.5 s
	// with two versions of the demo data in it), and more than one worker
	// on it starves the publish's own writes into their 3 s timeout.
	var reportLane, otherLane []int
	for i, p := range ps {
		if p.product == "energy" || p.product == "ag" {
			reportLane = append(reportLane, i)
		} else {
			otherLane = append(otherLane, i)
		}
	}
	lanes := [][]int{reportLane, otherLane}
	if len(reportLane) == 0 {
		lanes = lanes[1:]
	}
	var wg sync.WaitGroup
	for w := range loadWorkers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var mine []outcome
			defer func() { mu.Lock(); all = append(all, mine...); mu.Unlock() }()
			mineProbes := lanes[min(w, len(lanes)-1)]
			for i := w; ctx.Err() == nil && total.Add(1) <= loadMaxRequests; i++ {
				pi := mineProbes[i%len(mineProbes)]
				p := ps[pi]
				ph := int8(phase.Load())
				start := time.Now()
				v, err := fetch(ctx, client, tg, p)
				o := outcome{phase: ph, probe: int16(pi), version: int8(v), dur: time.Since(start)}
				if ctx.Err() != nil && err != nil {
					return // the run ended mid-request
				}
				if err != nil {
					o.version = int8(min(v, -1))
					mu.Lock()
					if len(errs) < 8 {
						errs = append(errs, fmt.Sprintf("[%s] %v", phaseNames[ph], err))
					}
					mu.Unlock()
				} else {
					last[pi].Store(int32(v))
					now := time.Now().UnixNano()
					if v == 1 {
						firstB[pi].CompareAndSwap(0, now)
					}
					if b := firstB[pi].Load(); v == 0 && b != 0 && start.UnixNano() > b {
						// An answer of A to a request sent after an
						// answer of B had arrived: the version went back.
						o.version = -3
						mu.Lock()
						if len(errs) < 8 {
							errs = append(errs, fmt.Sprintf("[%s] %s: answered version A %s after it had answered B", phaseNames[ph], p.name, time.Duration(start.UnixNano()-b)))
						}
						mu.Unlock()
					}
				}
				mine = append(mine, o)
				if lanes[0][0] == mineProbes[0] && len(lanes) > 1 && tg.reportPause > 0 {
					time.Sleep(tg.reportPause)
				} else {
					time.Sleep(loadPause)
				}
			}
		}()
	}

	var rep loadReport
	sleep := func(d time.Duration) {
		select {
		case <-ctx.Done():
		case <-time.After(d):
		}
	}
	sleep(loadBaseline)
	phase.Store(phaseDuring)
	start := time.Now()
	rep.refreshed = map[string]bool{}
	if err := tg.refresh(ctx, t.Logf); err != nil {
		if tg.kept == nil {
			cancel()
			wg.Wait()
			t.Fatalf("%s: refresh: %v", tg.name, err)
		}
		rep.refreshErr = err
	}
	rep.refreshTook = time.Since(start)
	for _, p := range ps {
		rep.refreshed[p.dataset] = rep.refreshErr == nil || !tg.kept(p.dataset)
	}
	phase.Store(phaseSettle)
	settled := func() bool {
		for i := range last {
			if v := last[i].Load(); v != 1 && v != 2 && rep.refreshed[ps[i].dataset] {
				return false
			}
		}
		return true
	}
	for deadline := time.Now().Add(loadSettleMax); !settled() && time.Now().Before(deadline) && ctx.Err() == nil; {
		sleep(50 * time.Millisecond)
	}
	phase.Store(phaseAfter)
	sleep(loadAfter)
	cancel()
	wg.Wait()

	rep.errs = errs
	rep.sawB = map[string]bool{}
	var durs [phases][]time.Duration
	for _, o := range all {
		rep.n[o.phase]++
		durs[o.phase] = append(durs[o.phase], o.dur)
		switch o.version {
		case -1:
			rep.failed[o.phase]++
		case -2:
			rep.mixed[o.phase]++
		case -3:
			rep.back[o.phase]++
		case 0:
			rep.a[o.phase]++
		case 1:
			rep.b[o.phase]++
			rep.sawB[ps[o.probe].dataset] = true
		}
	}
	for i := range last {
		v := last[i].Load()
		rep.lastB = append(rep.lastB, v == 1 || v == 2)
	}
	for ph := range phases {
		slices.Sort(durs[ph])
		rep.p50[ph], rep.p99[ph] = quantile(durs[ph], 0.50), quantile(durs[ph], 0.99)
	}
	return rep
}

// quantile returns the q-quantile of sorted ds (nearest rank).
func quantile(ds []time.Duration, q float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	return ds[min(len(ds)-1, int(q*float64(len(ds))))]
}

// fetch sends p to tg and classifies the answer.
func fetch(ctx context.Context, client *http.Client, tg loadTarget, p *probe) (int, error) {
	r, err := p.request(tg.base, tg.key)
	if err != nil {
		return -1, err
	}
	resp, err := client.Do(r.WithContext(ctx))
	if err != nil {
		return -1, fmt.Errorf("%s: %w", p.name, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return -1, fmt.Errorf("%s: read body: %w", p.name, err)
	}
	return p.classify(resp.StatusCode, body)
}

// check asserts what the issue asks of a refresh under load and logs the
// figures.
func (rep loadReport) check(t *testing.T, target string, ps []*probe) {
	t.Helper()
	t.Logf("%s: refresh took %s", target, rep.refreshTook.Round(time.Millisecond))
	t.Logf("%-7s %8s %7s %6s %6s %6s %6s %9s %9s", "phase", "requests", "failed", "mixed", "A", "B", "A<-B", "p50", "p99")
	for ph := range phases {
		t.Logf("%-7s %8d %7d %6d %6d %6d %6d %9s %9s", phaseNames[ph], rep.n[ph], rep.failed[ph], rep.mixed[ph], rep.a[ph], rep.b[ph], rep.back[ph],
			rep.p50[ph].Round(10*time.Microsecond), rep.p99[ph].Round(10*time.Microsecond))
	}
	failed, mixed, back := 0, 0, 0
	for ph := range phases {
		failed += rep.failed[ph]
		mixed += rep.mixed[ph]
		back += rep.back[ph]
	}
	if back > 0 {
		t.Errorf("%s: %d answers of version A to requests sent after the same request had been answered B", target, back)
	}
	summary := fmt.Sprintf("refresh-under-load %s: %d requests (%d during the %s refresh, %d while settling), %d failed, %d mixed; p99 before %s, during %s",
		target, rep.n[0]+rep.n[1]+rep.n[2]+rep.n[3], rep.n[phaseDuring], rep.refreshTook.Round(time.Millisecond), rep.n[phaseSettle], failed, mixed,
		rep.p99[phaseBefore].Round(10*time.Microsecond), rep.p99[phaseDuring].Round(10*time.Microsecond))
	if rep.refreshErr != nil {
		var kept []string
		for ds, ok := range rep.refreshed {
			if !ok {
				kept = append(kept, ds)
			}
		}
		slices.Sort(kept)
		summary += fmt.Sprintf("; the publish FAILED on the emulator (%s kept at A, checked): %.160v", strings.Join(kept, ", "), rep.refreshErr)
	}
	t.Log(summary)
	fmt.Println(summary)
	for _, e := range rep.errs {
		t.Errorf("%s: %s", target, e)
	}
	if failed > 0 || mixed > 0 {
		t.Errorf("%s: %d responses failed, %d matched neither version", target, failed, mixed)
	}
	if rep.n[phaseDuring] == 0 {
		t.Errorf("%s: no request was served during the refresh", target)
	}
	for i, ok := range rep.lastB {
		if !ok && rep.refreshed[ps[i].dataset] {
			t.Errorf("%s: %s does not answer version B at the end", target, ps[i].name)
		}
	}
	told := map[string]bool{}
	for _, p := range ps {
		if !rep.refreshed[p.dataset] {
			// Its publish failed: what was served must stay.
			if rep.sawB[p.dataset] && !told[p.dataset] {
				told[p.dataset] = true
				t.Errorf("%s: %s answered version B though its publish failed", target, p.dataset)
			}
			continue
		}
		if !rep.sawB[p.dataset] && !told[p.dataset] && (p.want[0].status != p.want[1].status || string(p.want[0].body) != string(p.want[1].body)) {
			told[p.dataset] = true
			t.Errorf("%s: no answer of %s at version B was seen", target, p.dataset)
		}
	}
	if n := rep.n[phaseAfter]; n == 0 || rep.a[phaseAfter] > 0 && rep.refreshErr == nil {
		t.Errorf("%s: %d requests in the last phase (after the refresh and the wait for B), %d of them answered A", target, n, rep.a[phaseAfter])
	}
}

// awsFunctions are the Lambda handlers as their main.go build them (each
// function its own grid indexes, as each Lambda has), behind one loopback
// server routing by the first path segment as API Gateway does.
func awsFunctions(t *testing.T, s3c s3blob.API, bucket string, names []string, reports kv.Store) http.Handler {
	t.Helper()
	ctx := context.Background()
	logger := slog.New(slog.DiscardHandler)
	grids := func() *gridstore.Grids {
		s3 := s3blob.New(s3c, bucket, "grid/", s3blob.Options{})
		g, err := gridstore.New(ctx, gridstore.Source{Indexes: blob.NewCached(s3, blob.CacheOptions{MaxBytes: 32 << 20}), Manifest: s3,
			Names: names, Where: "s3://" + bucket + "/grid/", Recheck: loadRecheck}, logger)
		if err != nil {
			t.Fatal(err)
		}
		return g
	}
	fns := map[string]http.Handler{
		"search":       lambdafn.Convert((*convert.Handler).SearchRoutes).Handler(logger, lambdafn.Config{}, nil, grids()),
		"autocomplete": lambdafn.Convert((*convert.Handler).AutocompleteRoutes).Handler(logger, lambdafn.Config{}, nil, grids()),
		"batch":        lambdafn.Convert((*convert.Handler).BatchRoutes).Handler(logger, lambdafn.Config{}, nil, grids()),
		"energy": lambdafn.Reports(nil, func(s kv.Store, svc *grid.Service) []api.Route {
			return energyapi.NewHandler(s, svc, time.Now).Routes()
		}).Handler(logger, lambdafn.Config{}, reports, grids()),
		"ag": lambdafn.Reports(nil, func(s kv.Store, svc *grid.Service) []api.Route {
			return agapi.NewHandler(s, svc).Routes()
		}).Handler(logger, lambdafn.Config{}, reports, grids()),
	}
	// The tiles function as functions/tiles newGridsHandler builds it.
	svc := grid.New()
	archives := blob.NewCached(s3blob.New(s3c, bucket, "tiles/", s3blob.Options{}), blob.CacheOptions{MaxBytes: 32 << 20})
	th := tile.NewHandler(tile.Options{
		Generator:   tile.NewGenerator(svc),
		CacheBytes:  32 << 20,
		Attribution: tile.Attribution(svc.Sources),
		Archives:    archive.NewReleaseSet(archives, loadRecheck),
	})
	g := grids()
	g.Attach(svc.SetIndexes, th.Invalidate)
	mux := api.NewMux()
	mux.Mount(th.Routes()...)
	fns["tiles"] = apigw.Wrap(g.Handler(mux), logger)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		group, _, _ := strings.Cut(strings.TrimPrefix(r.URL.Path, "/"), "/")
		h := fns[group]
		if h == nil {
			http.NotFound(w, r)
			return
		}
		h.ServeHTTP(w, r)
	})
}

// On AWS: version A published and served by warm functions; version B
// published by `meridian-publish` under load.
func TestRefreshUnderLoadAWS(t *testing.T) {
	if testing.Short() {
		t.Skip("refresh under load: skipped in -short mode")
	}
	ctx := context.Background()
	start := time.Now()
	src := writeRefreshSources(t)
	dirA, dirB := versionDirs(t, src)
	ps := probes(t, dirA, dirB)
	t.Logf("versions A and B built, %d probes recorded, in %s", len(ps), time.Since(start).Round(time.Millisecond))

	bucket, s3c, s3Endpoint, s3Key, ddbEndpoint := emulators(t)
	dc, err := dynamokv.NewClient(ctx, dynamokv.ClientOptions{Region: "us-east-1", Endpoint: ddbEndpoint, AccessKeyID: "test", SecretAccessKey: "test", DisableResponseChecksum: true})
	if err != nil {
		t.Fatal(err)
	}
	table := fmt.Sprintf("reports-%d", time.Now().UnixNano())
	if err := dynamokv.CreateTable(ctx, dc, table); err != nil {
		t.Fatal(err)
	}
	opts := func(dir string) publish.Options {
		return publish.Options{Domains: reportDomains, Data: datadir.Dir(dir), Bucket: bucket, Table: table, S3Endpoint: s3Endpoint, DynamoEndpoint: ddbEndpoint,
			Region: "us-east-1", AccessKey: s3Key, SecretKey: s3Key, Progress: io.Discard}
	}
	start = time.Now()
	if err := publish.Run(ctx, opts(dirA)); err != nil {
		t.Fatal(err)
	}
	t.Logf("aws: version A published in %s (no load)", time.Since(start).Round(time.Millisecond))
	names, _ := dataingest.GridNames(datadir.Dir(dirA))
	// The report functions reach the DynamoDB emulator through a proxy
	// that passes one request at a time. minidyn answers every request
	// under one lock, a query of a table holding two versions of the demo
	// data takes ~0.5 s, and an energy report sends several at once: with
	// them all queued ahead, the publish's batch writes (3 s each, retries
	// included) time out. DynamoDB itself has no such lock.
	rc, err := dynamokv.NewClient(ctx, dynamokv.ClientOptions{Region: "us-east-1", Endpoint: serialProxy(t, ddbEndpoint), AccessKeyID: "test", SecretAccessKey: "test", DisableResponseChecksum: true})
	if err != nil {
		t.Fatal(err)
	}
	// The functions' store waits on the emulator as long as a request may
	// (the load's client gives up after 10 s), not the 3 s a Lambda gives
	// a DynamoDB call: queued behind the others at the proxy on a loaded
	// machine, a query took longer than 3 s and its request failed.
	ts := httptest.NewServer(awsFunctions(t, s3c, bucket, names, dynamokv.New(rc, table, dynamokv.Options{Timeout: 10 * time.Second})))
	defer ts.Close()
	// A publish that fails is run again, as its usage says: on this shared
	// 2-core machine the DynamoDB emulator, busy with the load, sometimes
	// takes longer than the 3 s a batch write is given. What a failed
	// attempt leaves must still be served as version A (checked like the
	// rest).
	tg := loadTarget{name: "aws", base: ts.URL, reportPause: 3 * time.Second, refresh: func(ctx context.Context, logf func(string, ...any)) error {
		var err error
		for attempt := 1; attempt <= 3; attempt++ {
			if err = publish.Run(ctx, opts(dirB)); err == nil || ctx.Err() != nil {
				return err
			}
			logf("aws: publish attempt %d failed, running it again: %.300v", attempt, err)
		}
		return err
	}}
	if os.Getenv("MERIDIAN_REFRESH_TOLERATE_PUBLISH_FAILURE") != "" {
		// For investigating a slow emulator only: a publish that still
		// fails after three attempts is reported, not failed, and the
		// datasets it did not switch must answer A to the end.
		tg.kept = keptAt(t, s3c, bucket, dynamokv.New(dc, table, dynamokv.Options{ConsistentRead: true, Timeout: emulatorTimeout}))
	}
	runLoad(t, tg, ps).check(t, "aws", ps)
}

// keptAt records what a deployment serves now (the grid and tiles
// manifests, the energy and ag versions) and returns a function telling
// whether a dataset still serves that.
func keptAt(t *testing.T, s3c s3blob.API, bucket string, reports kv.Store) func(dataset string) bool {
	t.Helper()
	ctx := context.Background()
	state := func(dataset string) string {
		switch dataset {
		case "grid", "tiles":
			prefix := map[string]string{"grid": "grid/", "tiles": "tiles/"}[dataset]
			m, _, err := release.Read(ctx, s3blob.New(s3c, bucket, prefix, s3blob.Options{}))
			if err != nil {
				t.Errorf("read the %s manifest: %v", dataset, err)
			}
			return fmt.Sprint(m.Files)
		}
		ds, _, err := kv.Open(ctx, reports, dataset)
		if err != nil {
			t.Errorf("open dataset %s: %v", dataset, err)
		}
		return fmt.Sprint(ds.Version)
	}
	before := map[string]string{}
	for _, ds := range []string{"grid", "tiles", "energy", "ag"} {
		before[ds] = state(ds)
	}
	return func(dataset string) bool { return state(dataset) == before[dataset] }
}

// serialProxy is a loopback proxy to backend that passes one request at a
// time.
func serialProxy(t *testing.T, backend string) string {
	t.Helper()
	u, err := url.Parse(backend)
	if err != nil {
		t.Fatal(err)
	}
	proxy := httputil.NewSingleHostReverseProxy(u)
	var mu sync.Mutex
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(ts.Close)
	return ts.URL
}

// Locally: the server over a data directory at version A, refreshed to B by
// `meridian ingest grid`, `ingest energy`, `ingest ag` and `build-tiles`
// into that same directory while it serves.
func TestRefreshUnderLoadLocal(t *testing.T) {
	if testing.Short() {
		t.Skip("refresh under load: skipped in -short mode")
	}
	start := time.Now()
	src := writeRefreshSources(t)
	dirA, dirB := versionDirs(t, src)
	ps := probes(t, dirA, dirB)
	t.Logf("versions A and B built, %d probes recorded, in %s", len(ps), time.Since(start).Round(time.Millisecond))

	dir := t.TempDir()
	copyTree(t, dirA, dir)
	key, err := gateway.EnsureDemoKey(dir)
	if err != nil {
		t.Fatal(err)
	}
	srv, err := newServer(t.Context(), serverConfig{data: datadir.Dir(dir), logger: slog.New(slog.DiscardHandler), archiveRecheck: loadRecheck})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go srv.watch(ctx)
	ts := httptest.NewServer(srv.handler)
	defer ts.Close()
	tg := loadTarget{name: "local", base: ts.URL, key: key, refresh: func(ctx context.Context, logf func(string, ...any)) error {
		for _, st := range src.steps(dir) {
			s := time.Now()
			if err := runStep(st); err != nil {
				return err
			}
			logf("local: %s refreshed (meridian %s) in %s", st.dataset, st.args[0], time.Since(s).Round(time.Millisecond))
		}
		return nil
	}}
	runLoad(t, tg, ps).check(t, "local", ps)
}
