package blob_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"meridian/shared/blob"
	"meridian/shared/blob/blobtest"
)

func TestOpenDirContract(t *testing.T) {
	blobtest.Run(t, func(t *testing.T, objects map[string][]byte) blob.Store {
		d := blob.NewOpenDir(filepath.Join(t.TempDir(), "data"))
		blobtest.Fill(t, d, objects)
		return d
	})
}

// A file renamed over the key leaves the held handle on the old version: a
// read of the old tag returns the old bytes (never the new ones), the new
// tag reads the new file.
func TestOpenDirPinned(t *testing.T) {
	d := blob.NewOpenDir(t.TempDir())
	blobtest.RunPinned(t, d, d, true)
}

// The handle stays open between reads, is closed when Stat finds another
// version, and a file changed in place (same inode) fails the old tag.
func TestOpenDirHandles(t *testing.T) {
	root := t.TempDir()
	d := blob.NewOpenDir(root)
	ctx := t.Context()
	blobtest.Fill(t, d, map[string][]byte{"ab/sec.pmtiles": []byte("first version")})
	v1, err := d.Stat(ctx, "ab/sec.pmtiles")
	if err != nil {
		t.Fatal(err)
	}
	for range 3 {
		if got, err := d.ReadRangeIf(ctx, "ab/sec.pmtiles", v1.ETag, 0, 5); err != nil || string(got) != "first" {
			t.Fatalf("read = %q, %v", got, err)
		}
	}
	if n := d.OpenFiles(); n != 1 {
		t.Fatalf("%d files open after three reads of one version, want 1", n)
	}
	// Renamed over (as Put and build-tiles replace archives).
	if err := d.Put(ctx, "ab/sec.pmtiles", bytes.NewReader([]byte("second version, longer"))); err != nil {
		t.Fatal(err)
	}
	if got, err := d.ReadRangeIf(ctx, "ab/sec.pmtiles", v1.ETag, 0, 5); err != nil || string(got) != "first" {
		t.Fatalf("old tag after a rename over it = %q, %v; want the old bytes", got, err)
	}
	v2, err := d.Stat(ctx, "ab/sec.pmtiles")
	if err != nil || v2.ETag == v1.ETag {
		t.Fatalf("stat: %+v %v", v2, err)
	}
	if n := d.OpenFiles(); n != 0 {
		t.Fatalf("%d files open after Stat saw a new version, want 0", n)
	}
	if _, err := d.ReadRangeIf(ctx, "ab/sec.pmtiles", v1.ETag, 0, 5); !errors.Is(err, blob.ErrChanged) {
		t.Fatalf("old tag once its handle is closed: %v, want ErrChanged", err)
	}
	if got, err := d.ReadRangeIf(ctx, "ab/sec.pmtiles", v2.ETag, 0, 6); err != nil || string(got) != "second" {
		t.Fatalf("new tag = %q, %v", got, err)
	}
	// Written in place: the held handle's tag changes under it.
	f, err := os.OpenFile(filepath.Join(root, "ab", "sec.pmtiles"), os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(" and more")
	f.Close()
	if got, err := d.ReadRangeIf(ctx, "ab/sec.pmtiles", v2.ETag, 0, 6); !errors.Is(err, blob.ErrChanged) || got != nil {
		t.Fatalf("tag of a file since written in place = %q, %v; want ErrChanged", got, err)
	}
	// Removed: Stat says so and closes the handle.
	v3, _ := d.Stat(ctx, "ab/sec.pmtiles")
	d.ReadRangeIf(ctx, "ab/sec.pmtiles", v3.ETag, 0, 1)
	os.Remove(filepath.Join(root, "ab", "sec.pmtiles"))
	if _, err := d.Stat(ctx, "ab/sec.pmtiles"); err == nil {
		t.Fatal("stat of a removed file succeeded")
	}
	if n := d.OpenFiles(); n != 0 {
		t.Fatalf("%d files open after the file was removed, want 0", n)
	}
}

// Concurrent reads of two versions while Stat retires handles: every read
// returns its own version's bytes or ErrChanged (run with -race).
func TestOpenDirConcurrent(t *testing.T) {
	d := blob.NewOpenDir(t.TempDir())
	ctx := t.Context()
	blobtest.Fill(t, d, map[string][]byte{"a": bytes.Repeat([]byte("a"), 4096)})
	va, _ := d.Stat(ctx, "a")
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 200 {
				if g == 0 && i%50 == 0 {
					d.Put(ctx, "a", bytes.NewReader(bytes.Repeat([]byte{byte('b' + i/50)}, 4096+i)))
				}
				info, err := d.Stat(ctx, "a")
				tag := va.ETag
				if err == nil && i%2 == 1 {
					tag = info.ETag
				}
				got, err := d.ReadRangeIf(ctx, "a", tag, 100, 8)
				if err != nil {
					if !errors.Is(err, blob.ErrChanged) {
						t.Errorf("read: %v", err)
					}
					continue
				}
				if len(got) != 8 || bytes.Count(got, got[:1]) != 8 || (tag == va.ETag && got[0] != 'a') {
					t.Errorf("read %q of tag %s", got, tag)
				}
			}
		}()
	}
	wg.Wait()
}
