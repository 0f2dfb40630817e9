package kv

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"testing"
)

// BenchmarkMerge times the end of an external sort: 300,000 items of
// about 150 bytes, spilled in runs of 1 MiB (about 45 runs, under one
// merge's fan-in) and merged, with the arena, into a callback that only
// counts them (a scan's sort: no store written). It reports items/s.
func BenchmarkMerge(b *testing.B) {
	const n = 300_000
	r := rand.New(rand.NewPCG(3, 4))
	keys := make([][]byte, n)
	data := make([][]byte, n)
	for i := range keys {
		keys[i] = fmt.Appendf(nil, "LSD#%02d-%02d-%03d-%02d-W%d\x00WELL#%07d", r.IntN(16)+1, r.IntN(36)+1, r.IntN(126)+1, r.IntN(30)+1, r.IntN(3)+4, i)
		data[i] = fmt.Appendf(nil, `{"licence":"%07d","operator":"A1B2","status":"Pumping","depth_m":%d.5,"spud_date":"2024-01-02","n":%d}`, i, 1000+i%3000, i)
	}
	dir := b.TempDir()
	items := 0
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		count := 0
		l := &boltLoad{path: filepath.Join(dir, "scan"), ctx: context.Background(),
			lim:  loadLimits{budget: 1 << 20, fanIn: mergeFanIn},
			emit: func(k, d []byte) error { count++; return nil }}
		for j := range keys {
			if err := l.putKey(keys[j], data[j]); err != nil {
				b.Fatal(err)
			}
		}
		b.StartTimer()
		if err := l.Close(false); err != nil {
			b.Fatal(err)
		}
		if count != n {
			b.Fatalf("%d items merged, want %d", count, n)
		}
		items += count
	}
	b.ReportMetric(float64(items)/b.Elapsed().Seconds(), "items/s")
}
