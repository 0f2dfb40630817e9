package gridstore

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"meridian/shared/blob"
	"meridian/shared/release"
	"meridian/shared/survey/gridindex"
)

// Grids are the grid indexes a warm function serves, kept in step with the
// release manifest.
//
// A Lambda environment lives for hours, and `meridian-publish` only writes
// a new release (new content-addressed keys, then grid/MANIFEST.json): a
// function that opened its indexes at cold start would serve the old
// release until its next cold start. Grids read the manifest again at most
// every Recheck, on a request (a frozen Lambda runs no timers), and when it
// names other keys open the new indexes and hand them to every attached
// service at once. A request that already holds the old indexes keeps
// reading their own bytes, which are never overwritten; the old indexes are
// garbage once the last such request is done. A manifest that cannot be
// read or an index that does not open is logged, and what is served stays.
//
// Memory: the open indexes of two releases at most at once (the one served
// and the one being opened or, after the switch, the old one until its
// last request ends), each index holding its root and at most
// gridindex.Options.CacheBytes of pages; and the index store's block
// cache, bounded by its MaxBytes (GRID_CACHE_MIB), which blocks of a
// release no longer served leave by LRU eviction. Indexes whose key is
// unchanged are reused, not opened again.
type Grids struct {
	src    Source
	logger *slog.Logger
	fixed  bool // never rechecks (Fixed)

	checking atomic.Bool // a request is reading the manifest
	reload   sync.Mutex  // one Reload at a time

	mu      sync.Mutex
	keys    []string                    // the keys served, in Names order
	open    map[string]*gridindex.Index // by key
	cur     []*gridindex.Index
	checked time.Time
	subs    []func([]*gridindex.Index)

	now func() time.Time // time.Now; a test's clock
}

// Source says where a deployment's indexes are.
type Source struct {
	Indexes  blob.Store    // the index objects, usually behind a blob.Cached
	Manifest release.Store // the manifest, read past any cache (it changes in place)
	Names    []string      // the index file names to serve, in order of preference
	Where    string        // names the store in errors and logs ("s3://bucket/grid/")
	Recheck  time.Duration // how often the manifest is read again; <= 0: on every request
}

// New opens src's indexes. An error here is a cold start that fails: the
// function has nothing to serve.
func New(ctx context.Context, src Source, logger *slog.Logger) (*Grids, error) {
	return newAt(ctx, src, logger, time.Now)
}

// newAt is New with the clock that times the rechecks.
func newAt(ctx context.Context, src Source, logger *slog.Logger, now func() time.Time) (*Grids, error) {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	g := &Grids{src: src, logger: logger, open: map[string]*gridindex.Index{}, now: now}
	keys, err := resolve(ctx, src.Manifest, src.Names, src.Where)
	if err != nil {
		return nil, err
	}
	ix, open, err := g.openKeys(ctx, keys)
	if err != nil {
		return nil, err
	}
	g.keys, g.open, g.cur, g.checked = keys, open, ix, now()
	return g, nil
}

// Fixed returns Grids that serve ix and never change (tests, and functions
// without a grid bucket).
func Fixed(ix []*gridindex.Index) *Grids {
	return &Grids{fixed: true, cur: slices.Clone(ix), logger: slog.New(slog.DiscardHandler)}
}

// Indexes returns the indexes served now.
func (g *Grids) Indexes() []*gridindex.Index {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.cur
}

// Attach calls set with the indexes served now, and again with each new
// set, after which changed (if not nil) is called: a tile cache drops what
// it generated from the old indexes there. set is typically
// (*grid.Service).SetIndexes.
func (g *Grids) Attach(set func([]*gridindex.Index), changed func()) {
	f := set
	if changed != nil {
		f = func(ix []*gridindex.Index) { set(ix); changed() }
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	set(g.cur)
	g.subs = append(g.subs, f)
}

// Handler returns next behind a check of the release: the first request
// after Recheck has passed reads the manifest (one small S3 GET) before it
// is served; requests arriving while it does are served the indexes held.
func (g *Grids) Handler(next http.Handler) http.Handler {
	if g.fixed {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		g.Check(r.Context())
		next.ServeHTTP(w, r)
	})
}

// Check reloads when Recheck has passed since the last read of the
// manifest and no other request is reading it.
func (g *Grids) Check(ctx context.Context) {
	if g.fixed {
		return
	}
	g.mu.Lock()
	due := g.src.Recheck <= 0 || g.now().Sub(g.checked) >= g.src.Recheck
	g.mu.Unlock()
	if !due || !g.checking.CompareAndSwap(false, true) {
		return
	}
	defer g.checking.Store(false)
	if _, err := g.Reload(ctx); err != nil {
		g.logger.Error("grid release not loaded; keeping what is served", "where", g.src.Where, "err", err)
	}
}

// Reload reads the manifest now and, when it names other keys than those
// served, opens the new indexes and hands them to the attached services.
// It reports whether the indexes changed. On an error nothing changes; the
// manifest is read again after Recheck.
func (g *Grids) Reload(ctx context.Context) (changed bool, err error) {
	if g.fixed {
		return false, nil
	}
	g.reload.Lock()
	defer g.reload.Unlock()
	keys, err := resolve(ctx, g.src.Manifest, g.src.Names, g.src.Where)
	g.mu.Lock()
	g.checked = g.now()
	same := err == nil && slices.Equal(keys, g.keys)
	g.mu.Unlock()
	if err != nil || same {
		return false, err
	}
	ix, open, err := g.openKeys(ctx, keys)
	if err != nil {
		return false, err
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	g.keys, g.open, g.cur = keys, open, ix
	for _, f := range g.subs {
		f(ix)
	}
	g.logger.Info("grid release loaded", "where", g.src.Where, "keys", keys)
	return true, nil
}

// openKeys opens the index at each key, reusing those already open (a key
// names the same bytes for ever). The indexes not open are opened side
// by side: on S3 each open is a Stat and a range read, two round trips of
// tens of milliseconds, and a cold start waits for the slowest index only,
// not their sum.
func (g *Grids) openKeys(ctx context.Context, keys []string) ([]*gridindex.Index, map[string]*gridindex.Index, error) {
	g.mu.Lock()
	held := g.open
	g.mu.Unlock()
	ix := make([]*gridindex.Index, len(keys))
	errs := make([]error, len(keys))
	var wg sync.WaitGroup
	for i, key := range keys {
		if ix[i] = held[key]; ix[i] != nil {
			continue
		}
		wg.Go(func() {
			var err error
			if ix[i], err = gridindex.Open(ctx, g.src.Indexes, key, gridindex.Options{}); err != nil {
				errs[i] = fmt.Errorf("gridstore: open %s%s: %w", g.src.Where, key, err)
			}
		})
	}
	wg.Wait()
	open := make(map[string]*gridindex.Index, len(keys))
	for i, key := range keys {
		if errs[i] != nil {
			return nil, nil, errs[i]
		}
		open[key] = ix[i]
	}
	return ix, open, nil
}
