package blob_test

import (
	"bytes"
	"context"
	"sync"
	"testing"

	"meridian/shared/blob"
)

// firstStore is a Mem that reads first bytes and pinned ranges as S3 does
// (one request each), counting the requests and the bytes asked for.
type firstStore struct {
	*blob.Mem
	mu    sync.Mutex
	calls []string
}

func (s *firstStore) note(what string) {
	s.mu.Lock()
	s.calls = append(s.calls, what)
	s.mu.Unlock()
}

func (s *firstStore) ReadFirst(ctx context.Context, key string, n int64) ([]byte, blob.Info, error) {
	s.note("first")
	info, err := s.Mem.Stat(ctx, key)
	if err != nil {
		return nil, blob.Info{}, err
	}
	b, err := s.Mem.ReadRange(ctx, key, 0, min(n, info.Size))
	return b, info, err
}

func (s *firstStore) ReadRangeIf(ctx context.Context, key, etag string, off, n int64) ([]byte, error) {
	s.note("range")
	info, err := s.Mem.Stat(ctx, key)
	if err != nil {
		return nil, err
	}
	if info.ETag != etag {
		return nil, blob.ErrChanged
	}
	return s.Mem.ReadRange(ctx, key, off, n)
}

func (s *firstStore) count() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.calls)
}

func put(t *testing.T, m *blob.Mem, key string, data []byte) {
	t.Helper()
	if err := m.Put(t.Context(), key, bytes.NewReader(data)); err != nil {
		t.Fatal(err)
	}
}

// An object's first bytes come with the rest of their block, cached under
// the version read: the pinned reads that follow within it ask nothing of
// the store, and those past it do.
func TestCachedReadFirstCachesItsBlocks(t *testing.T) {
	ctx := t.Context()
	data := make([]byte, 200<<10)
	for i := range data {
		data[i] = byte(i * 7)
	}
	s := &firstStore{Mem: blob.NewMem()}
	put(t, s.Mem, "grid/a.mgix", data)
	c := blob.NewCached(s, blob.CacheOptions{BlockSize: 64 << 10, MaxBytes: 8 << 20})

	first, info, err := c.ReadFirst(ctx, "grid/a.mgix", 16<<10)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(first, data[:16<<10]) || info.Size != int64(len(data)) || info.ETag == "" {
		t.Fatalf("ReadFirst = %d bytes (want the first 16 KiB), info %+v", len(first), info)
	}
	if n := s.count(); n != 1 {
		t.Fatalf("ReadFirst made %d requests, want 1", n)
	}
	got, err := c.ReadRangeIf(ctx, "grid/a.mgix", info.ETag, 20<<10, 40<<10)
	if err != nil || !bytes.Equal(got, data[20<<10:60<<10]) {
		t.Fatalf("read within the first block: %d bytes, %v", len(got), err)
	}
	if n := s.count(); n != 1 {
		t.Errorf("a read within the first block made %d more requests, want none", n-1)
	}
	// Past the first block: a request, and the right bytes across the seam.
	got, err = c.ReadRangeIf(ctx, "grid/a.mgix", info.ETag, 60<<10, 10<<10)
	if err != nil || !bytes.Equal(got, data[60<<10:70<<10]) {
		t.Fatalf("read across the first block's end: %d bytes, %v", len(got), err)
	}
	if n := s.count(); n != 2 {
		t.Errorf("a read past the first block made %d requests, want 1", n-1)
	}
	// An unpinned read is not served another version's blocks.
	if _, err := c.ReadRange(ctx, "grid/a.mgix", 0, 10); err != nil {
		t.Fatal(err)
	}
}

// A small object comes whole and is cached whole: its short last block ends
// the object. A read of another object's first bytes leaves it alone.
func TestCachedReadFirstSmallObject(t *testing.T) {
	ctx := t.Context()
	data := []byte("a small archive, shorter than one block")
	s := &firstStore{Mem: blob.NewMem()}
	put(t, s.Mem, "tiles/x.pmtiles", data)
	c := blob.NewCached(s, blob.CacheOptions{BlockSize: 64 << 10, MaxBytes: 8 << 20})
	first, info, err := c.ReadFirst(ctx, "tiles/x.pmtiles", 8)
	if err != nil || string(first) != "a small " {
		t.Fatalf("ReadFirst = %q, %v", first, err)
	}
	got, err := c.ReadRangeIf(ctx, "tiles/x.pmtiles", info.ETag, 8, int64(len(data))-8)
	if err != nil || string(got) != string(data[8:]) {
		t.Fatalf("rest = %q, %v", got, err)
	}
	if n := s.count(); n != 1 {
		t.Errorf("%d requests, want 1 (the rest was in the first read)", n)
	}
	if st := c.Stats(); st.Size <= int64(len(data)) {
		t.Errorf("cache size %d: the object is not cached", st.Size)
	}
}
