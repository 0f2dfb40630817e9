package dataingest

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
// recognised (verified or guessed), the coordinate system, the file's own
// rows read and skipped and the first rejection with its line and reason;
// then the notices (values new to the readers) and what an ingest would
// publish. Every file of a report domain's folder is listed, read or not:
// a name the domain does not know is NOT RECOGNISED and makes the check
// fail unless -allow-unknown, as it makes the ingest refuse the folder.
// Every file is read on its own, so one bad file does not hide the
// others; the whole set is then read once more, as the ingest reads it,
// into a store that only counts. Memory is what the ingest itself needs.

// fileCheck is what -check reports of one file.
type fileCheck struct {
	name    string
	kind    fileKind
	note    string // why a file is not read (not recognised, not used, a companion)
	layout  ingest.Layout
	crs     string
	rows    int // the file's own rows, not what the ingest derived from them
	skipped map[string]int
	err     error
}

// fileKind is what the domain made of a file of the folder.
type fileKind uint8

const (
	fileRead         fileKind = iota // read by the ingest
	fileUnrecognised                 // a name the domain does not know: the folder is refused without -allow-unknown
	fileUnused                       // recognised, read by no report
	fileCompanion                    // read with another file (a shapefile's .dbf, .prj) or left out by name
)

// checkOptions are what printChecks needs besides the files.
type checkOptions struct {
	allowUnknown bool
	expects      string // the file names the domain knows, for an unrecognised file
}

// printChecks prints the checks of one download and returns nil when
// every file reads, else a *Rejected: the files rejected, or the files not
// recognised when unknown files are not allowed, or the failure of the
// whole set.
func printChecks(w io.Writer, domain string, files []fileCheck, notices *ingest.Notices, opt checkOptions, publish func(io.Writer) error) error {
	rejected, unknown, read := 0, 0, 0
	var errs, unknowns []error
	// Unrecognised files first, then guessed layouts: they are what a
	// user must look at; files not read last.
	rank := func(f fileCheck) int {
		switch {
		case f.kind == fileUnrecognised:
			return 0
		case f.kind == fileRead && f.layout.Dataset != "" && !f.layout.Verified:
			return 1
		case f.kind == fileRead:
			return 2
		}
		return 3
	}
	sort.SliceStable(files, func(i, j int) bool { return rank(files[i]) < rank(files[j]) })
	files, with := foldCompanions(files)
	companions := 0
	for _, f := range files {
		switch f.kind {
		case fileUnrecognised:
			unknown++
			unknowns = append(unknowns, &ingest.Error{File: f.name, Reason: f.note})
		case fileRead:
			read++
			companions += len(with[f.name])
		}
	}
	fmt.Fprintf(w, "meridian ingest %s -check: %d files: %d read", domain, len(files)+companions, read)
	if companions > 0 {
		fmt.Fprintf(w, " (with %d beside them: .dbf, .prj …)", companions)
	}
	fmt.Fprintf(w, ", %d not read, %d not recognised; nothing is published\n", len(files)-read-unknown, unknown)
	for _, f := range files {
		fmt.Fprintf(w, "\n%s\n", f.name)
		if c := with[f.name]; f.kind == fileRead && len(c) > 0 {
			fmt.Fprintf(w, "  with:     %s\n", strings.Join(c, ", "))
		}
		switch f.kind {
		case fileUnrecognised:
			fmt.Fprintf(w, "  NOT RECOGNISED: %s\n", f.note)
			continue
		case fileUnused, fileCompanion:
			fmt.Fprintf(w, "  not read: %s\n", f.note)
			continue
		}
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
		if ext := strings.ToLower(filepath.Ext(f.name)); ext == ".tif" || ext == ".tiff" {
			fmt.Fprint(w, " (rows of pixels)")
		}
		if n := total(f.skipped); n > 0 {
			fmt.Fprintf(w, ", %d skipped (%s)", n, counts(f.skipped))
		}
		fmt.Fprintln(w)
		if f.err != nil {
			rejected++
			errs = append(errs, f.err)
			fmt.Fprintf(w, "  REJECTED: %v\n", f.err)
		} else {
			fmt.Fprintf(w, "  result:   read whole\n")
		}
	}
	if lines := notices.Lines(); len(lines) > 0 {
		fmt.Fprintf(w, "\nnotices: %d rows hold values the readers had not seen or passed over (read and placed, not fatal):\n", notices.Total())
		for _, l := range lines {
			fmt.Fprintf(w, "  %s\n", l)
		}
	}
	fmt.Fprintln(w)
	if rejected > 0 {
		fmt.Fprintf(w, "check: %d of %d files rejected: an ingest of this download would be refused whole and change nothing\n", rejected, read)
		if unknown > 0 {
			fmt.Fprintf(w, "check: %d files not recognised (NOT RECOGNISED above); the %s ingest reads: %s\n", unknown, domain, opt.expects)
		}
		return &Rejected{Errs: errs}
	}
	if unknown > 0 && opt.expects != "" {
		fmt.Fprintf(w, "the %s ingest reads: %s\n", domain, opt.expects)
	}
	var refused error
	if unknown > 0 && !opt.allowUnknown {
		fmt.Fprintf(w, "check: %d files not recognised (NOT RECOGNISED above): an ingest of this folder would be refused; "+
			"give them their publishers' names, take them out, or run with -allow-unknown to read the rest. With -allow-unknown:\n", unknown)
		refused = &Rejected{Reason: fmt.Sprintf("%d files not recognised", unknown), Errs: unknowns}
	}
	if err := publish(w); err != nil {
		fmt.Fprintf(w, "check: every file reads on its own, but the ingest of the whole set fails: %v\n", err)
		return &Rejected{Reason: "every file reads on its own, but the ingest of the whole set fails", Errs: []error{err}}
	}
	return refused
}

// foldCompanions takes out of files the companions of the files read (a
// shapefile's .dbf, .prj, .shx and .cpg, its .shp.xml): with gives them by
// the name of the file they are read with. A companion of a file not read
// stays in files, listed on its own.
func foldCompanions(files []fileCheck) (rest []fileCheck, with map[string][]string) {
	stem := func(name string) string { return strings.ToLower(strings.TrimSuffix(name, filepath.Ext(name))) }
	readBy := map[string]string{} // stem -> name of the file read
	for _, f := range files {
		if f.kind == fileRead {
			readBy[stem(f.name)] = f.name
		}
	}
	with = map[string][]string{}
	for _, f := range files {
		if f.kind == fileCompanion {
			if k := companionStem(f.name, func(k string) bool { return readBy[k] != "" }); k != "" {
				with[readBy[k]] = append(with[readBy[k]], f.name)
				continue
			}
		}
		rest = append(rest, f)
	}
	return rest, with
}

// companionStem returns the lower-case stem of name that has says is a
// file's (x.dbf beside x.shp; x.shp.xml beside x.shp; x.tif.aux.xml beside
// x.tif: up to three extensions taken off), or "" when none is.
func companionStem(name string, has func(stem string) bool) string {
	for k, i := strings.ToLower(name), 0; i < 3 && filepath.Ext(k) != ""; i++ {
		if k = strings.TrimSuffix(k, filepath.Ext(k)); has(k) {
			return k
		}
	}
	return ""
}

func total(m map[string]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}

// checkGrid reads each grid file on its own, then the set into an index
// that is thrown away; others are the files of the download it does not
// read (not recognised, unused, companions), listed as they are.
func checkGrid(ctx context.Context, w io.Writer, src gridingest.GridSource, others []fileCheck, opt checkOptions) error {
	notices := &ingest.Notices{}
	src.Notices = notices
	tmp, err := os.MkdirTemp("", "meridian-check-*")
	if err != nil {
		return err
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
	checks = append(checks, others...)
	return printChecks(w, "grid", checks, notices, opt, func(w io.Writer) error {
		if len(src.Files) == 0 {
			return fmt.Errorf("no file the -format %s reader reads (it reads %s)", src.Format, src.Format.FileNames())
		}
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
		out = append(out, fieldPaths(files, v.Type().Field(i).Name)...)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// fieldPaths returns the paths of field name (a string or []string) of a
// domain's Files struct; none when it has no such field.
func fieldPaths[T any](files T, name string) []string {
	f := reflect.ValueOf(files).FieldByName(name)
	var out []string
	switch {
	case !f.IsValid():
	case f.Kind() == reflect.String && f.String() != "":
		out = append(out, f.String())
	case f.Kind() == reflect.Slice && f.Type().Elem().Kind() == reflect.String:
		for j := 0; j < f.Len(); j++ {
			out = append(out, f.Index(j).String())
		}
	}
	return out
}

// folderCheck is what a report domain's check says of the files it does
// not read: every file of the folder is listed.
type folderCheck struct {
	all       []string // every file of the folder, zip members included (ingest.Folder.Paths)
	unused    string   // why a file of the Files' Unused field is not read
	companion string   // why a companion (unlisted) is not read on its own
	checkOptions
}

// unlisted sorts the files of all that no field of a domain's Files
// lists: companions (a file beside a listed one with the same name, as a
// shapefile's .dbf, .prj, .shx, .cpg, or its metadata, x.shp.xml,
// x.tif.aux.xml), and the rest, which the domain does not recognise: a
// domain's file sorter lists a companion nowhere, whether or not the file
// it goes with is there.
func unlisted[T any](files T, all []string) (companions, unknown []string) {
	listed, stems := map[string]bool{}, map[string]bool{}
	for _, p := range filePaths(files) {
		listed[p] = true
	}
	trim := func(p string) string { return strings.TrimSuffix(p, filepath.Ext(p)) }
	for _, p := range filePaths(files, "Unrecognised") {
		stems[strings.ToLower(p)] = true
		stems[strings.ToLower(trim(p))] = true
	}
	for _, p := range all {
		switch {
		case listed[p]:
		case companionStem(p, func(k string) bool { return stems[k] }) != "":
			companions = append(companions, p)
		default:
			unknown = append(unknown, p)
		}
	}
	return companions, unknown
}

// checkReports runs a report domain's check: each file on its own through
// the real ingest into a counting store, then the whole set. run returns
// the rows read of the files it was given, by kind (the files' own rows:
// not what the ingest derived from them) and the rows skipped.
func checkReports[T any](ctx context.Context, w io.Writer, domain string, files T, folder folderCheck, layouts map[string]ingest.Layout,
	run func(ctx context.Context, files T, store *countStore, notices *ingest.Notices) (rows map[string]int, skipped map[string]int, err error)) error {
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
	companions, unknown := unlisted(files, folder.all)
	for _, p := range append(fieldPaths(files, "Unrecognised"), unknown...) {
		checks = append(checks, fileCheck{name: filepath.Base(p), kind: fileUnrecognised,
			note: fmt.Sprintf("not a file name the %s ingest knows (the names it reads are at the end)", domain)})
	}
	for _, p := range fieldPaths(files, "Unused") {
		checks = append(checks, fileCheck{name: filepath.Base(p), kind: fileUnused, note: folder.unused})
	}
	for _, p := range companions {
		checks = append(checks, fileCheck{name: filepath.Base(p), kind: fileCompanion, note: folder.companion})
	}
	return printChecks(w, domain, checks, notices, folder.checkOptions, func(w io.Writer) error {
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
	case grid == gridingest.FormatManitoba && strings.Contains(strings.ToLower(ingest.MemberName(path)), "corner"):
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
