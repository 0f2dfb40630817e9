package blob_test

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"meridian/shared/blob"
	"meridian/shared/blob/blobtest"
)

func TestCachedContract(t *testing.T) {
	tests := []struct {
		name  string
		store func(t *testing.T, objects map[string][]byte) blob.Store
		opts  blob.CacheOptions
	}{
		{"Mem", newMem, blob.CacheOptions{}},
		{"Dir", newDir, blob.CacheOptions{}},
		// Small blocks and a cache smaller than the objects: reads span many
		// blocks, large ones bypass, and concurrent readers evict each other.
		{"Mem small blocks", newMem, blob.CacheOptions{BlockSize: 1000, MaxBytes: 40_000}},
		{"Dir small blocks", newDir, blob.CacheOptions{BlockSize: 4096, MaxBytes: 64 << 10}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			blobtest.Run(t, func(t *testing.T, objects map[string][]byte) blob.Store {
				return blob.NewCached(tc.store(t, objects), tc.opts)
			})
		})
	}
}

// call is one ReadRange that reached the underlying store.
type call struct{ Off, N int64 }

// recorder is a Mem that records the ReadRange calls reaching it and can
// hold them until released.
type recorder struct {
	*blob.Mem
	mu      sync.Mutex
	calls   []call
	gate    chan struct{} // when not nil, reads wait for it to close
	arrived chan struct{} // when not nil, receives one value per read
}

func newRecorder(t *testing.T, objects map[string][]byte) *recorder {
	r := &recorder{Mem: blob.NewMem()}
	blobtest.Fill(t, r.Mem, objects)
	return r
}

func (r *recorder) ReadRange(ctx context.Context, key string, off, n int64) ([]byte, error) {
	r.mu.Lock()
	r.calls = append(r.calls, call{off, n})
	gate, arrived := r.gate, r.arrived
	r.mu.Unlock()
	if arrived != nil {
		arrived <- struct{}{}
	}
	if gate != nil {
		<-gate
	}
	return r.Mem.ReadRange(ctx, key, off, n)
}

func (r *recorder) takeCalls() []call {
	r.mu.Lock()
	defer r.mu.Unlock()
	c := r.calls
	r.calls = nil
	return c
}

const kb = 1024

func object(size int) []byte {
	b := make([]byte, size)
	for i := range b {
		b[i] = byte(i * 7)
	}
	return b
}

// TestCachedCoalesce checks which underlying reads a read makes, given the
// blocks already cached.
func TestCachedCoalesce(t *testing.T) {
	tests := []struct {
		name   string
		warm   []call // reads made first
		read   call
		want   []call // underlying reads of read
		hits   int64
		misses int64
	}{
		{name: "three missing blocks, one read", read: call{kb - 10, kb + 20}, want: []call{{0, 3 * kb}}, misses: 3},
		{name: "within one block", read: call{10, 100}, want: []call{{0, kb}}, misses: 1},
		{name: "all cached", warm: []call{{0, 3 * kb}}, read: call{100, 2 * kb}, want: nil, hits: 3},
		{name: "middle cached: two reads", warm: []call{{kb, 10}}, read: call{0, 3 * kb}, want: []call{{0, kb}, {2 * kb, kb}}, hits: 1, misses: 2},
		{name: "ends cached: one read", warm: []call{{0, 10}, {3 * kb, 10}}, read: call{0, 4 * kb}, want: []call{{kb, 2 * kb}}, hits: 2, misses: 2},
		{name: "past the end", read: call{20 * kb, 10}, want: []call{{20 * kb, kb}}, misses: 1},
		{name: "past the end, cached", warm: []call{{20 * kb, 10}}, read: call{20 * kb, 10}, want: nil, hits: 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rec := newRecorder(t, map[string][]byte{"k": object(10 * kb)})
			c := blob.NewCached(rec, blob.CacheOptions{BlockSize: kb, MaxBytes: 100 * kb})
			for _, w := range tc.warm {
				if _, err := c.ReadRange(t.Context(), "k", w.Off, w.N); err != nil {
					t.Fatal(err)
				}
			}
			rec.takeCalls()
			before := c.Stats()
			got, err := c.ReadRange(t.Context(), "k", tc.read.Off, tc.read.N)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, clipTo(object(10*kb), tc.read.Off, tc.read.N)) {
				t.Errorf("ReadRange(%d, %d) returned the wrong bytes", tc.read.Off, tc.read.N)
			}
			calls := rec.takeCalls()
			// Separate runs are fetched concurrently, in any order.
			byOff := cmpopts.SortSlices(func(a, b call) bool { return a.Off < b.Off })
			if d := cmp.Diff(tc.want, calls, cmpopts.EquateEmpty(), byOff); d != "" {
				t.Errorf("underlying reads mismatch (-want +got):\n%s", d)
			}
			after := c.Stats()
			if h, m := after.Hits-before.Hits, after.Misses-before.Misses; h != tc.hits || m != tc.misses {
				t.Errorf("hits, misses = %d, %d; want %d, %d", h, m, tc.hits, tc.misses)
			}
			if r := after.Reads - before.Reads; r != int64(len(tc.want)) {
				t.Errorf("Stats().Reads grew by %d, want %d", r, len(tc.want))
			}
		})
	}
}

func clipTo(b []byte, off, n int64) []byte {
	if off >= int64(len(b)) {
		return nil
	}
	return b[off:min(int64(len(b)), off+n)]
}

func TestCachedHitsAndMisses(t *testing.T) {
	rec := newRecorder(t, map[string][]byte{"k": object(10 * kb)})
	c := blob.NewCached(rec, blob.CacheOptions{BlockSize: kb, MaxBytes: 100 * kb})
	for range 3 {
		if _, err := c.ReadRange(t.Context(), "k", 500, kb); err != nil {
			t.Fatal(err)
		}
	}
	want := blob.CacheStats{Reads: 1, Bytes: 2 * kb, Hits: 4, Misses: 2, Size: c.Stats().Size}
	if d := cmp.Diff(want, c.Stats()); d != "" {
		t.Errorf("Stats mismatch (-want +got):\n%s", d)
	}
	if s := c.Stats().Size; s < 2*kb || s > 2*kb+1024 {
		t.Errorf("Stats().Size = %d, want 2 KiB plus a small overhead", s)
	}
}

func TestCachedLRU(t *testing.T) {
	const blocks = 8
	rec := newRecorder(t, map[string][]byte{"k": object(100 * kb), "other": object(10 * kb)})
	// Room for 8 blocks and their overhead, not 9.
	c := blob.NewCached(rec, blob.CacheOptions{BlockSize: kb, MaxBytes: blocks * (kb + 200)})
	read := func(key string, block int64) {
		t.Helper()
		got, err := c.ReadRange(t.Context(), key, block*kb, kb)
		if err != nil || len(got) != kb {
			t.Fatalf("ReadRange(%s, block %d) = %d bytes, %v", key, block, len(got), err)
		}
	}
	max := int64(blocks * (kb + 200))
	for i := range int64(20) {
		read("k", i)
		if s := c.Stats().Size; s > max {
			t.Fatalf("after %d blocks, Size = %d, over MaxBytes %d", i+1, s, max)
		}
	}
	if e := c.Stats().Evictions; e != 20-blocks {
		t.Errorf("Evictions = %d, want %d", e, 20-blocks)
	}
	// Blocks 12..19 are cached; touch 12 so that 13 is the oldest.
	rec.takeCalls()
	read("k", 12)
	read("other", 0) // evicts 13
	read("k", 12)
	if calls := rec.takeCalls(); len(calls) != 1 {
		t.Errorf("reads after touching block 12: %d underlying reads, want 1 (for other)", len(calls))
	}
	read("k", 13)
	if calls := rec.takeCalls(); len(calls) != 1 {
		t.Errorf("block 13 should have been evicted; underlying reads = %v", calls)
	}
}

func TestCachedBypass(t *testing.T) {
	rec := newRecorder(t, map[string][]byte{"k": object(100 * kb)})
	c := blob.NewCached(rec, blob.CacheOptions{BlockSize: kb, MaxBytes: 16 * kb})
	got, err := c.ReadRange(t.Context(), "k", 0, 50*kb)
	if err != nil || !bytes.Equal(got, object(100 * kb)[:50*kb]) {
		t.Fatalf("large ReadRange = %d bytes, %v", len(got), err)
	}
	if d := cmp.Diff([]call{{0, 50 * kb}}, rec.takeCalls()); d != "" {
		t.Errorf("underlying reads mismatch (-want +got):\n%s", d)
	}
	if s := c.Stats(); s.Size != 0 || s.Reads != 1 || s.Hits != 0 || s.Misses != 0 {
		t.Errorf("after a bypassing read, Stats = %+v; want 1 read and nothing cached", s)
	}
}

func TestCachedETagInvalidates(t *testing.T) {
	ctx := t.Context()
	rec := newRecorder(t, map[string][]byte{"grid.idx": []byte("version one")})
	c := blob.NewCached(rec, blob.CacheOptions{BlockSize: kb})
	read := func() string {
		t.Helper()
		b, err := c.ReadRange(ctx, "grid.idx", 0, 100)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	if _, err := c.Stat(ctx, "grid.idx"); err != nil {
		t.Fatal(err)
	}
	read()
	read()
	if r := c.Stats().Reads; r != 1 {
		t.Fatalf("two reads made %d underlying reads, want 1", r)
	}
	if _, err := c.Stat(ctx, "grid.idx"); err != nil { // same ETag: keeps the blocks
		t.Fatal(err)
	}
	read()
	if r := c.Stats().Reads; r != 1 {
		t.Errorf("a Stat with the same ETag dropped the blocks: %d underlying reads", r)
	}

	blobtest.Fill(t, rec.Mem, map[string][]byte{"grid.idx": []byte("version two")})
	if got := read(); got != "version one" {
		t.Errorf("before Stat, ReadRange = %q; want the cached %q", got, "version one")
	}
	if _, err := c.Stat(ctx, "grid.idx"); err != nil {
		t.Fatal(err)
	}
	if got := read(); got != "version two" {
		t.Errorf("after Stat saw a new ETag, ReadRange = %q, want %q", got, "version two")
	}

	c.Invalidate("grid.idx")
	read()
	if r := c.Stats().Reads; r != 3 {
		t.Errorf("after Invalidate: %d underlying reads in all, want 3", r)
	}

	rec.Mem.Delete("grid.idx")
	if _, err := c.Stat(ctx, "grid.idx"); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("Stat of a deleted key: %v", err)
	}
	if _, err := c.ReadRange(ctx, "grid.idx", 0, 10); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("ReadRange after the key was deleted and Stat saw it: error = %v, want fs.ErrNotExist", err)
	}
	if s := c.Stats().Size; s != 0 {
		t.Errorf("Size = %d after the only key was invalidated, want 0", s)
	}
}

// TestCachedFirstStatAfterReads checks that blocks read before any Stat are
// dropped by the first Stat: their version is unknown.
func TestCachedFirstStatAfterReads(t *testing.T) {
	rec := newRecorder(t, map[string][]byte{"k": []byte("one")})
	c := blob.NewCached(rec, blob.CacheOptions{BlockSize: kb})
	c.ReadRange(t.Context(), "k", 0, 10)
	blobtest.Fill(t, rec.Mem, map[string][]byte{"k": []byte("two")})
	c.Stat(t.Context(), "k")
	if got, _ := c.ReadRange(t.Context(), "k", 0, 10); string(got) != "two" {
		t.Errorf("ReadRange = %q, want %q", got, "two")
	}
}

// TestCachedSingleFlight checks that concurrent reads of the same missing
// blocks make one underlying read.
func TestCachedSingleFlight(t *testing.T) {
	const readers = 10
	rec := newRecorder(t, map[string][]byte{"k": object(10 * kb)})
	rec.gate = make(chan struct{})
	c := blob.NewCached(rec, blob.CacheOptions{BlockSize: kb, MaxBytes: 100 * kb})
	var wg sync.WaitGroup
	for range readers {
		wg.Go(func() {
			got, err := c.ReadRange(t.Context(), "k", 100, kb+500) // blocks 0 and 1
			if err != nil || !bytes.Equal(got, object(10 * kb)[100:100+kb+500]) {
				t.Errorf("ReadRange = %d bytes, %v", len(got), err)
			}
		})
	}
	// Every reader has registered its two missing blocks before the one
	// underlying read is let through.
	waitFor(t, func() bool { return c.Stats().Misses == 2*readers })
	close(rec.gate)
	wg.Wait()
	if calls := rec.takeCalls(); len(calls) != 1 {
		t.Errorf("%d concurrent identical reads made %d underlying reads %v, want 1", readers, len(calls), calls)
	}
}

// TestCachedCallerGivesUp checks that a caller canceling its read does not
// fail another caller waiting for the same blocks, and that the blocks are
// still cached.
func TestCachedCallerGivesUp(t *testing.T) {
	rec := newRecorder(t, map[string][]byte{"k": object(10 * kb)})
	rec.gate = make(chan struct{})
	rec.arrived = make(chan struct{}, 10)
	c := blob.NewCached(rec, blob.CacheOptions{BlockSize: kb, MaxBytes: 100 * kb})

	ctx, cancel := context.WithCancel(t.Context())
	first := make(chan error, 1)
	go func() {
		_, err := c.ReadRange(ctx, "k", 0, 10)
		first <- err
	}()
	<-rec.arrived // the first caller's fetch is under way
	second := make(chan error, 1)
	go func() {
		got, err := c.ReadRange(t.Context(), "k", 0, 10)
		if err == nil && !bytes.Equal(got, object(10)) {
			err = errors.New("wrong bytes")
		}
		second <- err
	}()
	waitFor(t, func() bool { return c.Stats().Misses == 2 })
	cancel()
	if err := <-first; !errors.Is(err, context.Canceled) {
		t.Errorf("canceled caller: error = %v, want context.Canceled", err)
	}
	close(rec.gate)
	if err := <-second; err != nil {
		t.Errorf("the other caller: %v", err)
	}
	if _, err := c.ReadRange(t.Context(), "k", 0, 10); err != nil || c.Stats().Reads != 1 {
		t.Errorf("after both: %v, %d underlying reads; want the block cached by the one read", err, c.Stats().Reads)
	}
}

// TestCachedInvalidateDuringFetch checks that a fetch started before
// Invalidate does not cache its blocks.
func TestCachedInvalidateDuringFetch(t *testing.T) {
	rec := newRecorder(t, map[string][]byte{"k": []byte("old")})
	rec.gate = make(chan struct{})
	rec.arrived = make(chan struct{}, 10)
	c := blob.NewCached(rec, blob.CacheOptions{BlockSize: kb})
	done := make(chan struct{})
	go func() {
		defer close(done)
		c.ReadRange(t.Context(), "k", 0, 10)
	}()
	<-rec.arrived
	c.Invalidate("k")
	blobtest.Fill(t, rec.Mem, map[string][]byte{"k": []byte("new")})
	close(rec.gate)
	<-done
	if got, err := c.ReadRange(t.Context(), "k", 0, 10); err != nil || string(got) != "new" {
		t.Errorf("ReadRange after Invalidate during a fetch = %q, %v; want %q", got, err, "new")
	}
}

func TestCachedErrorsAreNotCached(t *testing.T) {
	m := blob.NewMem()
	c := blob.NewCached(m, blob.CacheOptions{BlockSize: kb})
	if _, err := c.ReadRange(t.Context(), "k", 0, 10); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("ReadRange of a missing key: %v", err)
	}
	blobtest.Fill(t, m, map[string][]byte{"k": []byte("here now")})
	if got, err := c.ReadRange(t.Context(), "k", 0, 10); err != nil || string(got) != "here now" {
		t.Errorf("ReadRange after the key appeared = %q, %v", got, err)
	}
}

func TestCachedDirUnderCounting(t *testing.T) {
	d := blob.NewDir(filepath.Join(t.TempDir(), "d"))
	blobtest.Fill(t, d, map[string][]byte{"grid/ab.idx": object(200 * kb)})
	counting := blob.NewCounting(d)
	c := blob.NewCached(counting, blob.CacheOptions{})
	for range 5 {
		if _, err := c.ReadRange(t.Context(), "grid/ab.idx", 1000, 16*kb); err != nil {
			t.Fatal(err)
		}
	}
	if got := counting.Stats(); got.Reads != 1 || got.Bytes != 64*kb {
		t.Errorf("Counting under Cached = %+v, want 1 read of one 64 KiB block", got)
	}
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(time.Minute) // only stops a hang: a loaded machine can starve cond for seconds
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not reached in a minute")
		}
		time.Sleep(time.Millisecond)
	}
}

// FuzzCachedReadRange checks that Cached returns what the store under it
// returns, for any block size and reads that hit, miss or half-hit.
func FuzzCachedReadRange(f *testing.F) {
	f.Add(int64(0), int64(100), int64(50), int64(3000), uint16(1000))
	f.Add(int64(999), int64(2), int64(4999), int64(10), uint16(1000))
	f.Add(int64(5000), int64(0), int64(4096), int64(4096), uint16(4096))
	f.Add(int64(1), int64(1<<40), int64(7), int64(1), uint16(1))
	f.Fuzz(func(t *testing.T, off1, n1, off2, n2 int64, bs uint16) {
		m := blob.NewMem()
		blobtest.Fill(t, m, map[string][]byte{"k": object(5000)})
		c := blob.NewCached(m, blob.CacheOptions{BlockSize: int64(bs%2048) + 1, MaxBytes: 20_000})
		for _, r := range [][2]int64{{off1, n1}, {off2, n2}, {off1, n1}} {
			want, wantErr := m.ReadRange(t.Context(), "k", r[0], r[1])
			got, err := c.ReadRange(t.Context(), "k", r[0], r[1])
			if (err != nil) != (wantErr != nil) || !bytes.Equal(got, want) {
				t.Fatalf("Cached.ReadRange(%d, %d) = %d bytes, %v; Mem gives %d bytes, %v", r[0], r[1], len(got), err, len(want), wantErr)
			}
		}
	})
}
