package gateway

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"sync"
	"sync/atomic"
	"time"
)

// month is a calendar month in UTC: year*12 + month-1.
type month int32

func monthOf(t time.Time) month {
	y, m, _ := t.UTC().Date()
	return month(y*12 + int(m) - 1)
}

func (m month) start() time.Time {
	return time.Date(int(m)/12, time.Month(int(m)%12+1), 1, 0, 0, 0, 0, time.UTC)
}

// String returns the month as "2026-11".
func (m month) String() string { return m.start().Format("2006-01") }

func parseMonth(s string) (month, error) {
	t, err := time.Parse("2006-01", s)
	if err != nil {
		return 0, fmt.Errorf("gateway: month %q is not YYYY-MM", s)
	}
	return monthOf(t), nil
}

// counter is one (key, product, month) count.
type counter struct{ n atomic.Int64 }

// take counts one request unless limit (> 0) is reached, and returns the
// count after it.
func (c *counter) take(limit int64) (n int64, ok bool) {
	if limit <= 0 {
		return c.n.Add(1), true
	}
	for {
		v := c.n.Load()
		if v >= limit {
			return v, false
		}
		if c.n.CompareAndSwap(v, v+1) {
			return v + 1, true
		}
	}
}

type cellKey struct {
	id      string
	product Product
	month   month
}

// usageCounts holds every count in memory and writes them to the usage file.
type usageCounts struct {
	path  string // "" keeps counts in memory only
	dirty atomic.Bool

	mu    sync.Mutex
	cells map[cellKey]*counter

	writeMu sync.Mutex // one flush at a time, so an older snapshot never lands last
}

// usageDoc is the usage file: key id → month → product → requests admitted.
//
//	{"version": 1, "keys": {"k3j9x2ab": {"2026-11": {"search": 12, "maps": 340}}}}
type usageDoc struct {
	Version int                                    `json:"version"`
	Keys    map[string]map[string]map[string]int64 `json:"keys"`
}

// UsageLog is the content of a usage file: key id → month ("2026-11") →
// product → requests admitted.
type UsageLog map[string]map[string]map[Product]int64

// Month returns key id's counts in the UTC month of t (nil when none).
func (l UsageLog) Month(id string, t time.Time) map[Product]int64 {
	return l[id][monthOf(t).String()]
}

// ReadUsage reads the usage file a Gateway writes. It is at most about a
// second behind a running server. A missing file is an empty log.
func ReadUsage(path string) (UsageLog, error) {
	u, err := loadUsage(path)
	if err != nil {
		return nil, err
	}
	log := make(UsageLog)
	for k, c := range u.cells {
		if log[k.id] == nil {
			log[k.id] = make(map[string]map[Product]int64)
		}
		m := k.month.String()
		if log[k.id][m] == nil {
			log[k.id][m] = make(map[Product]int64)
		}
		log[k.id][m][k.product] = c.n.Load()
	}
	return log, nil
}

func loadUsage(path string) (*usageCounts, error) {
	u := &usageCounts{path: path, cells: make(map[cellKey]*counter)}
	if path == "" {
		return u, nil
	}
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return u, nil
	}
	if err != nil {
		return nil, fmt.Errorf("gateway: read usage: %w", err)
	}
	var doc usageDoc
	if err := json.Unmarshal(b, &doc); err != nil {
		return nil, fmt.Errorf("gateway: parse usage file %s (move it away to start counting from zero): %w", path, err)
	}
	for id, months := range doc.Keys {
		for ms, products := range months {
			m, err := parseMonth(ms)
			if err != nil {
				return nil, fmt.Errorf("gateway: usage file %s: key %s: %w", path, id, err)
			}
			for name, n := range products {
				p, err := ParseProduct(name)
				if err != nil {
					continue // a product this build does not know
				}
				c := new(counter)
				c.n.Store(n)
				u.cells[cellKey{id, p, m}] = c
			}
		}
	}
	return u, nil
}

// counter returns the counter of (id, p, m), creating it.
func (u *usageCounts) counter(id string, p Product, m month) *counter {
	k := cellKey{id, p, m}
	u.mu.Lock()
	defer u.mu.Unlock()
	c := u.cells[k]
	if c == nil {
		c = new(counter)
		u.cells[k] = c
	}
	return c
}

// markDirty notes that a count changed; it writes the shared flag only when
// it is clear, to keep the cache line shared between cores.
func (u *usageCounts) markDirty() {
	if !u.dirty.Load() {
		u.dirty.Store(true)
	}
}

// month returns id's counts for month m.
func (u *usageCounts) month(id string, m month) map[Product]int64 {
	u.mu.Lock()
	defer u.mu.Unlock()
	out := make(map[Product]int64)
	for k, c := range u.cells {
		if k.id == id && k.month == m {
			out[k.product] = c.n.Load()
		}
	}
	return out
}

// flush writes the counts when they changed since the last flush.
func (u *usageCounts) flush() error {
	if u.path == "" {
		return nil
	}
	u.writeMu.Lock()
	defer u.writeMu.Unlock()
	if !u.dirty.Swap(false) {
		return nil
	}
	doc := usageDoc{Version: 1, Keys: make(map[string]map[string]map[string]int64)}
	u.mu.Lock()
	for k, c := range u.cells {
		months := doc.Keys[k.id]
		if months == nil {
			months = make(map[string]map[string]int64)
			doc.Keys[k.id] = months
		}
		ms := k.month.String()
		if months[ms] == nil {
			months[ms] = make(map[string]int64)
		}
		months[ms][k.product.String()] = c.n.Load()
	}
	u.mu.Unlock()
	b, err := json.MarshalIndent(doc, "", "  ")
	if err == nil {
		err = writeFileAtomic(u.path, append(b, '\n'), 0o600)
	}
	if err != nil {
		u.dirty.Store(true) // try again next time
		return fmt.Errorf("gateway: write usage: %w", err)
	}
	return nil
}

// slot caches, for one (key, product), the counter of the current month so
// the hot path takes no lock.
type slot struct {
	cur atomic.Pointer[slotMonth]
}

type slotMonth struct {
	month month
	c     *counter
}

func (s *slot) counter(u *usageCounts, id string, p Product, m month) *counter {
	if sm := s.cur.Load(); sm != nil && sm.month == m {
		return sm.c
	}
	c := u.counter(id, p, m)
	s.cur.Store(&slotMonth{month: m, c: c})
	return c
}
