// Package dataingest puts the official datasets into a local data
// directory (package datadir): a survey grid's files become a grid index in
// DATA/grid, a report domain's folder (energy, agriculture) a new version
// of DATA/reports/<domain> and its tile archives. Each has a check that
// reads every file as the ingest would and publishes nothing.
//
// `meridian ingest` and `meridian data fetch` (its datafetch.Ingester) call
// it with a context, which it honours: a cancellation stops the ingest and
// leaves what was served before. A problem in a file rejects the dataset
// whole: the error holds an *ingest.Error (file:line: reason), found with
// errors.As, and a check's refusal is a *Rejected holding every file's.
// A dataset being installed never replaces the one served until it is
// complete and opens, so an ingest runs while a server serves the same
// directory.
package dataingest

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"meridian/shared/ag"
	"meridian/shared/ag/agingest"
	"meridian/shared/datadir"
	demodata "meridian/shared/demo"
	"meridian/shared/demo/agdemo"
	"meridian/shared/demo/energydemo"
	"meridian/shared/energy"
	"meridian/shared/energy/changefeed"
	"meridian/shared/energy/energyingest"
	"meridian/shared/ingest"
	"meridian/shared/kv"
	"meridian/shared/kv/boltdir"
	"meridian/shared/survey/grid"
	"meridian/shared/tile/datalayers"
)

// Rejected is a dataset refused whole: the problem of each file (an
// *ingest.Error, file:line: reason, or an error that is not the file's),
// and what was refused when that is more than the files' problems.
type Rejected struct {
	Reason string // "" when the files' problems say it all
	Errs   []error
}

// Error is Reason, then the first three problems.
func (r *Rejected) Error() string {
	var parts []string
	for i, e := range r.Errs {
		if i == 3 {
			parts = append(parts, fmt.Sprintf("and %d more", len(r.Errs)-3))
			break
		}
		parts = append(parts, e.Error())
	}
	s := strings.Join(parts, "; ")
	if r.Reason != "" {
		s = r.Reason + ": " + s
	}
	return s
}

// Unwrap returns the problems, so errors.As finds the first *ingest.Error.
func (r *Rejected) Unwrap() []error { return r.Errs }

// Domains are the report domains, each its own store directory
// (DATA/reports/<domain>) and tile directory; the names are also their
// dataset names (energy.Dataset, ag.Dataset).
var Domains = func() []string {
	names := make([]string, len(domainTable))
	for i, d := range domainTable {
		names[i] = d.name
	}
	return names
}()

// Reports is one report domain's ingest.
type Reports struct {
	Domain string // energy or ag (Domains)
	Dir    string // the folder of the domain's files
	// WriteDemo writes the demo files into Dir first (and marks the data
	// as demo data).
	WriteDemo bool
	Invented  bool      // the files are invented (meridian demo): mark the data as demo data
	AsOf      time.Time // expiry states (energy), undated files (ag); zero: today (demo: the demo's day)
	// AllowUnknown skips the files whose names the domain does not know;
	// without it they refuse the folder, nothing read.
	AllowUnknown bool
	// Tiles rebuilds the domain's tile archives from what was published.
	Tiles bool
	// Out receives the files' layouts and the ingest's summary; Log a
	// line per file read and the files skipped. nil: discarded.
	Out, Log io.Writer
}

// ReportsResult is what a report ingest published.
type ReportsResult struct {
	Version string                  // the version file served now
	Tiles   *datalayers.DomainStats // the archives rebuilt (Tiles), nil before
}

// Expects returns the file names domain reads, for a user whose file it
// does not recognise.
func Expects(domain string) (string, bool) {
	d, ok := domainOf(domain)
	return d.expects, ok
}

// TakesNow reports whether domain's ingest uses AsOf for expiry states,
// and how to describe it.
func TakesNow(domain string) string {
	d, _ := domainOf(domain)
	return d.now
}

func (r Reports) open() (reportDomain, domainFiles, ingestOptions, error) {
	d, ok := domainOf(r.Domain)
	if !ok {
		return d, nil, ingestOptions{}, fmt.Errorf("no report domain %q (want %s)", r.Domain, strings.Join(Domains, " or "))
	}
	o := ingestOptions{demo: r.WriteDemo || r.Invented, asOf: r.AsOf, progress: r.Log}
	if r.WriteDemo {
		if err := d.writeDemo(r.Dir); err != nil {
			return d, nil, o, err
		}
		if o.asOf.IsZero() {
			o.asOf = demodata.AsOf()
		}
	}
	files, err := d.open(r.Dir)
	return d, files, o, err
}

// CheckReports reads every file of r.Dir as IngestReports would, over
// data's grid indexes, and writes what it found to w; it publishes nothing
// and does not open the report store, so a running server does not stand
// in its way. A rejected file, a file not recognised without AllowUnknown,
// or a set that fails whole is a *Rejected.
func CheckReports(ctx context.Context, data datadir.Dir, r Reports, w io.Writer) error {
	d, files, o, err := r.open()
	if err != nil {
		return err
	}
	defer files.close()
	svc := grid.New()
	if _, err := OpenGrids(ctx, data, svc, slog.New(slog.DiscardHandler), 0); err != nil {
		return fmt.Errorf("grid indexes: %w", err)
	}
	return files.check(ctx, w, svc, o, checkOptions{allowUnknown: r.AllowUnknown, expects: d.expects})
}

// IngestReports reads r's folder and publishes its report rows to data as
// a new version of the domain's store, over data's grid indexes, while a
// server may serve the version before (it switches when the new one is
// complete). A problem in any file rejects the ingest (the error holds its
// *ingest.Error), and an interrupt or failure leaves the version served
// before in place; boltdir.ErrBusy says another ingest of the domain runs.
// With r.Tiles, the domain's data archives are then rebuilt from what was
// published: an error there comes with the result of the publish.
func IngestReports(ctx context.Context, data datadir.Dir, r Reports) (ReportsResult, error) {
	out, log := writer(r.Out), writer(r.Log)
	_, files, o, err := r.open()
	if err != nil {
		return ReportsResult{}, err
	}
	defer files.close()
	if unknown := files.unrecognised(); len(unknown) > 0 && !r.AllowUnknown {
		d, _ := domainOf(r.Domain)
		return ReportsResult{}, unrecognised(unknown, fmt.Sprintf("%d files in %s are not files this ingest knows (it reads %s): nothing was read or published; "+
			"give them their publishers' names, take them out, or run with -allow-unknown to read the rest", len(unknown), r.Dir, d.expects))
	}
	banners, err := files.banners()
	if err != nil {
		return ReportsResult{}, err
	}
	for _, b := range banners {
		fmt.Fprintln(out, b)
	}
	for _, f := range files.unrecognised() {
		fmt.Fprintf(log, "skipped: %s (not a file name this ingest knows)\n", filepath.Base(f))
	}
	if err := MigrateReports(data); err != nil {
		return ReportsResult{}, err
	}
	svc := grid.New()
	if _, err := OpenGrids(ctx, data, svc, slog.New(slog.DiscardHandler), JobGridCacheBytes); err != nil {
		return ReportsResult{}, fmt.Errorf("grid indexes: %w", err)
	}
	if r.Domain == energy.Dataset {
		if o.changes, err = changefeed.Open(data.EnergyChanges()); err != nil {
			return ReportsResult{}, fmt.Errorf("energy change feed: %w", err)
		}
	}
	store := data.Reports(r.Domain)
	name, err := store.Publish(ctx, func(ctx context.Context, s kv.Store) error {
		_, err := files.ingest(ctx, s, svc, o, out)
		return err
	})
	if err != nil {
		if o.changes != nil {
			o.changes.Abort()
		}
		return ReportsResult{}, err
	}
	// The version is served: its change feed state becomes the one the
	// next ingest compares with. Not saved, the next ingest reports this
	// version's changes again (under its own version): never lost.
	if o.changes != nil {
		if err := o.changes.Commit(); err != nil {
			return ReportsResult{Version: filepath.Join(store.Path(), name)}, fmt.Errorf("the data is published, but the change feed's state was not saved (the next ingest reports these changes again): %w", err)
		}
	}
	res := ReportsResult{Version: filepath.Join(store.Path(), name)}
	if !r.Tiles {
		return res, nil
	}
	served, _, _, err := store.OpenCurrent(boltdir.ScanRelease)
	if err != nil {
		return res, fmt.Errorf("the data is published, but the tile archives were not rebuilt: %w", err)
	}
	defer served.Close()
	st, err := datalayers.BuildDomain(ctx, served, svc, data, r.Domain)
	if err != nil {
		return res, fmt.Errorf("the data is published, but the tile archives were not rebuilt: %w", err)
	}
	res.Tiles = &st
	return res, nil
}

// reportDomain is what the ingest needs of one report domain.
type reportDomain struct {
	name      string                 // the dataset: energy.Dataset, ag.Dataset; also its store and tile directory
	now       string                 // what AsOf means for the domain's expiry states; "" when it has none
	writeDemo func(dir string) error // dated demodata.AsOf, as every demo
	// open sorts the files of dir (zips opened where the domain reads
	// them); the caller closes what it returns.
	open    func(dir string) (domainFiles, error)
	expects string // the file names the domain reads, for a file it does not recognise
}

// ingestOptions are a report ingest's choices, whatever the domain.
type ingestOptions struct {
	demo     bool              // the files are invented (meridian demo)
	asOf     time.Time         // expiry states (energy), undated files (ag); zero: today
	progress io.Writer         // a line per file read; nil: quiet
	notices  *ingest.Notices   // values the readers had not seen before; nil discards them
	changes  *changefeed.State // the energy change feed's state; nil: none (a check)
}

// domainFiles are one domain's files found in a directory.
type domainFiles interface {
	// banners say what each file was taken to be; a guessed layout says so.
	banners() ([]string, error)
	unrecognised() []string
	// check reads every file as the ingest would, says what it found on w
	// and publishes nothing; every file of the folder is listed, read or
	// not.
	check(ctx context.Context, w io.Writer, g *grid.Service, o ingestOptions, opt checkOptions) error
	// close removes what open extracted from zips.
	close() error
	// ingest writes the domain's report rows into store. With w it prints
	// its summary there; it returns what the first start logs.
	ingest(ctx context.Context, store kv.Store, g *grid.Service, o ingestOptions, w io.Writer) ([]any, error)
}

var domainTable = []reportDomain{
	{
		name:      energy.Dataset,
		now:       "the day expiry states are computed for (default today)",
		writeDemo: energydemo.Write,
		open: func(dir string) (domainFiles, error) {
			folder, err := ingest.OpenFolder(dir, ingest.Limits{})
			if err != nil {
				return nil, err
			}
			return energyFiles{files: energyingest.FilesOf(folder.Paths()), folder: folder}, nil
		},
		expects: energyingest.FileNames,
	},
	{
		name:      ag.Dataset,
		writeDemo: agdemo.Write,
		open: func(dir string) (domainFiles, error) {
			folder, err := ingest.OpenFolder(dir, ingest.Limits{})
			if err != nil {
				return nil, err
			}
			// A drought monitor month's folder is read as AAFC ships it.
			sub, err := agingest.SubfolderFiles(dir)
			if err != nil {
				folder.Close()
				return nil, err
			}
			all := append(folder.Paths(), sub...)
			return agFiles{files: agingest.FilesOf(all), all: all, folder: folder}, nil
		},
		expects: agingest.FileNames,
	},
}

func domainOf(name string) (reportDomain, bool) {
	i := slices.IndexFunc(domainTable, func(d reportDomain) bool { return d.name == name })
	if i < 0 {
		return reportDomain{}, false
	}
	return domainTable[i], true
}

// counts formats m as "a 1, b 2", keys sorted.
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
