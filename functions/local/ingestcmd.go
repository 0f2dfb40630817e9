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
	"meridian/shared/datadir"
	demodata "meridian/shared/demo"
	"meridian/shared/demo/agdemo"
	"meridian/shared/demo/energydemo"
	"meridian/shared/energy"
	"meridian/shared/energy/energyingest"
	"meridian/shared/ingest"
	"meridian/shared/kv"
	"meridian/shared/kv/boltdir"
	"meridian/shared/survey/grid"
	"meridian/shared/tile/datalayers"
)

// reportDomain is what `meridian ingest energy|ag` and the first start's
// demo ingest need of one report domain. The command around it (flags,
// -check, banners, publishing, tiles) is the same for every domain:
// ingestReportCommand.
type reportDomain struct {
	name      string                 // the dataset: energy.Dataset, ag.Dataset; also its store and tile directory
	title     string                 // how messages name its data
	now       string                 // usage of -now for the domain; "" when it takes none
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
	// (a failure to start on stderr) and publishes nothing; every file of
	// the folder is listed, read or not.
	check(ctx context.Context, w, stderr io.Writer, g *grid.Service, o ingestOptions, opt checkOptions) int
	// close removes what open extracted from zips.
	close() error
	// ingest writes the domain's report rows into store. With w it prints
	// its summary there; it returns what the first start logs.
	ingest(ctx context.Context, store kv.Store, g *grid.Service, o ingestOptions, w io.Writer) ([]any, error)
}

var reportDomainTable = []reportDomain{
	{
		name: energy.Dataset, title: "energy",
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
		name: ag.Dataset, title: "agriculture",
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

// reportDomainOf returns the table's entry for name, one of reportDomains.
func reportDomainOf(name string) reportDomain {
	i := slices.IndexFunc(reportDomainTable, func(d reportDomain) bool { return d.name == name })
	return reportDomainTable[i]
}

const ingestReportsUsage = `usage: meridian ingest energy [-data DIR] [-now YYYY-MM-DD] [-demo] [-tiles=false] [-check] [-allow-unknown] DIR
       meridian ingest ag [-data DIR] [-demo] [-tiles=false] [-check] [-allow-unknown] DIR

Reads every published energy file in DIR, recognised by the publishers' file
names (WellList*.txt, BusinessAssociate_Codes.xlsx or ST104*|*BusinessAssociate*
.xlsx|.csv, PRABAIdentifiers.csv, Well Infrastructure*.csv, Facility
Infrastructure*.csv, Vol_YYYY-MM-PP.csv, Pipelines*.geojson|.shp,
*Inventory*.xlsx, Crown_Dispositions*.geojson|.csv,
Mineral_Agreements*|PNG_Agreements*.geojson; a publisher's .zip of them, zips
inside included, is read as if its members were in DIR: they are extracted
to $TMPDIR for the run) — or, for ag, ` + agingest.FileNames + ` — derives the report rows and publishes them to
DATA/reports/energy or DATA/reports/ag as a new version, all at once: a
problem in any file rejects the ingest (file:line: reason) and the data
served before stays. A file whose name the domain does not know refuses
the folder, nothing read (-allow-unknown: skip it and read the rest).
-check lists every file of DIR, read or not. A server running on DATA keeps serving the old
version until the new one is complete, then switches within a second.
Then it rebuilds the domain's tile archives in DATA/tiles/energy or
DATA/tiles/ag from the published data (-tiles=false: leave them); the
server picks them up too. -demo writes the demo files to DIR first.

flags:
`

// ingestReportCommand is `meridian ingest <domain>`.
func ingestReportCommand(d reportDomain, args []string, stdout, stderr io.Writer) int {
	cmd := "meridian ingest " + d.name
	fs := flag.NewFlagSet("ingest "+d.name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, ingestReportsUsage); fs.PrintDefaults() }
	data := dataFlag(fs, "data directory")
	var nowFlag *string
	if d.now != "" {
		nowFlag = fs.String("now", "", d.now)
	}
	demo := fs.Bool("demo", false, "write the demo files into DIR first, and mark the data as demo data")
	invented := fs.Bool("invented", false, "the files in DIR are invented (meridian demo): mark the data as demo data")
	tiles := fs.Bool("tiles", true, fmt.Sprintf("rebuild the %s tile archives (DATA/tiles/%s) from the new data", d.title, d.name))
	check := fs.Bool("check", false, "read every file and say what it is, what is wrong and what would be published; publish nothing")
	allowUnknown := fs.Bool("allow-unknown", false, "skip the files whose names the ingest does not know and read the rest (without it they refuse the folder)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return 2
	}
	dir := fs.Arg(0)
	o := ingestOptions{demo: *demo || *invented, progress: stderr}
	if nowFlag != nil && *nowFlag != "" {
		t, err := time.Parse("2006-01-02", *nowFlag)
		if err != nil {
			fmt.Fprintf(stderr, "%s: -now %q: want YYYY-MM-DD\n", cmd, *nowFlag)
			return 2
		}
		o.asOf = t
	}
	if *demo {
		if err := d.writeDemo(dir); err != nil {
			fmt.Fprintf(stderr, "%s: %v\n", cmd, err)
			return 1
		}
		if o.asOf.IsZero() {
			o.asOf = demodata.AsOf()
		}
	}
	files, err := d.open(dir)
	if err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", cmd, err)
		return 1
	}
	defer files.close()
	if *check {
		return runCheck(d.name, *data, stderr, func(ctx context.Context, g *grid.Service) int {
			return files.check(ctx, stdout, stderr, g, o, checkOptions{allowUnknown: *allowUnknown, expects: d.expects})
		})
	}
	if unknown := files.unrecognised(); len(unknown) > 0 && !*allowUnknown {
		for _, f := range unknown {
			fmt.Fprintf(stderr, "not recognised: %s\n", filepath.Base(f))
		}
		fmt.Fprintf(stderr, "%s: %d files in %s are not files this ingest knows (it reads %s): nothing was read or published; "+
			"give them their publishers' names, take them out, or run with -allow-unknown to read the rest\n", cmd, len(unknown), dir, d.expects)
		return 1
	}
	banners, err := files.banners()
	if err != nil {
		fmt.Fprintf(stderr, "%s: rejected: %v\n", cmd, err)
		return 1
	}
	for _, b := range banners {
		fmt.Fprintln(stdout, b)
	}
	for _, f := range files.unrecognised() {
		fmt.Fprintf(stderr, "skipped: %s (not a file name this ingest knows)\n", filepath.Base(f))
	}
	return runReportIngest(d.name, *data, *tiles, stdout, stderr, func(ctx context.Context, store kv.Store, g *grid.Service) error {
		_, err := files.ingest(ctx, store, g, o, stdout)
		return err
	})
}

// ingestDemo writes domain's demo files to a temporary directory and
// ingests them into store; it returns what to log.
func ingestDemo(ctx context.Context, domain string, store kv.Store, g *grid.Service) ([]any, error) {
	d := reportDomainOf(domain)
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

// runCheck loads the grid indexes of data (the ingest places records
// with them) and runs a -check, which publishes nothing: the report store
// is not opened, so a running server does not stand in its way.
func runCheck(domain string, data datadir.Dir, stderr io.Writer, check func(context.Context, *grid.Service) int) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	svc := grid.New()
	if _, err := openGrids(ctx, data, svc, slog.New(slog.DiscardHandler), 0); err != nil {
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
func runReportIngest(domain string, data datadir.Dir, tiles bool, stdout, stderr io.Writer, run func(context.Context, kv.Store, *grid.Service) error) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := migrateReports(data); err != nil {
		fmt.Fprintf(stderr, "meridian ingest %s: %v\n", domain, err)
		return 1
	}
	svc := grid.New()
	if _, err := openGrids(ctx, data, svc, slog.New(slog.DiscardHandler), jobGridCacheBytes); err != nil {
		fmt.Fprintf(stderr, "meridian ingest %s: grid indexes: %v\n", domain, err)
		return 1
	}
	d := data.Reports(domain)
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
		st, err := datalayers.BuildDomain(ctx, store, svc, data, domain)
		if err != nil {
			fmt.Fprintf(stderr, "meridian ingest %s: the data is published, but the tile archives were not rebuilt: %v\n", domain, err)
			return 1
		}
		fmt.Fprintf(stdout, "%s tile archives: %d rebuilt, %d tiles, in %s\n", domain, st.Archives, st.Tiles, time.Since(start).Round(time.Millisecond))
		if st.Unlocated > 0 {
			fmt.Fprintf(stdout, "%s tile archives: %d parcels the grid does not cover were left out of the maps\n", domain, st.Unlocated)
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
