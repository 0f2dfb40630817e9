package kv

import (
	"context"
	"slices"
	"sort"
	"strings"
	"sync"
)

// Mem is a Store in memory, the fake for tests. The zero value is not
// usable; call NewMem.
type Mem struct {
	mu    sync.RWMutex
	parts map[string][]memEntry // by PK, sorted by SK
}

type memEntry struct {
	sk   string
	data []byte
}

// NewMem returns an empty in-memory store.
func NewMem() *Mem {
	return &Mem{parts: make(map[string][]memEntry)}
}

// Get implements Store.
func (m *Mem) Get(ctx context.Context, pk, sk string) (Item, bool, error) {
	if err := CheckKey(pk, sk); err != nil {
		return Item{}, false, err
	}
	if err := ctx.Err(); err != nil {
		return Item{}, false, err
	}
	m.mu.RLock()
	defer m.mu.RUnlock()
	part := m.parts[pk]
	i, ok := findSK(part, sk)
	if !ok {
		return Item{}, false, nil
	}
	return Item{PK: pk, SK: sk, Data: cloneData(part[i].data)}, true, nil
}

func findSK(part []memEntry, sk string) (int, bool) {
	return sort.Find(len(part), func(i int) int { return strings.Compare(sk, part[i].sk) })
}

// Query implements Store.
func (m *Mem) Query(ctx context.Context, q Query) (Page, error) {
	limit, err := CheckQuery(q)
	if err != nil {
		return Page{}, err
	}
	if err := ctx.Err(); err != nil {
		return Page{}, err
	}
	b, _, empty := queryBounds(q)
	if empty {
		return Page{}, nil
	}
	m.mu.RLock()
	defer m.mu.RUnlock()
	part := m.parts[q.PK]
	// [start, end) is the range of entries within the bounds.
	start := sort.Search(len(part), func(i int) bool { return b.aboveLo(part[i].sk) })
	end := sort.Search(len(part), func(i int) bool { return !b.belowHi(part[i].sk) })
	if end <= start {
		return Page{}, nil
	}
	var page Page
	n := min(limit, end-start)
	for j := range n {
		i := start + j
		if q.Reverse {
			i = end - 1 - j
		}
		page.Items = append(page.Items, Item{PK: q.PK, SK: part[i].sk, Data: cloneData(part[i].data)})
	}
	if n < end-start {
		page.Next = page.Items[n-1].SK
	}
	return page, nil
}

// Put implements Store: all items or none.
func (m *Mem) Put(ctx context.Context, items []Item) error {
	if err := CheckItems(items); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, it := range items {
		m.setLocked(it)
	}
	return nil
}

// setLocked writes it, in its partition's SK order; m.mu is held.
func (m *Mem) setLocked(it Item) {
	part := m.parts[it.PK]
	i, ok := findSK(part, it.SK)
	e := memEntry{sk: it.SK, data: cloneData(it.Data)}
	if ok {
		part[i] = e
	} else {
		part = slices.Insert(part, i, e)
	}
	m.parts[it.PK] = part
}

// Swap implements Store under the store's lock.
func (m *Mem) Swap(ctx context.Context, item Item, expect []byte) (bool, error) {
	if err := CheckItem(item); err != nil {
		return false, err
	}
	if err := ctx.Err(); err != nil {
		return false, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	part := m.parts[item.PK]
	i, ok := findSK(part, item.SK)
	if !swapHolds(ok, func() []byte { return part[i].data }, expect) {
		return false, nil
	}
	m.setLocked(item)
	return true, nil
}

// Delete implements Store: all keys or none.
func (m *Mem) Delete(ctx context.Context, keys []Key) error {
	if err := CheckKeys(keys); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, k := range keys {
		part := m.parts[k.PK]
		if i, ok := findSK(part, k.SK); ok {
			part = slices.Delete(part, i, i+1)
			if len(part) == 0 {
				delete(m.parts, k.PK)
			} else {
				m.parts[k.PK] = part
			}
		}
	}
	return nil
}

// scanBatch is the number of keys ScanKeys hands to its callback at once on
// Mem and Bolt.
const scanBatch = 1000

// scanItemBytes bounds the keys and data of one ScanItems batch on bbolt.
const scanItemBytes = 4 << 20

// ScanKeys implements Store. Keys come in (PK, SK) order, a batch at a time,
// with the lock released while fn runs.
func (m *Mem) ScanKeys(ctx context.Context, pkPrefix string, fn func([]Key) error) error {
	if err := CheckPrefix(pkPrefix); err != nil {
		return err
	}
	var last *Key
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		batch := m.scanFrom(pkPrefix, last)
		if len(batch) == 0 {
			return nil
		}
		if err := fn(batch); err != nil {
			return err
		}
		last = &batch[len(batch)-1]
	}
}

// ScanItems implements ItemScanner: ScanKeys' batches with each item's
// data (copied).
func (m *Mem) ScanItems(ctx context.Context, pkPrefix string, fn func([]Item) error) error {
	return m.ScanKeys(ctx, pkPrefix, func(keys []Key) error {
		items := make([]Item, 0, len(keys))
		for _, k := range keys {
			it, ok, err := m.Get(ctx, k.PK, k.SK)
			if err != nil {
				return err
			}
			if ok {
				items = append(items, it)
			}
		}
		return fn(items)
	})
}

// scanFrom returns up to scanBatch keys with the PK prefix after last (from
// the start when last is nil).
func (m *Mem) scanFrom(pkPrefix string, last *Key) []Key {
	m.mu.RLock()
	defer m.mu.RUnlock()
	var pks []string
	for pk := range m.parts {
		if strings.HasPrefix(pk, pkPrefix) && (last == nil || pk >= last.PK) {
			pks = append(pks, pk)
		}
	}
	slices.Sort(pks)
	var batch []Key
	for _, pk := range pks {
		for _, e := range m.parts[pk] {
			if last != nil && pk == last.PK && e.sk <= last.SK {
				continue
			}
			batch = append(batch, Key{pk, e.sk})
			if len(batch) == scanBatch {
				return batch
			}
		}
	}
	return batch
}

// Close implements Store; it does nothing.
func (m *Mem) Close() error { return nil }
