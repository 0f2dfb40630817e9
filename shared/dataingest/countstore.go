package dataingest

import (
	"context"
	"sort"
	"strings"
	"sync"

	"meridian/shared/kv"
)

// countStore is a kv.Store that keeps nothing: it counts the items a
// publish would write, by kind (the partition key's first segment after
// the dataset version, "LSD", "OP", "QS" …), so `meridian ingest … -check`
// can run the real ingest end to end and say what it would publish without
// touching the served data. Memory is one counter per kind.
type countStore struct {
	mu     sync.Mutex
	items  int
	bytes  int64
	byKind map[string]int
}

func newCountStore() *countStore { return &countStore{byKind: map[string]int{}} }

func (s *countStore) Get(context.Context, string, string) (kv.Item, bool, error) {
	return kv.Item{}, false, nil
}

func (s *countStore) Query(context.Context, kv.Query) (kv.Page, error) { return kv.Page{}, nil }

func (s *countStore) Put(_ context.Context, items []kv.Item) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, it := range items {
		pk := it.PK
		at := strings.IndexByte(pk, '@')
		if at < 0 {
			continue // the dataset's pointer and version counter, not data
		}
		rest := pk[at+1:]
		if i := strings.IndexByte(rest, '#'); i >= 0 {
			rest = rest[i+1:]
		}
		kind := rest
		if i := strings.IndexByte(kind, '#'); i >= 0 {
			kind = kind[:i]
		}
		s.items++
		s.bytes += int64(len(it.PK) + len(it.SK) + len(it.Data))
		s.byKind[kind]++
	}
	return nil
}

// Swap counts nothing: the control items it writes are not data.
func (s *countStore) Swap(context.Context, kv.Item, []byte) (bool, error) { return true, nil }

func (s *countStore) Delete(context.Context, []kv.Key) error { return nil }

func (s *countStore) ScanKeys(context.Context, string, func([]kv.Key) error) error { return nil }

func (s *countStore) Close() error { return nil }

// kinds lists the counts, most items first.
func (s *countStore) kinds() []kindCount {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]kindCount, 0, len(s.byKind))
	for k, n := range s.byKind {
		out = append(out, kindCount{k, n})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].n != out[j].n {
			return out[i].n > out[j].n
		}
		return out[i].kind < out[j].kind
	})
	return out
}

type kindCount struct {
	kind string
	n    int
}
