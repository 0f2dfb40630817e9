//go:build heaptest

package kv

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"

	"meridian/shared/internal/heaptest"
)

// liveHeap returns the live heap after a collection.
func liveHeap() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// loadHeapBound bounds the growth of the heap a load holds from n to 8n
// items, under a 256 KiB budget, 2,000-item transactions and a fan-in of
// 8: the arena, the merge's buffers and a transaction are the same size
// whatever n. Measured: peaks of 2,061 and 2,062 KiB (25,000 and 200,000
// items); holding the items would take over 20 MiB more at 8n.
const loadHeapBound = 2 << 20

// TestBoltLoadHeapFlat loads n and 8n items and checks that the live heap
// at every spill and commit stays within loadHeapBound of the same (the
// best of three attempts).
func TestBoltLoadHeapFlat(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 230,000 items")
	}
	measure := func(n int) (peak uint64, stages loadStages) {
		stages = loadStages{}
		base := liveHeap()
		b := newLoadBolt(t, loadLimits{budget: 256 << 10, txItems: 2000, fanIn: 8, hook: func(stage string) error {
			stages[stage]++
			h := liveHeap()
			peak = max(peak, h-min(base, h))
			return nil
		}})
		r := rand.New(rand.NewPCG(uint64(n), 1))
		data := []byte(strings.Repeat("d", 100))
		_, err := Publish(t.Context(), b, DatasetInfo{Name: "wells"}, func(w *Writer) error {
			for range n {
				// Fresh key strings per item, as an ingest makes them.
				if err := w.PutRaw(fmt.Sprintf("LSD#%08d", r.IntN(n)), fmt.Sprintf("W%08d", r.Uint32()), data); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		return peak, stages
	}
	measure(5000) // warm-up: what earlier tests left in the heap goes now
	// The best of three attempts (heaptest.LowestBy): the lowest growth.
	type attempt struct {
		small, big uint64
		ss, bs     loadStages
	}
	a := heaptest.LowestBy(loadHeapBound, func(a attempt) int64 { return int64(a.big) - int64(a.small) }, func() (a attempt) {
		a.small, a.ss = measure(25_000)
		a.big, a.bs = measure(200_000)
		return a
	})
	small, ss, big, bs := a.small, a.ss, a.big, a.bs
	t.Logf("peak live heap %d KiB over 25,000 items (%v), %d KiB over 200,000 (%v)", small>>10, ss, big>>10, bs)
	if bs["spill"] < 8*ss["spill"]-8 || bs["commit"] < 4*ss["commit"] {
		t.Fatalf("spills %v then %v: the test does not grow the load", ss, bs)
	}
	if big > small+loadHeapBound {
		t.Errorf("the live heap peaks at %d KiB loading 200,000 items, %d KiB loading 25,000: want at most %d KiB more",
			big>>10, small>>10, loadHeapBound>>10)
	}
}
