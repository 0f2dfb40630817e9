package watch

import (
	"context"
	"errors"
	"net/netip"
	"testing"
	"time"

	"meridian/shared/energy"
	"meridian/shared/kv"
)

func TestVerify(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	body := []byte(`{"changes":[]}`)
	h := Sign("whsec_a", now, body)
	if err := Verify("whsec_a", h, body, now.Add(time.Minute), 5*time.Minute); err != nil {
		t.Errorf("a fresh, untouched delivery: %v", err)
	}
	for name, c := range map[string]struct {
		secret, header string
		body           []byte
		at             time.Time
		want           error
	}{
		"another secret":     {"whsec_b", h, body, now, ErrBadSignature},
		"body changed":       {"whsec_a", h, []byte(`{"changes":[1]}`), now, ErrBadSignature},
		"replayed later":     {"whsec_a", h, body, now.Add(6 * time.Minute), ErrStale},
		"timestamp changed":  {"whsec_a", "t=1800000100," + h[len("t=1800000000,"):], body, now, ErrBadSignature},
		"no signature":       {"whsec_a", "t=1800000000", body, now, ErrBadSignature},
		"garbage":            {"whsec_a", "v1=zz", body, now, ErrBadSignature},
		"from the far past?": {"whsec_a", Sign("whsec_a", now.Add(-time.Hour), body), body, now, ErrStale},
	} {
		if err := Verify(c.secret, c.header, c.body, c.at, 5*time.Minute); !errors.Is(err, c.want) {
			t.Errorf("%s: %v, want %v", name, err, c.want)
		}
	}
}

// Waits double from 30 s to an hour, each drawn in [half, all] of it, and
// a delivery failing every time is tried about 30 times in its 24 hours.
func TestBackoff(t *testing.T) {
	for n, want := range map[int]time.Duration{1: 30 * time.Second, 2: time.Minute, 3: 2 * time.Minute, 8: time.Hour, 40: time.Hour} {
		if lo, hi := Backoff(n, 0), Backoff(n, 0.999999); lo != want/2 || hi < want-time.Second || hi > want {
			t.Errorf("Backoff(%d) in [%v, %v], want [%v, %v]", n, lo, hi, want/2, want)
		}
	}
	var at time.Duration
	n := 1
	for ; at+Backoff(n, 1) <= RetryFor; n++ {
		at += Backoff(n, 1)
	}
	if n < 25 || n > 35 {
		t.Errorf("%d attempts in 24 hours at the longest waits", n)
	}
}

func TestPublic(t *testing.T) {
	for s, want := range map[string]bool{"203.0.113.9": true, "8.8.8.8": true, "2001:4860::8888": true,
		"127.0.0.1": false, "10.0.0.1": false, "172.16.5.4": false, "192.168.1.1": false, "169.254.169.254": false,
		"100.64.1.1": false, "0.0.0.0": false, "::1": false, "fe80::1": false, "fc00::1": false, "224.0.0.1": false, "::ffff:127.0.0.1": false} {
		if got := public(netip.MustParseAddr(s)); got != want {
			t.Errorf("public(%s) = %v, want %v", s, got, want)
		}
	}
}

// Dispatch makes a watch's delivery of a version once, however often it
// runs, and only of the changes in its areas and kinds.
func TestDispatchOnce(t *testing.T) {
	ctx := context.Background()
	reports := kv.NewMem()
	changes := []energy.Change{
		{ID: "a", Kind: energy.WellLicensed, LegalLocation: "3-2-24-1-W5", Version: 2, AsOf: "2026-11-21"},
		{ID: "b", Kind: energy.DispositionTransferred, LegalLocation: "3-2-24-1-W5", Version: 2, AsOf: "2026-11-21"},
		{ID: "c", Kind: energy.WellLicensed, LegalLocation: "3-2-25-1-W5", Version: 2, AsOf: "2026-11-21"}, // another township
		{ID: "d", Kind: energy.WellLicensed, LegalLocation: "3-3-24-1-W5", Version: 2, AsOf: "2026-11-21"}, // another section: in w2's township, not in w1's section
	}
	v, err := kv.Publish(ctx, reports, kv.DatasetInfo{Name: energy.Dataset}, func(w *kv.Writer) error {
		for _, c := range changes {
			if err := w.Put(energy.PKChangesNew, energy.ChangeNewSK(c), c); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	ds, _, err := kv.Open(ctx, reports, energy.Dataset)
	if err != nil {
		t.Fatal(err)
	}
	s := NewStore(kv.NewMem())
	for _, w := range []stored{
		{Watch: Watch{ID: "w1", Areas: []string{"2-24-1-W5"}, Kinds: []energy.ChangeKind{energy.WellLicensed}}, Owner: "k1"},
		{Watch: Watch{ID: "w2", Areas: []string{"24-1-W5", "25-1-W5"}}, Owner: "k2"},
		{Watch: Watch{ID: "w3", Areas: []string{"1-1-W4"}}, Owner: "k2"},
	} {
		if err := s.put(ctx, w); err != nil {
			t.Fatal(err)
		}
	}
	now := time.Unix(1_800_000_000, 0)
	for run := range 3 {
		made, err := Dispatch(ctx, s, ds, now)
		if err != nil {
			t.Fatal(err)
		}
		if want := map[int]int{0: 2}[run]; made != want {
			t.Errorf("dispatch %d made %d deliveries, want %d", run, made, want)
		}
	}
	if last, _ := s.Dispatched(ctx); last != int64(v) {
		t.Errorf("dispatched %d, want %d", last, v)
	}
	for id, want := range map[string]int{"w1": 1, "w2": 4, "w3": 0} {
		ds, _, err := s.deliveries(ctx, id, 10, "")
		if err != nil {
			t.Fatal(err)
		}
		got := 0
		for _, d := range ds {
			got += d.Changes
		}
		if got != want {
			t.Errorf("watch %s: %d changes delivered, want %d", id, got, want)
		}
	}
}
