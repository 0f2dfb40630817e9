package gridindex_test

import (
	"context"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/paulmach/orb"

	"meridian/shared/blob"
	"meridian/shared/lld"
	"meridian/shared/survey/dls"
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

// BenchmarkProvinceReverse finds the LSD at random points of a province's
// index, warmed whole: by the search around the point (ContainingHits, the
// last LSD hit decoded), against the survey model's LSD at the point
// looked up by key and tested (ContainingAt), with the search for the
// points it does not decide. It reports the share the key lookup answers.
func BenchmarkProvinceReverse(b *testing.B) {
	ix := provinceIndex(b, gridindex.Options{CacheBytes: 1 << 30})
	if _, err := ix.Warm(context.Background(), runtime.GOMAXPROCS(0), 0); err != nil {
		b.Fatal(err)
	}
	bd := ix.Bound()
	rng := rand.New(rand.NewPCG(1, 2))
	pts := make([]orb.Point, 4096)
	for i := range pts {
		pts[i] = orb.Point{bd.Min[0] + rng.Float64()*(bd.Max[0]-bd.Min[0]), bd.Min[1] + rng.Float64()*(bd.Max[1]-bd.Min[1])}
	}
	ctx := context.Background()
	search := func(pt orb.Point) {
		hits, err := ix.ContainingHits(ctx, pt)
		if err != nil {
			b.Fatal(err)
		}
		for i := len(hits) - 1; i >= 0; i-- {
			if hits[i].Unit == lld.LSD {
				if _, err := hits[i].Record(); err != nil {
					b.Fatal(err)
				}
				break
			}
		}
	}
	b.Run("search", func(b *testing.B) {
		b.ReportAllocs()
		n := 0
		for b.Loop() {
			search(pts[n%len(pts)])
			n++
		}
	})
	b.Run("model+key", func(b *testing.B) {
		b.ReportAllocs()
		n, byKey := 0, 0
		for b.Loop() {
			pt := pts[n%len(pts)]
			n++
			if l, ok := dls.Locate(pt, lld.LSD); ok {
				h, ok, err := ix.ContainingAt(ctx, l, pt)
				if err != nil {
					b.Fatal(err)
				}
				if ok {
					if _, err := h.Record(); err != nil {
						b.Fatal(err)
					}
					byKey++
					continue
				}
			}
			search(pt)
		}
		b.ReportMetric(float64(byKey)/float64(n), "by-key")
	})
}
