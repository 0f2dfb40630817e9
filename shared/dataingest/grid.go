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

	"meridian/shared/blob"
	"meridian/shared/datadir"
	"meridian/shared/demo/griddemo"
	"meridian/shared/gridstore/gridset"
	"meridian/shared/ingest"
	"meridian/shared/survey/grid"
	"meridian/shared/survey/gridindex"
	"meridian/shared/survey/gridingest"
)

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
	return openGrids(ctx, gridset.Dir(data.Grid(), datadir.GridExt, GridPollTime, cacheBytes), svc, logger)
}

// ServeGrids is OpenGrids for the server: the caches of the indexes are
// filled before they are served, in the directory's order, until they hold
// warmBytes in all (gridset.Source.WarmBytes; 0: none).
func ServeGrids(ctx context.Context, data datadir.Dir, svc *grid.Service, logger *slog.Logger, cacheBytes, warmBytes int64) (*gridset.Grids, error) {
	src := gridset.Dir(data.Grid(), datadir.GridExt, GridPollTime, cacheBytes)
	src.WarmBytes = warmBytes
	return openGrids(ctx, src, svc, logger)
}

func openGrids(ctx context.Context, src gridset.Source, svc *grid.Service, logger *slog.Logger) (*gridset.Grids, error) {
	g, err := gridset.New(ctx, src, logger)
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
