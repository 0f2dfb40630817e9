package energydemo

import (
	"context"
	"runtime"
	"testing"

	"meridian/shared/lld"
	"meridian/shared/scale"
)

// TestWriteScaleHeapFlat: the generator holds one township's entities and
// the files' buffers, so eight times the fraction must not grow the live
// heap: the growth at 8f stays within 2 MiB of the growth at f (the orphan
// inventory, 0.6 % of the wells, is the one list that grows: 60 rows at
// 8f here), and under 24 MiB in all (the buffers of 22 open files are
// 5.5 MiB).
func TestWriteScaleHeapFlat(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 0.4 % and 3.2 % of Alberta")
	}
	peak := func(f float64) (uint64, int) {
		runtime.GC()
		runtime.GC() // what a sync.Pool held (bbolt's page buffers after an earlier test's load) survives one collection
		var base, m runtime.MemStats
		runtime.ReadMemStats(&base)
		var top uint64
		n := 0
		_, err := writeScale(context.Background(), t.TempDir(), scale.Options{Seed: 3, Fraction: f}, func() {
			if n++; n%500 == 0 {
				runtime.GC() // live memory, not garbage awaiting collection
				runtime.ReadMemStats(&m)
				top = max(top, m.HeapAlloc-min(m.HeapAlloc, base.HeapAlloc))
			}
		})
		if err != nil {
			t.Fatal(err)
		}
		return top, n
	}
	small, n := peak(0.004)
	big, _ := peak(0.032)
	t.Logf("live heap growth: %d KiB at fraction 0.004, %d KiB at 0.032 (%d townships)", small>>10, big>>10, n)
	if big > small+2<<20 || big > 24<<20 {
		t.Errorf("live heap grew by %d bytes at fraction 0.032, %d at 0.004: not bounded by a township", big, small)
	}
}

// TestScaleWellsFitTheirTownships: at every fraction the scale test or CI
// uses, no township is given more wells than it has UWIs in its province
// (its LSDs there times the layers). Townships cut by the AB-BC divide
// were given wells by their whole area ("29 wells in township 47-7-W6,
// more than its 10 UWIs" at x0.1).
func TestScaleWellsFitTheirTownships(t *testing.T) {
	t.Parallel()
	for _, f := range []float64{0.002, 0.005, 0.01, 0.09, 0.1, 0.11, 0.2, 1} {
		g := &scaleGen{o: scale.Options{Seed: 1, Fraction: f}, seed: 1}
		for _, p := range scaleProvinces {
			twps, weights := g.townships(p)
			wells := cumulative(g.o.N(p.wells), weights)
			for k, tw := range twps {
				nw := int(wells[k+1] - wells[k])
				if nw == 0 {
					continue
				}
				cells := scaleCells(&demoTownship{Twp: tw.twp, Rge: tw.rge, Mer: int(tw.mer - lld.W1 + 1)}, p.prov)
				if room := len(cells) * len(scaleLayers); nw > room {
					t.Errorf("fraction %g, %s: %d wells in township %d-%d-W%d, room for %d", f, p.code, nw, tw.twp, tw.rge, tw.mer-lld.W1+1, room)
				}
			}
		}
	}
}
