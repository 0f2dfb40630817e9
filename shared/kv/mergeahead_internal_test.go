package kv

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
)

// sliceSource is a mergeSource over sorted items in memory; reads counts
// its calls to next.
type sliceSource struct {
	items [][2][]byte
	i     int
	reads *atomic.Int64
	fail  int // next fails at this item (1-based); 0: never
}

func (s *sliceSource) next() (bool, error) {
	if s.reads != nil {
		s.reads.Add(1)
	}
	if s.fail > 0 && s.i+1 == s.fail {
		return false, errors.New("source broke")
	}
	if s.i >= len(s.items) {
		return false, nil
	}
	s.i++
	return true, nil
}

func (s *sliceSource) cur() ([]byte, []byte) { it := s.items[s.i-1]; return it[0], it[1] }

// randomSources returns n sources of sorted, distinct keys per source,
// many keys in several sources, data naming the source; some data empty,
// some larger than a batch.
func randomSources(seed uint64, n, per int) []*sliceSource {
	r := rand.New(rand.NewPCG(seed, 9))
	out := make([]*sliceSource, n)
	for i := range out {
		keys := map[string]bool{}
		for range per {
			keys[fmt.Sprintf("K%05d", r.IntN(per*2))] = true
		}
		sorted := slices.Sorted(func(yield func(string) bool) {
			for k := range keys {
				if !yield(k) {
					return
				}
			}
		})
		s := &sliceSource{}
		for j, k := range sorted {
			d := fmt.Appendf(nil, "src%d:%s", i, strings.Repeat("x", r.IntN(300)))
			switch {
			case j%50 == 7:
				d = []byte{}
			case j%997 == 3:
				d = bytes.Repeat([]byte{'L'}, aheadBatchBytes+1000)
			}
			s.items = append(s.items, [2][]byte{[]byte(k), d})
		}
		out[i] = s
	}
	return out
}

func asSources(ss []*sliceSource) []mergeSource {
	out := make([]mergeSource, len(ss))
	for i, s := range ss {
		s.i = 0
		out[i] = s
	}
	return out
}

// mergeAheadOf is mergeAhead with batches of n bytes.
func mergeAheadOf(n int) func([]mergeSource, func(k, d []byte) error) error {
	return func(srcs []mergeSource, emit func(k, d []byte) error) error { return mergeAhead(srcs, emit, n) }
}

// collect runs fn (merge or mergeAhead) over the sources and returns what
// it emitted, copied.
func collect(fn func([]mergeSource, func(k, d []byte) error) error, ss []*sliceSource) ([][2]string, error) {
	var got [][2]string
	err := fn(asSources(ss), func(k, d []byte) error {
		got = append(got, [2]string{string(k), string(d)})
		return nil
	})
	return got, err
}

// TestMergeLatestWins checks merge against a map of the last write of
// each key over the sources in order.
func TestMergeLatestWins(t *testing.T) {
	ss := randomSources(1, 7, 3000)
	want := map[string]string{}
	for _, s := range ss {
		for _, it := range s.items {
			want[string(it[0])] = string(it[1])
		}
	}
	got, err := collect(merge, ss)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) {
		t.Fatalf("%d items merged, want %d", len(got), len(want))
	}
	for i, it := range got {
		if i > 0 && got[i-1][0] >= it[0] {
			t.Fatalf("item %d: key %q after %q", i, it[0], got[i-1][0])
		}
		if want[it[0]] != it[1] {
			t.Fatalf("key %q: data %.20q, want %.20q (the latest source's)", it[0], it[1], want[it[0]])
		}
	}
}

// TestMergeAhead checks that mergeAhead emits what merge does, item for
// item, across batches and items larger than a batch.
func TestMergeAhead(t *testing.T) {
	for seed := range uint64(4) {
		ss := randomSources(seed, int(seed)*3+1, 5000)
		want, err := collect(merge, ss)
		if err != nil {
			t.Fatal(err)
		}
		got, err := collect(mergeAheadOf(aheadBatchBytes), ss)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, want) {
			t.Fatalf("seed %d: mergeAhead emitted %d items, merge %d, or other ones", seed, len(got), len(want))
		}
	}
	got, err := collect(mergeAheadOf(aheadBatchBytes), nil)
	if err != nil || len(got) != 0 {
		t.Fatalf("no sources: %d items, %v", len(got), err)
	}
}

// TestMergeAheadConsumerError checks that an error of emit is returned
// and ends the merge's goroutine: no source is read once mergeAhead has
// returned, and far fewer than all were.
func TestMergeAheadConsumerError(t *testing.T) {
	ss := randomSources(5, 4, 20000)
	var reads atomic.Int64
	for _, s := range ss {
		s.reads = &reads
	}
	stop := errors.New("enough")
	n := 0
	err := mergeAhead(asSources(ss), func(k, d []byte) error {
		if n++; n == 100 {
			return stop
		}
		return nil
	}, 4<<10)
	if !errors.Is(err, stop) {
		t.Fatalf("error %v, want %v", err, stop)
	}
	if n != 100 {
		t.Fatalf("emit called %d times after its error, want none", n-100)
	}
	after := reads.Load()
	total := 0
	for _, s := range ss {
		total += len(s.items)
	}
	if after > int64(total)/2 {
		t.Fatalf("%d reads of %d items: the merge went on after its consumer stopped", after, total)
	}
	// mergeAhead returned after its goroutine ended: nothing reads now.
	for _, s := range ss {
		s.next()
	}
	if got := reads.Load(); got != after+int64(len(ss)) {
		t.Fatalf("the sources were read %d times after mergeAhead returned", got-after-int64(len(ss)))
	}
}

// TestMergeAheadSourceError checks that a source's error comes back after
// the items merged before it.
func TestMergeAheadSourceError(t *testing.T) {
	ss := randomSources(6, 3, 4000)
	ss[1].fail = 1500
	want, wantErr := collect(merge, ss)
	got, err := collect(mergeAheadOf(aheadBatchBytes), ss)
	if wantErr == nil || err == nil || err.Error() != wantErr.Error() {
		t.Fatalf("error %v, want %v", err, wantErr)
	}
	if !slices.Equal(got, want) {
		t.Fatalf("%d items before the error, merge gave %d", len(got), len(want))
	}
}
