package main

import (
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"
)

// recordSleeps replaces the proxy's sleep with a recorder: the tests
// assert what delay each response was given, never how long anything took.
func recordSleeps(p *latencyProxy) *[]time.Duration {
	var mu sync.Mutex
	var got []time.Duration
	p.sleep = func(d time.Duration) {
		mu.Lock()
		got = append(got, d)
		mu.Unlock()
	}
	return &got
}

func TestLatencyProxyCountsAndDelaysEveryRequest(t *testing.T) {
	var hosts []string
	backend := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hosts = append(hosts, r.Host)
		io.WriteString(w, "body of "+r.URL.Path)
	}))
	defer backend.Close()
	target, _ := url.Parse(backend.URL)
	p := newLatencyProxy(target, 20*time.Millisecond, 0.1, 1)
	sleeps := recordSleeps(p)
	front := httptest.NewServer(p)
	defer front.Close()

	before := p.count()
	for i := 0; i < 5; i++ {
		resp, err := http.Get(front.URL + "/bucket/key")
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if string(b) != "body of /bucket/key" {
			t.Fatalf("body %q: not the backend's", b)
		}
	}
	got := p.count().sub(before)
	if got.hits != 5 || got.busy != 5 {
		t.Errorf("5 requests one after another: counted %d hits, %d busy periods; want 5 and 5", got.hits, got.busy)
	}
	if len(*sleeps) != 5 {
		t.Fatalf("%d delays for 5 responses", len(*sleeps))
	}
	distinct := map[time.Duration]bool{}
	for _, d := range *sleeps {
		if d < 18*time.Millisecond || d > 22*time.Millisecond {
			t.Errorf("delay %s outside 20 ms ± 10%%", d)
		}
		distinct[d] = true
	}
	if len(distinct) < 2 {
		t.Errorf("no jitter: every delay was %v", *sleeps)
	}
	// SigV4 signs the Host header: the backend must see the client's.
	fu, _ := url.Parse(front.URL)
	for _, h := range hosts {
		if h != fu.Host {
			t.Errorf("backend saw Host %q, want the proxy's %q as the client sent it", h, fu.Host)
		}
	}
}

func TestLatencyProxyCountsOverlappingRequestsAsOneBusyPeriod(t *testing.T) {
	const n = 4
	arrived := make(chan struct{}, n)
	release := make(chan struct{})
	backend := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		arrived <- struct{}{}
		<-release
		io.WriteString(w, "ok")
	}))
	defer backend.Close()
	target, _ := url.Parse(backend.URL)
	p := newLatencyProxy(target, 0, 0, 1)
	sleeps := recordSleeps(p)
	front := httptest.NewServer(p)
	defer front.Close()

	// n requests at once: all in flight together before any is answered.
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Go(func() {
			resp, err := http.Get(front.URL + "/x")
			if err != nil {
				t.Error(err)
				return
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		})
	}
	for i := 0; i < n; i++ {
		<-arrived
	}
	close(release)
	wg.Wait()
	// Then one more, alone.
	resp, err := http.Get(front.URL + "/y")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	got := p.count()
	if got.hits != n+1 || got.busy != 2 {
		t.Errorf("%d concurrent requests then one: counted %d hits, %d busy periods; want %d and 2", n, got.hits, got.busy, n+1)
	}
	for _, d := range *sleeps {
		if d != 0 {
			t.Errorf("delay %s with no latency set", d)
		}
	}
}

func TestLatencyProxyAnswersBadGatewayWhenTheEmulatorIsDown(t *testing.T) {
	backend := httptest.NewServer(http.NotFoundHandler())
	target, _ := url.Parse(backend.URL)
	backend.Close()
	p := newLatencyProxy(target, time.Millisecond, 0, 1)
	recordSleeps(p)
	rec := httptest.NewRecorder()
	p.ServeHTTP(rec, httptest.NewRequest("GET", "/k", nil))
	if rec.Code != http.StatusBadGateway {
		t.Errorf("status %d, want 502", rec.Code)
	}
	if c := p.count(); c.hits != 1 {
		t.Errorf("hits %d, want 1", c.hits)
	}
}

func TestQuantileNearestRank(t *testing.T) {
	v := make([]int64, 100)
	for i := range v {
		v[i] = int64(100 - i) // 100..1, unsorted
	}
	if q := quantile(v, 0.99); q != 99 {
		t.Errorf("p99 of 1..100 = %d, want 99", q)
	}
	if q := quantile(v, 0.5); q != 50 {
		t.Errorf("p50 of 1..100 = %d, want 50", q)
	}
	if q := quantile([]int64{7}, 0.99); q != 7 {
		t.Errorf("p99 of one = %d", q)
	}
	if v[0] != 100 {
		t.Error("quantile sorted its argument in place")
	}
}

func TestRoutesMakeEventsTheFunctionsServe(t *testing.T) {
	s := loadSample{LSDs: []string{"01-02-003-04W4"}, Quarters: []string{"NE-1-2-3-W4"}, Tiles: map[string][][3]int{"ab/sec": {{12, 1, 2}}},
		GridParcels: []string{"NE-1-2-3-W4"}, GridPoints: [][2]float64{{-113.5, 53.5}}}
	want := map[string]string{"baseline": "/search/legal-location", "search": "/search/legal-location", "reverse": "/search/coordinates", "batch100": "/batch/legal-location",
		"energy_report": "/energy/report", "ag_report": "/ag/report", "energy_wells": "/energy/wells", "tile": "/tiles/ab/sec/12/1/2.mvt"}
	if len(routes) != len(want) {
		t.Fatalf("%d routes, want %d", len(routes), len(want))
	}
	for _, r := range routes {
		ev := r.event(s, randFor(t))
		if ev.Path != want[r.name] {
			t.Errorf("%s: path %s, want %s", r.name, ev.Path, want[r.name])
		}
		if r.name == "reverse" && ev.QueryStringParameters["location"] != "-113.500000,53.500000" {
			t.Errorf("reverse: location %q, not the sample's point", ev.QueryStringParameters["location"])
		}
		if r.name == "batch100" {
			if ev.HTTPMethod != "POST" || len(ev.Body) < 100*len("NE-1-2-3-W4") {
				t.Errorf("batch100: %s with a %d-byte body", ev.HTTPMethod, len(ev.Body))
			}
		}
	}
}

func randFor(t *testing.T) *rand.Rand { return rand.New(rand.NewPCG(uint64(len(t.Name())), 1)) }

func TestTargets(t *testing.T) {
	o := options{s3Delay: 20 * time.Millisecond, jitter: 0.1}
	if got := targets(result{Route: "search", ColdMS: 300, P99MS: 26, S3SeqP99: 1}, o); got != "met" {
		t.Errorf("search within every target: %q", got)
	}
	got := targets(result{Route: "search", ColdMS: 500, P99MS: 40, S3SeqP99: 2}, o)
	for _, want := range []string{"cold 500 ms > 400", "2 sequential S3 round trips > 1", "p99 40.0 ms > 27.0"} {
		if !strings.Contains(got, want) {
			t.Errorf("search missing every target: %q does not say %q", got, want)
		}
	}
	// The round trip the proxy timed is the bound when it is longer than
	// the added delay; never shorter.
	if got := targets(result{Route: "tile", ColdMS: 300, P99MS: 33, S3SeqP99: 1, S3RoundTripP99MS: 29}, o); got != "met" {
		t.Errorf("tile within a measured round trip of 29 ms and 5: %q", got)
	}
	if got := targets(result{Route: "tile", ColdMS: 300, P99MS: 35, S3SeqP99: 1, S3RoundTripP99MS: 29}, o); !strings.Contains(got, "p99 35.0 ms > 34.0") {
		t.Errorf("tile beyond a measured round trip of 29 ms and 5: %q", got)
	}
	if got := targets(result{Route: "reverse", ColdMS: 300, P99MS: 28, S3SeqP99: 1, S3RoundTripP99MS: 3}, o); !strings.Contains(got, "p99 28.0 ms > 27.0") {
		t.Errorf("a measured round trip shorter than the added delay: %q", got)
	}
	if got := targets(result{Route: "batch100", ColdMS: 100, S3SeqP99: 4}, o); !strings.Contains(got, "4 sequential S3 round trips > 3") {
		t.Errorf("batch of 4 sequential round trips: %q", got)
	}
	if got := targets(result{Route: "ag_report", ColdMS: 100, DDBP99: 3}, o); !strings.Contains(got, "3 DynamoDB round trips > 2") {
		t.Errorf("report of 3 round trips: %q", got)
	}
	if got := targets(result{Route: "energy_wells", ColdMS: 100, DDBP99: 9}, o); got != "met" {
		t.Errorf("energy_wells has no round-trip target: %q", got)
	}
}
