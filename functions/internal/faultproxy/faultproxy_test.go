package faultproxy

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"
	minidyn "github.com/truora/minidyn/server"

	"meridian/shared/api"
	"meridian/shared/apierr"
	"meridian/shared/blob"
	"meridian/shared/blob/s3blob"
	"meridian/shared/kv"
	"meridian/shared/kv/dynamokv"
)

// The emulators' credentials, bucket and table.
const (
	key    = "test"
	bucket = "meridian-data"
	table  = "reports"
)

func TestMain(m *testing.M) {
	slog.SetDefault(slog.New(slog.DiscardHandler)) // api.WriteError's log of each 503
	os.Exit(m.Run())
}

func startProxy(t *testing.T, svc Service, backend http.Handler, seed uint64, rate float64) (*Proxy, string) {
	t.Helper()
	up := httptest.NewServer(backend)
	t.Cleanup(up.Close)
	u, _ := url.Parse(up.URL)
	p := New(svc, u, seed, rate)
	p.Stall = 150 * time.Millisecond
	ts := httptest.NewServer(p)
	t.Cleanup(ts.Close)
	return p, ts.URL
}

// Every fault kind happens, each is what the client sees, and the proxy
// counts exactly what it did.
func TestProxyInjectsAndCountsEachFault(t *testing.T) {
	t.Parallel()
	for _, svc := range []Service{S3, DynamoDB} {
		backend := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "upstream") })
		p, addr := startProxy(t, svc, backend, 42, 1)
		var seen [NumFaults]int64
		client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
		const n = 200
		for range n {
			start := time.Now()
			resp, err := client.Get(addr + "/x")
			took := time.Since(start)
			if err != nil {
				if !errors.Is(err, syscall.ECONNRESET) && !errors.Is(err, io.EOF) {
					t.Fatalf("service %d: error %v is not a reset", svc, err)
				}
				seen[Reset]++
				continue
			}
			body, rerr := io.ReadAll(resp.Body)
			resp.Body.Close()
			b := string(body)
			switch {
			case rerr != nil:
				if !errors.Is(rerr, io.ErrUnexpectedEOF) || resp.StatusCode != 200 || b != "upst" {
					t.Fatalf("service %d: body %q cut with %v; want half of it and an unexpected EOF", svc, b, rerr)
				}
				seen[Truncate]++
			case resp.StatusCode == 200 && b == "upstream" && took >= p.Stall:
				seen[Stall]++
			case svc == S3 && resp.StatusCode == 503 && strings.Contains(b, "<Code>SlowDown</Code>"):
				seen[Throttle]++
			case svc == S3 && resp.StatusCode == 503 && strings.Contains(b, "<Code>ServiceUnavailable</Code>"):
				seen[Provisioned]++
			case svc == S3 && resp.StatusCode == 500 && strings.Contains(b, "<Code>InternalError</Code>"):
				seen[Internal]++
			case svc == DynamoDB && resp.StatusCode == 400 && strings.Contains(b, `"__type":"com.amazon.coral.availability#ThrottlingException"`):
				seen[Throttle]++
			case svc == DynamoDB && resp.StatusCode == 400 && strings.Contains(b, `#ProvisionedThroughputExceededException"`):
				seen[Provisioned]++
			case svc == DynamoDB && resp.StatusCode == 500 && strings.Contains(b, `#InternalServerError"`):
				seen[Internal]++
			default:
				t.Fatalf("service %d: unexpected answer %d %q after %s at rate 1", svc, resp.StatusCode, b, took)
			}
		}
		for f := range NumFaults {
			if seen[f] == 0 || seen[f] != p.Injected(f) {
				t.Errorf("service %d: %s seen %d times, counted %d", svc, f, seen[f], p.Injected(f))
			}
		}
		if p.Total() != n || p.Requests() != n {
			t.Errorf("service %d: %d faults over %d requests, want %d of %d", svc, p.Total(), p.Requests(), n, n)
		}
	}
}

// At a rate, about that share of requests meet a fault, the rest pass;
// the same seed draws the same faults.
func TestProxyRateAndSeed(t *testing.T) {
	t.Parallel()
	draws := func(seed uint64, rate float64) []Fault {
		p := New(S3, &url.URL{}, seed, rate)
		out := make([]Fault, 4000)
		for i := range out {
			out[i] = p.Draw()
		}
		return out
	}
	a, b, c := draws(7, 0.05), draws(7, 0.05), draws(8, 0.05)
	faults := 0
	for _, f := range a {
		if f >= 0 {
			faults++
		}
	}
	if faults < 140 || faults > 260 {
		t.Errorf("%d faults in 4000 draws at 5%%", faults)
	}
	if !equalFaults(a, b) || equalFaults(a, c) {
		t.Errorf("seed 7 twice equal: %v; seeds 7 and 8 equal: %v", equalFaults(a, b), equalFaults(a, c))
	}
	for _, f := range draws(7, 0) {
		if f >= 0 {
			t.Fatal("a fault at rate 0")
		}
	}
	if _, err := ParseFaults("throttle,bogus"); err == nil {
		t.Error("ParseFaults took an unknown fault")
	}
	if k, err := ParseFaults("reset, stall"); err != nil || len(k) != 2 || k[0] != Reset || k[1] != Stall {
		t.Errorf("ParseFaults = %v %v", k, err)
	}
}

func equalFaults(a, b []Fault) bool { return string(faultBytes(a)) == string(faultBytes(b)) }

func faultBytes(fs []Fault) []byte {
	out := make([]byte, len(fs))
	for i, f := range fs {
		out[i] = byte(f + 1)
	}
	return out
}

// Each fault, met on every attempt of an SDK call, becomes the store's
// unavailable error and, at the API edge, 503 upstream_unavailable with
// Retry-After: never a 500.
func TestEachFaultIsUpstreamUnavailable(t *testing.T) {
	t.Parallel()
	ctx := context.Background()

	s3p, s3URL := startProxy(t, S3, gofakes3.New(s3mem.New()).Server(), 1, 0)
	s3c, err := s3blob.NewClient(ctx, s3blob.ClientOptions{Region: "us-east-1", Endpoint: s3URL, PathStyle: true, AccessKeyID: key, SecretAccessKey: key})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s3c.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String(bucket)}); err != nil {
		t.Fatal(err)
	}
	// The stall outlasts the call's timeout (a 2 s stall against a Lambda's 3 s is
	// the same race, scaled down).
	s3p.Stall = 2 * time.Second
	objects := s3blob.New(s3c, bucket, "", s3blob.Options{Timeout: 500 * time.Millisecond})
	if err := objects.Put(ctx, "a", bytes.NewReader([]byte("hello"))); err != nil {
		t.Fatal(err)
	}

	ddbp, ddbURL := startProxy(t, DynamoDB, minidyn.NewServer(), 2, 0)
	ddbp.Stall = 2 * time.Second
	dc, err := dynamokv.NewClient(ctx, dynamokv.ClientOptions{Region: "us-east-1", Endpoint: ddbURL, AccessKeyID: key, SecretAccessKey: key, DisableResponseChecksum: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := dynamokv.CreateTable(ctx, dc, table); err != nil {
		t.Fatal(err)
	}
	reports := dynamokv.New(dc, table, dynamokv.Options{Timeout: 500 * time.Millisecond})

	calls := []struct {
		name string
		p    *Proxy
		call func() error
	}{
		{"S3 ReadRange", s3p, func() error {
			_, err := objects.ReadRange(ctx, "a", 0, 5)
			return blob.AsAPIError(err, "the test object")
		}},
		{"S3 Stat", s3p, func() error {
			_, err := objects.Stat(ctx, "a")
			return blob.AsAPIError(err, "the test object")
		}},
		{"DynamoDB Get", ddbp, func() error { _, _, err := reports.Get(ctx, "p", "s"); return err }},
		{"DynamoDB Query", ddbp, func() error { _, err := reports.Query(ctx, kv.Query{PK: "p", Limit: 5}); return err }},
		{"DynamoDB Put", ddbp, func() error { return reports.Put(ctx, []kv.Item{{PK: "p", SK: "s", Data: []byte("x")}}) }},
	}
	for _, c := range calls {
		if err := c.call(); err != nil {
			t.Fatalf("%s without faults: %v", c.name, err)
		}
		for f := range NumFaults {
			c.p.SetKinds([]Fault{f})
			c.p.SetRate(1)
			before := c.p.Injected(f)
			start := time.Now()
			err := c.call()
			took := time.Since(start)
			c.p.SetRate(0)
			if c.p.Injected(f) == before {
				t.Errorf("%s, %s: no fault injected", c.name, f)
			}
			e := apierr.As(err)
			if e == nil || e.Kind != apierr.Unavailable || e.Code != "upstream_unavailable" {
				t.Errorf("%s, %s: error %v, want apierr Unavailable upstream_unavailable", c.name, f, err)
				continue
			}
			// A read is bounded by its timeout; a write (a publish) rides
			// out throttling longer on purpose (dynamokv's write retries).
			if took > 2*time.Second && !strings.HasSuffix(c.name, "Put") {
				t.Errorf("%s, %s: took %s past the call's 500 ms timeout", c.name, f, took)
			}
			rec := httptest.NewRecorder()
			api.WriteError(rec, httptest.NewRequest("GET", "/", nil), err)
			if rec.Code != http.StatusServiceUnavailable || rec.Header().Get("Retry-After") == "" || !strings.Contains(rec.Body.String(), `"code":"upstream_unavailable"`) {
				t.Errorf("%s, %s: answered %d Retry-After %q %s", c.name, f, rec.Code, rec.Header().Get("Retry-After"), rec.Body)
			}
		}
	}
}

// A stalled attempt ends at the client's first-byte timeout and the SDK
// retries it, so a 2 s stall costs a read about that timeout, well within
// the call's; without the timeout the stall spends the call's whole
// time, and the read fails.
func TestFirstByteTimeoutRetriesAStall(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	p, addr := startProxy(t, S3, gofakes3.New(s3mem.New()).Server(), 3, 0)
	p.Stall = 2 * time.Second
	setup, err := s3blob.NewClient(ctx, s3blob.ClientOptions{Region: "us-east-1", Endpoint: addr, PathStyle: true, AccessKeyID: key, SecretAccessKey: key})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := setup.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String(bucket)}); err != nil {
		t.Fatal(err)
	}
	if err := s3blob.New(setup, bucket, "", s3blob.Options{}).Put(ctx, "a", bytes.NewReader([]byte("hello"))); err != nil {
		t.Fatal(err)
	}
	p.SetKinds([]Fault{Stall})
	for _, firstByte := range []time.Duration{300 * time.Millisecond, 0} {
		client, err := s3blob.NewClient(ctx, s3blob.ClientOptions{Region: "us-east-1", Endpoint: addr, PathStyle: true, AccessKeyID: key, SecretAccessKey: key,
			FirstByteTimeout: firstByte, MaxAttempts: 3})
		if err != nil {
			t.Fatal(err)
		}
		store := s3blob.New(client, bucket, "", s3blob.Options{Timeout: 1500 * time.Millisecond})
		// The first attempt stalls, the next pass.
		stalls := p.Injected(Stall)
		p.SetRate(1)
		go func() {
			for p.Injected(Stall) == stalls {
				time.Sleep(time.Millisecond)
			}
			p.SetRate(0)
		}()
		start := time.Now()
		b, err := store.ReadRange(ctx, "a", 0, 5)
		took := time.Since(start)
		if firstByte > 0 && (err != nil || string(b) != "hello" || took >= time.Second) {
			t.Errorf("first-byte timeout %s: %q %v after %s; want the retry to read it within a second", firstByte, b, err, took)
		}
		if firstByte == 0 && err == nil {
			t.Errorf("no first-byte timeout: read %q after %s through a 2 s stall under a 1.5 s timeout", b, took)
		}
		p.SetRate(0)
		time.Sleep(50 * time.Millisecond)
	}
}

// One fault of any kind on a DynamoDB read is retried by the SDK and the
// read answers: a cut-off body too (the SDK alone does not retry its
// unexpected EOF), and a stall ends at the first-byte timeout.
func TestOneFaultIsRetried(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	p, addr := startProxy(t, DynamoDB, minidyn.NewServer(), 4, 0)
	dc, err := dynamokv.NewClient(ctx, dynamokv.ClientOptions{Region: "us-east-1", Endpoint: addr, AccessKeyID: key, SecretAccessKey: key,
		DisableResponseChecksum: true, FirstByteTimeout: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if err := dynamokv.CreateTable(ctx, dc, table); err != nil {
		t.Fatal(err)
	}
	store := dynamokv.New(dc, table, dynamokv.Options{Timeout: 1500 * time.Millisecond})
	if err := store.Put(ctx, []kv.Item{{PK: "p", SK: "s", Data: []byte("x")}}); err != nil {
		t.Fatal(err)
	}
	for f := range NumFaults {
		p.SetKinds([]Fault{f})
		before := p.Injected(f)
		p.SetRate(1)
		done := make(chan struct{})
		go func() {
			defer close(done)
			for p.Injected(f) == before {
				time.Sleep(time.Millisecond)
			}
			p.SetRate(0)
		}()
		it, ok, err := store.Get(ctx, "p", "s")
		<-done
		if err != nil || !ok || string(it.Data) != "x" {
			t.Errorf("%s once: Get = %q %v %v; want the item after a retry", f, it.Data, ok, err)
		}
	}
}
