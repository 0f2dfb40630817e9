package boltdir

import (
	"fmt"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"meridian/shared/kv"
)

// Live is a server's view of a Dir: the version CURRENT named when it last
// looked, opened read-only, with a value built over it (the handlers that
// read it). A request takes the version with Acquire and gives it back
// with the release function; Reload switches to a new CURRENT for the
// requests that start afterwards and closes the old file once the last
// request holding it has released it. So a request reads one version from
// its first read to its last.
type Live[T any] struct {
	dir   Dir
	build func(kv.Store) T

	reload sync.Mutex // one Reload at a time
	mu     sync.RWMutex
	cur    *snapshot[T]
}

// snapshot is one opened version. refs counts the Live's own reference
// (until replaced) and each request holding it.
type snapshot[T any] struct {
	name  string // "" when nothing was published
	store kv.Store
	value T
	refs  atomic.Int64
}

func (s *snapshot[T]) release() {
	if s.refs.Add(-1) == 0 {
		s.store.Close()
	}
}

// NewLive opens the version CURRENT names (an empty store when none) and
// builds its value.
func NewLive[T any](d Dir, build func(kv.Store) T) (*Live[T], error) {
	l := &Live[T]{dir: d, build: build}
	name, err := d.Current()
	if err != nil {
		return nil, err
	}
	s, err := l.open(name)
	if err != nil {
		return nil, err
	}
	l.cur = s
	return l, nil
}

// open opens the version file name ("": an empty store).
func (l *Live[T]) open(name string) (*snapshot[T], error) {
	var store kv.Store = kv.NewMem()
	if name != "" {
		b, err := kv.OpenBolt(filepath.Join(l.dir.path, name), kv.BoltOptions{ReadOnly: true, Timeout: time.Second, ReleaseEvery: ServeRelease, RandomAccess: true})
		if err != nil {
			return nil, err
		}
		store = b
	}
	s := &snapshot[T]{name: name, store: store, value: l.build(store)}
	s.refs.Store(1)
	return s, nil
}

// Acquire returns the current version's value and name ("" when nothing
// is published); call release when done with it.
func (l *Live[T]) Acquire() (value T, name string, release func()) {
	s := l.acquire()
	return s.value, s.name, s.release
}

// AcquireStore is Acquire for a reader of the version's store itself
// (the webhooks' dispatch reads the served energy version): the store,
// its name ("" when nothing is published: the store is empty) and the
// release function.
func (l *Live[T]) AcquireStore() (store kv.Store, name string, release func()) {
	s := l.acquire()
	return s.store, s.name, s.release
}

// acquire takes a reference on the current version: release it with its
// release method.
func (l *Live[T]) acquire() *snapshot[T] {
	l.mu.RLock()
	defer l.mu.RUnlock()
	s := l.cur
	s.refs.Add(1)
	return s
}

// Reload switches to the version CURRENT names if it changed, and says
// whether it did. On an error (CURRENT unreadable, the file does not open)
// the version served stays.
func (l *Live[T]) Reload() (changed bool, err error) {
	l.reload.Lock()
	defer l.reload.Unlock()
	name, err := l.dir.Current()
	if err != nil {
		return false, err
	}
	l.mu.RLock()
	same := name == l.cur.name
	l.mu.RUnlock()
	if same {
		return false, nil
	}
	s, err := l.open(name)
	if err != nil {
		return false, fmt.Errorf("boltdir: %s: keeping %s: %w", l.dir.path, l.Name(), err)
	}
	l.mu.Lock()
	old := l.cur
	l.cur = s
	l.mu.Unlock()
	old.release()
	return true, nil
}

// Name returns the file name of the version served ("" when none).
func (l *Live[T]) Name() string {
	l.mu.RLock()
	defer l.mu.RUnlock()
	return l.cur.name
}

// Close gives up the Live's reference: the file closes once the requests
// holding it are done. The Live must not be used afterwards.
func (l *Live[T]) Close() error {
	l.mu.Lock()
	s := l.cur
	l.mu.Unlock()
	s.release()
	return nil
}
