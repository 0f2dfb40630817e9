package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"text/tabwriter"
	"time"

	"meridian/shared/datadir"
	"meridian/shared/datafetch"
	"meridian/shared/dataingest"
	"meridian/shared/survey/gridingest"
)

// `meridian data fetch` downloads the official datasets of the manifest
// (package datafetch), checks what changed with the -check of
// `meridian ingest`, ingests it and records it as the current download in
// DATA/downloads/<dataset>. `meridian data list` prints the manifest.

const dataUsage = `usage: meridian data fetch [-dataset NAME[,NAME]] [-dry-run] [-data DIR] [-url URL] [-now YYYY-MM-DD]
       meridian data list

fetch downloads what changed of each official dataset of the manifest
(conditional GET with the stored ETag and Last-Modified; an interrupted
download resumes), checks sizes and records a SHA-256 per file, unpacks zip
archives, runs the -check of 'meridian ingest' over the download, ingests it
and only then makes it the current download in DATA/downloads/NAME. A failure
at any step leaves the previous download and the served data unchanged.
Without -dataset, the datasets that need an account or a link found by hand
are listed and skipped. -dry-run says what would be fetched and why.
-url replaces the URL of the one dataset named (a link copied from a page).

list prints every dataset: publisher, product, access, licence, cadence,
ingest and URLs.

flags of fetch:
`

func dataCommand(args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 && args[0] == "list" {
		printManifest(stdout)
		return 0
	}
	if len(args) == 0 || args[0] != "fetch" {
		fmt.Fprint(stderr, dataUsage)
		return 2
	}
	fs := flag.NewFlagSet("data fetch", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, dataUsage); fs.PrintDefaults() }
	datasets := fs.String("dataset", "", "fetch only these datasets (comma-separated keys; see meridian data list)")
	dryRun := fs.Bool("dry-run", false, "say what would be fetched and why; download and change nothing")
	data := dataFlag(fs, "data directory (downloads go to DATA/downloads)")
	fs.Var(data, "dir", "the same as -data")
	oneURL := fs.String("url", "", "with one -dataset: fetch its file from this URL instead of the manifest's")
	nowFlag := fs.String("now", "", "the day monthly and yearly releases are counted back from, YYYY-MM-DD (default today)")
	if err := fs.Parse(args[1:]); err != nil {
		return 2
	}
	if fs.NArg() > 0 {
		fs.Usage()
		return 2
	}
	var keys []string
	if *datasets != "" {
		for _, k := range strings.Split(*datasets, ",") {
			if k = strings.TrimSpace(k); k != "" {
				keys = append(keys, k)
			}
		}
	}
	entries, skipped, err := datafetch.Select(keys)
	if err != nil {
		fmt.Fprintf(stderr, "meridian data fetch: %v\n", err)
		return 2
	}
	opts := datafetch.Options{
		Dir: data.Downloads(),
		// Only tests point the manifest at a local server.
		BaseURL: os.Getenv("MERIDIAN_FETCH_BASE_URL"),
		Log:     stdout,
	}
	if *nowFlag != "" {
		day, err := time.Parse("2006-01-02", *nowFlag)
		if err != nil {
			fmt.Fprintf(stderr, "meridian data fetch: -now %q: want YYYY-MM-DD\n", *nowFlag)
			return 2
		}
		opts.Now = func() time.Time { return day }
	}
	if *oneURL != "" {
		if len(entries) != 1 {
			fmt.Fprintln(stderr, "meridian data fetch: -url needs exactly one -dataset")
			return 2
		}
		opts.URLs = map[string]string{entries[0].Key: *oneURL}
	}
	if err := os.MkdirAll(opts.Dir, 0o755); err != nil {
		fmt.Fprintf(stderr, "meridian data fetch: %v\n", err)
		return 1
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	f := datafetch.New(opts)
	if *dryRun {
		tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "DATASET\tFILE\tACTION\tSIZE\tWHY")
		failed := false
		for _, p := range f.DryRun(ctx, entries) {
			size := "?"
			if p.Size >= 0 {
				size = fmt.Sprint(p.Size)
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", p.Key, p.Name, p.Action, size, p.Why)
			failed = failed || p.Action == "error"
		}
		tw.Flush()
		printSkipped(stdout, skipped)
		if failed {
			return 1
		}
		return 0
	}
	unlock, err := f.Lock()
	if err != nil {
		fmt.Fprintf(stderr, "meridian data fetch: %v\n", err)
		return 1
	}
	defer unlock()
	ing := &localIngester{data: *data, stdout: stdout}
	results := f.Run(ctx, entries, datafetch.Manifest(), ing)
	failed := 0
	fmt.Fprintln(stdout)
	for _, r := range results {
		switch r.Status {
		case datafetch.StatusFailed:
			failed++
			fmt.Fprintf(stderr, "%s: FAILED, the previous download and the served data are unchanged: %v\n", r.Key, r.Err)
		case datafetch.StatusUpdated:
			fmt.Fprintf(stdout, "%s: updated, %d bytes downloaded, %d files, ingested\n", r.Key, r.Bytes, len(r.Files))
		default:
			fmt.Fprintf(stdout, "%s: %s\n", r.Key, r.Status)
		}
	}
	printSkipped(stdout, skipped)
	if failed > 0 {
		return 1
	}
	return 0
}

func printSkipped(w io.Writer, skipped []datafetch.Result) {
	for _, r := range skipped {
		fmt.Fprintf(w, "%s: skipped, needs a hand step (%v); fetch it with -dataset %s -url URL\n", r.Key, r.Err, r.Key)
	}
}

func printManifest(w io.Writer) {
	for _, e := range datafetch.Manifest() {
		verified := "URLs seen in real downloads"
		if !e.Verified {
			verified = "URLs from documentation, unverified"
		}
		fmt.Fprintf(w, "%s\n  %s: %s\n  access: %s; licence: %s; refreshed %s; read by meridian %s; %s\n", e.Key, e.Publisher, e.Product, e.Access, e.Licence, e.Cadence, e.Ingest, verified)
		if e.Note != "" {
			fmt.Fprintf(w, "  note: %s\n", e.Note)
		}
		for _, s := range e.Sources {
			fmt.Fprintf(w, "  %s -> %s\n", s.URL, strings.Join(s.Files, " "))
		}
	}
}

// localIngester ingests into the data directory through package
// dataingest, as meridian ingest does, with the fetch's context: an
// interrupt stops the ingest and leaves what was served.
type localIngester struct {
	data   datadir.Dir
	stdout io.Writer
}

// Every file of a download is given: the manifest names the files each
// download must hold, and a publisher's archive may carry more (its layout
// PDF, another format's copy), which the check lists, not a reason to
// refuse the refresh.

// Check runs the ingest's check; its report is printed only when it
// rejects the download, whose *dataingest.Rejected holds each file's
// *ingest.Error.
func (l *localIngester) Check(ctx context.Context, t datafetch.Ingest, in datafetch.Input) error {
	var report bytes.Buffer
	var err error
	switch t.Kind {
	case "grid":
		err = dataingest.CheckGrid(ctx, dataingest.Grid{Format: gridingest.GridFormat(t.Format), Files: in.Files, AllowUnknown: true}, &report)
	case "energy", "ag":
		err = dataingest.CheckReports(ctx, l.data, dataingest.Reports{Domain: t.Kind, Dir: in.Dir, AllowUnknown: true}, &report)
	default:
		return fmt.Errorf("no ingest of kind %q", t.Kind)
	}
	if err != nil {
		l.stdout.Write(report.Bytes())
	}
	return err
}

// Ingest installs the new version the way meridian ingest does (a
// rejected file changes nothing), its report domains' tile archives
// rebuilt.
func (l *localIngester) Ingest(ctx context.Context, t datafetch.Ingest, in datafetch.Input) error {
	switch t.Kind {
	case "grid":
		res, err := dataingest.IngestGrid(ctx, l.data, dataingest.Grid{Format: gridingest.GridFormat(t.Format), Files: in.Files, AllowUnknown: true, Out: l.stdout, Log: l.stdout})
		if err == nil {
			fmt.Fprintf(l.stdout, "%s: %s -> %d records in %d groups, %d bytes\n", res.Path, res.Rows, res.Index.Records, res.Index.Groups, res.Index.Bytes)
		}
		return err
	case "energy", "ag":
		res, err := dataingest.IngestReports(ctx, l.data, dataingest.Reports{Domain: t.Kind, Dir: in.Dir, AllowUnknown: true, Tiles: true, Out: l.stdout, Log: l.stdout})
		if res.Version != "" {
			fmt.Fprintf(l.stdout, "%s report store: %s is served now\n", t.Kind, res.Version)
		}
		return err
	}
	return fmt.Errorf("no ingest of kind %q", t.Kind)
}
