package blob

import (
	"context"
	"sync/atomic"
)

// Counting wraps a Store and counts the calls that reach it, for benchmarks
// that report range reads per lookup. It is safe for concurrent use.
type Counting struct {
	s     Store
	reads atomic.Int64
	bytes atomic.Int64
	stats atomic.Int64
}

// CountingStats are the counters of a Counting store.
type CountingStats struct {
	Reads int64 // ReadRange calls, failed ones included
	Bytes int64 // bytes returned by ReadRange
	Stats int64 // Stat calls
}

// NewCounting returns a Counting in front of s.
func NewCounting(s Store) *Counting {
	return &Counting{s: s}
}

// ReadRange implements Store.
func (c *Counting) ReadRange(ctx context.Context, key string, off, n int64) ([]byte, error) {
	b, err := c.s.ReadRange(ctx, key, off, n)
	c.reads.Add(1)
	c.bytes.Add(int64(len(b)))
	return b, err
}

// Stat implements Store.
func (c *Counting) Stat(ctx context.Context, key string) (Info, error) {
	c.stats.Add(1)
	return c.s.Stat(ctx, key)
}

// Stats returns the counters.
func (c *Counting) Stats() CountingStats {
	return CountingStats{Reads: c.reads.Load(), Bytes: c.bytes.Load(), Stats: c.stats.Load()}
}

// Reset sets the counters to zero.
func (c *Counting) Reset() {
	c.reads.Store(0)
	c.bytes.Store(0)
	c.stats.Store(0)
}
