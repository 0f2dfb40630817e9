package dataingest

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"time"

	"meridian/shared/atomicfile"
	"meridian/shared/datadir"
	demodata "meridian/shared/demo"
	"meridian/shared/energy"
	"meridian/shared/energy/changefeed"
	"meridian/shared/kv"
	"meridian/shared/kv/boltdir"
	"meridian/shared/survey/grid"
	"meridian/shared/tile/datalayers"
)

// The report store is a directory per domain, <data>/reports/energy and
// <data>/reports/ag: each holds one bbolt file per published version and a
// CURRENT pointer (package boltdir). An ingest writes a new file and
// flips the pointer, so it runs while a server serves the same data
// directory; the server switches on its next look at the pointer and
// closes the old file when the requests holding it are done.

// MigrateReports adopts the single reports.db of an earlier release as the
// first version of each domain that has none, then renames it aside
// (reports.db.adopted): it is read once, never written.
func MigrateReports(data datadir.Dir) error {
	legacy := data.LegacyReports()
	if _, err := os.Stat(legacy); errors.Is(err, os.ErrNotExist) {
		return nil
	}
	domains, err := unpublished(data)
	if err != nil {
		return err
	}
	for _, domain := range domains {
		if _, err := data.Reports(domain).Adopt(legacy); err != nil {
			return fmt.Errorf("report store %s from an earlier release: %w (is an older server still running on this data directory?)", legacy, err)
		}
	}
	return atomicfile.Rename(legacy, legacy+".adopted")
}

// unpublished returns the report domains of data with no version yet.
func unpublished(data datadir.Dir) ([]string, error) {
	var out []string
	for _, domain := range Domains {
		cur, err := data.Reports(domain).Current()
		if err != nil {
			return nil, err
		}
		if cur == "" {
			out = append(out, domain)
		}
	}
	return out, nil
}

// OpenServed opens domain's served version read-only, for what reads it
// whole (build-tiles, the archives built at start-up): its pages leave the
// resident set as they are read (boltdir.ScanRelease). ok is false when it
// was never published.
func OpenServed(data datadir.Dir, domain string) (store *kv.Bolt, ok bool, err error) {
	if err := MigrateReports(data); err != nil {
		return nil, false, err
	}
	store, _, ok, err = data.Reports(domain).OpenCurrent(boltdir.ScanRelease)
	return store, ok, err
}

// EnsureDemoReports ingests the demo datasets, generated in the published
// formats and read by the same code as real files, into each domain of
// data that has never been published.
func EnsureDemoReports(ctx context.Context, data datadir.Dir, svc *grid.Service, logger *slog.Logger) error {
	domains, err := unpublished(data)
	if err != nil {
		return err
	}
	for _, domain := range domains {
		d := data.Reports(domain)
		start := time.Now()
		var attrs []any
		// The energy change feed starts from the demo: an ingest of the
		// demo's next version (meridian demo -next) then finds its changes.
		var changes *changefeed.State
		if domain == energy.Dataset {
			if changes, err = changefeed.Open(data.EnergyChanges()); err != nil {
				return fmt.Errorf("energy change feed: %w", err)
			}
		}
		if _, err := d.Publish(ctx, func(ctx context.Context, store kv.Store) (err error) {
			attrs, err = ingestDemo(ctx, domain, store, svc, changes)
			return err
		}); err != nil {
			if changes != nil {
				changes.Abort()
			}
			return fmt.Errorf("demo %s data into %s: %w", domain, d.Path(), err)
		}
		if changes != nil {
			if err := changes.Commit(); err != nil {
				return fmt.Errorf("demo energy data: the change feed's state: %w", err)
			}
		}
		logger.Info("ingested demo "+domain+" data", append(attrs, "store", d.Path(), "duration_ms", time.Since(start).Milliseconds())...)
	}
	return nil
}

// EnsureDataArchives builds the archives of each data domain (energy, ag)
// whose tile directory has never been built whole (the first
// start, or one interrupted), as `meridian build-tiles` would, from the
// domain's served report version. A domain built before is left alone,
// whatever archives it lacks (layers without data have none): an ingest
// rebuilds its domain's.
func EnsureDataArchives(ctx context.Context, data datadir.Dir, svc *grid.Service, logger *slog.Logger) error {
	for _, region := range Domains {
		if _, err := os.Stat(data.Built(region)); err == nil {
			continue
		}
		store, ok, err := OpenServed(data, region)
		if err != nil || !ok {
			return err
		}
		start := time.Now()
		st, err := datalayers.BuildDomain(ctx, store, svc, data, region)
		store.Close()
		if err != nil {
			return err
		}
		logger.Info("data tile archives built", "domain", region, "archives", st.Archives, "tiles", st.Tiles, "parcels_left_out", st.Unlocated, "dir", data.Tiles(), "elapsed", time.Since(start).Round(time.Millisecond).String())
	}
	return nil
}

// IngestDemo writes domain's demo files to a temporary directory and
// ingests them into store, as a first start does; it returns what to log.
func IngestDemo(ctx context.Context, domain string, store kv.Store, g *grid.Service) ([]any, error) {
	return ingestDemo(ctx, domain, store, g, nil)
}

// ingestDemo is IngestDemo keeping the energy change feed's state in
// changes (nil: none).
func ingestDemo(ctx context.Context, domain string, store kv.Store, g *grid.Service, changes *changefeed.State) ([]any, error) {
	d, ok := domainOf(domain)
	if !ok {
		return nil, fmt.Errorf("no report domain %q", domain)
	}
	dir, err := os.MkdirTemp("", "meridian-demo-"+d.name+"-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	if err := d.writeDemo(dir); err != nil {
		return nil, err
	}
	files, err := d.open(dir)
	if err != nil {
		return nil, err
	}
	defer files.close()
	return files.ingest(ctx, store, g, ingestOptions{demo: true, asOf: demodata.AsOf(), changes: changes}, nil)
}
