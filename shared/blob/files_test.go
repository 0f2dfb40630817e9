package blob

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

// TestFilesPinned: pinned reads through Files read the version they name.
// The version opened first goes on reading its own bytes after the key is
// replaced (its file is kept open); the new version is read by its tag; a
// tag that is neither is ErrChanged; a missing key is fs.ErrNotExist.
func TestFilesPinned(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	fs := NewFiles(root)
	if err := fs.Put(ctx, "g/a.mgix", strings.NewReader("version one")); err != nil {
		t.Fatal(err)
	}
	st1, err := fs.Stat(ctx, "g/a.mgix")
	if err != nil {
		t.Fatal(err)
	}
	if b, err := fs.ReadRangeIf(ctx, "g/a.mgix", st1.ETag, 8, 3); err != nil || string(b) != "one" {
		t.Fatalf("first read: %q, %v", b, err)
	}
	time.Sleep(10 * time.Millisecond) // a new modification time, so a new tag
	if err := fs.Put(ctx, "g/a.mgix", strings.NewReader("version two!")); err != nil {
		t.Fatal(err)
	}
	st2, err := fs.Stat(ctx, "g/a.mgix")
	if err != nil || st2.ETag == st1.ETag {
		t.Fatalf("second version's tag %q (first %q), %v", st2.ETag, st1.ETag, err)
	}
	if b, err := fs.ReadRangeIf(ctx, "g/a.mgix", st1.ETag, 0, 100); err != nil || string(b) != "version one" {
		t.Errorf("old version after replacement: %q, %v", b, err)
	}
	if b, err := fs.ReadRangeIf(ctx, "g/a.mgix", st2.ETag, 8, 100); err != nil || string(b) != "two!" {
		t.Errorf("new version: %q, %v", b, err)
	}
	// The first version's file was dropped when the second was opened:
	// a read of its tag now goes to the directory and finds the new file.
	if _, err := fs.ReadRangeIf(ctx, "g/a.mgix", st1.ETag, 0, 1); !errors.Is(err, ErrChanged) {
		t.Errorf("old tag after the new version was opened: %v, want ErrChanged", err)
	}
	if _, err := fs.ReadRangeIf(ctx, "g/a.mgix", "bogus", 0, 1); !errors.Is(err, ErrChanged) {
		t.Errorf("wrong tag: %v, want ErrChanged", err)
	}
	if _, err := fs.ReadRangeIf(ctx, "g/missing", st2.ETag, 0, 1); err == nil {
		t.Error("missing key read without error")
	}
	if b, err := fs.ReadRangeIf(ctx, "g/a.mgix", st2.ETag, 100, 5); err != nil || len(b) != 0 {
		t.Errorf("read past the end: %q, %v", b, err)
	}
}
