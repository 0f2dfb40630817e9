// Command chaos drives the Lambdas' handlers and the publish job through
// S3 and DynamoDB that fail (make chaos; issue 36 item 3).
//
// It builds the demo data directory, publishes it into an in-process S3
// emulator (gofakes3) and the DynamoDB emulator dynoxide (-dynoxide; the
// in-process minidyn without it), and puts a fault-injecting proxy
// in front of each: at -rate, a request meets S3's SlowDown or
// ServiceUnavailable (503) or InternalError (500), DynamoDB's
// ThrottlingException or ProvisionedThroughputExceededException (400) or
// InternalServerError (500), a connection reset (TCP RST), or a stall of
// two seconds before the request is passed on. The faults are drawn from a
// seeded source (-seed).
//
// The handlers are the functions' own, built as their main.go builds them
// (lambdafn: search, autocomplete, batch, ag, energy; the tiles function's
// archives) over SDK clients pointed at the proxies, each invocation under
// its function's timeout as Lambda gives it. Each answer is compared with
// the answer of the same handlers over the emulators directly (no faults):
// it must be that answer byte for byte (request ids removed), or a 503
// upstream_unavailable with Retry-After. Between the requests, publishes
// (meridian-publish) and merge publishes (what the refresh job runs after
// an ingest) go through the proxies too; one that fails must leave the
// served version (the grid and tiles manifests, the report datasets'
// pointers) as it was, and the answers stay right whatever a publish did.
// With -refresh-test, the refresh job (fetch, ingest, publish) runs under
// the same faults in its package's TestRefreshUnderFaults, and its runs
// count among the publishes.
//
// The last line it prints is
//
//	chaos: N requests, F faults injected, W wrong or 500, U 503 with Retry-After, P publishes ok of Q
//
// and it exits 1 when W > 0, U > 1% of N or a failed publish changed the
// served version.
package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"meridian/functions/internal/faultproxy"
	"meridian/shared/ag"
	"meridian/shared/datadir"
	"meridian/shared/energy"
	"meridian/shared/kv"
	"meridian/shared/publish"
)

const usage = `usage: chaos [flags]

Drives the Lambdas' handlers and publishes through S3 and DynamoDB
emulators behind a fault-injecting proxy; prints one line last:
  chaos: N requests, F faults injected, W wrong or 500, U 503 with Retry-After, P publishes ok of Q
and exits 1 when W > 0, U > 1% of N, or a failed publish changed the
served version.

flags:
`

type options struct {
	rate        float64
	seed        uint64
	requests    int
	publishes   int
	refreshes   int
	refreshTest string
	ddbEndpoint string
	dynoxide    string
	events      string
	faults      []faultproxy.Fault
	maxU        float64
	verbose     bool
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("chaos", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, usage); fs.PrintDefaults() }
	var o options
	fs.Float64Var(&o.rate, "rate", 0.05, "share of S3 and DynamoDB requests that meet a fault (0-1)")
	fs.Uint64Var(&o.seed, "seed", 1, "seed of the faults and of the order of the requests")
	fs.IntVar(&o.requests, "requests", 2000, "API requests to send")
	fs.IntVar(&o.publishes, "publishes", 6, "publishes and merge publishes, spread over the requests")
	fs.IntVar(&o.refreshes, "refreshes", 4, "refresh job runs (with -refresh-test)")
	fs.StringVar(&o.refreshTest, "refresh-test", "", "the refresh job's test binary (go test -c ./functions/refresh), whose TestRefreshUnderFaults runs the refresh job through its own fault proxies at -rate; empty: no refresh runs")
	fs.StringVar(&o.events, "events", "events", "directory of the recorded API Gateway events")
	fs.StringVar(&o.ddbEndpoint, "dynamodb-endpoint", "", "a DynamoDB emulator process to use (dynoxide, e.g. http://127.0.0.1:8100) instead of in-process minidyn, whose queries slow down as publishes add versions")
	fs.StringVar(&o.dynoxide, "dynoxide", "", "a dynoxide binary (npm @dynoxide/linux-x64) to start on a free port as the DynamoDB emulator")
	fs.Float64Var(&o.maxU, "max-unavailable", 0.01, "largest share of 503 answers that passes")
	fs.Func("faults", "comma-separated faults to inject: "+strings.Join(faultproxy.Names[:], ", ")+" (default all)", func(s string) (err error) {
		o.faults, err = faultproxy.ParseFaults(s)
		return err
	})
	fs.BoolVar(&o.verbose, "v", false, "print each wrong answer and failed publish in full")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() > 0 || o.rate < 0 || o.rate > 1 || o.requests < 1 || o.publishes < 0 {
		fs.Usage()
		return 2
	}
	res, err := chaos(context.Background(), o, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "chaos: %v\n", err)
		return 1
	}
	fmt.Fprintln(stdout, res.line())
	if res.failed(o.maxU) {
		return 1
	}
	return 0
}

// result is a run's tally.
type result struct {
	requests, faults, wrong, unavailable int
	publishesOK, publishes               int
	servedChanged                        int  // failed publishes that changed the served version
	refreshFailed                        bool // the refresh job's fault test failed
}

func (r result) line() string {
	return fmt.Sprintf("chaos: %d requests, %d faults injected, %d wrong or 500, %d 503 with Retry-After, %d publishes ok of %d",
		r.requests, r.faults, r.wrong, r.unavailable, r.publishesOK, r.publishes)
}

func (r result) failed(maxU float64) bool {
	return r.wrong > 0 || float64(r.unavailable) > maxU*float64(r.requests) || r.servedChanged > 0 || r.refreshFailed
}

// functionTimeout is each function's timeout in the stack
// (infra/products.go), the deadline an invocation runs under.
var functionTimeout = map[string]time.Duration{
	"search": 10 * time.Second, "autocomplete": 10 * time.Second, "batch": 20 * time.Second,
	"tiles": 20 * time.Second, "ag": 10 * time.Second, "energy": 10 * time.Second,
}

const (
	bucket = "meridian-data"
	key    = "test" // the emulators' credentials
)

// table is the report table, new each run (an external emulator may
// hold others').
var table = "chaos-reports-" + strconv.FormatInt(time.Now().UnixNano(), 36)

// env is the data, the emulators and the proxies of a run.
type env struct {
	dir             datadir.Dir
	s3URL, ddbURL   string // the emulators
	s3p, ddbp       *faultproxy.Proxy
	s3pURL, ddbpURL string
	direct          *s3.Client
	ddbDirect       kv.Store
	gridNames       []string
	logger          *slog.Logger
	log             io.Writer
	closers         []func()
}

func (e *env) close() {
	for i := len(e.closers) - 1; i >= 0; i-- {
		e.closers[i]()
	}
}

func serve(e *env, h http.Handler) string {
	ts := httptest.NewServer(h)
	e.closers = append(e.closers, ts.Close)
	return ts.URL
}

func chaos(ctx context.Context, o options, log io.Writer) (result, error) {
	var res result
	// The functions take credentials and region from the SDK's chain, as
	// on Lambda; the emulators accept any.
	for k, v := range map[string]string{"AWS_ACCESS_KEY_ID": key, "AWS_SECRET_ACCESS_KEY": key, "AWS_REGION": "us-east-1"} {
		os.Setenv(k, v)
	}
	os.Unsetenv("AWS_PROFILE")
	work, err := os.MkdirTemp("", "meridian-chaos-")
	if err != nil {
		return res, err
	}
	defer os.RemoveAll(work)
	e := &env{dir: datadir.Dir(filepath.Join(work, "data")), logger: slog.New(slog.DiscardHandler), log: log}
	defer e.close()
	start := time.Now()
	if err := e.prepareData(ctx); err != nil {
		return res, err
	}
	if err := e.startEmulators(ctx, o); err != nil {
		return res, err
	}
	fmt.Fprintf(log, "chaos: data and emulators ready in %s\n", time.Since(start).Round(time.Millisecond))

	reqs, err := loadEvents(o.events)
	if err != nil {
		return res, err
	}
	if o.verbose {
		e.logger = slog.New(slog.NewTextHandler(log, &slog.HandlerOptions{Level: slog.LevelError}))
	}
	// The answers without faults: the same handlers over the emulators
	// directly.
	base, err := e.handlers(ctx, e.s3URL, e.ddbURL)
	if err != nil {
		return res, fmt.Errorf("handlers over the emulators: %w", err)
	}
	want := map[string]answer{}
	for _, r := range reqs {
		a, err := invokeUntilServed(ctx, base, r)
		if err != nil {
			return res, fmt.Errorf("%s without faults: %w", r.name, err)
		}
		want[r.name] = a
	}
	// The functions under test: cold start with the proxies passing
	// everything (a cold start that fails is Lambda's init error, not an
	// answer), then the faults.
	fns, err := e.handlers(ctx, e.s3pURL, e.ddbpURL)
	if err != nil {
		return res, fmt.Errorf("handlers through the proxies: %w", err)
	}
	for _, p := range []*faultproxy.Proxy{e.s3p, e.ddbp} {
		p.SetKinds(o.faults)
		p.SetRate(o.rate)
	}

	rng := rand.New(rand.NewPCG(o.seed, 7))
	every := o.requests
	if o.publishes > 0 {
		every = max(1, o.requests/o.publishes)
	}
	wrongBy, unavailableBy := map[string]int{}, map[string]int{}
	for i := range o.requests {
		if o.publishes > 0 && i%every == every/2 && res.publishes < o.publishes {
			ok, changed, err := e.publish(ctx, res.publishes%2 == 1, o.verbose)
			if err != nil {
				return res, err
			}
			res.publishes++
			if ok {
				res.publishesOK++
			} else if changed {
				res.servedChanged++
			}
		}
		r := reqs[rng.IntN(len(reqs))]
		got, err := invoke(ctx, fns, r)
		res.requests++
		switch {
		case err != nil:
			res.wrong++
			wrongBy[r.name+": invoke error"]++
			fmt.Fprintf(log, "chaos: %s: %v\n", r.name, err)
		case got.equal(want[r.name]):
		case got.status == http.StatusServiceUnavailable && got.retryAfter != "" && strings.Contains(got.body, `"code":"upstream_unavailable"`):
			res.unavailable++
			unavailableBy[r.name]++
		default:
			res.wrong++
			wrongBy[fmt.Sprintf("%s: %d %s", r.name, got.status, errorCode(got.body))]++
			if o.verbose {
				fmt.Fprintf(log, "chaos: %s: got %d %q Retry-After %q\n  want %d %.300q\n", r.name, got.status, trim(got.body, 300), got.retryAfter, want[r.name].status, want[r.name].body)
			}
		}
		if (i+1)%500 == 0 {
			fmt.Fprintf(log, "chaos: %d requests, %d wrong, %d 503 (%s)\n", i+1, res.wrong, res.unavailable, time.Since(start).Round(time.Second))
		}
	}
	for _, k := range slices.Sorted(mapsKeys(wrongBy)) {
		fmt.Fprintf(log, "chaos: wrong: %s ×%d\n", k, wrongBy[k])
	}
	for _, k := range slices.Sorted(mapsKeys(unavailableBy)) {
		fmt.Fprintf(log, "chaos: 503: %s ×%d\n", k, unavailableBy[k])
	}
	res.faults = int(e.s3p.Total() + e.ddbp.Total())
	if o.refreshTest != "" && o.refreshes > 0 {
		if err := refreshRuns(ctx, o, &res, log); err != nil {
			return res, err
		}
	}
	fmt.Fprintf(log, "chaos: S3 proxy: %s\n", e.s3p.Summary())
	fmt.Fprintf(log, "chaos: DynamoDB proxy: %s\n", e.ddbp.Summary())
	fmt.Fprintf(log, "chaos: %d failed publishes changed the served version; %s in all\n", res.servedChanged, time.Since(start).Round(time.Second))
	return res, nil
}

// refreshLine is what TestRefreshUnderFaults prints of its runs.
var refreshLine = regexp.MustCompile(`refresh under faults: (\d+) runs ok of (\d+), (\d+) faults injected, (\d+) failed runs changed`)

// refreshRuns runs the refresh job's fault test (the job is its package's
// main, so it runs there) and adds its runs to res's publishes.
func refreshRuns(ctx context.Context, o options, res *result, log io.Writer) error {
	bin, err := filepath.Abs(o.refreshTest)
	if err != nil {
		return err
	}
	cmd := exec.CommandContext(ctx, bin, "-test.run", "^TestRefreshUnderFaults$", "-test.count=1", "-test.v", "-test.timeout=20m")
	cmd.Dir = filepath.Join("functions", "refresh")
	cmd.Env = append(os.Environ(), fmt.Sprintf("MERIDIAN_CHAOS_RATE=%g", o.rate), fmt.Sprintf("MERIDIAN_CHAOS_REFRESHES=%d", o.refreshes),
		fmt.Sprintf("MERIDIAN_CHAOS_SEED=%d", o.seed))
	out, runErr := cmd.CombinedOutput()
	m := refreshLine.FindSubmatch(out)
	if m == nil {
		return fmt.Errorf("refresh job under faults: %v\n%s", runErr, out)
	}
	n := func(i int) int { v, _ := strconv.Atoi(string(m[i])); return v }
	res.publishesOK += n(1)
	res.publishes += n(2)
	res.faults += n(3)
	res.servedChanged += n(4)
	if runErr != nil {
		// The test failed on something else too (a manifest naming a
		// missing object, no publish once the faults stopped).
		res.refreshFailed = true
		fmt.Fprintf(log, "%s\n", out)
	}
	fmt.Fprintf(log, "chaos: %s\n", m[0])
	return nil
}

func mapsKeys(m map[string]int) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// served is what the functions read: the grid and tiles release manifests
// and each report dataset's served version.
type served struct {
	gridManifest, tilesManifest string
	versions                    string
}

func (e *env) served(ctx context.Context) (served, error) {
	var s served
	for _, m := range []struct {
		key string
		dst *string
	}{{"grid/MANIFEST.json", &s.gridManifest}, {"tiles/MANIFEST.json", &s.tilesManifest}} {
		out, err := e.direct.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String(bucket), Key: aws.String(m.key)})
		if err != nil {
			return s, fmt.Errorf("read %s: %w", m.key, err)
		}
		b, err := io.ReadAll(out.Body)
		out.Body.Close()
		if err != nil {
			return s, err
		}
		*m.dst = string(b)
	}
	var vs []string
	for _, name := range []string{energy.Dataset, ag.Dataset} {
		ds, ok, err := kv.Open(ctx, e.ddbDirect, name)
		if err != nil || !ok {
			return s, fmt.Errorf("dataset %s: %v %v", name, ok, err)
		}
		vs = append(vs, fmt.Sprintf("%s@%v(%d items)", name, ds.Version, ds.Items))
	}
	s.versions = strings.Join(vs, " ")
	return s, nil
}

// publish runs one publish through the proxies (merge: as the refresh job
// does after an ingest, every dataset as a new version). ok says it
// completed; changed, for a publish that failed, that the served version
// is no longer what it was before.
func (e *env) publish(ctx context.Context, merge, verbose bool) (ok, changed bool, err error) {
	before, err := e.served(ctx)
	if err != nil {
		return false, false, err
	}
	var progress bytes.Buffer
	o := e.publishOptions(e.s3pURL, e.ddbpURL, merge)
	o.Progress = &progress
	perr := publish.Run(ctx, o)
	after, err := e.served(ctx)
	if err != nil {
		return false, false, err
	}
	kind := "publish"
	if merge {
		kind = "merge publish"
	}
	if perr == nil {
		fmt.Fprintf(e.log, "chaos: %s ok (%s)\n", kind, after.versions)
		return true, false, nil
	}
	changed = before != after
	fmt.Fprintf(e.log, "chaos: %s failed, served version %s: %v\n", kind, map[bool]string{true: "CHANGED", false: "untouched"}[changed], trim(perr.Error(), 300))
	if verbose && changed {
		fmt.Fprintf(e.log, "  before %+v\n  after  %+v\n", before, after)
	}
	return false, changed, nil
}
