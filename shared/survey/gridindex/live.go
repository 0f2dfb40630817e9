package gridindex

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/paulmach/orb"

	"meridian/shared/blob"
	"meridian/shared/lld"
)

// pinnedReader is a RangeReader that can pin reads to a version of an
// object (package blob's stores all can).
type pinnedReader interface {
	RangeReader
	blob.Pinned
	Stat(ctx context.Context, key string) (blob.Info, error)
}

// firstReader is a pinnedReader that reads an object's first bytes and
// its version in one request (blob.FirstReader).
type firstReader interface {
	pinnedReader
	blob.FirstReader
}

// Index is an open grid index. It is safe for concurrent use.
//
// # Replaced in place
//
// When its RangeReader can pin reads (blob.Pinned: every blob store), Open
// records the object's version tag and every read is pinned to it, so an
// index file replaced while it is served (an ingest renaming a new index
// over the old; a publish overwriting the S3 key) is never read as a
// mixture: a read of a replaced file fails with blob.ErrChanged, and the
// Index then opens the new version (header, metadata and root again) and
// runs the lookup on it, once. A lookup that already handed records to a
// Within callback is not retried; it returns the error. A new version that
// does not open leaves the error of the changed read. The old version's
// decoded pages are dropped with it, so memory stays that of one version:
// the root, decoded leaves and at most Options.CacheBytes of pages.
//
// A version whose pages are all cached would never read the store and so
// never notice a replacement: the Index also compares the store's tag (one
// Stat) at most every Options.Recheck, in the lookup that finds the last
// check older, and opens the new version when it differs. A replaced file
// is therefore served from at most Recheck after its replacement, and is
// never mixed with the old one.
//
// Meta and Bound describe the version opened last.
type Index struct {
	rr      RangeReader
	key     string
	opts    Options
	reads   atomic.Int64
	checked atomic.Int64 // unix nanoseconds of the last tag check

	mu  sync.Mutex // serializes reopening
	cur atomic.Pointer[version]
}

// Open reads the header, metadata and root of the index stored under key:
// one range read when they fit in the first 16 KiB, plus a Stat when rr can
// pin reads.
func Open(ctx context.Context, rr RangeReader, key string, opts Options) (*Index, error) {
	if opts.CacheBytes <= 0 {
		opts.CacheBytes = DefaultCacheBytes
	}
	if opts.Recheck == 0 {
		opts.Recheck = DefaultRecheck
	}
	ix := &Index{rr: rr, key: key, opts: opts}
	ix.checked.Store(coarseNow())
	v, err := openVersion(ctx, rr, key, opts, &ix.reads)
	if errors.Is(err, blob.ErrChanged) { // replaced between the Stat and the reads
		v, err = openVersion(ctx, rr, key, opts, &ix.reads)
	}
	if err != nil {
		return nil, err
	}
	ix.cur.Store(v)
	return ix, nil
}

// Meta describes the dataset.
func (ix *Index) Meta() Meta { return ix.cur.Load().meta }

// Bound is the extent of every record.
func (ix *Index) Bound() orb.Bound { return ix.cur.Load().h.bounds }

// Reads is the number of range reads issued so far.
func (ix *Index) Reads() int64 { return ix.reads.Load() }

// CacheStats counts the page cache of the version served now (a new
// version starts from zero).
func (ix *Index) CacheStats() CacheStats {
	v := ix.cur.Load()
	st := v.pages.stats()
	st.Records, st.RecordBytes, st.RecordHits, st.RecordMisses = v.records.stats()
	st.RecordMax = v.records.max
	st.Groups, st.GroupBytes = int(v.dlsCount.Load()), v.dlsBytes.Load()
	return st
}

// Version is the store's version tag of the file read ("" when the
// RangeReader cannot pin reads).
func (ix *Index) Version() string { return ix.cur.Load().tag }

// reopen opens the current version of the file when stale is still the
// version in use, and returns the version to retry on.
func (ix *Index) reopen(ctx context.Context, stale *version) (*version, error) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if v := ix.cur.Load(); v != stale {
		return v, nil // another lookup reopened it
	}
	if c, ok := ix.rr.(*blob.Cached); ok {
		c.Invalidate(ix.key)
	}
	v, err := openVersion(ctx, ix.rr, ix.key, ix.opts, &ix.reads)
	if err != nil {
		return nil, fmt.Errorf("gridindex: reopen %s: %w", ix.key, err)
	}
	ix.cur.Store(v)
	return v, nil
}

// coarse is a wall clock read by every lookup to know whether its
// version is due for a check: time.Now cost a tenth of a cached lookup on
// this machine's virtual clock (profile of a batch), and the check needs
// no better than the 20 ms one goroutine keeps it to.
var coarse struct {
	once sync.Once
	now  atomic.Int64
}

const coarseTick = 20 * time.Millisecond

func coarseNow() int64 {
	coarse.once.Do(func() {
		coarse.now.Store(time.Now().UnixNano())
		go func() {
			for t := range time.Tick(coarseTick) {
				coarse.now.Store(t.UnixNano())
			}
		}()
	})
	return coarse.now.Load()
}

// DefaultRecheck is Options.Recheck when zero.
const DefaultRecheck = 30 * time.Second

// current returns the version to use, checking the store's tag first when
// the last check is older than Recheck. A failed check keeps the version.
func (ix *Index) current(ctx context.Context) *version {
	v := ix.cur.Load()
	p, ok := ix.rr.(pinnedReader)
	if !ok {
		return v
	}
	last, now := ix.checked.Load(), coarseNow()
	if now-last < int64(ix.opts.Recheck) || !ix.checked.CompareAndSwap(last, now) {
		return v // checked recently, or another lookup is checking
	}
	info, err := p.Stat(ctx, ix.key)
	if err != nil || info.ETag == v.tag {
		return v
	}
	if next, err := ix.reopen(ctx, v); err == nil {
		return next
	}
	return v
}

// do runs fn on the current version and, when the file changed under it,
// once more on the new version.
func do[T any](ctx context.Context, ix *Index, fn func(v *version) (T, error)) (T, error) {
	v := ix.current(ctx)
	out, err := fn(v)
	if !errors.Is(err, blob.ErrChanged) {
		return out, err
	}
	next, rerr := ix.reopen(ctx, v)
	if rerr != nil {
		return out, err
	}
	return fn(next)
}

// HasGroup reports whether the index holds any record of l's group (its
// DLS township, Manitoba parish or Ontario geographic township).
func (ix *Index) HasGroup(ctx context.Context, l lld.Location) (bool, error) {
	return do(ctx, ix, func(v *version) (bool, error) { return v.hasGroup(ctx, l) })
}

type found struct {
	rec  Record
	dist float64
	ok   bool
}

// Lookup returns the record of l.
func (ix *Index) Lookup(ctx context.Context, l lld.Location) (Record, bool, error) {
	f, err := do(ctx, ix, func(v *version) (found, error) {
		r, ok, err := v.lookup(ctx, l)
		return found{rec: r, ok: ok}, err
	})
	return f.rec, f.ok, err
}

// RecordBound returns the box of l's record (what Lookup's geometry gives)
// without decoding the geometry: a filter before lookups.
func (ix *Index) RecordBound(ctx context.Context, l lld.Location) (orb.Bound, bool, error) {
	type bound struct {
		b  orb.Bound
		ok bool
	}
	r, err := do(ctx, ix, func(v *version) (bound, error) {
		b, ok, err := v.bound(ctx, l)
		return bound{b, ok}, err
	})
	return r.b, r.ok, err
}

// Group returns every record of l's group.
func (ix *Index) Group(ctx context.Context, l lld.Location) ([]Record, error) {
	return do(ctx, ix, func(v *version) ([]Record, error) { return v.group(ctx, l) })
}

// Within calls fn with every record of unit u whose box intersects b, page
// by page in file order: what a map tile over b draws. Records without a
// polygon are matched by their centroid. fn must not keep rec past the call
// unless it copies it. A file replaced after fn was first called is not
// retried (fn would see records twice): the error wraps blob.ErrChanged.
func (ix *Index) Within(ctx context.Context, b orb.Bound, u lld.Unit, fn func(rec *Record) error) error {
	called := false
	_, err := do(ctx, ix, func(v *version) (struct{}, error) {
		if called {
			return struct{}{}, fmt.Errorf("gridindex: %s changed during a scan: %w", ix.key, blob.ErrChanged)
		}
		return struct{}{}, v.within(ctx, b, u, func(rec *Record) error {
			called = true
			return fn(rec)
		})
	})
	return err
}

// Containing returns every record whose polygon contains pt, of any unit.
func (ix *Index) Containing(ctx context.Context, pt orb.Point) ([]Record, error) {
	hits, err := ix.ContainingHits(ctx, pt)
	if err != nil {
		return nil, err
	}
	var out []Record
	for i := range hits {
		r, err := hits[i].Record()
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, nil
}

// ContainingHits returns every record whose polygon contains pt, of any
// unit, as Containing does, but leaves each to be decoded by Hit.Record:
// what a caller that answers with one or two of them wants.
func (ix *Index) ContainingHits(ctx context.Context, pt orb.Point) ([]Hit, error) {
	return do(ctx, ix, func(v *version) ([]Hit, error) { return v.containingHits(ctx, pt) })
}

// ContainingAt returns l's record as a hit when its polygon contains pt
// clearly (not within about 10 cm of an edge): the check of a candidate
// found some other way (a survey model's block at the point), a key lookup
// and one ring test instead of ContainingHits' spatial search. ok == false
// says nothing about pt: ask ContainingHits.
func (ix *Index) ContainingAt(ctx context.Context, l lld.Location, pt orb.Point) (Hit, bool, error) {
	type hit struct {
		h  Hit
		ok bool
	}
	r, err := do(ctx, ix, func(v *version) (hit, error) {
		h, ok, err := v.containingAt(ctx, l, pt)
		return hit{h, ok}, err
	})
	return r.h, r.ok, err
}

// Nearest returns the record of unit u whose centroid is nearest pt and no
// farther than maxM metres: the lookup for datasets that publish centroids
// only (Manitoba river and parish lots).
func (ix *Index) Nearest(ctx context.Context, pt orb.Point, u lld.Unit, maxM float64) (Record, float64, bool, error) {
	f, err := do(ctx, ix, func(v *version) (found, error) {
		r, d, ok, err := v.nearest(ctx, pt, u, maxM)
		return found{r, d, ok}, err
	})
	return f.rec, f.dist, f.ok, err
}

// GroupKeys returns up to limit group keys starting with prefix, in order.
func (ix *Index) GroupKeys(ctx context.Context, prefix string, limit int) ([]string, error) {
	return do(ctx, ix, func(v *version) ([]string, error) { return v.groupKeys(ctx, prefix, limit) })
}

// GroupByKey returns the records of a group key from GroupKeys.
func (ix *Index) GroupByKey(ctx context.Context, group string) ([]Record, error) {
	return do(ctx, ix, func(v *version) ([]Record, error) { return v.groupByKey(ctx, group) })
}
