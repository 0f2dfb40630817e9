// Package gridset keeps the grid indexes a process serves in step with
// where they are published: one mechanism for an AWS function, whose
// source is the release manifest in S3 (package gridstore), and for the
// local server and its commands, whose source is the data directory's grid
// files (Dir). It imports no AWS package.
package gridset

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"meridian/shared/blob"
	"meridian/shared/survey/gridindex"
)

// Ref names one index of a source: Key is what is opened in the source's
// Indexes, and Key and Version together name the same bytes for ever (a
// content-addressed key has no Version; a file in a directory has its size
// and modification time).
type Ref struct {
	Key, Version string
}

// Source says where the indexes are and how often to look again.
type Source struct {
	Indexes blob.Store // the index objects
	// List returns the indexes to serve now, in order of preference.
	List  func(ctx context.Context) ([]Ref, error)
	Where string // names the source in errors and logs ("s3://bucket/grid/", a directory)
	// Recheck is how often the source is listed again: by Check, on a
	// request, or by Watch, on a timer; <= 0: on every Check.
	Recheck time.Duration
	// CacheBytes bounds each index's page cache (gridindex.Options); 0:
	// gridindex.DefaultCacheBytes.
	CacheBytes int64
	// Partial serves what opens: an index that does not open is logged and
	// the one served before under its key (if any) stays, beside the new
	// others. Without it a new set with an index that does not open is
	// refused whole, and New fails.
	Partial bool
	// WarmBytes, when above zero, fills the page caches of the indexes
	// it opens (gridindex.Index.Warm) before they are served, at start and
	// when a file is replaced, one index after another in the listing's
	// order, until the set's caches hold WarmBytes: a server with the
	// memory to hold an index whole never serves it cold. For the local
	// server, whose indexes are files: on S3 it would read each index
	// whole at every cold start.
	WarmBytes int64
	// Now is the clock Recheck is counted on; time.Now when nil (tests
	// move their own by hand).
	Now func() time.Time
}

// Grids are the grid indexes a process serves, kept in step with their
// Source.
//
// A Lambda environment lives for hours, and `meridian-publish` only writes
// a new release (new content-addressed keys, then grid/MANIFEST.json): a
// function that opened its indexes at cold start would serve the old
// release until its next cold start. Grids list the source again at most
// every Recheck, on a request (Handler, Check: a frozen Lambda runs no
// timers) or on a timer (Watch: the local server), and when it names other
// indexes open the new ones and hand the set to every attached service at
// once. A request that already holds the old indexes keeps reading their
// own bytes (an S3 key is never overwritten; a local file replaced by
// rename stays open under its old name until dropped); the old indexes are
// garbage once the last such request is done. A listing that fails or an
// index that does not open is logged, and what is served stays.
//
// Indexes of real datasets are served before fixtures (gridindex.Meta's
// Fixture), otherwise in the source's order.
//
// Memory: the open indexes of two sets at most at once (the one served
// and the one being opened or, after the switch, the old one until its
// last request ends), each index holding its root and at most CacheBytes
// of pages. Indexes whose Ref is unchanged are reused, not opened again.
type Grids struct {
	src    Source
	logger *slog.Logger
	fixed  bool // never rechecks (Fixed)

	checking atomic.Bool // a request is listing the source
	reload   sync.Mutex  // one Reload at a time

	mu      sync.Mutex
	listed  []Ref                    // the source's last listing
	served  map[string]Ref           // by key: the version served
	open    map[Ref]*gridindex.Index // what is served, by ref
	cur     []*gridindex.Index
	checked time.Time
	subs    []func([]*gridindex.Index)
}

// New opens src's indexes. An error here is a start that fails: the
// process has nothing to serve.
func New(ctx context.Context, src Source, logger *slog.Logger) (*Grids, error) {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	if src.Now == nil {
		src.Now = time.Now
	}
	g := &Grids{src: src, logger: logger, served: map[string]Ref{}, open: map[Ref]*gridindex.Index{}}
	if _, err := g.Reload(ctx); err != nil {
		return nil, err
	}
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
// (*grid.Service).SetIndexes; when nil, only changed is called, on each new
// set. Subscribers are called in the order they attached.
func (g *Grids) Attach(set func([]*gridindex.Index), changed func()) {
	if set == nil {
		set = func([]*gridindex.Index) {}
	}
	f := set
	if changed != nil {
		f = func(ix []*gridindex.Index) { set(ix); changed() }
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	set(g.cur)
	g.subs = append(g.subs, f)
}

// Handler returns next behind a check of the source: the first request
// after Recheck has passed lists it (on S3 one small GET) before it is
// served; requests arriving while it does are served the indexes held.
func (g *Grids) Handler(next http.Handler) http.Handler {
	if g.fixed {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		g.Check(r.Context())
		next.ServeHTTP(w, r)
	})
}

// Check reloads when Recheck has passed since the source was last listed
// and no other request is listing it.
func (g *Grids) Check(ctx context.Context) {
	if g.fixed {
		return
	}
	g.mu.Lock()
	due := g.src.Recheck <= 0 || g.src.Now().Sub(g.checked) >= g.src.Recheck
	g.mu.Unlock()
	if !due || !g.checking.CompareAndSwap(false, true) {
		return
	}
	defer g.checking.Store(false)
	g.reloadLogged(ctx)
}

// Watch reloads every Recheck (a second when it is not positive) until ctx
// ends: for a process that serves between requests, as the local server.
func (g *Grids) Watch(ctx context.Context) {
	if g.fixed {
		return
	}
	t := time.NewTicker(cmp.Or(max(g.src.Recheck, 0), time.Second))
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			g.reloadLogged(ctx)
		}
	}
}

func (g *Grids) reloadLogged(ctx context.Context) {
	if _, err := g.Reload(ctx); err != nil && ctx.Err() == nil {
		g.logger.Error("grid release not loaded; keeping what is served", "where", g.src.Where, "err", err)
	}
}

// Reload lists the source now and, when it names other indexes than those
// served, opens the new ones and hands the set to the attached services.
// It reports whether the indexes changed. On an error nothing changes; the
// source is listed again after Recheck.
func (g *Grids) Reload(ctx context.Context) (changed bool, err error) {
	if g.fixed {
		return false, nil
	}
	g.reload.Lock()
	defer g.reload.Unlock()
	refs, err := g.src.List(ctx)
	g.mu.Lock()
	g.checked = g.src.Now()
	same := err == nil && g.listed != nil && slices.Equal(refs, g.listed)
	g.mu.Unlock()
	if err != nil || same {
		return false, err
	}
	next, served, err := g.openRefs(ctx, refs)
	if err != nil {
		return false, err
	}
	ix := make([]*gridindex.Index, 0, len(next))
	for _, r := range refs {
		if x := next[served[r.Key]]; x != nil {
			ix = append(ix, x)
		}
	}
	// Real datasets before fixtures.
	slices.SortStableFunc(ix, func(a, b *gridindex.Index) int {
		switch fa, fb := a.Meta().Fixture, b.Meta().Fixture; {
		case fa == fb:
			return 0
		case fb:
			return -1
		}
		return 1
	})
	g.mu.Lock()
	defer g.mu.Unlock()
	changed = !maps(g.open, next)
	g.listed, g.served, g.open = refs, served, next
	if changed || g.cur == nil {
		g.cur = ix
		for _, f := range g.subs {
			f(ix)
		}
	}
	if changed {
		g.logger.Info("grid indexes loaded", "where", g.src.Where, "indexes", len(ix))
	}
	return changed, nil
}

// maps reports whether a and b hold the same refs.
func maps(a, b map[Ref]*gridindex.Index) bool {
	if len(a) != len(b) {
		return false
	}
	for r := range a {
		if _, ok := b[r]; !ok {
			return false
		}
	}
	return true
}

// openRefs opens the index of each ref, reusing those already open (a
// ref names the same bytes for ever). The indexes not open are opened side
// by side: on S3 each open is a Stat and a range read, two round trips of
// tens of milliseconds, and a start waits for the slowest index only, not
// their sum. It returns the indexes to serve by ref and the ref served
// under each key.
func (g *Grids) openRefs(ctx context.Context, refs []Ref) (map[Ref]*gridindex.Index, map[string]Ref, error) {
	g.mu.Lock()
	held, heldServed := g.open, g.served
	g.mu.Unlock()
	ix := make([]*gridindex.Index, len(refs))
	errs := make([]error, len(refs))
	var wg sync.WaitGroup
	for i, r := range refs {
		if ix[i] = held[r]; ix[i] != nil {
			continue
		}
		if c, ok := g.src.Indexes.(*blob.Cached); ok && r.Version != "" {
			c.Invalidate(r.Key) // the key names other bytes now
		}
		wg.Go(func() {
			var err error
			if ix[i], err = gridindex.Open(ctx, g.src.Indexes, r.Key, gridindex.Options{CacheBytes: g.src.CacheBytes}); err != nil {
				errs[i] = fmt.Errorf("open %s%s: %w", g.src.Where, r.Key, err)
				return
			}

		})
	}
	wg.Wait()
	if g.src.WarmBytes > 0 {
		g.warm(ctx, refs, ix, errs, held)
	}
	next := make(map[Ref]*gridindex.Index, len(refs))
	served := make(map[string]Ref, len(refs))
	for i, r := range refs {
		if errs[i] != nil {
			if !g.src.Partial || errors.Is(errs[i], context.Canceled) {
				return nil, nil, errs[i]
			}
			g.logger.Error("grid index does not open; keeping what was served", "where", g.src.Where, "file", r.Key, "err", errs[i])
			if old, ok := heldServed[r.Key]; ok && held[old] != nil {
				next[old], served[r.Key] = held[old], old
			}
			continue
		}
		if held[r] == nil {
			m := ix[i].Meta()
			g.logger.Info("grid index loaded", "where", g.src.Where, "file", r.Key, "source", m.Source, "records", m.Records, "fixture", m.Fixture)
		}
		next[r], served[r.Key] = ix[i], r
	}
	return next, served, nil
}

// warm fills the caches of the indexes just opened (not in held), in
// refs' order, while the set's caches hold less than WarmBytes. An index
// that fails to warm does not open.
func (g *Grids) warm(ctx context.Context, refs []Ref, ix []*gridindex.Index, errs []error, held map[Ref]*gridindex.Index) {
	var used int64
	for i, r := range refs {
		if ix[i] != nil && held[r] != nil {
			used += ix[i].CacheStats().Bytes
		}
	}
	for i, r := range refs {
		if ix[i] == nil || held[r] != nil || errs[i] != nil || used >= g.src.WarmBytes {
			continue
		}
		t0 := time.Now()
		st, err := ix[i].Warm(ctx, runtime.GOMAXPROCS(0), g.src.WarmBytes-used)
		if err != nil {
			errs[i] = fmt.Errorf("warm %s%s: %w", g.src.Where, r.Key, err)
			continue
		}
		cs := ix[i].CacheStats()
		used += cs.Bytes
		g.logger.Info("grid index warmed", "file", r.Key, "pages", st.Pages, "blocks", st.Blocks, "stopped_full", st.Full,
			"cache_mib", cs.Bytes>>20, "duration_ms", time.Since(t0).Milliseconds())
	}
}

// Dir is the source of the index files in dir whose names end in ext,
// except those starting with "." (an ingest's temporary file), by name,
// read through a blob.OpenDir: files kept open, read from the page cache.
// A file's version is its size and modification time, so a file replaced
// (an ingest renames a new index over the old) is opened again; requests
// in flight finish on the file they opened. A directory that does not
// exist holds no indexes. The source is Partial: an index that does not
// open (another release's format, a corrupt file) is logged, not fatal.
func Dir(dir, ext string, recheck time.Duration, cacheBytes int64) Source {
	return Source{
		Indexes: blob.NewOpenDir(dir),
		List: func(context.Context) ([]Ref, error) {
			names, err := Names(dir, ext)
			if err != nil {
				return nil, err
			}
			refs := make([]Ref, 0, len(names))
			for _, n := range names {
				fi, err := os.Stat(filepath.Join(dir, n))
				if err != nil {
					continue // removed since it was listed
				}
				refs = append(refs, Ref{Key: n, Version: fmt.Sprintf("%d:%d", fi.Size(), fi.ModTime().UnixNano())})
			}
			return refs, nil
		},
		Where:      dir + string(filepath.Separator),
		Recheck:    recheck,
		CacheBytes: cacheBytes,
		Partial:    true,
	}
}

// Names lists the index files of dir Dir serves, sorted.
func Names(dir, ext string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var names []string
	for _, e := range entries {
		if n := e.Name(); !e.IsDir() && strings.HasSuffix(n, ext) && !strings.HasPrefix(n, ".") {
			names = append(names, n)
		}
	}
	slices.Sort(names)
	return names, nil
}
