package kv

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
)

// KeySort is an external sort of keys (PK, SK), the sort of a Bolt load
// (boltload.go) without a store: an ingest hands it the keys of the items
// it writes in no particular order and reads them back in key order (PK,
// then SK, bytewise: the order of a Query on every store) once it has
// written them all, to derive what depends on an item's position in its
// partition (package energy: the rank items of the lists).
//
// Memory is the budget (plus 12 bytes of index per key held) and the
// merge's buffers; the keys beyond it are spilled in sorted runs to a
// temporary file, removed by Each or Close. A key added twice comes back
// once.
type KeySort struct {
	l     *boltLoad
	kbuf  []byte
	done  bool
	count int
}

// NewKeySort returns a sort that holds at most budget bytes of keys in
// memory (DefaultSortBudget when 0 or less) and spills the rest to a
// temporary file in dir (the system's temporary directory when "").
func NewKeySort(ctx context.Context, dir string, budget int) *KeySort {
	if dir == "" {
		dir = os.TempDir()
	}
	if budget <= 0 {
		budget = DefaultSortBudget
	}
	s := &KeySort{}
	s.l = &boltLoad{path: filepath.Join(dir, "meridian-keys"), ctx: ctx,
		lim: loadLimits{budget: min(budget, maxSortBudget), fanIn: mergeFanIn}}
	return s
}

// Add adds a key. The PK must not contain a NUL byte (CheckKey).
func (s *KeySort) Add(pk, sk string) error {
	if err := CheckKey(pk, sk); err != nil {
		return err
	}
	s.count++
	s.kbuf = append(s.kbuf[:0], pk...)
	s.kbuf = append(s.kbuf, 0)
	s.kbuf = append(s.kbuf, sk...)
	return s.l.putKey(s.kbuf, nil)
}

// Len is the number of keys added (a key added twice counts twice).
func (s *KeySort) Len() int { return s.count }

// Each calls fn with every key added, in key order, each once, then
// releases the sort: it can be called once. The strings fn gets are its
// own.
func (s *KeySort) Each(fn func(pk, sk string) error) error {
	if s.done {
		return nil
	}
	s.done = true
	s.l.emit = func(k, _ []byte) error {
		i := bytes.IndexByte(k, 0)
		return fn(string(k[:i]), string(k[i+1:]))
	}
	return s.l.Close(false)
}

// Close releases the sort without reading it (after an error); it may
// follow Each.
func (s *KeySort) Close() {
	if !s.done {
		s.done = true
		s.l.Close(true)
	}
}
