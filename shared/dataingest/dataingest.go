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
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"meridian/shared/ag"
	"meridian/shared/ag/agingest"
	"meridian/shared/atomicfile"
	"meridian/shared/blob"
	"meridian/shared/datadir"
	demodata "meridian/shared/demo"
	"meridian/shared/demo/agdemo"
	"meridian/shared/demo/energydemo"
	"meridian/shared/demo/griddemo"
	"meridian/shared/energy"
	"meridian/shared/energy/energyingest"
	"meridian/shared/gridstore/gridset"
	"meridian/shared/ingest"
	"meridian/shared/kv"
	"meridian/shared/kv/boltdir"
	"meridian/shared/survey/grid"
	"meridian/shared/survey/gridindex"
	"meridian/shared/survey/gridingest"
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

// Grid is one grid ingest.
type Grid struct {
	Format gridingest.GridFormat
	Name   string // the index name; "": the dataset's (gridingest.DefaultMeta)
	AsOf   string // the dataset's publication date, recorded in the index
	// Files are the dataset's files; a publisher's .zip (zips inside
	// included) is read as if its members were named.
	Files []string
	// AllowUnknown skips the files the format does not read; without it
	// they refuse the dataset, nothing read.
	AllowUnknown bool
	// Out receives a line per file read (its layout) and the notices;
	// Log the files skipped. nil: discarded.
	Out, Log io.Writer
}

// GridResult is what a grid ingest installed.
type GridResult struct {
	Path  string // the index file
	Rows  gridingest.Stats
	Index gridindex.Stats
}

// prepared is a grid ingest's files sorted by what the format makes of
// them.
type prepared struct {
	src                 gridingest.GridSource
	folder              *ingest.Folder
	unknown, companions []string
	unused              []string
}

func (g Grid) prepare() (*prepared, error) {
	meta, ok := gridingest.DefaultMeta(g.Format)
	if !ok {
		return nil, fmt.Errorf("format %q: want ats, mb, sk or on", g.Format)
	}
	if g.Name != "" {
		meta.Name = g.Name
	}
	if g.AsOf != "" {
		meta.AsOf = g.AsOf
	}
	// A publisher's zip is read as downloaded (mb_township_system_corners.zip,
	// ATS_V4_1.zip): its members are the files, named after it.
	folder, err := ingest.Unpack(g.Files, ingest.Limits{})
	if err != nil {
		return nil, err
	}
	sorted := gridingest.FilesOf(g.Format, folder.Paths())
	companions, unknown := unlisted(sorted, folder.Paths())
	p := &prepared{folder: folder, companions: companions, unknown: append(slices.Clip(sorted.Unrecognised), unknown...), unused: sorted.Unused}
	var files []string
	for _, f := range sorted.Read {
		abs, err := filepath.Abs(f)
		if err != nil {
			folder.Close()
			return nil, err
		}
		files = append(files, strings.TrimPrefix(filepath.ToSlash(abs), "/"))
	}
	p.src = gridingest.GridSource{Format: g.Format, FS: os.DirFS("/"), Files: files, Meta: meta}
	return p, nil
}

// CheckGrid reads each file of g on its own, then the set into an index
// that is thrown away, and writes what it found to w: per file its layout,
// coordinate system, rows and first rejection, then what an ingest would
// install. It installs nothing. A rejected file, a file not recognised
// without AllowUnknown, or a set that fails whole is a *Rejected.
func CheckGrid(ctx context.Context, g Grid, w io.Writer) error {
	p, err := g.prepare()
	if err != nil {
		return err
	}
	defer p.folder.Close()
	var others []fileCheck
	for _, f := range p.unknown {
		others = append(others, fileCheck{name: filepath.Base(f), kind: fileUnrecognised,
			note: fmt.Sprintf("not a file the -format %s reader reads (the files it reads are at the end)", g.Format)})
	}
	for _, f := range p.unused {
		others = append(others, fileCheck{name: filepath.Base(f), kind: fileUnused,
			note: "recognised, read by no grid reader (a README or a publisher's PDF, or a GeoJSON beside the shapefile of its name, which is read)"})
	}
	for _, f := range p.companions {
		others = append(others, fileCheck{name: filepath.Base(f), kind: fileCompanion,
			note: "read with the shapefile of the same name beside it (its .dbf, .prj, .shx or .cpg)"})
	}
	return checkGrid(ctx, w, p.src, others, checkOptions{allowUnknown: g.AllowUnknown, expects: g.Format.FileNames()})
}

// IngestGrid builds g's index and installs it in data's grid directory,
// where a server picks it up within seconds, only when it is complete and
// opens: a problem in any file rejects the dataset (a *Rejected holding
// the file's *ingest.Error) and leaves the index served before in place.
func IngestGrid(ctx context.Context, data datadir.Dir, g Grid) (GridResult, error) {
	out, log := writer(g.Out), writer(g.Log)
	p, err := g.prepare()
	if err != nil {
		return GridResult{}, err
	}
	defer p.folder.Close()
	if len(p.unknown) > 0 && !g.AllowUnknown {
		return GridResult{}, unrecognised(p.unknown, fmt.Sprintf("%d files are not files -format %s reads (it reads %s): nothing was read or installed; "+
			"take them out, or run with -allow-unknown to read the rest", len(p.unknown), g.Format, g.Format.FileNames()))
	}
	for _, f := range p.unknown {
		fmt.Fprintf(log, "skipped: %s (not a file -format %s reads)\n", filepath.Base(f), g.Format)
	}
	if len(p.src.Files) == 0 {
		return GridResult{}, fmt.Errorf("no file -format %s reads among %d (it reads %s)", g.Format, len(p.folder.Files), g.Format.FileNames())
	}
	// Each file's layout as it is read (a guessed one says so first), and
	// the notices at the end.
	notices := &ingest.Notices{}
	src := p.src
	src.Notices = notices
	src.OnFile = func(file string, st gridingest.Stats, err error) {
		if st.Layout.Dataset != "" {
			fmt.Fprintf(out, "%s [%s]\n", st.Layout.Banner(), file)
		}
	}
	st, ist, err := installGrid(ctx, data, src)
	for _, n := range notices.Lines() {
		fmt.Fprintf(out, "notice: %s\n", n)
	}
	if err != nil {
		return GridResult{}, &Rejected{Reason: "rejected, the index served before is unchanged", Errs: []error{err}}
	}
	return GridResult{Path: data.GridFile(src.Meta.Name), Rows: st, Index: ist}, nil
}

// unrecognised is the refusal of files not read, one *ingest.Error each.
func unrecognised(files []string, reason string) *Rejected {
	r := &Rejected{Reason: reason}
	for _, f := range files {
		r.Errs = append(r.Errs, &ingest.Error{File: filepath.Base(f), Reason: "not recognised"})
	}
	return r
}

func writer(w io.Writer) io.Writer {
	if w == nil {
		return io.Discard
	}
	return w
}

// installGrid builds src's index and moves it into the data directory only
// when it is complete and opens: a bad file leaves the served index alone.
func installGrid(ctx context.Context, data datadir.Dir, src gridingest.GridSource) (st gridingest.Stats, ist gridindex.Stats, err error) {
	err = datadir.Install(ctx, data.GridFile(src.Meta.Name), func(ctx context.Context, f *os.File) (err error) {
		if src.TempDir == "" {
			src.TempDir = filepath.Dir(f.Name())
		}
		st, ist, err = gridingest.BuildGrid(ctx, src, f)
		return err
	}, func(ctx context.Context, dir, name string) error {
		_, err := gridindex.Open(ctx, blob.NewDir(dir), name, gridindex.Options{})
		return err
	})
	return st, ist, err
}

// EnsureFixtures ingests the embedded fixtures, through the same code as
// IngestGrid, when the data directory has no grid index yet, and rebuilds
// a fixture index an older meridian wrote in a format this one does not
// read (a real dataset's index of an old format is logged when it fails to
// load: it needs its source file, which only the user has).
func EnsureFixtures(ctx context.Context, data datadir.Dir, logger *slog.Logger) error {
	names, err := GridNames(data)
	if err != nil {
		return err
	}
	for _, src := range griddemo.Sources() {
		if len(names) > 0 {
			name := src.Meta.Name + datadir.GridExt
			if !slices.Contains(names, name) {
				continue
			}
			_, err := gridindex.Open(ctx, blob.NewDir(data.Grid()), name, gridindex.Options{})
			if !errors.Is(err, gridindex.ErrOldFormat) {
				continue
			}
			logger.Info("rebuilding a fixture index of an older format", "index", src.Meta.Name)
		}
		st, ist, err := installGrid(ctx, data, src)
		if err != nil {
			return fmt.Errorf("fixture %s: %w", src.Meta.Name, err)
		}
		logger.Info("ingested fixture", "index", src.Meta.Name, "rows", st.Rows, "records", ist.Records, "bytes", ist.Bytes)
	}
	return nil
}

// GridNames lists data's grid index files, sorted.
func GridNames(data datadir.Dir) ([]string, error) {
	return gridset.Names(data.Grid(), datadir.GridExt)
}

// GridPollTime is how often a server looks for new or changed grid
// indexes in its data directory (OpenGrids, Watch).
const GridPollTime = 2 * time.Second

// OpenGrids opens the grid indexes of data and hands them to svc, kept in
// step with the directory by Watch (the server): package gridset, the
// mechanism the Lambdas follow a release with. cacheBytes bounds each
// index's page cache (0: gridindex.DefaultCacheBytes). An index that does
// not open is logged and left out.
func OpenGrids(ctx context.Context, data datadir.Dir, svc *grid.Service, logger *slog.Logger, cacheBytes int64) (*gridset.Grids, error) {
	g, err := gridset.New(ctx, gridset.Dir(data.Grid(), datadir.GridExt, GridPollTime, cacheBytes), logger)
	if err != nil {
		return nil, err
	}
	g.Attach(svc.SetIndexes, nil)
	return g, nil
}

// JobGridCacheBytes is each grid index's page cache in build-tiles and in
// the report ingests. A build's data layers resolve blocks in grid order,
// a township at a time, and its grid archives walk each zoom's tiles along
// a Hilbert curve: few blocks are in use at once. The server's 128 MiB an
// index, filled by a province's build, was most of the build's heap and of
// its collector's work. The agriculture ingest sweeps the quarters a band
// of townships at a time; at province size the server's caches were 340 of
// its 600 MB live. The energy ingest resolves wells in file order, which
// is random over a province: grid lookups were a tenth of its CPU with
// 128 MiB an index, and may cost more with less.
const JobGridCacheBytes = 32 << 20

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
	store := data.Reports(r.Domain)
	name, err := store.Publish(ctx, func(ctx context.Context, s kv.Store) error {
		_, err := files.ingest(ctx, s, svc, o, out)
		return err
	})
	if err != nil {
		return ReportsResult{}, err
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
		if _, err := d.Publish(ctx, func(ctx context.Context, store kv.Store) (err error) {
			attrs, err = IngestDemo(ctx, domain, store, svc)
			return err
		}); err != nil {
			return fmt.Errorf("demo %s data into %s: %w", domain, d.Path(), err)
		}
		logger.Info("ingested demo "+domain+" data", append(attrs, "store", d.Path(), "duration_ms", time.Since(start).Milliseconds())...)
	}
	return nil
}

// IngestDemo writes domain's demo files to a temporary directory and
// ingests them into store, as a first start does; it returns what to log.
func IngestDemo(ctx context.Context, domain string, store kv.Store, g *grid.Service) ([]any, error) {
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
	return files.ingest(ctx, store, g, ingestOptions{demo: true, asOf: demodata.AsOf()}, nil)
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
	demo     bool            // the files are invented (meridian demo)
	asOf     time.Time       // expiry states (energy), undated files (ag); zero: today
	progress io.Writer       // a line per file read; nil: quiet
	notices  *ingest.Notices // values the readers had not seen before; nil discards them
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
