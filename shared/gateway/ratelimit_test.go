package gateway_test

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"meridian/shared/gateway"
)

// step is one request in a scripted sequence: advance the clock, send, check.
type step struct {
	advance       time.Duration
	want          result
	wantRemaining string // X-RateLimit-Remaining; "" means absent
}

func runSteps(t *testing.T, e *env, target, key string, steps []step) {
	t.Helper()
	for i, s := range steps {
		e.clock.Advance(s.advance)
		w := e.do(target, key)
		got := resultOf(t, w)
		if diff := cmp.Diff(s.want, got); diff != "" {
			t.Errorf("step %d (at %s): GET %s (-want +got):\n%s\nbody: %s", i, e.clock.Now().Format(time.RFC3339Nano), target, diff, w.Body)
		}
		if got := w.Header().Get("X-RateLimit-Remaining"); got != s.wantRemaining {
			t.Errorf("step %d: X-RateLimit-Remaining = %q, want %q", i, got, s.wantRemaining)
		}
	}
}

func TestRateLimit(t *testing.T) {
	t.Parallel()
	ok := result{Status: 200}
	limited := func(retry string) result { return result{Status: 429, Code: "rate_limited", RetryAfter: retry} }
	tests := []struct {
		name    string
		product gateway.Product
		plan    gateway.Plan // replaces the default plan; zero keeps DefaultPlans
		target  string
		steps   []step
	}{
		{
			name: "search default: burst of 5 then 1 per second", product: gateway.Search, target: "/search/legal-location",
			steps: []step{
				{want: ok, wantRemaining: "999"}, {want: ok, wantRemaining: "998"}, {want: ok, wantRemaining: "997"},
				{want: ok, wantRemaining: "996"}, {want: ok, wantRemaining: "995"},
				{want: limited("1"), wantRemaining: "995"}, // refused requests do not count
				{advance: 999 * time.Millisecond, want: limited("1"), wantRemaining: "995"},
				{advance: time.Millisecond, want: ok, wantRemaining: "994"},
				{want: limited("1"), wantRemaining: "994"},
				{advance: 3 * time.Second, want: ok, wantRemaining: "993"},
				{want: ok, wantRemaining: "992"}, {want: ok, wantRemaining: "991"},
				{want: limited("1"), wantRemaining: "991"},
			},
		},
		{
			name: "batch default: burst of 2", product: gateway.Batch, target: "/batch/legal-location",
			steps: []step{
				{want: ok, wantRemaining: "999"}, {want: ok, wantRemaining: "998"},
				{want: limited("1"), wantRemaining: "998"},
			},
		},
		{
			name: "slow plan: Retry-After is the time to the next token", product: gateway.Ag, target: "/ag/report",
			plan: gateway.Plan{Name: "default", RatePerSecond: 0.1, Burst: 1},
			steps: []step{
				{want: ok},
				{want: limited("10")},
				{advance: 2500 * time.Millisecond, want: limited("8")}, // 7.5 s rounded up
				{advance: 7500 * time.Millisecond, want: ok},
			},
		},
		{
			name: "maps default has no rate limit", product: gateway.Maps, target: "/tiles/ab/dls/1/2/3.mvt",
			steps: []step{
				{want: ok, wantRemaining: "9999"}, {want: ok, wantRemaining: "9998"}, {want: ok, wantRemaining: "9997"},
				{want: ok, wantRemaining: "9996"}, {want: ok, wantRemaining: "9995"}, {want: ok, wantRemaining: "9994"},
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var plans gateway.Plans
			if tc.plan.Name != "" {
				plans = plansWith(tc.product, tc.plan)
			}
			e := newEnv(t, plans)
			key, k := e.addKey("k", map[gateway.Product]string{tc.product: gateway.DefaultPlan})
			runSteps(t, e, tc.target, key, tc.steps)
			admitted := 0
			for _, s := range tc.steps {
				if s.want.Status == 200 {
					admitted++
				}
			}
			if got := e.gw.Usage(k.ID)[tc.product]; got != int64(admitted) {
				t.Errorf("Usage(%s)[%v] = %d, want %d (admitted requests only)", k.ID, tc.product, got, admitted)
			}
		})
	}
}

func TestRateLimitPerKeyAndProduct(t *testing.T) {
	t.Parallel()
	e := newEnv(t, plansWith(gateway.Search, gateway.Plan{Name: "default", RatePerSecond: 1, Burst: 1}))
	both := map[gateway.Product]string{gateway.Search: "default", gateway.Autocomplete: "default"}
	a, _ := e.addKey("a", both)
	b, _ := e.addKey("b", both)
	steps := []struct {
		target, key string
		want        int
	}{
		{"/search/legal-location", a, 200},
		{"/search/legal-location", a, 429},
		{"/search/legal-location", b, 200},       // another key has its own bucket
		{"/autocomplete/legal-location", a, 200}, // another product has its own bucket
	}
	for i, s := range steps {
		if w := e.do(s.target, s.key); w.Code != s.want {
			t.Errorf("step %d: GET %s = %d, want %d", i, s.target, w.Code, s.want)
		}
	}
}
