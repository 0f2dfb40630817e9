package blob

import (
	"context"
	"fmt"
)

// FirstReader reads the first n bytes of an object together with its
// version (Info): one request on S3, whose ranged GET answers with the
// object's ETag, size and date, where Stat and a pinned read were two
// round trips in a row. Opening a grid index or a tile archive starts
// with it: a Lambda's cold start waits on each of its sequential round
// trips (issue 34).
type FirstReader interface {
	ReadFirst(ctx context.Context, key string, n int64) ([]byte, Info, error)
}

// ReadFirst reads the first n bytes of key and its version: in one request
// when s is a FirstReader, else with Stat and then a read pinned to the
// version Stat saw (or an unpinned read when s cannot pin). n is clipped
// to the object's size.
func ReadFirst(ctx context.Context, s Store, key string, n int64) ([]byte, Info, error) {
	if f, ok := s.(FirstReader); ok {
		return f.ReadFirst(ctx, key, n)
	}
	return statThenRead(ctx, s, key, n)
}

// statThenRead is ReadFirst in two requests: Stat, then a read pinned to
// the version it saw.
func statThenRead(ctx context.Context, s Store, key string, n int64) ([]byte, Info, error) {
	info, err := s.Stat(ctx, key)
	if err != nil {
		return nil, Info{}, err
	}
	n = min(n, info.Size)
	var b []byte
	if p, ok := s.(Pinned); ok {
		b, err = p.ReadRangeIf(ctx, key, info.ETag, 0, n)
	} else {
		b, err = s.ReadRange(ctx, key, 0, n)
	}
	if err != nil {
		return nil, Info{}, err
	}
	return b, info, nil
}

// ReadFirst implements FirstReader when the underlying store does, passing
// the read through (an index or archive reads its first bytes once, when
// it opens); otherwise it is the package's ReadFirst over the cache.
func (c *Cached) ReadFirst(ctx context.Context, key string, n int64) ([]byte, Info, error) {
	if err := CheckRead(key, 0, n); err != nil {
		return nil, Info{}, err
	}
	if f, ok := c.s.(FirstReader); ok {
		b, info, err := f.ReadFirst(ctx, key, n)
		c.mu.Lock()
		c.stats.Reads++
		c.stats.Bytes += int64(len(b))
		c.mu.Unlock()
		if err != nil {
			return nil, Info{}, fmt.Errorf("blob: read %s: %w", key, err)
		}
		return b, info, nil
	}
	return statThenRead(ctx, c, key, n)
}
