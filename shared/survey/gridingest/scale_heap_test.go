//go:build heaptest

package gridingest_test

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"meridian/shared/demo/griddemo"
	"meridian/shared/internal/heaptest"
	"meridian/shared/scale"
	"meridian/shared/survey/gridindex"
	"meridian/shared/survey/gridingest"
)

// TestProvinceReadersHeapFlat reads the province-size SaskGrid LSD layer
// and Manitoba survey and corners files (griddemo.WriteScale) at a fraction
// f and at 8f and compares the largest live heap seen while the records
// are emitted (after a GC every 500 records): the readers stream, so
// eight times the records must not need more than a little more heap. (The
// ATS reader has its own test, TestReadATSHeapBounded; the index writer
// spills past its memory limit, TestWriterHeapIsBounded.)
func TestProvinceReadersHeapFlat(t *testing.T) {
	if testing.Short() {
		t.Skip("writes and reads about 400 townships")
	}
	type result struct {
		peak    uint64
		records int
	}
	read := func(f float64) map[string]result {
		dir := t.TempDir()
		if _, _, err := griddemo.WriteScale(context.Background(), dir, scale.Options{Seed: 2, Fraction: f}); err != nil {
			t.Fatal(err)
		}
		out := map[string]result{}
		measure := func(name string, run func(emit gridingest.Emit) error) {
			var ms runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&ms)
			base := ms.HeapAlloc
			var r result
			err := run(func(gridindex.Record) error {
				r.records++
				if r.records%500 == 0 {
					runtime.GC()
					runtime.ReadMemStats(&ms)
					r.peak = max(r.peak, ms.HeapAlloc-min(ms.HeapAlloc, base))
				}
				return nil
			})
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			out[name] = r
		}
		open := func(name string) *os.File {
			f, err := os.Open(filepath.Join(dir, filepath.FromSlash(name)))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { f.Close() })
			return f
		}
		lsd := griddemo.ScaleSKPrefix + "LSD"
		measure("saskgrid LSD", func(emit gridingest.Emit) error {
			prj, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(lsd+".prj")))
			if err != nil {
				return err
			}
			_, err = gridingest.ReadSaskGrid(open(lsd+".shp"), open(lsd+".dbf"), string(prj), "LSD.shp", emit, gridingest.SaskGridOptions{})
			return err
		})
		measure("manitoba survey", func(emit gridingest.Emit) error {
			_, err := gridingest.ReadManitobaSurvey(open(griddemo.ScaleMBSurveyFile), "survey.csv", emit, gridingest.ManitobaOptions{})
			return err
		})
		measure("manitoba corners", func(emit gridingest.Emit) error {
			_, err := gridingest.ReadManitobaCorners(open(griddemo.ScaleMBCornersFile), "corners.csv", emit, gridingest.ManitobaOptions{})
			return err
		})
		return out
	}
	// The best of three attempts (heaptest.LowestBy), by how far the
	// furthest reader is over the bound below.
	type attempt struct{ small, large map[string]result }
	over := func(a attempt) int64 {
		worst := int64(-1 << 62)
		for name, s := range a.small {
			worst = max(worst, int64(a.large[name].peak)-int64(s.peak+s.peak/2+256<<10))
		}
		return worst
	}
	a := heaptest.LowestBy(0, over, func() attempt { return attempt{read(0.003), read(0.024)} })
	small, large := a.small, a.large
	for name, s := range small {
		l := large[name]
		t.Logf("%s: %d records, live heap peak %d KiB; %d records, %d KiB", name, s.records, s.peak>>10, l.records, l.peak>>10)
		if l.records < 5*s.records {
			t.Errorf("%s: %d then %d records: the test does not measure what it should", name, s.records, l.records)
		}
		if l.peak > s.peak+s.peak/2+256<<10 {
			t.Errorf("%s: live heap grew from %d KiB to %d KiB with %d times the records", name, s.peak>>10, l.peak>>10, l.records/max(1, s.records))
		}
	}
}
