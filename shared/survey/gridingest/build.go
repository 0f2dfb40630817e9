package gridingest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"strings"

	"meridian/shared/ingest"

	"meridian/shared/survey/gridindex"
)

// GridFormat is an official grid dataset's published format.
type GridFormat string

const (
	FormatATS      GridFormat = "ats" // AltaLIS ATS v4.1: the coordinate file (ATS_V4_1.SEQ) or the polygon Shapefiles (V4-1_SEC.shp, ...)
	FormatManitoba GridFormat = "mb"  // Manitoba Original Survey CSV, optionally with MB_QuarterSectionCorners.csv
	FormatSaskGrid GridFormat = "sk"  // ISC SaskGrid Shapefiles, one per layer
	FormatOntario  GridFormat = "on"  // LIO Geographic Lot Fabric (Shapefile or GeoJSON), optionally Geographic Township Improved
)

// GridFormats lists the formats BuildGrid reads.
var GridFormats = []GridFormat{FormatATS, FormatManitoba, FormatSaskGrid, FormatOntario}

// DefaultMeta describes each format's real dataset: what the index's
// metadata and the features' source property say.
func DefaultMeta(f GridFormat) (gridindex.Meta, bool) {
	switch f {
	case FormatATS:
		return gridindex.Meta{Name: "altalis-ats-v4.1", Title: "Alberta Township System v4.1 coordinates (AltaLIS)",
			Source: "AltaLIS ATS v4.1", License: "Open Government Licence – Alberta", AsOf: "2005-03-31"}, true
	case FormatManitoba:
		return gridindex.Meta{Name: "mb-original-survey", Title: "Manitoba Original Survey Legal Descriptions (DataMB)",
			Source: "Manitoba Original Survey", License: "OpenMB Information and Data Use Licence"}, true
	case FormatSaskGrid:
		return gridindex.Meta{Name: "isc-saskgrid", Title: "ISC SaskGrid township system grid",
			Source: "ISC SaskGrid", License: "ISC terms of use"}, true
	case FormatOntario:
		return gridindex.Meta{Name: "lio-geographic-lot-fabric", Title: "Land Information Ontario Geographic Lot Fabric and Geographic Township Improved",
			Source: "LIO Geographic Lot Fabric", License: "Open Government Licence – Ontario"}, true
	}
	return gridindex.Meta{}, false
}

// GridSource is one dataset to build an index from.
type GridSource struct {
	Format GridFormat
	// FS holds the files: os.DirFS for files on disk, the embedded fixtures
	// for the default data.
	FS fs.FS
	// Files are the dataset's files in FS (slash-separated). For Shapefiles
	// name the .shp; its .dbf, .prj and .cpg beside it are found by name.
	// Manitoba: the survey CSV and optionally the corners CSV (a name
	// containing "corner"). Ontario: the lot fabric and optionally the
	// townships (a name containing "township").
	Files []string
	Meta  gridindex.Meta
	// TempDir holds the index builder's spill files.
	TempDir string
	// Notices receives the readers' notices (new values counted, not
	// fatal); nil discards them.
	Notices *ingest.Notices
	// MinAccuracyM, when set, raises every record's AccuracyM to at least
	// this: a fixture whose positions are synthetic must not claim the
	// real dataset's accuracy.
	MinAccuracyM float64
	// OnFile, when set, is called after each file with what its reader
	// made of it (the layout recognised, rows read and skipped) and its
	// error: what `meridian ingest grid -check` prints.
	OnFile func(file string, st Stats, err error)
}

// BuildGrid reads every file of src with its format's reader and writes the
// grid index to out. A problem in any file rejects the whole dataset with an
// *Error naming the file, the line and the reason; nothing is written to out
// that a reader could take for an index unless BuildGrid returns nil (write
// to a temporary file and rename it on success).
func BuildGrid(ctx context.Context, src GridSource, out io.Writer) (Stats, gridindex.Stats, error) {
	var st Stats
	if len(src.Files) == 0 {
		return st, gridindex.Stats{}, errors.New("ingest: no input files")
	}
	opts := gridindex.WriterOptions{TempDir: src.TempDir}
	switch src.Format {
	case FormatOntario:
		opts.Derive = DeriveOntario
	case FormatManitoba:
		opts.Derive = DeriveManitoba
	}
	meta := src.Meta
	meta.Files = nil
	for _, f := range src.Files {
		meta.Files = append(meta.Files, path.Base(f))
	}
	w := gridindex.NewWriter(meta, opts)
	defer w.Close()
	emit := func(r gridindex.Record) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		r.AccuracyM = max(r.AccuracyM, src.MinAccuracyM)
		return w.Add(r)
	}
	add := func(s Stats) {
		st.Rows += s.Rows
		st.Records += s.Records
		for k, v := range s.Skipped {
			if st.Skipped == nil {
				st.Skipped = map[string]int{}
			}
			st.Skipped[k] += v
		}
	}
	for _, name := range src.Files {
		s, err := readGridFile(src, name, emit)
		if src.OnFile != nil {
			src.OnFile(path.Base(name), s, err)
		}
		add(s)
		if err != nil {
			return st, gridindex.Stats{}, err
		}
	}
	ist, err := w.Write(out)
	return st, ist, err
}

func readGridFile(src GridSource, name string, emit Emit) (Stats, error) {
	var layout ingest.Layout
	seen := func(l ingest.Layout) { layout = l }
	st, err := readGridLayout(src, name, emit, seen)
	if layout.Dataset == "" && src.Format == FormatATS {
		layout = ATSLayout(name)
	}
	st.Layout = layout
	return st, err
}

// readGridLayout reads one file with its format's reader; seen is told
// the layout the reader recognised.
func readGridLayout(src GridSource, name string, emit Emit, seen func(ingest.Layout)) (Stats, error) {
	base := path.Base(name)
	// The member's name decides, not its archive's: "mb_township_system_corners.zip!x.csv" is no corners file.
	lower := strings.ToLower(ingest.MemberName(base))
	open := func(n string) (fs.File, error) { return openFile(src, n) }
	switch src.Format {
	case FormatATS:
		if strings.HasSuffix(lower, ".shp") {
			return readATSShapefile(src, name, emit)
		}
		f, err := open(name)
		if err != nil {
			return Stats{}, err
		}
		defer f.Close()
		return ReadATS(f, base, emit, ATSOptions{Notices: src.Notices})
	case FormatManitoba:
		f, err := open(name)
		if err != nil {
			return Stats{}, err
		}
		defer f.Close()
		if strings.Contains(lower, "corner") {
			return ReadManitobaCorners(f, base, emit, ManitobaOptions{Notices: src.Notices, Layout: seen})
		}
		return ReadManitobaSurvey(f, base, emit, ManitobaOptions{Notices: src.Notices, Layout: seen})
	case FormatSaskGrid, FormatOntario:
		if strings.HasSuffix(lower, ".geojson") || strings.HasSuffix(lower, ".json") {
			if src.Format != FormatOntario {
				return Stats{}, &ingest.Error{File: base, Reason: "SaskGrid is read from Shapefiles (.shp with .dbf and .prj)"}
			}
			f, err := open(name)
			if err != nil {
				return Stats{}, err
			}
			defer f.Close()
			rd := OntarioReader{Notices: src.Notices}
			defer func() { seen(rd.Layout) }()
			if strings.Contains(lower, "township") {
				return rd.TownshipsGeoJSON(f, base, emit)
			}
			return rd.LotsGeoJSON(f, base, emit)
		}
		if !strings.HasSuffix(lower, ".shp") {
			return Stats{}, &ingest.Error{File: base, Reason: "want a .shp (with its .dbf and .prj beside it) or a .geojson file"}
		}
		shpF, dbfF, prj, err := openShapefile(src, name)
		if err != nil {
			return Stats{}, err
		}
		defer shpF.Close()
		defer dbfF.Close()
		rd := OntarioReader{Notices: src.Notices}
		defer func() {
			if src.Format == FormatOntario {
				seen(rd.Layout)
			}
		}()
		switch {
		case src.Format == FormatSaskGrid:
			return ReadSaskGrid(shpF, dbfF, prj, base, emit, SaskGridOptions{Notices: src.Notices, Layout: seen})
		case strings.Contains(lower, "township"):
			return rd.Townships(shpF, dbfF, prj, base, emit)
		default:
			return rd.Lots(shpF, dbfF, prj, base, emit)
		}
	}
	return Stats{}, fmt.Errorf("ingest: unknown grid format %q (want ats, mb, sk or on)", src.Format)
}

// openFile opens n in src, failing with an *ingest.Error that names it.
func openFile(src GridSource, n string) (fs.File, error) {
	f, err := src.FS.Open(n)
	if err != nil {
		return nil, &ingest.Error{File: path.Base(n), Reason: err.Error()}
	}
	return f, nil
}

// openShapefile opens the Shapefile name (a .shp) of src with the .dbf
// beside it and reads the .prj, which every grid reader needs to place
// the coordinates. The caller closes shp and dbf.
func openShapefile(src GridSource, name string) (shp, dbf fs.File, prj string, err error) {
	stem := name[:len(name)-len(path.Ext(name))]
	if shp, err = openFile(src, name); err != nil {
		return nil, nil, "", err
	}
	if dbf, err = openFile(src, stem+".dbf"); err != nil {
		shp.Close()
		return nil, nil, "", err
	}
	b, err := fs.ReadFile(src.FS, stem+".prj")
	if err != nil {
		shp.Close()
		dbf.Close()
		return nil, nil, "", &ingest.Error{File: path.Base(stem) + ".prj", Reason: fmt.Sprintf("the projection file is needed to place the coordinates: %v", err)}
	}
	return shp, dbf, string(b), nil
}
