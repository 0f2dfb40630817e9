package datalayers

import (
	"cmp"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"meridian/shared/ag"
	"meridian/shared/energy"
	"meridian/shared/kv"
	"meridian/shared/survey/grid"
	"meridian/shared/tile"
	"meridian/shared/tile/archive"
	"meridian/shared/tile/archive/writer"
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
	svc := grid.New()
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

// Province sizes: Alberta's LSDs with wells or production and under Crown
// tenure, the three prairie provinces' quarter sections.
const (
	provinceProdLSDs   = 400_000
	provinceTenureLSDs = 1_000_000
	provinceQuarters   = 2_500_000
)

// TestProvinceBuild builds every data archive of a synthetic store of
// MERIDIAN_DATALAYERS_PROVINCE times the province sizes (1: 400,000 LSDs
// with wells and production, 1,000,000 under tenure, 2,500,000 quarters)
// with a partitioned Source, as ingest does, and logs per archive its
// tiles, bytes, time and the peak resident set the kernel saw while it was
// built (VmHWM, reset before each). MERIDIAN_DATALAYERS_REGIONS chooses
// the domains ("energy,ag" by default). The store is kept in
// MERIDIAN_DATALAYERS_DIR (default a temporary directory) and reused:
//
//	MERIDIAN_DATALAYERS_PROVINCE=1 MERIDIAN_DATALAYERS_DIR=/tmp/p \
//	  /usr/bin/time -v go test -run ProvinceBuild -v -timeout 2h ./shared/tile/datalayers
func TestProvinceBuild(t *testing.T) {
	f, _ := strconv.ParseFloat(os.Getenv("MERIDIAN_DATALAYERS_PROVINCE"), 64)
	if f <= 0 {
		t.Skip("MERIDIAN_DATALAYERS_PROVINCE is not set")
	}
	dir := os.Getenv("MERIDIAN_DATALAYERS_DIR")
	if dir == "" {
		dir = t.TempDir()
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	path := filepath.Join(dir, fmt.Sprintf("store-%g.db", f))
	store, err := kv.OpenBolt(path, kv.BoltOptions{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	regions := strings.Split(cmp.Or(os.Getenv("MERIDIAN_DATALAYERS_REGIONS"), "energy,ag"), ",")
	for _, region := range regions {
		name := map[string]string{"energy": energy.Dataset, "ag": ag.Dataset}[region]
		if _, ok, err := kv.Open(ctx, store, name); err != nil || ok {
			if err != nil {
				t.Fatal(err)
			}
			continue
		}
		start := time.Now()
		if region == "energy" {
			err = synthEnergy(ctx, store, int(f*provinceProdLSDs), int(f*provinceTenureLSDs), 576)
		} else {
			err = synthAg(ctx, store, int(f*provinceQuarters))
		}
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s store written in %v", region, time.Since(start).Round(time.Second))
	}
	svc := grid.New()
	out := filepath.Join(dir, "tiles")
	for _, region := range regions {
		s := NewPartitioned(store, svc, out)
		resetHWM(t)
		start := time.Now()
		if _, err := s.region(ctx, region); err != nil {
			t.Fatal(err)
		}
		t.Logf("%-24s spooled in %6.1fs, peak RSS %4d MB (now: %s)", region, time.Since(start).Seconds(), hwm(t)>>20, rss(t))
		total := time.Now()
		eachBuild(t, s, region, func(l tile.Layer, o tile.BuildOptions) {
			resetHWM(t)
			st, size, err := writeArchive(ctx, s, l, o, out)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%-24s %8d tiles %6.1f MB %6.1fs  peak RSS %4d MB", l.Path(), st.Tiles, float64(size)/1e6, st.Elapsed.Seconds(), hwm(t)>>20)
		})
		t.Logf("%-24s all archives in %v (%v after the spool)", region, time.Since(start).Round(time.Second), time.Since(total).Round(time.Second))
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

// writeArchive builds layer l's archive into dir, as the local server's
// buildArchive does.
func writeArchive(ctx context.Context, s *Source, l tile.Layer, o tile.BuildOptions, dir string) (tile.BuildStats, int64, error) {
	o.MinZoom, o.MaxZoom = l.MinZoom, min(l.MaxZoom, tile.MaxDataZoom)
	meta := archive.Metadata{Name: l.Path(), Bounds: o.Bounds, MinZoom: uint8(o.MinZoom), MaxZoom: uint8(o.MaxZoom),
		VectorLayers: []archive.VectorLayer{{ID: l.SourceLayer, MinZoom: uint8(o.MinZoom), MaxZoom: uint8(o.MaxZoom)}}}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return tile.BuildStats{}, 0, err
	}
	w, err := writer.New(dir, meta)
	if err != nil {
		return tile.BuildStats{}, 0, err
	}
	defer w.Close()
	st, err := tile.Build(ctx, l, s.Tile, w, o)
	if err != nil {
		return st, 0, err
	}
	f, err := os.Create(filepath.Join(dir, l.Name+".pmtiles"))
	if err != nil {
		return st, 0, err
	}
	defer f.Close()
	ws, err := w.Finish(f)
	return st, ws.Bytes, err
}

// rss returns the process's resident set now, anonymous (the heap) and
// file-backed (the store's memory map).
func rss(t *testing.T) string {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Fatal(err)
	}
	var parts []string
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, "RssAnon:") || strings.HasPrefix(line, "RssFile:") {
			parts = append(parts, strings.Join(strings.Fields(line), " "))
		}
	}
	return strings.Join(parts, ", ")
}

// resetHWM resets the process's peak resident set (Linux: clear_refs 5).
func resetHWM(t *testing.T) {
	if err := os.WriteFile("/proc/self/clear_refs", []byte("5"), 0); err != nil {
		t.Logf("cannot reset the peak RSS: %v", err)
	}
}

// hwm returns the process's peak resident set since the last reset, in
// bytes (VmHWM).
func hwm(t *testing.T) int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kb << 10
		}
	}
	return 0
}
