package blob_test

import (
	"strings"
	"testing"

	"meridian/shared/blob"
	"meridian/shared/blob/blobtest"
)

func TestPinnedDir(t *testing.T) {
	d := blob.NewDir(t.TempDir())
	blobtest.RunPinned(t, d, d, false)
}

func TestPinnedMem(t *testing.T) {
	m := blob.NewMem()
	blobtest.RunPinned(t, m, m, false)
}

// TestPinnedCachedDir checks that the cache keeps versions apart: blocks
// cached under the old tag may still answer for the old tag (they are that
// version's bytes), a range not cached fails with ErrChanged, and the new
// tag is never served the old blocks, pinned or not.
func TestPinnedCachedDir(t *testing.T) {
	d := blob.NewDir(t.TempDir())
	c := blob.NewCached(d, blob.CacheOptions{BlockSize: 16, MaxBytes: 1 << 10})
	blobtest.RunPinned(t, d, c, true)
	// A pinned read is never answered from the unpinned blocks of the key.
	ctx := t.Context()
	if err := d.Put(ctx, "pin/b.bin", strings.NewReader("aaaaaaaaaaaaaaaaaaaaaaaa")); err != nil {
		t.Fatal(err)
	}
	if _, err := c.ReadRange(ctx, "pin/b.bin", 0, 4); err != nil {
		t.Fatal(err)
	}
	if err := d.Put(ctx, "pin/b.bin", strings.NewReader("bbbbbbbbbbbbbbbbbbbbbbbbbbbbb")); err != nil {
		t.Fatal(err)
	}
	info, err := d.Stat(ctx, "pin/b.bin")
	if err != nil {
		t.Fatal(err)
	}
	if got, err := c.ReadRangeIf(ctx, "pin/b.bin", info.ETag, 0, 4); err != nil || string(got) != "bbbb" {
		t.Errorf("Cached.ReadRangeIf(new tag) = %q, %v; want bbbb", got, err)
	}
}

func TestPinnedCounting(t *testing.T) {
	m := blob.NewMem()
	c := blob.NewCounting(m)
	blobtest.RunPinned(t, m, c, false)
	if got := c.Stats().Reads; got != 6 {
		t.Errorf("Counting reads = %d, want 6", got)
	}
}
