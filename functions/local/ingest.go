package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"time"

	"meridian/shared/ag/agingest"
	"meridian/shared/dataingest"
	"meridian/shared/ingest"
	"meridian/shared/kv/boltdir"
	"meridian/shared/survey/gridingest"
)

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

// ingestCommand is `meridian ingest grid|energy|ag`: flags, then package
// dataingest, then what it did.
func ingestCommand(args []string, stdout, stderr io.Writer) int {
	for _, d := range dataingest.Domains {
		if len(args) > 0 && args[0] == d {
			return ingestReportsCommand(d, args[1:], stdout, stderr)
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
	if _, ok := gridingest.DefaultMeta(gridingest.GridFormat(*format)); !ok {
		fmt.Fprintf(stderr, "meridian ingest grid: -format %q: want ats, mb, sk or on\n", *format)
		return 2
	}
	if fs.NArg() == 0 {
		fmt.Fprintln(stderr, "meridian ingest grid: name the dataset's files")
		return 2
	}
	g := dataingest.Grid{Format: gridingest.GridFormat(*format), Name: *name, AsOf: *asOf, Files: fs.Args(), AllowUnknown: *allowUnknown, Out: stdout, Log: stderr}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if *check {
		return checkStatus("meridian ingest grid -check", dataingest.CheckGrid(ctx, g, stdout), stderr)
	}
	start := time.Now()
	res, err := dataingest.IngestGrid(ctx, *data, g)
	if err != nil {
		printRefusal(stderr, err)
		fmt.Fprintf(stderr, "meridian ingest grid: %v\n", err)
		return 1
	}
	fmt.Fprintf(stdout, "%s: %s -> %d records in %d groups, %d bytes, in %s\n",
		res.Path, res.Rows, res.Index.Records, res.Index.Groups, res.Index.Bytes, time.Since(start).Round(time.Millisecond))
	return 0
}

// printRefusal lists the files of a refusal for files not recognised.
func printRefusal(stderr io.Writer, err error) {
	var r *dataingest.Rejected
	if !errors.As(err, &r) {
		return
	}
	for _, e := range r.Errs {
		if ie, ok := e.(*ingest.Error); ok && ie.Reason == "not recognised" {
			fmt.Fprintf(stderr, "not recognised: %s\n", ie.File)
		}
	}
}

// checkStatus is a -check's exit status: its report says why it refused;
// another error is one the check could not start with.
func checkStatus(cmd string, err error, stderr io.Writer) int {
	var r *dataingest.Rejected
	switch {
	case err == nil:
		return 0
	case !errors.As(err, &r):
		fmt.Fprintf(stderr, "%s: %v\n", cmd, err)
	}
	return 1
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

// ingestReportsCommand is `meridian ingest <domain>`.
func ingestReportsCommand(domain string, args []string, stdout, stderr io.Writer) int {
	cmd := "meridian ingest " + domain
	fs := flag.NewFlagSet("ingest "+domain, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, ingestReportsUsage); fs.PrintDefaults() }
	data := dataFlag(fs, "data directory")
	var nowFlag *string
	if now := dataingest.TakesNow(domain); now != "" {
		nowFlag = fs.String("now", "", now)
	}
	demo := fs.Bool("demo", false, "write the demo files into DIR first, and mark the data as demo data")
	invented := fs.Bool("invented", false, "the files in DIR are invented (meridian demo): mark the data as demo data")
	tiles := fs.Bool("tiles", true, fmt.Sprintf("rebuild the %s tile archives (DATA/tiles/%s) from the new data", domain, domain))
	check := fs.Bool("check", false, "read every file and say what it is, what is wrong and what would be published; publish nothing")
	allowUnknown := fs.Bool("allow-unknown", false, "skip the files whose names the ingest does not know and read the rest (without it they refuse the folder)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return 2
	}
	r := dataingest.Reports{Domain: domain, Dir: fs.Arg(0), WriteDemo: *demo, Invented: *invented, AllowUnknown: *allowUnknown, Tiles: *tiles, Out: stdout, Log: stderr}
	if nowFlag != nil && *nowFlag != "" {
		t, err := time.Parse("2006-01-02", *nowFlag)
		if err != nil {
			fmt.Fprintf(stderr, "%s: -now %q: want YYYY-MM-DD\n", cmd, *nowFlag)
			return 2
		}
		r.AsOf = t
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if *check {
		return checkStatus(cmd+" -check", dataingest.CheckReports(ctx, *data, r, stdout), stderr)
	}
	start := time.Now()
	res, err := dataingest.IngestReports(ctx, *data, r)
	if res.Version != "" {
		fmt.Fprintf(stdout, "%s report store: %s is served now (a running server switches within %s)\n", domain, res.Version, reportPollTime)
	}
	var ie *ingest.Error
	var refused *dataingest.Rejected
	switch {
	case err == nil:
	case res.Version != "":
		fmt.Fprintf(stderr, "%s: %v\n", cmd, err)
		return 1
	case errors.As(err, &refused) && refused.Reason != "":
		printRefusal(stderr, err)
		fmt.Fprintf(stderr, "%s: %s\n", cmd, refused.Reason)
		return 1
	case errors.As(err, &ie):
		fmt.Fprintf(stderr, "%s: rejected: %v\nthe %s data served before is unchanged\n", cmd, ie, domain)
		return 1
	case errors.Is(err, boltdir.ErrBusy):
		fmt.Fprintf(stderr, "%s: another ingest of %s is running on %s; the data served is unchanged\n", cmd, domain, *data)
		return 1
	default:
		fmt.Fprintf(stderr, "%s: %v\nthe %s data served before is unchanged\n", cmd, err, domain)
		return 1
	}
	if st := res.Tiles; st != nil {
		fmt.Fprintf(stdout, "%s tile archives: %d rebuilt, %d tiles, in %s\n", domain, st.Archives, st.Tiles, time.Since(start).Round(time.Millisecond))
		if st.Unlocated > 0 {
			fmt.Fprintf(stdout, "%s tile archives: %d parcels the grid does not cover were left out of the maps\n", domain, st.Unlocated)
		}
	}
	return 0
}
