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

// ReadFirst implements FirstReader when the underlying store does: one
// request, widened to whole blocks of the cache (on S3 the rest of a 64 KiB
// block costs the request nothing), whose blocks are cached under the
// version the answer names. What a reader reads next after an object's
// first bytes is usually near them (a grid index's first pages, an
// archive's directory), and its reads pinned to that version then find it
// here instead of waiting on a round trip of their own: a Lambda's cold
// start saved one sequential S3 request per index it looks up. Otherwise
// it is the package's ReadFirst over the cache.
func (c *Cached) ReadFirst(ctx context.Context, key string, n int64) ([]byte, Info, error) {
	if err := CheckRead(key, 0, n); err != nil {
		return nil, Info{}, err
	}
	f, ok := c.s.(FirstReader)
	if !ok {
		return statThenRead(ctx, c, key, n)
	}
	want := n
	if n > 0 && n <= c.max/4 {
		want = (n + c.bs - 1) / c.bs * c.bs
		if want > c.max/4 {
			want = n
		}
	}
	b, info, err := f.ReadFirst(ctx, key, want)
	c.mu.Lock()
	c.stats.Reads++
	c.stats.Bytes += int64(len(b))
	if err == nil && info.ETag != "" && want > 0 && want <= c.max/4 {
		c.seed(key+"\x00"+info.ETag, b, info.Size)
	}
	c.mu.Unlock()
	if err != nil {
		return nil, Info{}, fmt.Errorf("blob: read %s: %w", key, err)
	}
	return b[:min(n, int64(len(b)))], info, nil
}

// seed caches the blocks of data, the object's bytes from offset 0, under
// the state key skey (a pinned version's): every whole block, and a short
// last one only when it ends the object (size bytes), as read expects.
// Blocks already cached or being fetched are left as they are. c.mu must
// be held.
func (c *Cached) seed(skey string, data []byte, size int64) {
	ks := c.state(skey)
	for i := int64(0); i*c.bs < int64(len(data)); i++ {
		b := Clip(data, i*c.bs, c.bs)
		if int64(len(b)) < c.bs && i*c.bs+int64(len(b)) != size {
			break
		}
		if _, ok := ks.blocks[i]; ok {
			continue
		}
		if _, ok := ks.flights[i]; ok {
			continue
		}
		// Each block gets its own slice so that evicting it frees it.
		c.insert(ks, skey, i, append([]byte(nil), b...))
	}
	c.evict()
	c.forget(skey, ks)
}
