package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"time"

	"meridian/shared/convert"
	"meridian/shared/survey/grid"
)

const convertUsage = `usage: meridian convert [flags] [-in FILE] [-out FILE]

Converts a CSV of legal land descriptions (or of coordinates) with the same
engine as the API, one row at a time, in constant memory. Each output row is
the input row plus legal_location, unit, survey_system, province, lat, lng,
datum, accuracy_m, source and error; -format geojson writes a FeatureCollection.
With -datum NAD27 the coordinate columns are read as NAD27 and the lat, lng
and geometries written in NAD27 (NRCan's NTv1 grid; NAD83 by default).
Rows that fail are reported on stderr and the conversion goes on.

flags:
`

func convertCommand(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("convert", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, convertUsage); fs.PrintDefaults() }
	in := fs.String("in", "-", "input CSV file, - for stdin")
	outPath := fs.String("out", "-", "output file, - for stdout")
	format := fs.String("format", "csv", "csv or geojson")
	column := fs.String("column", "", "legal land description column: header name or 1-based number (default: detected)")
	lng := fs.String("lng", "", "longitude column (converts coordinates to legal land descriptions)")
	lat := fs.String("lat", "", "latitude column")
	noHeader := fs.Bool("no-header", false, "the first row is data")
	centroids := fs.Bool("centroids", false, "GeoJSON: write centre points instead of grid polygons")
	unit := fs.String("unit", "", "coordinates: unit to look up, read with -survey-system (FPS has Grid, Section, Unit; default: the smallest block)")
	system := fs.String("survey-system", "", "coordinates: DLS, NTS, River Lot, Geographic Township or FPS")
	datumName := fs.String("datum", "NAD83", "datum of the coordinates read and written: NAD83 or NAD27")
	quiet := fs.Bool("q", false, "no progress bar and no per-row error lines")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *format != "csv" && *format != "geojson" {
		fmt.Fprintf(stderr, "meridian convert: -format %q: want csv or geojson\n", *format)
		return 2
	}
	opts := convert.CSVOptions{
		Column: *column, Lng: *lng, Lat: *lat, NoHeader: *noHeader,
		GeoJSON: *format == "geojson", Centroids: *centroids,
	}
	d, err := convert.ParseDatum(*datumName)
	if err != nil {
		fmt.Fprintf(stderr, "meridian convert: -datum %q: want NAD83 or NAD27\n", *datumName)
		return 2
	}
	opts.Datum = d
	rq, err := convert.ParseReverse(*system, *unit)
	if err != nil {
		fmt.Fprintf(stderr, "meridian convert: -survey-system %q -unit %q: %v\n", *system, *unit, err)
		return 2
	}
	opts.Reverse.System, opts.Reverse.Unit, opts.Reverse.All = rq.System, rq.Unit, rq.All

	r := stdin
	var size int64
	if *in != "-" {
		f, err := os.Open(*in)
		if err != nil {
			fmt.Fprintf(stderr, "meridian convert: %v\n", err)
			return 1
		}
		defer f.Close()
		if st, err := f.Stat(); err == nil {
			size = st.Size()
		}
		r = f
	}
	w := stdout
	if *outPath != "-" {
		f, err := os.Create(*outPath)
		if err != nil {
			fmt.Fprintf(stderr, "meridian convert: %v\n", err)
			return 1
		}
		defer f.Close()
		w = f
	}

	var bar *progressBar
	if !*quiet && isTerminal(stderr) {
		bar = newProgressBar(stderr, size)
		opts.Progress = bar.update
	}
	const maxErrorLines = 1000
	reported := 0
	if !*quiet {
		opts.Bad = func(line int, input string, err error) {
			reported++
			if reported > maxErrorLines {
				return
			}
			if bar != nil {
				bar.clear()
			}
			fmt.Fprintf(stderr, "line %d: %q: %v\n", line, input, strings.TrimPrefix(err.Error(), "invalid_legal_location: "))
		}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	start := time.Now()
	stats, err := convert.ConvertCSV(ctx, grid.New(), r, w, opts)
	if bar != nil {
		bar.finish()
	}
	if err != nil {
		fmt.Fprintf(stderr, "meridian convert: %v\n", err)
		return 1
	}
	if reported > maxErrorLines {
		fmt.Fprintf(stderr, "... %d more failed rows not shown\n", reported-maxErrorLines)
	}
	fmt.Fprintf(stderr, "converted %d of %d rows (%d failed) in %s\n", stats.Converted, stats.Rows, stats.Failed, time.Since(start).Round(time.Millisecond))
	return 0
}

// isTerminal reports whether w is a character device (a terminal).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// progressBar draws rows, rate and (when the size is known) a bar on one
// terminal line, at most ten times a second.
type progressBar struct {
	w     io.Writer
	total int64
	start time.Time
	last  time.Time
	shown bool
}

func newProgressBar(w io.Writer, total int64) *progressBar {
	return &progressBar{w: w, total: total, start: time.Now()}
}

func (p *progressBar) update(rows, bytes int64) {
	now := time.Now()
	if now.Sub(p.last) < 100*time.Millisecond {
		return
	}
	p.last = now
	rate := float64(rows) / now.Sub(p.start).Seconds()
	line := fmt.Sprintf("%d rows  %.0f rows/s", rows, rate)
	if p.total > 0 {
		frac := float64(bytes) / float64(p.total)
		if frac > 1 {
			frac = 1
		}
		const width = 30
		n := int(frac * width)
		line = fmt.Sprintf("[%s%s] %3.0f%%  %s", strings.Repeat("=", n), strings.Repeat(" ", width-n), frac*100, line)
	}
	fmt.Fprintf(p.w, "\r%s\033[K", line)
	p.shown = true
}

func (p *progressBar) clear() {
	if p.shown {
		fmt.Fprint(p.w, "\r\033[K")
		p.shown = false
	}
}

func (p *progressBar) finish() {
	p.last = time.Time{}
	p.clear()
}
