package gridindex_test

import (
	"context"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"meridian/shared/blob"
	"meridian/shared/lld"
	"meridian/shared/survey/gridindex"
)

// provinceIndex opens the index named by MERIDIAN_GRID_INDEX (a province
// index from `meridian ingest grid`, e.g. the full-size ATS one of the
// scale test), or skips: these benchmarks measure the page cache on a
// province, which no fixture is. It reads the file as the server does
// (blob.OpenDir: kept open, read from the page cache).
func provinceIndex(b *testing.B, opts gridindex.Options) *gridindex.Index {
	path := os.Getenv("MERIDIAN_GRID_INDEX")
	if path == "" {
		b.Skip("MERIDIAN_GRID_INDEX names no province index")
	}
	ix, err := gridindex.Open(context.Background(), blob.NewOpenDir(filepath.Dir(path)), filepath.Base(path), opts)
	if err != nil {
		b.Fatal(err)
	}
	return ix
}

// randomLSD draws an LSD the way the scale test's search scenario draws
// quarters: uniformly over W4 and W5, townships 1-100, ranges 1-25.
func randomLSD(rng *rand.Rand) lld.Location {
	return lld.Location{System: lld.DLS, Unit: lld.LSD, Meridian: lld.W4 + lld.Meridian(rng.IntN(2)),
		Range: uint8(1 + rng.IntN(25)), Township: uint8(1 + rng.IntN(100)), Section: uint8(1 + rng.IntN(36)), LSD: uint8(1 + rng.IntN(16))}
}

// BenchmarkProvinceLookup looks up random LSDs over a province with the
// default cache (mostly misses: a uniform random workload is the worst
// case), with one large enough for every page, and with that one warmed
// first (Warm; the time it took is logged); it reports the hit rate
// and the cache's bytes per entry (block or page directory).
func BenchmarkProvinceLookup(b *testing.B) {
	for _, c := range []struct {
		name  string
		bytes int64
		warm  bool
	}{{"default", 0, false}, {"1GiB", 1 << 30, false}, {"1GiB-warm", 1 << 30, true}} {
		b.Run(c.name, func(b *testing.B) {
			ix := provinceIndex(b, gridindex.Options{CacheBytes: c.bytes})
			if c.warm {
				t0 := time.Now()
				st, err := ix.Warm(context.Background(), runtime.GOMAXPROCS(0), 0)
				if err != nil {
					b.Fatal(err)
				}
				b.Logf("warmed %d pages, %d blocks (full: %v) in %v; cache %d MiB", st.Pages, st.Blocks, st.Full, time.Since(t0), ix.CacheStats().Bytes>>20)
			}
			rng := rand.New(rand.NewPCG(1, 2))
			b.ReportAllocs()
			for b.Loop() {
				if _, _, err := ix.Lookup(context.Background(), randomLSD(rng)); err != nil {
					b.Fatal(err)
				}
			}
			st := ix.CacheStats()
			b.ReportMetric(float64(st.Hits)/float64(max(1, st.Hits+st.Misses)), "hit-rate")
			if st.Blocks > 0 {
				b.ReportMetric(float64(st.Bytes)/float64(st.Blocks+st.Dirs), "B/entry")
			}
		})
	}
}
