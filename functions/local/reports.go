package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"meridian/shared/ag"
	"meridian/shared/ag/agingest"
	"meridian/shared/atomicfile"
	"meridian/shared/energy"
	"meridian/shared/energy/energyingest"
	"meridian/shared/ingest"
	"meridian/shared/kv"
	"meridian/shared/kv/boltdir"
	"meridian/shared/survey/grid"
	"meridian/shared/tile"
	"meridian/shared/tile/datalayers"
)

// The report store is a directory per domain, <data>/reports/energy and
// <data>/reports/ag: each holds one bbolt file per published version and a
// CURRENT pointer (package boltdir). An ingest writes a new file and
// flips the pointer, so it runs while a server serves the same data
// directory; the server switches on its next look at the pointer (within
// reportPollTime) and closes the old file when the requests holding it are
// done.

// reportDomains are the report domains, each its own store directory; the
// names are also their dataset names (energy.Dataset, ag.Dataset).
var reportDomains = []string{energy.Dataset, ag.Dataset}

// reportPollTime is how often a server looks for a new report version.
const reportPollTime = time.Second

// migrateReports adopts the single reports.db of an earlier release as the
// first version of each domain that has none, then renames it aside
// (reports.db.adopted): it is read once, never written.
func migrateReports(data dataDir) error {
	legacy := data.legacyReports()
	if _, err := os.Stat(legacy); errors.Is(err, os.ErrNotExist) {
		return nil
	}
	domains, err := unpublished(data)
	if err != nil {
		return err
	}
	for _, domain := range domains {
		if _, err := data.reports(domain).Adopt(legacy); err != nil {
			return fmt.Errorf("report store %s from an earlier release: %w (is an older server still running on this data directory?)", legacy, err)
		}
	}
	return atomicfile.Rename(legacy, legacy+".adopted")
}

// unpublished returns the report domains of data with no version yet.
func unpublished(data dataDir) ([]string, error) {
	var out []string
	for _, domain := range reportDomains {
		cur, err := data.reports(domain).Current()
		if err != nil {
			return nil, err
		}
		if cur == "" {
			out = append(out, domain)
		}
	}
	return out, nil
}

// openReportStore opens domain's served version read-only, for the
// commands that read it whole (build-tiles, publish, the archives built at
// start-up): its pages leave the resident set as they are read
// (boltdir.ScanRelease). ok is false when it was never published.
func openReportStore(data dataDir, domain string) (store *kv.Bolt, ok bool, err error) {
	if err := migrateReports(data); err != nil {
		return nil, false, err
	}
	store, _, ok, err = data.reports(domain).OpenCurrent(boltdir.ScanRelease)
	return store, ok, err
}

// ensureDemoReports ingests the demo datasets, generated in the published
// formats and read by the same code as real files, into each domain that
// has never been published.
func ensureDemoReports(ctx context.Context, data dataDir, svc *grid.Service, logger *slog.Logger) error {
	domains, err := unpublished(data)
	if err != nil {
		return err
	}
	for _, domain := range domains {
		d := data.reports(domain)
		start := time.Now()
		var attrs []any
		if _, err := d.Publish(ctx, func(ctx context.Context, store kv.Store) (err error) {
			attrs, err = ingestDemo(ctx, domain, store, svc)
			return err
		}); err != nil {
			return fmt.Errorf("demo %s data into %s: %w", domain, d.Path(), err)
		}
		logger.Info("ingested demo "+domain+" data", append(attrs, "store", d.Path(), "duration_ms", time.Since(start).Milliseconds())...)
	}
	return nil
}

// ingestDemo writes domain's demo files to a temporary directory and
// ingests them into store; it returns what to log.
func ingestDemo(ctx context.Context, domain string, store kv.Store, svc *grid.Service) ([]any, error) {
	dir, err := os.MkdirTemp("", "meridian-demo-"+domain+"-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	switch domain {
	case energy.Dataset:
		if err := energyingest.WriteDemo(dir); err != nil {
			return nil, err
		}
		files, err := energyingest.FilesIn(dir)
		if err != nil {
			return nil, err
		}
		sum, err := energyingest.Ingest(ctx, store, svc, files, energyingest.Options{Now: energyingest.DemoAsOf(), Demo: true})
		return []any{"items", sum.Items, "wells", sum.Read["wells_st37"] + sum.Read["wells_petrinex"]}, err
	case ag.Dataset:
		if err := agingest.WriteDemo(dir); err != nil {
			return nil, err
		}
		files, err := agingest.FilesIn(dir)
		if err != nil {
			return nil, err
		}
		sum, err := agingest.Ingest(ctx, store, svc, files, agingest.Options{Demo: true, AsOf: energyingest.DemoAsOf()})
		return []any{"items", sum.Items, "quarters", sum.Quarters}, err
	}
	return nil, fmt.Errorf("no demo data for %q", domain)
}

const ingestReportsUsage = `usage: meridian ingest energy [-data DIR] [-now YYYY-MM-DD] [-demo] [-tiles=false] [-check] DIR
       meridian ingest ag [-data DIR] [-demo] [-tiles=false] [-check] DIR

Reads every published energy file in DIR, recognised by the publishers' file
names (WellList*.txt, ST104A*BusinessAssociate*.csv, Well Infrastructure*.csv,
Facility Infrastructure*.csv, Vol_YYYY-MM-PP.csv, Pipelines*.geojson|.shp,
*Inventory*.xlsx, Crown_Dispositions*.geojson|.csv, PRABAIdentifiers.csv,
Mineral_Agreements*|PNG_Agreements*.geojson) — or, for ag, the
agriculture files (aci_*.tif, IMG_AAFC_LANDUSE_*|LU*.tif, aci_class_legend*, ca_all_slc*, soil_name*,
DominantAGRASID_LSRS*, slc_lsrs*, cli_*, CDM_YYMM_Dn_LR.geojson, waterbody*|NHN_*,
watercourse*, municipalities*, sk_ag_crown_land*, sk_pastures*,
bc_ag_capability*, OATS_ALR_POLYS*|ALC_ALR_POLYGONS*|bc_alr*,
FWA_WETLANDS*) — derives the report rows and publishes them to
DATA/reports/energy or DATA/reports/ag as a new version, all at once: a
problem in any file rejects the ingest (file:line: reason) and the data
served before stays. A server running on DATA keeps serving the old
version until the new one is complete, then switches within a second.
Then it rebuilds the domain's tile archives in DATA/tiles/energy or
DATA/tiles/ag from the published data (-tiles=false: leave them); the
server picks them up too. -demo writes the demo files to DIR first.

flags:
`

func ingestEnergyCommand(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("ingest energy", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, ingestReportsUsage); fs.PrintDefaults() }
	data := dataFlag(fs, "data directory")
	nowFlag := fs.String("now", "", "the day expiry states are computed for (default today)")
	demo := fs.Bool("demo", false, "write the demo files into DIR first, and mark the data as demo data")
	invented := fs.Bool("invented", false, "the files in DIR are invented (meridian demo): mark the data as demo data")
	tiles := fs.Bool("tiles", true, "rebuild the energy tile archives (DATA/tiles/energy) from the new data")
	check := fs.Bool("check", false, "read every file and say what it is, what is wrong and what would be published; publish nothing")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return 2
	}
	dir := fs.Arg(0)
	opts := energyingest.Options{Demo: *demo || *invented, Progress: stderr}
	if *nowFlag != "" {
		t, err := time.Parse("2006-01-02", *nowFlag)
		if err != nil {
			fmt.Fprintf(stderr, "meridian ingest energy: -now %q: want YYYY-MM-DD\n", *nowFlag)
			return 2
		}
		opts.Now = t
	}
	if *demo {
		if err := energyingest.WriteDemo(dir); err != nil {
			fmt.Fprintf(stderr, "meridian ingest energy: %v\n", err)
			return 1
		}
		if opts.Now.IsZero() {
			opts.Now = energyingest.DemoAsOf()
		}
	}
	files, err := energyingest.FilesIn(dir)
	if err != nil {
		fmt.Fprintf(stderr, "meridian ingest energy: %v\n", err)
		return 1
	}
	if *check {
		ls, err := energyingest.Layouts(files)
		if err != nil {
			fmt.Fprintf(stderr, "meridian ingest energy -check: %v\n", err)
			return 1
		}
		layouts := map[string]ingest.Layout{}
		for _, l := range ls {
			layouts[l.Path] = l.Layout
		}
		return runCheck("energy", *data, stdout, stderr, func(ctx context.Context, svc *grid.Service) int {
			return checkReports(ctx, stdout, "energy", files, layouts, func(ctx context.Context, f energyingest.Files, store *countStore, n *ingest.Notices) (map[string]int, map[string]int, error) {
				o := opts
				o.Progress, o.Notices = nil, n
				sum, err := energyingest.Ingest(ctx, store, svc, f, o)
				return sum.Read, sum.Skipped, err
			})
		})
	}
	// First, what each file was taken to be: a guessed layout says so.
	banners, err := energyingest.Banners(files)
	if err != nil {
		fmt.Fprintf(stderr, "meridian ingest energy: rejected: %v\n", err)
		return 1
	}
	for _, b := range banners {
		fmt.Fprintln(stdout, b)
	}
	for _, f := range files.Unrecognised {
		fmt.Fprintf(stderr, "skipped: %s (not a file name this ingest knows)\n", filepath.Base(f))
	}
	start := time.Now()
	return runReportIngest("energy", *data, *tiles, stdout, stderr, func(ctx context.Context, store kv.Store, svc *grid.Service) error {
		sum, err := energyingest.Ingest(ctx, store, svc, files, opts)
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "energy dataset version %d: %d items in %s\n", sum.Version, sum.Items, time.Since(start).Round(time.Millisecond))
		fmt.Fprintf(stdout, "read:    %s\n", counts(sum.Read))
		if len(sum.Skipped) > 0 {
			fmt.Fprintf(stdout, "skipped: %s\n", counts(sum.Skipped))
		}
		if sum.NoticeCount > 0 {
			fmt.Fprintf(stdout, "notices: %d rows with values not seen before, kept\n", sum.NoticeCount)
			for _, n := range sum.Notices {
				fmt.Fprintf(stdout, "  %s\n", n)
			}
		}
		return nil
	})
}

// runCheck loads the grid indexes of data (the ingest places records
// with them) and runs a -check, which publishes nothing: the report store
// is not opened, so a running server does not stand in its way.
func runCheck(domain string, data dataDir, stdout, stderr io.Writer, check func(context.Context, *grid.Service) int) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	svc := grid.New()
	if err := newGridLoader(data, svc, slog.New(slog.DiscardHandler)).load(ctx); err != nil {
		fmt.Fprintf(stderr, "meridian ingest %s -check: grid indexes: %v\n", domain, err)
		return 1
	}
	return check(ctx, svc)
}

// runReportIngest publishes a new version of domain's report store with
// run, over the grid indexes of data, while a server may serve the
// version before (it switches when the new one is complete), and says what
// went wrong: a rejected file, an interrupt (Ctrl-C) or a failure leaves
// the version served before in place. run prints its summary; then, with
// tiles, the domain's data archives are rebuilt from what was published.
func runReportIngest(domain string, data dataDir, tiles bool, stdout, stderr io.Writer, run func(context.Context, kv.Store, *grid.Service) error) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := migrateReports(data); err != nil {
		fmt.Fprintf(stderr, "meridian ingest %s: %v\n", domain, err)
		return 1
	}
	svc := grid.New()
	grids := newGridLoader(data, svc, slog.New(slog.DiscardHandler))
	grids.cacheBytes = jobGridCacheBytes
	if err := grids.load(ctx); err != nil {
		fmt.Fprintf(stderr, "meridian ingest %s: grid indexes: %v\n", domain, err)
		return 1
	}
	d := data.reports(domain)
	name, err := d.Publish(ctx, func(ctx context.Context, store kv.Store) error { return run(ctx, store, svc) })
	if err != nil {
		var ie *ingest.Error
		switch {
		case errors.As(err, &ie):
			fmt.Fprintf(stderr, "meridian ingest %s: rejected: %v\nthe %s data served before is unchanged\n", domain, ie, domain)
		case errors.Is(err, boltdir.ErrBusy):
			fmt.Fprintf(stderr, "meridian ingest %s: another ingest of %s is running on %s; the data served is unchanged\n", domain, domain, data)
		default:
			fmt.Fprintf(stderr, "meridian ingest %s: %v\nthe %s data served before is unchanged\n", domain, err, domain)
		}
		return 1
	}
	fmt.Fprintf(stdout, "%s report store: %s is served now (a running server switches within %s)\n", domain, filepath.Join(d.Path(), name), reportPollTime)
	if tiles {
		start := time.Now()
		store, _, _, err := d.OpenCurrent(boltdir.ScanRelease)
		if err != nil {
			fmt.Fprintf(stderr, "meridian ingest %s: the data is published, but the tile archives were not rebuilt: %v\n", domain, err)
			return 1
		}
		defer store.Close()
		built, n, unlocated, err := buildDataArchives(ctx, store, svc, data, domain)
		if err != nil {
			fmt.Fprintf(stderr, "meridian ingest %s: the data is published, but the tile archives were not rebuilt: %v\n", domain, err)
			return 1
		}
		fmt.Fprintf(stdout, "%s tile archives: %d rebuilt, %d tiles, in %s\n", domain, built, n, time.Since(start).Round(time.Millisecond))
		if unlocated > 0 {
			fmt.Fprintf(stdout, "%s tile archives: %d parcels the grid does not cover were left out of the maps\n", domain, unlocated)
		}
	}
	return 0
}

func counts(m map[string]int) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s %d", k, m[k])
	}
	return strings.Join(parts, ", ")
}

func ingestAgCommand(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("ingest ag", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, ingestReportsUsage); fs.PrintDefaults() }
	data := dataFlag(fs, "data directory")
	demo := fs.Bool("demo", false, "write the demo files into DIR first, and mark the data as demo data")
	invented := fs.Bool("invented", false, "the files in DIR are invented (meridian demo): mark the data as demo data")
	tiles := fs.Bool("tiles", true, "rebuild the agriculture tile archives (DATA/tiles/ag) from the new data")
	check := fs.Bool("check", false, "read every file and say what it is, what is wrong and what would be published; publish nothing")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return 2
	}
	dir := fs.Arg(0)
	if *demo {
		if err := agingest.WriteDemo(dir); err != nil {
			fmt.Fprintf(stderr, "meridian ingest ag: %v\n", err)
			return 1
		}
	}
	files, err := agingest.FilesIn(dir)
	if err != nil {
		fmt.Fprintf(stderr, "meridian ingest ag: %v\n", err)
		return 1
	}
	if *check {
		layouts := map[string]ingest.Layout{}
		for _, l := range agingest.Layouts(files) {
			layouts[l.Path] = l.Layout
		}
		for _, p := range files.Drought { // older months: read by no ingest, still checked
			if _, ok := layouts[p]; !ok {
				layouts[p] = agingest.DroughtGeoJSONLayout
				if strings.EqualFold(filepath.Ext(p), ".shp") {
					layouts[p] = agingest.DroughtShapefileLayout
				}
			}
		}
		return runCheck("ag", *data, stdout, stderr, func(ctx context.Context, svc *grid.Service) int {
			return checkReports(ctx, stdout, "ag", files, layouts, func(ctx context.Context, f agingest.Files, store *countStore, n *ingest.Notices) (map[string]int, map[string]int, error) {
				sum, err := agingest.Ingest(ctx, store, svc, f, agingest.Options{Demo: *demo || *invented, Notices: n})
				return sum.Read, nil, err
			})
		})
	}
	// What each file was taken to be, guessed layouts first.
	for _, l := range agingest.Layouts(files) {
		fmt.Fprintln(stdout, l.Banner())
	}
	for _, f := range files.Unrecognised {
		fmt.Fprintf(stderr, "skipped: %s (not a file name this ingest knows)\n", filepath.Base(f))
	}
	start := time.Now()
	notices := &ingest.Notices{}
	return runReportIngest("ag", *data, *tiles, stdout, stderr, func(ctx context.Context, store kv.Store, svc *grid.Service) error {
		sum, err := agingest.Ingest(ctx, store, svc, files, agingest.Options{Demo: *demo || *invented, Progress: stderr, Notices: notices})
		for _, n := range notices.Lines() {
			fmt.Fprintf(stdout, "notice: %s\n", n)
		}
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "ag dataset version %d: %d quarters, %d items in %s\n", sum.Version, sum.Quarters, sum.Items, time.Since(start).Round(time.Millisecond))
		fmt.Fprintf(stdout, "read:     %s\n", counts(sum.Read))
		fmt.Fprintf(stdout, "sections: %s\n", counts(sum.Sections))
		return nil
	})
}

// ensureDataArchives builds the archives of each data domain (energy, ag)
// whose tile directory has never been built whole (the first
// start, or one interrupted), as `meridian build-tiles` would, from the
// domain's served report version. A domain built before is left alone,
// whatever archives it lacks (layers without data have none): an ingest
// rebuilds its domain's.
func ensureDataArchives(ctx context.Context, data dataDir, svc *grid.Service, logger *slog.Logger) error {
	for _, region := range reportDomains {
		if _, err := os.Stat(data.built(region)); err == nil {
			continue
		}
		store, ok, err := openReportStore(data, region)
		if err != nil || !ok {
			return err
		}
		start := time.Now()
		built, tiles, unlocated, err := buildDataArchives(ctx, store, svc, data, region)
		store.Close()
		if err != nil {
			return err
		}
		logger.Info("data tile archives built", "domain", region, "archives", built, "tiles", tiles, "parcels_left_out", unlocated, "dir", data.tiles(), "elapsed", time.Since(start).Round(time.Millisecond).String())
	}
	return nil
}

// buildDataArchives builds the data archives of region ("ag" or "energy")
// from store into the data directory's tiles, then marks the region built. A layer the store has
// no data for loses its archive, so the server answers 404 rather than
// tiles of data no longer published. unlocated counts the stored parcels
// the grid cannot place, left out of the archives.
func buildDataArchives(ctx context.Context, store kv.Store, svc *grid.Service, data dataDir, region string) (built, tiles int, unlocated int64, err error) {
	dir := data.tiles()
	// Partitioned: the domain's features are spooled to files under dir,
	// a zoom-9 tile's worth in memory at a time.
	layerData := datalayers.NewPartitioned(store, svc, dir)
	defer func() {
		if cerr := layerData.Close(); err == nil {
			err = cerr
		}
	}()
	for _, l := range tile.Layers() {
		if !datalayers.Supported(l) || l.Region != region {
			continue
		}
		path := tileArchive(dir, l.Key())
		o, attribution, ok, err := dataArchiveOptions(ctx, layerData, l)
		if err != nil {
			return built, tiles, unlocated, err
		}
		if !ok {
			if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
				return built, tiles, unlocated, err
			}
			continue
		}
		st, err := buildArchive(ctx, l, layerData.Tile, dir, attribution, o)
		if err != nil {
			return built, tiles, unlocated, fmt.Errorf("layerData archive %s: %w", l.Path(), err)
		}
		built++
		tiles += st.Tiles
	}
	marker := data.built(region)
	if err := os.MkdirAll(filepath.Dir(marker), 0o755); err != nil {
		return built, tiles, unlocated, err
	}
	return built, tiles, layerData.Unlocated(), os.WriteFile(marker, nil, 0o644)
}

// dataArchiveOptions returns how to build data layer l's archive: over its
// data (datalayers.Source.BuildOptions), with its data's sources as the
// attribution; ok is false when the store has no data for it.
func dataArchiveOptions(ctx context.Context, data *datalayers.Source, l tile.Layer) (o tile.BuildOptions, attribution string, ok bool, err error) {
	if o, ok, err = data.BuildOptions(ctx, l); err != nil || !ok {
		return o, "", ok, wrapArchiveErr(l, err)
	}
	attribution, err = data.Attribution(ctx, l)
	return o, attribution, true, wrapArchiveErr(l, err)
}

func wrapArchiveErr(l tile.Layer, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("data archive %s: %w", l.Path(), err)
}
