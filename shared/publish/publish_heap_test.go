//go:build heaptest

package publish

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"meridian/shared/internal/heaptest"
	"meridian/shared/kv"
	"meridian/shared/kv/dynamokv"
	"meridian/shared/kv/dynamokv/dynamokvtest"
)

// heapSink takes every batch write after half a millisecond (slower than
// the source reads, so that a publish that did not wait for its writes
// would pile them up) and drops it, sampling the heap in use (after a GC)
// every 40 calls; the other calls go to the emulator.
type heapSink struct {
	dynamokv.API
	calls, items atomic.Int64
	peak         atomic.Uint64
}

func (h *heapSink) BatchWriteItem(ctx context.Context, in *dynamodb.BatchWriteItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.BatchWriteItemOutput, error) {
	time.Sleep(500 * time.Microsecond)
	for _, reqs := range in.RequestItems {
		h.items.Add(int64(len(reqs)))
	}
	if h.calls.Add(1)%40 == 0 {
		var ms runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&ms)
		for {
			p := h.peak.Load()
			if ms.HeapInuse <= p || h.peak.CompareAndSwap(p, ms.HeapInuse) {
				break
			}
		}
	}
	return &dynamodb.BatchWriteItemOutput{}, nil
}

// Publishing a report dataset to DynamoDB streams it: the heap while
// copying 48,000 items from a bbolt store is no larger than while copying
// 6,000 (a bbolt scan batch of keys and the write stream's batches, not
// the dataset).
func TestDatasetHeapFlat(t *testing.T) {
	if testing.Short() {
		t.Skip("copies 56,000 items")
	}
	ctx := context.Background()
	dc, _ := dynamokvtest.Minidyn(t, "reports")
	attempts := 0
	peak := func(n int) uint64 {
		src, err := kv.OpenBolt(filepath.Join(t.TempDir(), "reports.db"), kv.BoltOptions{})
		if err != nil {
			t.Fatal(err)
		}
		defer src.Close()
		name := fmt.Sprintf("heap%d-%d", n, attempts)
		_, err = kv.Publish(ctx, src, kv.DatasetInfo{Name: name, Source: "test"}, func(w *kv.Writer) error {
			for i := range n {
				data := fmt.Appendf(nil, `{"uwi":"100/%02d-%02d-%03d-%02dW4/0","operator":"Juniper Bend Energy Corp. (demo)","status":"Pumping","fluid":"crude oil","depth_m":%d.5}`,
					i%16+1, i/16%36+1, i/576%126+1, i%30+1, 1000+i%3000)
				if err := w.PutRaw(fmt.Sprintf("LSD#%07d", i/20), fmt.Sprintf("WELL#%07d", i), data); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		// Setting up the source leaves bbolt's page buffers of its load
		// (one transaction's worth) in a sync.Pool, which one collection
		// only moves to the victim cache: two empty it, so the samples
		// measure the publish alone.
		runtime.GC()
		runtime.GC()
		sink := &heapSink{API: dc}
		remote := dynamokv.New(sink, "reports", dynamokv.Options{Timeout: time.Minute, WriteConcurrency: DefaultWorkers})
		if err := Dataset(ctx, src, remote, name, false, io.Discard); err != nil {
			t.Fatal(err)
		}
		if got := sink.items.Load(); got != int64(n) {
			t.Fatalf("copied %d items, want %d", got, n)
		}
		return sink.peak.Load()
	}
	peak(2_000) // warms up what is made once (the SDK's and HTTP's pools)
	// The best of three attempts (heaptest.LowestBy): the lowest growth.
	type attempt struct{ small, large uint64 }
	a := heaptest.LowestBy(2<<20, func(a attempt) int64 { return int64(a.large) - int64(a.small) }, func() attempt {
		attempts++
		return attempt{peak(6_000), peak(48_000)}
	})
	small, large := a.small, a.large
	t.Logf("heap in use while publishing: %d KiB for 6,000 items, %d KiB for 48,000", small>>10, large>>10)
	if large > small+2<<20 {
		t.Errorf("heap grew from %d KiB to %d KiB with 8 times the items: the publish is not streaming", small>>10, large>>10)
	}
}
