package archive

import (
	"context"
	"errors"
	"io/fs"
	"sync"
	"time"

	"meridian/shared/blob"
	"meridian/shared/tile"
)

// Set finds the built archives of layers in a store, at tile.Layer.Key
// ("ab/sec.pmtiles"), opening each on first use. It checks the store again
// at most every recheck for an archive that appeared, changed or went away,
// so a build or an upload takes effect without a restart. It implements
// tile.Archives and is safe for concurrent use.
type Set struct {
	store   blob.Store
	recheck time.Duration

	mu   sync.Mutex
	open map[string]*setEntry
}

type setEntry struct {
	mu      sync.Mutex
	r       *Reader // nil: not built
	tag     string  // the store's version tag of what r reads
	checked time.Time
}

// NewSet returns a Set over store; recheck <= 0 checks every time.
func NewSet(store blob.Store, recheck time.Duration) *Set {
	return &Set{store: store, recheck: recheck, open: map[string]*setEntry{}}
}

// Archive returns layer l's archive, or (nil, nil) when none is built. A
// store that cannot be read is a 503-kind error; an archive that is there
// but does not open is an error naming it.
func (s *Set) Archive(ctx context.Context, l tile.Layer) (tile.Archive, error) {
	r, err := s.Reader(ctx, l.Key())
	if r == nil || err != nil {
		return nil, err
	}
	return r, nil
}

// Reader returns the archive at key, or (nil, nil) when there is none.
func (s *Set) Reader(ctx context.Context, key string) (*Reader, error) {
	s.mu.Lock()
	e := s.open[key]
	if e == nil {
		e = &setEntry{}
		s.open[key] = e
	}
	s.mu.Unlock()

	e.mu.Lock()
	defer e.mu.Unlock()
	if !e.checked.IsZero() && time.Since(e.checked) < s.recheck {
		return e.r, nil
	}
	info, err := s.store.Stat(ctx, key)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		e.r, e.tag, e.checked = nil, "", time.Now()
		return nil, nil
	case err != nil:
		return nil, blob.AsAPIError(err, "the tile archive store")
	}
	if e.r != nil && info.ETag == e.tag {
		e.checked = time.Now()
		return e.r, nil
	}
	if c, ok := s.store.(*blob.Cached); ok {
		c.Invalidate(key)
	}
	r, err := Open(ctx, s.store, key)
	if err != nil {
		if e.r != nil { // a replacement that does not open: keep serving the old
			e.checked = time.Now()
			return e.r, nil
		}
		return nil, err
	}
	e.r, e.tag, e.checked = r, info.ETag, time.Now()
	return r, nil
}
