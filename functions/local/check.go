package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strings"

	"meridian/shared/ingest"
	"meridian/shared/ingest/geotiff"
	"meridian/shared/ingest/proj"
	"meridian/shared/survey/gridingest"
)

// `meridian ingest grid|energy|ag -check` reads every file of a download
// as the ingest would and publishes nothing: per file the layout
// recognised (verified or guessed), the coordinate system, the rows read
// and skipped and the first rejection with its line and reason; then the
// notices (values new to the readers) and what an ingest would publish.
// Every file is read on its own, so one bad file does not hide the
// others; the whole set is then read once more, as the ingest reads it,
// into a store that only counts. Memory is what the ingest itself needs.

// fileCheck is what -check reports of one file.
type fileCheck struct {
	name    string
	layout  ingest.Layout
	crs     string
	rows    int
	skipped map[string]int
	err     error
}

// printChecks prints the checks of one download and returns the exit
// status: 0 when every file reads, 1 when any is rejected.
func printChecks(w io.Writer, domain string, files []fileCheck, notices *ingest.Notices, publish func(io.Writer) error) int {
	rejected := 0
	// Guessed layouts first: they are what a user must look at.
	sort.SliceStable(files, func(i, j int) bool {
		return files[i].layout.Dataset != "" && !files[i].layout.Verified && (files[j].layout.Dataset == "" || files[j].layout.Verified)
	})
	fmt.Fprintf(w, "meridian ingest %s -check: %d files, nothing is published\n", domain, len(files))
	for _, f := range files {
		fmt.Fprintf(w, "\n%s\n", f.name)
		switch {
		case f.layout.Dataset == "":
			fmt.Fprintf(w, "  layout:   not declared by its reader (see the README's table of datasets)\n")
		default:
			fmt.Fprintf(w, "  layout:   %s\n", f.layout.Banner())
		}
		if f.crs != "" {
			fmt.Fprintf(w, "  crs:      %s\n", f.crs)
		}
		fmt.Fprintf(w, "  rows:     %d read", f.rows)
		if n := total(f.skipped); n > 0 {
			fmt.Fprintf(w, ", %d skipped (%s)", n, counts(f.skipped))
		}
		fmt.Fprintln(w)
		if f.err != nil {
			rejected++
			fmt.Fprintf(w, "  REJECTED: %v\n", f.err)
		} else {
			fmt.Fprintf(w, "  result:   read whole\n")
		}
	}
	if lines := notices.Lines(); len(lines) > 0 {
		fmt.Fprintf(w, "\nnotices: %d rows hold values the readers had not seen (read and placed, not fatal):\n", notices.Total())
		for _, l := range lines {
			fmt.Fprintf(w, "  %s\n", l)
		}
	}
	fmt.Fprintln(w)
	if rejected > 0 {
		fmt.Fprintf(w, "check: %d of %d files rejected: an ingest of this download would be refused whole and change nothing\n", rejected, len(files))
		return 1
	}
	if err := publish(w); err != nil {
		fmt.Fprintf(w, "check: every file reads on its own, but the ingest of the whole set fails: %v\n", err)
		return 1
	}
	return 0
}

func total(m map[string]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}

// checkGrid reads each grid file on its own, then the set into an index
// that is thrown away.
func checkGrid(ctx context.Context, w io.Writer, src gridingest.GridSource) int {
	notices := &ingest.Notices{}
	src.Notices = notices
	tmp, err := os.MkdirTemp("", "meridian-check-*")
	if err != nil {
		fmt.Fprintf(w, "meridian ingest grid -check: %v\n", err)
		return 1
	}
	defer os.RemoveAll(tmp)
	src.TempDir = tmp
	var checks []fileCheck
	for _, f := range src.Files {
		one := src
		one.Files = []string{f}
		one.Notices = notices
		var fc fileCheck
		one.OnFile = func(name string, st gridingest.Stats, err error) {
			fc = fileCheck{name: name, layout: st.Layout, rows: st.Rows, skipped: st.Skipped, err: err}
		}
		if _, _, err := gridingest.BuildGrid(ctx, one, io.Discard); err != nil && fc.err == nil {
			fc.name, fc.err = filepath.Base(f), err
		}
		fc.crs = fileCRS("/"+f, src.Format)
		checks = append(checks, fc)
	}
	return printChecks(w, "grid", checks, notices, func(w io.Writer) error {
		all := src
		all.Notices = nil
		st, ist, err := gridingest.BuildGrid(ctx, all, io.Discard)
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "would publish: index %q, %d records in %d groups (%d bytes), from %d rows\n", src.Meta.Name, ist.Records, ist.Groups, ist.Bytes, st.Rows)
		return nil
	})
}

// onlyFile returns a copy of files, a domain's Files struct (string and
// []string fields of paths), holding path alone.
func onlyFile[T any](files T, path string) T {
	var out T
	in, o := reflect.ValueOf(files), reflect.ValueOf(&out).Elem()
	for i := 0; i < in.NumField(); i++ {
		f := in.Field(i)
		switch {
		case f.Kind() == reflect.String && f.String() == path:
			o.Field(i).SetString(path)
		case f.Kind() == reflect.Slice && f.Type().Elem().Kind() == reflect.String:
			for j := 0; j < f.Len(); j++ {
				if f.Index(j).String() == path {
					o.Field(i).Set(reflect.ValueOf([]string{path}).Convert(f.Type()))
				}
			}
		}
	}
	return out
}

// filePaths lists the paths of a domain's Files struct, leaving out the
// fields named in skip (the unrecognised and unused files).
func filePaths[T any](files T, skip ...string) []string {
	var out []string
	v := reflect.ValueOf(files)
	for i := 0; i < v.NumField(); i++ {
		if slices.Contains(skip, v.Type().Field(i).Name) {
			continue
		}
		f := v.Field(i)
		switch {
		case f.Kind() == reflect.String && f.String() != "":
			out = append(out, f.String())
		case f.Kind() == reflect.Slice && f.Type().Elem().Kind() == reflect.String:
			for j := 0; j < f.Len(); j++ {
				out = append(out, f.Index(j).String())
			}
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// checkReports runs a report domain's check: each file on its own through
// the real ingest into a counting store, then the whole set.
func checkReports[T any](ctx context.Context, w io.Writer, domain string, files T, layouts map[string]ingest.Layout,
	run func(ctx context.Context, files T, store *countStore, notices *ingest.Notices) (rows map[string]int, skipped map[string]int, err error)) int {
	notices := &ingest.Notices{}
	var checks []fileCheck
	for _, p := range filePaths(files, "Unrecognised", "Unused") {
		rows, skipped, err := run(ctx, onlyFile(files, p), newCountStore(), notices)
		var ie *ingest.Error
		switch {
		case err == nil:
		case errors.As(err, &ie):
			err = ie // file:line: reason, without the store's wrapping
		case !errors.Is(err, context.Canceled):
			// Not the file's fault (a grid index cannot be read): say so.
			err = fmt.Errorf("not a problem in the file: %w", err)
		}
		checks = append(checks, fileCheck{name: filepath.Base(p), layout: layouts[p], crs: fileCRS(p, ""), rows: total(rows), skipped: skipped, err: err})
	}
	return printChecks(w, domain, checks, notices, func(w io.Writer) error {
		store := newCountStore()
		if _, _, err := run(ctx, files, store, nil); err != nil {
			return err
		}
		parts := make([]string, 0)
		for _, k := range store.kinds() {
			parts = append(parts, fmt.Sprintf("%s %d", k.kind, k.n))
		}
		fmt.Fprintf(w, "would publish: the %s dataset, %d items (%d bytes): %s\n", domain, store.items, store.bytes, strings.Join(parts, ", "))
		return nil
	})
}

var geojsonCRS = regexp.MustCompile(`"crs"\s*:.*?EPSG:{1,2}(\d+)`)

// fileCRS says in which coordinate system a file's positions are: what its
// .prj, GeoJSON crs member or GeoKeys name, or what its layout fixes.
func fileCRS(path string, grid gridingest.GridFormat) string {
	ext := strings.ToLower(filepath.Ext(path))
	stem := strings.TrimSuffix(path, filepath.Ext(path))
	switch ext {
	case ".shp":
		prj, err := os.ReadFile(stem + ".prj")
		if err != nil {
			return "no .prj beside the file: the reader refuses it"
		}
		p, err := proj.FromWKT(string(prj))
		if err != nil {
			return fmt.Sprintf("the .prj names a system Meridian does not convert: %v", err)
		}
		return describeProjection(p, "from the .prj")
	case ".geojson", ".json":
		f, err := os.Open(path)
		if err != nil {
			return ""
		}
		defer f.Close()
		head := make([]byte, 4096)
		n, _ := io.ReadFull(f, head)
		if m := geojsonCRS.FindSubmatch(head[:n]); m != nil {
			return "EPSG:" + string(m[1]) + " (the legacy crs member)"
		}
		return "longitude, latitude (GeoJSON's default, NAD83/WGS 84)"
	case ".tif", ".tiff":
		f, err := os.Open(path)
		if err != nil {
			return ""
		}
		defer f.Close()
		fi, err := f.Stat()
		if err != nil {
			return ""
		}
		im, err := geotiff.Open(f, fi.Size(), geotiff.Options{})
		if err != nil {
			return "" // the reader says why
		}
		if im.Geo.EPSG == 0 {
			return "no EPSG code in the GeoKeys (" + im.Geo.Citation + "): the reader refuses it"
		}
		if p, err := proj.FromEPSG(im.Geo.EPSG); err == nil {
			return describeProjection(p, "from the GeoKeys")
		}
		return fmt.Sprintf("EPSG:%d from the GeoKeys, which Meridian does not convert", im.Geo.EPSG)
	}
	switch {
	case grid == gridingest.FormatATS:
		return "NAD83 longitude, latitude (the coordinate file's columns)"
	case grid == gridingest.FormatManitoba && strings.Contains(strings.ToLower(path), "corner"):
		return "NAD83 / UTM zone 14N (EPSG:26914), as published"
	case grid == gridingest.FormatManitoba:
		return "WGS 84 / Pseudo-Mercator (EPSG:3857) x, y columns, as published"
	}
	return "" // a table placed by legal description or identifier
}

func describeProjection(p proj.Projection, from string) string {
	if p.EPSG() != 0 {
		return fmt.Sprintf("%s (EPSG:%d), %s", p.Name(), p.EPSG(), from)
	}
	return fmt.Sprintf("%s, %s", p.Name(), from)
}
