package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"

	"github.com/paulmach/orb"

	"meridian/shared/dataingest"
	"meridian/shared/survey/grid"
	"meridian/shared/tile"
	"meridian/shared/tile/datalayers"
)

const buildTilesUsage = `usage: meridian build-tiles [flags] LAYER...

Builds PMTiles v3 archives of survey grid and label layers (ab/twp,
ab/sec-label, bc/qtr-unit, on/lot, ...) from the grid models and the official
indexes in DATA/grid, exactly the tiles the server generates on demand; and
of the agriculture and energy data layers (energy/og_activity_lsd,
ag/lsrs_productivity_twp, ...) from the version of the report store
DATA/reports/<domain> served now, over the data's extent. Each archive is
written to DATA/tiles/<region>/<layer>.pmtiles (or -out), through a temporary
file, so a failed build leaves the served archive alone; a server running on
DATA serves the new archive from its next request to it (and in place of
generating from then on).

  meridian build-tiles ab/twp ab/sec
  meridian build-tiles -zoom 9-12 -bounds -114.5,50.8,-113.5,51.4 ab/lsd

flags:
`

func buildTilesCommand(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("build-tiles", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, buildTilesUsage); fs.PrintDefaults() }
	data := dataFlag(fs, "data directory (grid indexes in grid/, archives to tiles/)")
	out := fs.String("out", "", "output directory (default DATA/tiles)")
	zoom := fs.String("zoom", "", "zooms as MIN-MAX (default: the layer's range, to 14)")
	bounds := fs.String("bounds", "", "west,south,east,north in degrees (default: the layer's region)")
	workers := fs.Int("workers", 0, "tiles generated in parallel (default: one more than the number of CPUs)")
	quiet := fs.Bool("q", false, "no progress bar")
	cpuProfile := fs.String("cpuprofile", "", "write a CPU profile of the build to this file")
	memProfile := fs.String("memprofile", "", "write a heap profile to this file at the end of the build")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *cpuProfile != "" {
		stop, err := startCPUProfile(*cpuProfile)
		if err != nil {
			fmt.Fprintf(stderr, "meridian build-tiles: -cpuprofile: %v\n", err)
			return 1
		}
		defer stop()
	}
	if *memProfile != "" {
		defer func() {
			if err := writeHeapProfile(*memProfile); err != nil {
				fmt.Fprintf(stderr, "meridian build-tiles: -memprofile: %v\n", err)
			}
		}()
	}
	if fs.NArg() == 0 {
		fs.Usage()
		return 2
	}
	var layers []tile.Layer
	for _, p := range fs.Args() {
		region, name, _ := strings.Cut(p, "/")
		l, ok := tile.Lookup(region, name)
		if !ok || !(l.Survey() || datalayers.Supported(l)) {
			fmt.Fprintf(stderr, "meridian build-tiles: %q is not a survey grid or label layer (ab/twp, ab/sec-label, bc/qtr-unit, on/lot, ...) nor a data layer built from the report store (%s)\n", p, strings.Join(dataLayerPaths(), ", "))
			return 2
		}
		layers = append(layers, l)
	}
	var opts tile.BuildOptions
	if *zoom != "" {
		lo, hi, ok := strings.Cut(*zoom, "-")
		a, errA := strconv.Atoi(lo)
		b, errB := strconv.Atoi(hi)
		if !ok || errA != nil || errB != nil || a < 0 || b > tile.MaxDataZoom || a > b {
			fmt.Fprintf(stderr, "meridian build-tiles: -zoom %q: want MIN-MAX within 0-%d, e.g. 9-14\n", *zoom, tile.MaxDataZoom)
			return 2
		}
		opts.MinZoom, opts.MaxZoom = a, b
	}
	if *bounds != "" {
		b, err := parseBounds(*bounds)
		if err != nil {
			fmt.Fprintf(stderr, "meridian build-tiles: -bounds: %v\n", err)
			return 2
		}
		opts.Bounds = b
	}
	opts.Workers = *workers
	if !*quiet {
		opts.Progress = stderr
	}
	if *out == "" {
		*out = data.Tiles()
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	svc := grid.New()
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	if _, err := dataingest.OpenGrids(ctx, *data, svc, logger, dataingest.JobGridCacheBytes); err != nil {
		fmt.Fprintf(stderr, "meridian build-tiles: grid indexes: %v\n", err)
		return 1
	}
	gen := tile.NewGenerator(svc)
	sources := map[string]*datalayers.Source{} // by domain, over its served report version
	for _, l := range layers {
		src, o, attribution := tile.Source(gen.Tile), opts, tile.Attribution(svc.Sources)(l)
		if l.Kind == tile.Data {
			layerData := sources[l.Region]
			if layerData == nil {
				store, ok, err := dataingest.OpenServed(*data, l.Region)
				if err != nil {
					fmt.Fprintf(stderr, "meridian build-tiles: report store: %v\n", err)
					return 1
				}
				if !ok {
					fmt.Fprintf(stderr, "meridian build-tiles: %s: the report store has no data for it\n", l.Path())
					continue
				}
				defer store.Close()
				layerData = datalayers.NewPartitioned(store, svc, *out)
				defer layerData.Close()
				sources[l.Region] = layerData
			}
			src = layerData.Tile
			do, a, ok, err := layerData.ArchiveOptions(ctx, l)
			if err != nil {
				fmt.Fprintf(stderr, "meridian build-tiles: %v\n", err)
				return 1
			}
			if !ok {
				fmt.Fprintf(stderr, "meridian build-tiles: %s: the report store has no data for it\n", l.Path())
				continue
			}
			o.Tiles, attribution = do.Tiles, a
			if o.Bounds.IsZero() {
				o.Bounds = do.Bounds
			}
		}
		st, err := datalayers.BuildArchive(ctx, l, src, *out, attribution, o)
		if err != nil {
			fmt.Fprintf(stderr, "meridian build-tiles: %s: %v\n", l.Path(), err)
			return 1
		}
		fmt.Fprintf(stdout, "%s\t%s\t%d tiles\t%d bytes\t%s\n", l.Path(), filepath.Join(*out, l.Key()), st.Tiles, st.Size, st.Elapsed.Round(1e6))
	}
	for domain, layerData := range sources {
		if n := layerData.Unlocated(); n > 0 {
			fmt.Fprintf(stdout, "%s: %d parcels the grid does not cover were left out of the maps\n", domain, n)
		}
		// Every data layer of the domain built (or found without data):
		// the server need not build them again at start.
		if *out == data.Tiles() && coversDomain(layers, domain) {
			if err := os.WriteFile(data.Built(domain), nil, 0o644); err != nil {
				fmt.Fprintf(stderr, "meridian build-tiles: %v\n", err)
				return 1
			}
		}
	}
	return 0
}

// coversDomain reports whether layers hold every data layer of domain.
func coversDomain(layers []tile.Layer, domain string) bool {
	for _, l := range datalayers.Layers(domain) {
		if !slices.ContainsFunc(layers, func(m tile.Layer) bool { return m.Path() == l.Path() }) {
			return false
		}
	}
	return true
}

func parseBounds(s string) (orb.Bound, error) {
	parts := strings.Split(s, ",")
	if len(parts) != 4 {
		return orb.Bound{}, fmt.Errorf("%q: want west,south,east,north", s)
	}
	var v [4]float64
	for i, p := range parts {
		f, err := strconv.ParseFloat(strings.TrimSpace(p), 64)
		if err != nil {
			return orb.Bound{}, fmt.Errorf("%q: %q is not a number", s, p)
		}
		v[i] = f
	}
	b := orb.Bound{Min: orb.Point{v[0], v[1]}, Max: orb.Point{v[2], v[3]}}
	if !(b.Min[0] < b.Max[0] && b.Min[1] < b.Max[1]) || b.Min[0] < -180 || b.Max[0] > 180 || b.Min[1] < -85 || b.Max[1] > 85 {
		return orb.Bound{}, fmt.Errorf("%q: want west < east and south < north, within -180..180 and -85..85", s)
	}
	return b, nil
}

// startCPUProfile starts profiling the CPU into path; stop ends it.
func startCPUProfile(path string) (stop func(), err error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, err
	}
	return func() { pprof.StopCPUProfile(); f.Close() }, nil
}

// dataLayerPaths lists the data layers build-tiles makes.
func dataLayerPaths() []string {
	var out []string
	for _, l := range datalayers.Layers("") {
		out = append(out, l.Path())
	}
	return out
}
