package gateway

import (
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestMonth(t *testing.T) {
	t.Parallel()
	tests := []struct {
		t         time.Time
		want      string
		wantStart time.Time
		wantNext  time.Time
	}{
		{time.Date(2026, 11, 15, 12, 0, 0, 0, time.UTC), "2026-11", time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC), time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)},
		{time.Date(2026, 12, 31, 23, 59, 59, 999, time.UTC), "2026-12", time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC), time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC)},
		{time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC), "2027-01", time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(2027, 2, 1, 0, 0, 0, 0, time.UTC)},
		// 20:00 on 30 November in Alberta (MST) is already December: months are UTC.
		{time.Date(2026, 11, 30, 20, 0, 0, 0, time.FixedZone("MST", -7*3600)), "2026-12", time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC), time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC)},
	}
	for _, tc := range tests {
		m := monthOf(tc.t)
		if got := m.String(); got != tc.want {
			t.Errorf("monthOf(%v) = %s, want %s", tc.t, got, tc.want)
		}
		if got := m.start(); !got.Equal(tc.wantStart) {
			t.Errorf("monthOf(%v).start() = %v, want %v", tc.t, got, tc.wantStart)
		}
		if got := (m + 1).start(); !got.Equal(tc.wantNext) {
			t.Errorf("next month of %v starts %v, want %v", tc.t, got, tc.wantNext)
		}
		if back, err := parseMonth(tc.want); err != nil || back != m {
			t.Errorf("parseMonth(%q) = %v, %v, want %v", tc.want, back, err, m)
		}
	}
	if _, err := parseMonth("2026-13"); err == nil {
		t.Errorf(`parseMonth("2026-13") = nil error, want one`)
	}
}

func TestCounterTake(t *testing.T) {
	t.Parallel()
	var c counter
	var wg sync.WaitGroup
	var mu sync.Mutex
	ok := 0
	for range 16 {
		wg.Go(func() {
			for range 100 {
				if _, admitted := c.take(250); admitted {
					mu.Lock()
					ok++
					mu.Unlock()
				}
			}
		})
	}
	wg.Wait()
	if ok != 250 || c.n.Load() != 250 {
		t.Errorf("take(250) admitted %d, count %d, want 250 and 250", ok, c.n.Load())
	}
	if n, admitted := c.take(0); !admitted || n != 251 {
		t.Errorf("take(0) = %d, %v, want 251, true (0 means no quota)", n, admitted)
	}
}

func TestUsageFileRoundTrip(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), UsageFile)
	u, err := loadUsage(path)
	if err != nil {
		t.Fatal(err)
	}
	nov := monthOf(time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC))
	u.counter("aaaa1111", Search, nov).n.Store(7)
	u.counter("aaaa1111", Search, nov+1).n.Store(1)
	u.counter("bbbb2222", Maps, nov).n.Store(3)
	u.markDirty()
	if err := u.flush(); err != nil {
		t.Fatal(err)
	}
	got, err := ReadUsage(path)
	if err != nil {
		t.Fatal(err)
	}
	want := UsageLog{
		"aaaa1111": {"2026-11": {Search: 7}, "2026-12": {Search: 1}},
		"bbbb2222": {"2026-11": {Maps: 3}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("ReadUsage after flush (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(map[Product]int64{Search: 7}, got.Month("aaaa1111", nov.start())); diff != "" {
		t.Errorf("Month(aaaa1111, 2026-11) (-want +got):\n%s", diff)
	}
}
