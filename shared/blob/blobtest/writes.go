package blobtest

import (
	"bytes"
	"context"
	"errors"
	"io"
	"io/fs"
	"strings"
	"testing"

	"meridian/shared/blob"
)

// Putter is what ingest code needs to write objects.
type Putter interface {
	blob.Store
	Put(ctx context.Context, key string, r io.Reader) error
}

// Fill stores objects in s.
func Fill(t testing.TB, s Putter, objects map[string][]byte) {
	t.Helper()
	for k, v := range objects {
		if err := s.Put(context.Background(), k, bytes.NewReader(v)); err != nil {
			t.Fatalf("Put(%q): %v", k, err)
		}
	}
}

// RunPut checks Put as Dir, Mem and s3blob share it: overwrite, a new ETag,
// invalid keys, and a reader that is not an io.Seeker.
func RunPut(t *testing.T, s Putter) {
	ctx := t.Context()
	if err := s.Put(ctx, "put/a.bin", strings.NewReader("first version")); err != nil {
		t.Fatalf("Put: %v", err)
	}
	before, err := s.Stat(ctx, "put/a.bin")
	if err != nil {
		t.Fatalf("Stat: %v", err)
	}
	if err := s.Put(ctx, "put/a.bin", io.MultiReader(strings.NewReader("second "), strings.NewReader("version!"))); err != nil {
		t.Fatalf("Put again: %v", err)
	}
	after, err := s.Stat(ctx, "put/a.bin")
	if err != nil {
		t.Fatalf("Stat: %v", err)
	}
	if after.Size != 15 || after.ETag == before.ETag {
		t.Errorf("Stat after overwrite = %+v, want size 15 and an ETag other than %q", after, before.ETag)
	}
	got, err := s.ReadRange(ctx, "put/a.bin", 0, 100)
	if err != nil || string(got) != "second version!" {
		t.Errorf("ReadRange after overwrite = %q, %v; want %q", got, err, "second version!")
	}
	for _, key := range []string{"", "/abs", "../up", "a/../b", "dir/"} {
		if err := s.Put(ctx, key, strings.NewReader("x")); !errors.Is(err, fs.ErrInvalid) {
			t.Errorf("Put(%q) error = %v, want fs.ErrInvalid", key, err)
		}
	}
}

// PinnedPutter is a store that writes and reads pinned versions.
type PinnedPutter interface {
	Putter
	blob.Pinned
}

// RunPinned checks ReadRangeIf: the version opened reads, a replaced one
// fails with ErrChanged and no bytes, the new tag reads the new bytes, and
// a missing key is still fs.ErrNotExist.
// cached says that read caches: a range of the old version read before the
// replace may still be served, but only as the old version's bytes.
func RunPinned(t *testing.T, put PinnedPutter, read blob.Pinned, cached bool) {
	ctx := t.Context()
	v1 := []byte("version one of the object, 40 bytes long")
	v2 := []byte("version two: a different size, so a different tag")
	if err := put.Put(ctx, "pin/a.bin", bytes.NewReader(v1)); err != nil {
		t.Fatal(err)
	}
	old, err := put.Stat(ctx, "pin/a.bin")
	if err != nil {
		t.Fatal(err)
	}
	got, err := read.ReadRangeIf(ctx, "pin/a.bin", old.ETag, 8, 3)
	if err != nil || string(got) != "one" {
		t.Fatalf("ReadRangeIf(opened tag) = %q, %v; want %q", got, err, "one")
	}
	if err := put.Put(ctx, "pin/a.bin", bytes.NewReader(v2)); err != nil {
		t.Fatal(err)
	}
	for _, r := range []struct{ off, n int64 }{{8, 3}, {20, 10}, {0, 1}} {
		got, err = read.ReadRangeIf(ctx, "pin/a.bin", old.ETag, r.off, r.n)
		if cached && err == nil && string(got) == string(v1[r.off:r.off+r.n]) {
			continue
		}
		if !errors.Is(err, blob.ErrChanged) || got != nil {
			t.Errorf("ReadRangeIf(old tag, %d, %d) after replace = %q, %v; want nil, ErrChanged", r.off, r.n, got, err)
		}
	}
	cur, err := put.Stat(ctx, "pin/a.bin")
	if err != nil {
		t.Fatal(err)
	}
	got, err = read.ReadRangeIf(ctx, "pin/a.bin", cur.ETag, 8, 3)
	if err != nil || string(got) != "two" {
		t.Errorf("ReadRangeIf(new tag) = %q, %v; want %q", got, err, "two")
	}
	if _, err := read.ReadRangeIf(ctx, "pin/missing.bin", cur.ETag, 0, 1); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("ReadRangeIf(missing) error = %v, want fs.ErrNotExist", err)
	}
}
