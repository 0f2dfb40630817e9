//go:build heaptest

package ingest_test

import (
	"archive/zip"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"meridian/shared/ingest"
	"meridian/shared/internal/heaptest"
)

// A member is streamed to disk: what Unpack allocates does not grow with
// the member (32 MiB here). Not parallel, so that the allocation counter
// counts Unpack alone; the lowest of three attempts.
func TestUnpackHeap(t *testing.T) {
	dir := t.TempDir()
	f, err := os.Create(filepath.Join(dir, "big.zip"))
	if err != nil {
		t.Fatal(err)
	}
	zw := zip.NewWriter(f)
	w, err := zw.Create("Vol_2026-10-AB.csv")
	if err != nil {
		t.Fatal(err)
	}
	const size = 32 << 20
	line := []byte("\"ABBT0147937\",\"2026-10\",\"PROD\",\"GAS\",\"123.456\"\n")
	for n := 0; n < size; n += len(line) {
		line[10] = byte('0' + n%10) // not one repeated line: a real file's ratio
		if _, err := w.Write(line); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	var fi os.FileInfo
	alloc := heaptest.Lowest(2<<20, func() uint64 {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		folder, err := ingest.OpenFolder(dir, ingest.Limits{TempDir: t.TempDir()})
		runtime.ReadMemStats(&after)
		if err != nil {
			t.Fatal(err)
		}
		defer folder.Close()
		fi, err = os.Stat(folder.Files[0].Path)
		if err != nil || fi.Size() < size {
			t.Fatalf("extracted %v, %v: want at least %d bytes", fi, err, size)
		}
		return after.TotalAlloc - before.TotalAlloc
	})
	if alloc > 2<<20 {
		t.Errorf("unpacking a %d-byte member allocated %d bytes: want it streamed", fi.Size(), alloc)
	} else {
		t.Logf("%d-byte member, %d bytes allocated", fi.Size(), alloc)
	}
}
