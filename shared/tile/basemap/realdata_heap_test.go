//go:build heaptest

package basemap_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"meridian/shared/internal/heaptest"
	"meridian/shared/tile/archive/writer"
	"meridian/shared/tile/basemap"
)

// maxBuildHeap bounds the live heap of a whole build from the real files:
// the topology's JSON as it decodes (its arcs as float pairs before they
// become orb points), then two zooms of clipped features. It measured
// 13-16 MB.
const maxBuildHeap = 32 << 20

// TestBuildHeap checks the peak live heap of loading and building the
// real files, the archive written to a file. Not parallel: other tests'
// garbage would count. The lowest of three attempts (heaptest.Lowest).
func TestBuildHeap(t *testing.T) {
	ne, ci := realFiles(t)
	var st basemap.BuildStats
	peak := heaptest.Lowest(maxBuildHeap, func() uint64 {
		return heaptest.Peak(5*time.Millisecond, func() {
			b := load(t, ne, ci)
			w, err := writer.New(t.TempDir(), basemap.Metadata())
			if err != nil {
				t.Fatal(err)
			}
			defer w.Close()
			if st, err = b.Build(context.Background(), w, 0); err != nil {
				t.Fatal(err)
			}
			f, err := os.Create(filepath.Join(t.TempDir(), "basemap.pmtiles"))
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			if _, err := w.Finish(f); err != nil {
				t.Fatal(err)
			}
		})
	})
	t.Logf("peak live heap %.1f MB, %d tiles", float64(peak)/(1<<20), st.Tiles)
	if peak > maxBuildHeap {
		t.Errorf("peak live heap %d bytes, want under %d", peak, maxBuildHeap)
	}
}
