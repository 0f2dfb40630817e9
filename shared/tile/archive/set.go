package archive

import (
	"context"
	"errors"
	"io/fs"
	"strings"
	"sync"
	"time"

	"meridian/shared/blob"
	"meridian/shared/release"
	"meridian/shared/tile"
)

// Set finds the built archives of layers in a store, at tile.Layer.Key
// ("ab/sec.pmtiles"), opening each on first use. It implements
// tile.Archives and is safe for concurrent use.
//
// # Replacing an archive while it is served
//
// A build or an upload replaces an archive in place (a rename over the
// file; a PutObject on the key). Set notices it in two ways:
//
//   - it checks the store's version tag (Stat) at most every recheck, and
//     opens the new version when the tag changed, so a new archive is served
//     at most recheck after it appeared (30 s in the local server);
//   - every read of a Reader is pinned to the version it opened
//     (blob.Pinned), so a request that reaches a replaced archive before
//     the recheck gets blob.ErrChanged, never bytes of the new file at the
//     old file's offsets; the archives Set returns then open the new version
//     at once and answer the request from it (see maxRetries).
//
// A Reader holds no file open (each pinned read opens, compares and closes),
// so nothing is left to close when a version is dropped: requests that
// still hold the old Reader finish or move to the new one, and the old one
// is garbage once the last of them is done.
type Set struct {
	store   blob.Store
	recheck time.Duration

	mu   sync.Mutex
	open map[string]*setEntry

	// release: names are read at the keys the store's release manifest
	// gives (NewReleaseSet); rel is that manifest, read at relAt.
	release bool
	relMu   sync.Mutex
	rel     release.Manifest
	relHas  bool
	relAt   time.Time
}

type setEntry struct {
	mu      sync.Mutex
	r       *Reader // nil: not built
	checked time.Time
}

// NewSet returns a Set over store; recheck <= 0 checks every time.
func NewSet(store blob.Store, recheck time.Duration) *Set {
	return &Set{store: store, recheck: recheck, open: map[string]*setEntry{}}
}

// NewReleaseSet is NewSet over a store that `meridian-publish` writes: a
// release manifest (package release) names the content-addressed key that
// holds each archive, and those keys are never overwritten. Each name is
// read at the key the manifest gives; the manifest is read again at most
// every recheck, so a new release is served within recheck while requests
// holding the old archive keep reading its own bytes. A store without a
// manifest (published before manifests, or one that cannot be listed) is
// read at the names themselves.
func NewReleaseSet(store blob.Store, recheck time.Duration) *Set {
	s := NewSet(store, recheck)
	s.release = true
	return s
}

// Prefetch reads the release manifest now, so that a first request does
// not wait on it: a Lambda's cold start calls it beside its other reads.
// Errors are those a request would meet and are left to it.
func (s *Set) Prefetch(ctx context.Context) {
	s.keyOf(ctx, "")
}

// OpenAll opens every archive the release manifest names (those whose
// name ends in ext, ".pmtiles"), side by side, after reading the manifest
// if it was not yet: a Lambda's cold start calls it beside the grid
// indexes' opening, so that its first tile waits on the tile's own read
// only, not on the archive's header and directory read one after
// another. It holds what serving every layer once would (each archive's
// header and leaf section, within Open's bounds). Errors are those a
// request would meet and are left to it. A Set without a release
// manifest opens nothing.
func (s *Set) OpenAll(ctx context.Context, ext string) {
	s.keyOf(ctx, "")
	s.relMu.Lock()
	var names []string
	if s.relHas {
		for name := range s.rel.Files {
			if strings.HasSuffix(name, ext) {
				names = append(names, name)
			}
		}
	}
	s.relMu.Unlock()
	var wg sync.WaitGroup
	for _, name := range names {
		wg.Go(func() { s.Reader(ctx, name) })
	}
	wg.Wait()
}

// keyOf returns the key holding the archive named name: name itself, or
// the release manifest's key for it; "" when the manifest does not name it
// (no archive).
func (s *Set) keyOf(ctx context.Context, name string) string {
	if !s.release {
		return name
	}
	s.relMu.Lock()
	defer s.relMu.Unlock()
	if s.relAt.IsZero() || time.Since(s.relAt) >= s.recheck {
		if c, ok := s.store.(*blob.Cached); ok {
			// The manifest is replaced in place: its cached blocks
			// would answer the first release for ever.
			c.Invalidate(release.ManifestKey)
		}
		m, ok, err := release.Read(ctx, s.store)
		switch {
		case err == nil:
			s.rel, s.relHas = m, ok
		case !s.relHas:
			// No manifest read yet and none readable: S3 answers a
			// missing key with 403 to a reader that may not list the
			// bucket. Read the names; if the store is really down, that
			// read fails and answers 503.
		}
		// On an error with a manifest in hand, keep serving it.
		s.relAt = time.Now()
	}
	if !s.relHas {
		return name
	}
	k, _ := s.rel.Resolve(name)
	return k
}

// Archive returns layer l's archive, or (nil, nil) when none is built. A
// store that cannot be read is a 503-kind error; an archive that is there
// but does not open is an error naming it. The archive's reads reopen a
// replaced archive once (see the type's doc).
func (s *Set) Archive(ctx context.Context, l tile.Layer) (tile.Archive, error) {
	r, err := s.Reader(ctx, l.Key())
	if r == nil || err != nil {
		return nil, err
	}
	return &setArchive{s: s, key: l.Key(), r: r}, nil
}

// Reader returns the archive at key, or (nil, nil) when there is none.
func (s *Set) Reader(ctx context.Context, key string) (*Reader, error) {
	return s.reader(ctx, key, nil)
}

// reader returns the archive at key, checking the store when the last check
// is older than recheck or when stale, the Reader a caller found changed, is
// still the current one.
func (s *Set) reader(ctx context.Context, key string, stale *Reader) (*Reader, error) {
	s.mu.Lock()
	e := s.open[key]
	if e == nil {
		e = &setEntry{}
		s.open[key] = e
	}
	s.mu.Unlock()

	e.mu.Lock()
	defer e.mu.Unlock()
	if stale != nil && e.r != stale {
		return e.r, nil // another request opened the new version already
	}
	if stale == nil && !e.checked.IsZero() && time.Since(e.checked) < s.recheck {
		return e.r, nil
	}
	if key = s.keyOf(ctx, key); key == "" {
		e.r, e.checked = nil, time.Now() // the release has no such archive
		return nil, nil
	}
	if e.r != nil { // is the version open still the current one?
		info, err := s.store.Stat(ctx, key)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			e.r, e.checked = nil, time.Now()
			return nil, nil
		case err != nil:
			return nil, blob.AsAPIError(err, "the tile archive store")
		}
		if info.ETag == e.r.Version() && stale == nil {
			e.checked = time.Now()
			return e.r, nil
		}
		if c, ok := s.store.(*blob.Cached); ok {
			c.Invalidate(key)
		}
	}
	// Nothing open yet, or a new version: Open reads the version with the
	// header (no Stat before it: a cold start waits on every round trip).
	r, err := Open(ctx, s.store, key)
	if e.r == nil && errors.Is(err, fs.ErrNotExist) {
		e.checked = time.Now()
		return nil, nil
	}
	if err != nil {
		if e.r != nil && stale == nil && !errors.Is(err, blob.ErrChanged) {
			// A replacement that does not open (still being copied in
			// place, or corrupt): keep the old Reader. Its pinned reads
			// serve the old version where the store still has it and fail
			// with ErrChanged where it does not; never a mixture.
			e.checked = time.Now()
			return e.r, nil
		}
		return nil, err
	}
	e.r, e.checked = r, time.Now()
	return r, nil
}

// setArchive is a Set's archive of one key: a Reader, replaced by the
// current one when a read finds its version gone.
type setArchive struct {
	s   *Set
	key string
	r   *Reader
}

// maxRetries bounds how often one request moves to a newer version of its
// archive. One is the rule (the version it opened was replaced); the second
// covers a request that was handed the version another request had just
// opened, replaced again meanwhile, which happens only when replaces come
// faster than a request takes.
const maxRetries = 2

// retry runs fn on a's Reader and, while the archive changed under it, on
// the current Reader, at most maxRetries more times.
func retry[T any](ctx context.Context, a *setArchive, fn func(r *Reader) (T, error)) (T, *Reader, error) {
	r := a.r
	v, err := fn(r)
	for range maxRetries {
		if !errors.Is(err, blob.ErrChanged) {
			break
		}
		next, rerr := a.s.reader(ctx, a.key, r)
		if rerr != nil || next == nil {
			break // the 503 of the changed read
		}
		r, a.r = next, next // a is used by one request
		v, err = fn(r)
	}
	return v, r, err
}

type tileResult struct {
	data []byte
	ok   bool
}

// Tile implements tile.Archive.
func (a *setArchive) Tile(ctx context.Context, z uint8, x, y uint32) ([]byte, bool, error) {
	data, _, ok, err := a.EncodedTile(ctx, z, x, y)
	return data, ok, err
}

// EncodedTile implements tile.EncodedArchive: the tile and the
// Content-Encoding of the archive version it was read from.
func (a *setArchive) EncodedTile(ctx context.Context, z uint8, x, y uint32) ([]byte, string, bool, error) {
	res, r, err := retry(ctx, a, func(r *Reader) (tileResult, error) {
		data, ok, err := r.Tile(ctx, z, x, y)
		return tileResult{data, ok}, err
	})
	return res.data, r.Header().ContentEncoding, res.ok, err
}

// Info implements tile.Describer.
func (a *setArchive) Info(ctx context.Context) (tile.ArchiveInfo, error) {
	info, _, err := retry(ctx, a, func(r *Reader) (tile.ArchiveInfo, error) { return r.Info(ctx) })
	return info, err
}
