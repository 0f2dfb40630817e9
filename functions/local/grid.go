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

	"meridian/shared/blob"
	"meridian/shared/datadir"
	"meridian/shared/demo/griddemo"
	"meridian/shared/gridstore/gridset"
	"meridian/shared/ingest"
	"meridian/shared/survey/grid"
	"meridian/shared/survey/gridindex"
	"meridian/shared/survey/gridingest"
)

// The server opens every grid index at start and again whenever the grid
// directory changes (looked at every gridPollTime), so an ingest while it
// runs takes effect within seconds; an index that fails to open is logged
// and the one served before it stays.
const gridPollTime = 2 * time.Second

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

// ensureFixtures ingests the embedded fixtures, through the same code as
// `meridian ingest grid`, when the data directory has no grid index yet,
// and rebuilds a fixture index an older meridian wrote in a format this
// one does not read (a real dataset's index of an old format is logged
// when it fails to load: it needs its source file, which only the user
// has).
func ensureFixtures(ctx context.Context, data datadir.Dir, logger *slog.Logger) error {
	names, err := gridNames(data)
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

// gridNames lists the index files, sorted.
func gridNames(data datadir.Dir) ([]string, error) {
	return gridset.Names(data.Grid(), datadir.GridExt)
}

// openGrids opens the grid indexes of data and hands them to svc, kept in
// step with the directory by Watch (the server): package gridset, the
// mechanism the Lambdas follow a release with. cacheBytes bounds each
// index's page cache (0: gridindex.DefaultCacheBytes).
func openGrids(ctx context.Context, data datadir.Dir, svc *grid.Service, logger *slog.Logger, cacheBytes int64) (*gridset.Grids, error) {
	// Index files are read from the page cache on files kept open
	// (blob.OpenDir): a second cache of 64 KiB blocks on top copied 64
	// KiB for each 2.5 KB block a lookup missed, and every read opened
	// and stated the file.
	g, err := gridset.New(ctx, gridset.Dir(data.Grid(), datadir.GridExt, gridPollTime, cacheBytes), logger)
	if err != nil {
		return nil, err
	}
	g.Attach(svc.SetIndexes, nil)
	return g, nil
}

// jobGridCacheBytes is each grid index's page cache in build-tiles and in
// the report ingests. A build's data layers resolve blocks in grid order,
// a township at a time, and its grid archives walk each zoom's tiles along
// a Hilbert curve: few blocks are in use at once. The server's 128 MiB an
// index, filled by a province's build, was most of the build's heap and of
// its collector's work. The agriculture ingest sweeps the quarters a band
// of townships at a time; at province size the server's caches were 340 of
// its 600 MB live. The energy ingest resolves wells in file order, which
// is random over a province: grid lookups were a tenth of its CPU with
// 128 MiB an index, and may cost more with less.
const jobGridCacheBytes = 32 << 20

const ingestUsage = `usage: meridian ingest grid -format ats|mb|sk|on [-name NAME] [-data DIR] [-check] [-allow-unknown] FILE...
       meridian ingest energy|ag [-data DIR] [-demo] [-check] [-allow-unknown] DIR   (see meridian ingest energy -h)

-check reads every file and prints, per file, the layout recognised (verified
against published evidence, or guessed), its coordinate system, the rows read
and skipped and any rejection with its line and reason, then what an ingest
would publish; it installs and publishes nothing. Run it first on a download.

Builds the grid index of an official survey dataset and installs it in
DIR/grid/NAME.mgix, where the server picks it up within seconds. A problem in
any file rejects the dataset (file:line: reason) and leaves the index served
before in place. A publisher's .zip (zips inside included) is read as if its
members were named: they are extracted to $TMPDIR for the run. A file the
format does not read refuses the dataset, nothing read (-allow-unknown: skip
it and read the rest); -check lists every file, read or not.

  ats  AltaLIS ATS v4.1 coordinate file ATS_V4_1.SEQ, or its polygon
       Shapefiles (V4-1_SEC.shp, LSD, quarter and township layers: a .shp
       with its .dbf and .prj beside it)
  mb   Manitoba Original Survey Legal Descriptions CSV, and optionally
       MB_QuarterSectionCorners.csv (quarter polygons)
  sk   ISC SaskGrid Shapefiles (.shp with .dbf and .prj beside it), any layers
  on   LIO Geographic Lot Fabric (.shp or .geojson), and optionally
       Geographic Township Improved (a file name containing "township")

flags:
`

func ingestCommand(args []string, stdout, stderr io.Writer) int {
	for _, d := range reportDomainTable {
		if len(args) > 0 && args[0] == d.name {
			return ingestReportCommand(d, args[1:], stdout, stderr)
		}
	}
	if len(args) == 0 || args[0] != "grid" {
		fmt.Fprint(stderr, ingestUsage)
		return 2
	}
	fs := flag.NewFlagSet("ingest grid", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, ingestUsage); fs.PrintDefaults() }
	format := fs.String("format", "", "ats, mb, sk or on")
	name := fs.String("name", "", "index name (default: the dataset's, e.g. altalis-ats-v4.1)")
	data := dataFlag(fs, "data directory")
	asOf := fs.String("as-of", "", "the dataset's publication date, recorded in the index")
	check := fs.Bool("check", false, "read every file and say what it is, what is wrong and what would be built; install nothing")
	allowUnknown := fs.Bool("allow-unknown", false, "skip the files the format does not read and read the rest (without it they refuse the dataset)")
	if err := fs.Parse(args[1:]); err != nil {
		return 2
	}
	meta, ok := gridingest.DefaultMeta(gridingest.GridFormat(*format))
	if !ok {
		fmt.Fprintf(stderr, "meridian ingest grid: -format %q: want ats, mb, sk or on\n", *format)
		return 2
	}
	if fs.NArg() == 0 {
		fmt.Fprintln(stderr, "meridian ingest grid: name the dataset's files")
		return 2
	}
	if *name != "" {
		meta.Name = *name
	}
	if *asOf != "" {
		meta.AsOf = *asOf
	}
	gf := gridingest.GridFormat(*format)
	// A publisher's zip is read as downloaded (mb_township_system_corners.zip,
	// ATS_V4_1.zip): its members are the files, named after it.
	folder, err := ingest.Unpack(fs.Args(), ingest.Limits{})
	if err != nil {
		fmt.Fprintf(stderr, "meridian ingest grid: %v\n", err)
		return 1
	}
	defer folder.Close()
	sorted := gridingest.FilesOf(gf, folder.Paths())
	companions, unknown := unlisted(sorted, folder.Paths())
	unknown = append(slices.Clip(sorted.Unrecognised), unknown...)
	var files []string
	for _, f := range sorted.Read {
		abs, err := filepath.Abs(f)
		if err != nil {
			fmt.Fprintf(stderr, "meridian ingest grid: %v\n", err)
			return 1
		}
		files = append(files, strings.TrimPrefix(filepath.ToSlash(abs), "/"))
	}
	src := gridingest.GridSource{Format: gf, FS: os.DirFS("/"), Files: files, Meta: meta}
	if *check {
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
		defer stop()
		var others []fileCheck
		for _, p := range unknown {
			others = append(others, fileCheck{name: filepath.Base(p), kind: fileUnrecognised,
				note: fmt.Sprintf("not a file the -format %s reader reads (the files it reads are at the end)", gf)})
		}
		for _, p := range sorted.Unused {
			others = append(others, fileCheck{name: filepath.Base(p), kind: fileUnused,
				note: "recognised, read by no grid reader (a README or a publisher's PDF, or a GeoJSON beside the shapefile of its name, which is read)"})
		}
		for _, p := range companions {
			others = append(others, fileCheck{name: filepath.Base(p), kind: fileCompanion,
				note: "read with the shapefile of the same name beside it (its .dbf, .prj, .shx or .cpg)"})
		}
		return checkGrid(ctx, stdout, src, others, checkOptions{allowUnknown: *allowUnknown, expects: gf.FileNames()})
	}
	if len(unknown) > 0 && !*allowUnknown {
		for _, f := range unknown {
			fmt.Fprintf(stderr, "not recognised: %s\n", filepath.Base(f))
		}
		fmt.Fprintf(stderr, "meridian ingest grid: %d files are not files -format %s reads (it reads %s): nothing was read or installed; "+
			"take them out, or run with -allow-unknown to read the rest\n", len(unknown), gf, gf.FileNames())
		return 1
	}
	for _, f := range unknown {
		fmt.Fprintf(stderr, "skipped: %s (not a file -format %s reads)\n", filepath.Base(f), gf)
	}
	if len(files) == 0 {
		fmt.Fprintf(stderr, "meridian ingest grid: no file -format %s reads among %d (it reads %s)\n", gf, len(folder.Files), gf.FileNames())
		return 1
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	// Each file's layout as it is read (a guessed one says so first), and
	// the notices at the end.
	notices := &ingest.Notices{}
	src.Notices = notices
	src.OnFile = func(file string, st gridingest.Stats, err error) {
		if st.Layout.Dataset != "" {
			fmt.Fprintf(stdout, "%s [%s]\n", st.Layout.Banner(), file)
		}
	}
	start := time.Now()
	st, ist, err := installGrid(ctx, *data, src)
	for _, n := range notices.Lines() {
		fmt.Fprintf(stdout, "notice: %s\n", n)
	}
	if err != nil {
		fmt.Fprintf(stderr, "meridian ingest grid: rejected, the index served before is unchanged: %v\n", err)
		return 1
	}
	fmt.Fprintf(stdout, "%s: %s -> %d records in %d groups, %d bytes, in %s\n",
		data.GridFile(meta.Name), st, ist.Records, ist.Groups, ist.Bytes, time.Since(start).Round(time.Millisecond))
	return 0
}
