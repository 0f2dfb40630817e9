// Command lambda-test runs every Lambda of the stack as AWS runs it and
// checks what it answers (make test-lambda): each function's bootstrap,
// built for this machine, under AWS's Lambda Runtime Interface Emulator,
// with the environment the CDK stack gives it, over the S3 and DynamoDB
// emulators (s3rver, dynoxide) holding the demo data that meridian-publish
// put there, the data `make run` serves.
//
// Every events/*.json payload meant for a function (by its name's prefix)
// is replayed through the emulator, one at a time, the first one cold. An
// API function's answer must be the local server's to the same request
// (status, Content-Type, Content-Encoding, Cache-Control, body), but for
// what differs by design (compare); the authorizer's and the refresh
// job's, which have no local counterpart, must hold what
// events/expected/<event>.json says. It prints one line per function:
// events passed, init time (the first event's cold answer less the same
// event's warm one right after, the least over -cold-starts new runtimes:
// a function's first event by name must answer the same every time), also
// as a multiple of the authorizer's, and peak RSS; and fails on any
// mismatch.
//
// It is a command of its own beside bench-aws (functions/benchaws), which
// measures latency over province-size data; both run the functions
// through functions/internal/awsemu.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"meridian/functions/internal/awsemu"
	"meridian/functions/internal/sqsemu"
	"meridian/shared/datafetch/datafetchtest"
)

const usage = `usage: lambda-test -functions DIR -rie BIN -meridian BIN -publish BIN -s3rver BIN -dynoxide BIN [flags]

Runs each function's DIR/<function>/bootstrap under the Lambda Runtime
Interface Emulator over the demo data in S3 and DynamoDB emulators,
replays its events and checks every answer; one line per function.

flags:
`

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

type options struct {
	functions, names, only, events                string
	rie, meridian, publish, s3rver, dynoxide, out string
	work                                          string
	keep                                          bool
	coldStarts                                    int
}

// twpArchive is the survey archive built into the demo data before it is
// published, so that an event reads a grid tile from an archive on S3
// (tiles-twp-archive) rather than generating it: Calgary's townships at
// zoom 10, as functions/local's parity test builds it.
var twpArchive = []string{"-zoom", "10-10", "-bounds", "-114.5,50.8,-113.5,51.3", "-q", "ab/twp"}

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("lambda-test", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, usage); fs.PrintDefaults() }
	var o options
	fs.StringVar(&o.functions, "functions", ".build/host-fn", "directory of the bootstraps built for this machine: DIR/<function>/bootstrap (the refresh job's with meridian and meridian-publish beside it)")
	fs.StringVar(&o.names, "names", strings.Join(functionNames(), " "), "the stack's functions, space- or comma-separated (the Makefile's FUNCTIONS); each must have events")
	fs.StringVar(&o.only, "only", "", "run these of -names only, comma-separated")
	fs.StringVar(&o.events, "events", "events", "the recorded events, with expectations in DIR/expected/")
	fs.StringVar(&o.rie, "rie", ".build/aws-lambda-rie", "the aws-lambda-rie binary")
	fs.StringVar(&o.meridian, "meridian", ".build/meridian", "the meridian binary: the local server and the demo data")
	fs.StringVar(&o.publish, "publish", ".build/meridian-publish", "the meridian-publish binary")
	fs.StringVar(&o.s3rver, "s3rver", "", "the s3rver executable (npm s3rver)")
	fs.StringVar(&o.dynoxide, "dynoxide", "", "the dynoxide executable (npm @dynoxide/linux-x64)")
	fs.StringVar(&o.out, "out", "", "write the figures here as JSON")
	fs.StringVar(&o.work, "work", "", "scratch directory, new or empty: data, emulators, logs (default: a new temporary one, removed at the end unless -keep or a failure)")
	fs.IntVar(&o.coldStarts, "cold-starts", 3, "cold starts per function for its init time (the least is kept)")
	fs.BoolVar(&o.keep, "keep", false, "keep the scratch directory (logs of each function: rie-<function>.log)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if o.s3rver == "" || o.dynoxide == "" || fs.NArg() > 0 || o.coldStarts < 1 {
		fs.Usage()
		return 2
	}
	names := strings.FieldsFunc(o.names, func(r rune) bool { return r == ' ' || r == ',' })
	for _, n := range names {
		if _, ok := stack[n]; !ok {
			fmt.Fprintf(stderr, "lambda-test: -names: %q is not a function this command knows (%s)\n", n, strings.Join(functionNames(), ", "))
			return 2
		}
	}
	evs, err := loadEvents(o.events)
	if err != nil {
		fmt.Fprintf(stderr, "lambda-test: %v\n", err)
		return 1
	}
	byFn := map[string][]event{}
	for _, ev := range evs {
		byFn[ev.function] = append(byFn[ev.function], ev)
	}
	for _, n := range names {
		if len(byFn[n]) == 0 {
			fmt.Fprintf(stderr, "lambda-test: %s has no events in %s (names starting with %s)\n", n, o.events, prefixOf(n))
			return 1
		}
	}
	for fn := range byFn {
		if !slices.Contains(names, fn) {
			fmt.Fprintf(stderr, "lambda-test: events for %s, which is not in -names %q\n", fn, o.names)
			return 1
		}
	}
	if o.only != "" {
		var keep []string
		for _, n := range strings.Split(o.only, ",") {
			if n = strings.TrimSpace(n); !slices.Contains(names, n) {
				fmt.Fprintf(stderr, "lambda-test: -only: %q is not in -names\n", n)
				return 2
			}
			keep = append(keep, n)
		}
		names = slices.DeleteFunc(names, func(n string) bool { return !slices.Contains(keep, n) })
	}
	// The refresh job publishes into the deployment: it runs after the
	// functions that read it.
	slices.SortStableFunc(names, func(a, b string) int { return boolInt(stack[a].refresh) - boolInt(stack[b].refresh) })

	// The scratch directory goes at the end unless asked for, or unless
	// something failed: the failures name its logs.
	remove := false
	if o.work == "" {
		d, err := os.MkdirTemp("", "meridian-test-lambda-")
		if err != nil {
			fmt.Fprintf(stderr, "lambda-test: %v\n", err)
			return 1
		}
		o.work, remove = d, !o.keep
	} else if err := os.MkdirAll(o.work, 0o755); err != nil {
		fmt.Fprintf(stderr, "lambda-test: %v\n", err)
		return 1
	} else if ents, _ := os.ReadDir(o.work); len(ents) > 0 {
		// A second run over the first's data, bucket and downloads would
		// not start from the demo data (the refresh job finds its
		// downloads recorded).
		fmt.Fprintf(stderr, "lambda-test: -work %s: not empty; give a new or empty directory\n", o.work)
		return 2
	}
	keep := func() { fmt.Fprintf(stderr, "lambda-test: data, emulators' and functions' logs kept in %s\n", o.work) }

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	start := time.Now()
	res, err := testAll(ctx, o, names, byFn, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "lambda-test: %v\n", err)
		keep()
		return 1
	}
	printTable(stdout, res)
	if o.out != "" {
		if err := writeJSON(o.out, res); err != nil {
			fmt.Fprintf(stderr, "lambda-test: %v\n", err)
			return 1
		}
	}
	passed, total := 0, 0
	for _, r := range res {
		passed, total = passed+r.Passed, total+r.Events
	}
	fmt.Fprintf(stdout, "test-lambda: %d of %d events answered as expected by %d functions under the emulator, in %s\n",
		passed, total, len(res), time.Since(start).Round(time.Second))
	failed := false
	for _, r := range res {
		for _, f := range r.Failures {
			fmt.Fprintf(stdout, "FAIL %s %s\n", r.Function, f)
			failed = true
		}
	}
	if failed {
		keep()
		return 1
	}
	if remove {
		os.RemoveAll(o.work)
	}
	return 0
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

func prefixOf(fn string) string {
	for _, p := range eventPrefixes {
		if p.function == fn {
			return p.prefix
		}
	}
	return "?"
}

// result is one function's figures.
type result struct {
	Function string `json:"function"`
	Events   int    `json:"events"`
	Passed   int    `json:"passed"`
	// InitMS is the least of InitSamples: a cold start's first call (a
	// new runtime process, to the first event's answer) less the same
	// event's warm call right after; ColdMS and WarmMS are that sample's.
	InitMS      float64   `json:"init_ms"`
	InitSamples []float64 `json:"init_samples_ms"`
	ColdMS      float64   `json:"first_call_ms"`
	WarmMS      float64   `json:"warm_call_ms"`
	PeakMB      float64   `json:"peak_rss_mb"` // VmHWM of the runtime process after every event
	MemoryMB    int       `json:"memory_mb"`   // the stack's memory size of the function
	Failures    []string  `json:"failures,omitempty"`
}

// testAll prepares the demo data, the local server and the emulators, and
// runs each function over its events.
func testAll(ctx context.Context, o options, names []string, byFn map[string][]event, log io.Writer) ([]result, error) {
	data := filepath.Join(o.work, "data")

	// The demo data: what a first `meridian serve` writes into an empty
	// directory, plus one survey archive; then the server again, as the
	// reference.
	t0 := time.Now()
	serveLog := filepath.Join(o.work, "meridian-serve.log")
	first, err := startLocal(ctx, o.meridian, data, serveLog)
	if err != nil {
		return nil, err
	}
	first.stop()
	bt := exec.CommandContext(ctx, o.meridian, append([]string{"build-tiles", "-data", data}, twpArchive...)...)
	bt.Stdout, bt.Stderr = log, log
	awsemu.DieWithParent(bt)
	if err := bt.Run(); err != nil {
		return nil, fmt.Errorf("meridian build-tiles %s: %w", strings.Join(twpArchive, " "), err)
	}
	local, err := startLocal(ctx, o.meridian, data, serveLog)
	if err != nil {
		return nil, err
	}
	defer local.stop()
	fmt.Fprintf(log, "lambda-test: demo data in %s and the local server on %s in %s\n", data, local.base, time.Since(t0).Round(time.Millisecond))

	// The deployment: a bucket and a table in the emulators, and the demo
	// data published into them.
	t0 = time.Now()
	var procs awsemu.Procs
	defer procs.StopAll()
	s3URL, ddbURL, err := awsemu.StartEmulators(ctx, &procs, awsemu.EmulatorOptions{Work: o.work, S3rver: o.s3rver, Dynoxide: o.dynoxide})
	if err != nil {
		return nil, err
	}
	d := deployment{s3URL: s3URL, dynamoURL: ddbURL, bucket: "meridian-data", table: "meridian-reports", watchesTable: "meridian-watches",
		scratch: filepath.Join(o.work, "refresh-scratch"), path: os.Getenv("PATH"), home: os.Getenv("HOME")}
	if err := awsemu.CreateBucketAndTable(ctx, s3URL, ddbURL, d.bucket, d.table); err != nil {
		return nil, err
	}
	// The watches' table, empty, and the delivery queue in an SQS of this
	// process (there is no SQS emulator among the npm ones).
	if err := awsemu.CreateTable(ctx, ddbURL, d.watchesTable); err != nil {
		return nil, err
	}
	sqsURL, stopSQS, err := serve(sqsemu.New(nil))
	if err != nil {
		return nil, err
	}
	defer stopSQS()
	d.sqsURL = sqsURL
	if d.queueURL, err = sqsemu.CreateQueue(ctx, sqsURL, "meridian-delivery"); err != nil {
		return nil, err
	}
	pubLog, err := os.Create(filepath.Join(o.work, "publish.log"))
	if err != nil {
		return nil, err
	}
	defer pubLog.Close()
	if err := awsemu.Publish(ctx, o.publish, data, s3URL, ddbURL, d.bucket, d.table, pubLog); err != nil {
		return nil, fmt.Errorf("%w (log: %s)", err, pubLog.Name())
	}
	if d.gridIndexes, err = awsemu.GridIndexes(data); err != nil {
		return nil, err
	}
	fmt.Fprintf(log, "lambda-test: published into s3rver and dynoxide in %s\n", time.Since(t0).Round(time.Millisecond))

	// The publishers the refresh job fetches from: the demo files, as each
	// publisher packs them.
	if slices.ContainsFunc(names, func(n string) bool { return stack[n].refresh }) {
		files, err := datafetchtest.PublisherFiles(time.Now())
		if err != nil {
			return nil, err
		}
		url, stopPub, err := serve(&datafetchtest.Publisher{Files: files, Served: map[string]int{}})
		if err != nil {
			return nil, err
		}
		defer stopPub()
		d.fetchBaseURL = url
	}

	var out []result
	for _, fn := range names {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		r, err := testFunction(ctx, o, fn, byFn[fn], d, local, log)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", fn, err)
		}
		fmt.Fprintf(log, "lambda-test: %s: %d/%d events, init %.0f ms, first call %.0f ms, peak RSS %.1f MB\n", fn, r.Passed, r.Events, r.InitMS, r.ColdMS, r.PeakMB)
		out = append(out, r)
	}
	return out, nil
}

// testFunction starts fn under the emulator and replays its events, the
// first one cold, then the first again, warm; then o.coldStarts-1 times
// more a new runtime for the first event, cold and warm. Its init is the
// least of the cold starts' first call less warm call (a loaded machine
// reads high, never low).
func testFunction(ctx context.Context, o options, fn string, evs []event, d deployment, local *localServer, log io.Writer) (result, error) {
	sf := stack[fn]
	res := result{Function: fn, Events: len(evs), MemoryMB: sf.memoryMB}
	env, err := d.env(fn)
	if err != nil {
		return res, err
	}
	// call invokes ev and checks its answer. The emulator ends an
	// invocation at the function's timeout; the margin is its own time.
	call := func(f *awsemu.Function, ev event) (time.Duration, error) {
		ictx, cancel := context.WithTimeout(ctx, time.Duration(sf.timeoutS)*time.Second+time.Minute)
		defer cancel()
		t0 := time.Now()
		status, body, err := f.Invoke(ictx, ev.payload)
		el := time.Since(t0)
		if err != nil {
			return el, err
		}
		return el, checkEvent(ictx, fn, ev, status, body, local)
	}
	start := func(log string) (*awsemu.Function, error) {
		return awsemu.StartFunction(ctx, awsemu.FunctionOptions{RIE: o.rie, Bootstrap: filepath.Join(o.functions, fn, "bootstrap"),
			Env: env, Log: filepath.Join(o.work, log)})
	}
	// sample records one init: the first event's cold call less the same
	// event's warm one. (The emulator's own Init Duration is no
	// measure: it starts the runtime process during the first invocation
	// and reports some 0.04 ms.)
	sample := func(cold time.Duration, f *awsemu.Function) error {
		warm, err := call(f, evs[0])
		if err != nil {
			return fmt.Errorf("%s again, warm: %w (log: %s)", evs[0].name, err, f.Log)
		}
		res.InitSamples = append(res.InitSamples, ms(cold-warm))
		if len(res.InitSamples) == 1 || ms(cold-warm) < res.InitMS {
			res.InitMS, res.ColdMS, res.WarmMS = ms(cold-warm), ms(cold), ms(warm)
		}
		return nil
	}

	f, err := start("rie-" + fn + ".log")
	if err != nil {
		return res, err
	}
	defer f.Stop()
	var cold time.Duration
	for i, ev := range evs {
		el, err := call(f, ev)
		if i == 0 {
			cold = el
		}
		if err != nil {
			res.Failures = append(res.Failures, fmt.Sprintf("%s: %v (log: %s)", ev.name, err, f.Log))
			continue
		}
		res.Passed++
	}
	if err := sample(cold, f); err != nil {
		res.Failures = append(res.Failures, err.Error())
	}
	res.PeakMB = float64(f.PeakRSS()) / (1 << 20)
	if res.PeakMB == 0 {
		res.Failures = append(res.Failures, "no peak RSS of the runtime process in /proc")
	}
	f.Stop()

	for k := 2; k <= o.coldStarts; k++ {
		f, err := start(fmt.Sprintf("rie-%s-cold%d.log", fn, k))
		if err != nil {
			return res, err
		}
		cold, err := call(f, evs[0])
		if err == nil {
			err = sample(cold, f)
		} else {
			err = fmt.Errorf("%s, cold start %d: %w (log: %s)", evs[0].name, k, err, f.Log)
		}
		f.Stop()
		if err != nil {
			res.Failures = append(res.Failures, err.Error())
		}
	}
	return res, nil
}

// checkEvent checks one answer: an API function's against the local
// server's, with the event's expectation too when it has one; the others'
// against their expectation.
func checkEvent(ctx context.Context, fn string, ev event, status int, body []byte, local *localServer) error {
	var errs []error
	if ev.expect != nil {
		if err := ev.expect.check(status, body); err != nil {
			errs = append(errs, err)
		}
	}
	if behindAPI(fn) {
		var req events.APIGatewayProxyRequest
		if err := json.Unmarshal(ev.payload, &req); err != nil {
			return fmt.Errorf("%s: %w", ev.file, err)
		}
		got, err := lambdaAnswer(status, body)
		if err != nil {
			return err
		}
		want, err := local.answer(ctx, req)
		if err != nil {
			return fmt.Errorf("local server: %w", err)
		}
		if err := compare(req, got, want, local.key); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// serve serves h on a free loopback port and returns its URL.
func serve(h http.Handler) (string, func(), error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, err
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	go srv.Serve(ln)
	return "http://" + ln.Addr().String(), func() { srv.Close() }, nil
}

// printTable prints one line per function. Its init is also given as a
// multiple of the authorizer's, when it ran: the authorizer links the
// standard library and aws-lambda-go only and opens nothing, so its init
// is a runtime process's start under the emulator on this machine as
// loaded as it is meanwhile (the baseline).
func printTable(w io.Writer, res []result) {
	var base float64
	for _, r := range res {
		if r.Function == "authorizer" && r.InitMS > 0 {
			base = r.InitMS
		}
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "function\tevents passed\tinit ms\tinit ÷ authorizer's\tfirst call ms\tsame warm ms\tpeak RSS MB\tmemory MB\t")
	for _, r := range res {
		ratio := "-"
		if base > 0 {
			ratio = fmt.Sprintf("%.1f", r.InitMS/base)
		}
		fmt.Fprintf(tw, "%s\t%d/%d\t%.0f\t%s\t%.0f\t%.1f\t%.1f\t%d\t\n", r.Function, r.Passed, r.Events, r.InitMS, ratio, r.ColdMS, r.WarmMS, r.PeakMB, r.MemoryMB)
	}
	tw.Flush()
}

func writeJSON(path string, res []result) error {
	b, err := json.MarshalIndent(res, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}
