package datalayers

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"testing"

	"meridian/shared/convert"
	"meridian/shared/energy"
	"meridian/shared/kv"
)

// BenchmarkLoadEnergy measures the time and the heap a Source holds to
// read the energy layers of a synthetic store of n LSDs with wells and
// production (n = 20,000, or MERIDIAN_DATALAYERS_SCALE): the figures to
// size a province's build by (a Source holds its domain's features).
func BenchmarkLoadEnergy(b *testing.B) {
	n, _ := strconv.Atoi(os.Getenv("MERIDIAN_DATALAYERS_SCALE"))
	if n == 0 {
		n = 20000
	}
	ctx := context.Background()
	store := kv.NewMem()
	_, err := kv.Publish(ctx, store, kv.DatasetInfo{Name: energy.Dataset, Source: "synthetic"}, func(w *kv.Writer) error {
		i := 0
		for twp := 10; i < n; twp++ {
			for rge := 1; rge <= 25 && i < n; rge++ {
				for sec := 1; sec <= 36 && i < n; sec++ {
					for lsd := 1; lsd <= 16 && i < n; lsd++ {
						id := fmt.Sprintf("%d-%d-%d-%d-W4", lsd, sec, twp, rge)
						s := energy.LSDSummary{LSD: id, Wells: energy.Liability{Total: 2, Active: 1, Abandoned: 1}, ProducingWells: 1,
							Production: energy.Production{WindowMonths: 12, LastProducingMonth: "2026-10", Oil: 120.5, Gas: 300, Water: 40}}
						if err := w.Put(energy.LSDKey(id), energy.SKProduction, s); err != nil {
							return err
						}
						i++
					}
				}
			}
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	svc := convert.New()
	var held float64
	for b.Loop() {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		s := New(store, svc)
		if _, err := s.region(ctx, "energy"); err != nil {
			b.Fatal(err)
		}
		runtime.GC()
		runtime.ReadMemStats(&after)
		held = float64(after.HeapAlloc) - float64(before.HeapAlloc)
		runtime.KeepAlive(s)
	}
	b.ReportMetric(held/float64(n), "heap-bytes/LSD")
	b.ReportMetric(float64(n), "LSDs")
}
