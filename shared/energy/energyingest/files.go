package energyingest

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"sort"
	"strings"

	"meridian/shared/ingest"
)

// Files are the published files of one energy ingest, by kind. FilesIn
// sorts a directory's files into them by the publishers' names.
type Files struct {
	WellLists    []string // AER ST37 WellList*.txt, oldest first: the last is current, the one before it gives licence transfers
	BACodes      []string // AER ST104A business associate codes or Petrinex PRABAIdentifiers.csv
	Wells        []string // Petrinex Well Infrastructure (SK, MB; AB wells missing from ST37)
	Facilities   []string // Petrinex Facility Infrastructure
	Volumetrics  []string // Petrinex Conventional Volumetrics Vol_YYYY-MM-PP.csv
	Pipelines    []string // AER pipelines, .geojson or .shp (with .dbf and .prj beside it)
	Orphans      []string // Orphan Well Association inventory .xlsx
	Dispositions []string // Crown PNG and mineral dispositions, .geojson or .csv; Alberta GeoView agreement layers (.geojson)
	Unused       []string // recognised but not read by the reports (NGL volumes, ST37 shapefiles, README, PDFs)
	Unrecognised []string
}

// FileNames are the names FilesOf recognises, for messages ("the ingest
// expects ...").
const FileNames = "WellList*.txt (AER ST37); BusinessAssociate_Codes.xlsx, *BusinessAssociate*.xlsx|.csv, ST104*.xlsx|.csv " +
	"or PRABAIdentifiers.csv (business associates); Well Infrastructure*.csv; Facility Infrastructure*.csv; Vol_*.csv; " +
	"Pipelines*.geojson|.shp; *Inventory*.xlsx (OWA); Crown_Dispositions*.geojson|.csv; Mineral_Agreements*|PNG_Agreements*.geojson; " +
	"NGL*, ST37_SH*|ST37_BH*.shp, README.md, SCALE.json, *.pdf (not read); a .zip of any of these"

// FilesIn sorts the files of dir by name (FilesOf), not opening zips:
// ingest.OpenFolder does.
func FilesIn(dir string) (Files, error) {
	paths, err := ingest.DirFiles(dir)
	if err != nil {
		return Files{}, err
	}
	return FilesOf(paths), nil
}

// FilesOf sorts files by the publishers' names: a file's name, or for a
// member of a zip (ingest.Unpack, "WellList.zip!WellList.txt") the
// member's. When a dataset comes both as GeoJSON and as CSV or shapefile
// beside it, the GeoJSON is read. A shapefile's .dbf, .prj, .shx and .cpg
// are read with it and listed nowhere.
func FilesOf(paths []string) Files {
	var f Files
	geojson := map[string]bool{}
	for _, p := range paths {
		if n := filepath.Base(p); strings.HasSuffix(n, ".geojson") {
			geojson[filepath.Join(filepath.Dir(p), strings.TrimSuffix(n, ".geojson"))] = true
		}
	}
	for _, p := range paths {
		n := ingest.MemberName(p)
		ext := strings.ToLower(filepath.Ext(n))
		besideGeoJSON := geojson[strings.TrimSuffix(p, filepath.Ext(p))]
		switch {
		case strings.HasPrefix(n, "WellList") && ext == ".txt":
			f.WellLists = append(f.WellLists, p)
		case (strings.Contains(n, "BusinessAssociate") || strings.HasPrefix(n, "ST104") || strings.HasPrefix(n, "PRABAIdentifiers")) && (ext == ".csv" || ext == ".xlsx"):
			f.BACodes = append(f.BACodes, p)
		case strings.HasPrefix(n, "Well Infrastructure") && ext == ".csv":
			f.Wells = append(f.Wells, p)
		case strings.HasPrefix(n, "Facility Infrastructure") && ext == ".csv":
			f.Facilities = append(f.Facilities, p)
		case strings.HasPrefix(n, "Vol_") && ext == ".csv":
			f.Volumetrics = append(f.Volumetrics, p)
		case strings.HasPrefix(n, "Pipelines") && (ext == ".geojson" || ext == ".shp" && !besideGeoJSON):
			f.Pipelines = append(f.Pipelines, p)
		case strings.HasPrefix(n, "Pipelines") && ext == ".shp": // beside its GeoJSON
			f.Unused = append(f.Unused, p)
		case strings.HasPrefix(n, "Pipelines"): // .dbf, .prj, .shx, .cpg
		case strings.Contains(n, "Inventory") && ext == ".xlsx":
			f.Orphans = append(f.Orphans, p)
		case strings.HasPrefix(n, "Crown_Dispositions") && (ext == ".geojson" || ext == ".csv" && !besideGeoJSON):
			f.Dispositions = append(f.Dispositions, p)
		case strings.HasPrefix(n, "Crown_Dispositions") && ext == ".csv": // beside its GeoJSON
			f.Unused = append(f.Unused, p)
		case strings.HasPrefix(n, "Crown_Dispositions"):
		case (strings.HasPrefix(n, "ST37_SH") || strings.HasPrefix(n, "ST37_BH")) && ext == ".shp":
			// The ST37 well shapefiles (src.ReadWellHoles): WellList.txt
			// carries the same wells with the UWI and status they lack.
			f.Unused = append(f.Unused, p)
		case strings.HasPrefix(n, "ST37_SH") || strings.HasPrefix(n, "ST37_BH"): // .dbf, .prj, .shx, .cpg beside them
		case (strings.HasPrefix(n, "Mineral_Agreements") || strings.HasPrefix(n, "PNG_Agreements")) && ext == ".geojson":
			f.Dispositions = append(f.Dispositions, p)
		case strings.HasPrefix(n, "NGL") || n == "README.md" || n == "SCALE.json" || ext == ".pdf":
			// NGL volumes; a README; the layout PDF a publisher's zip
			// carries beside its data (ST37.zip has one); the report
			// `meridian demo -scale province` writes beside its files.
			f.Unused = append(f.Unused, p)
		default:
			f.Unrecognised = append(f.Unrecognised, p)
		}
	}
	// By the publisher's name: the dates in it order the lists, wherever
	// a zip put them.
	sort.SliceStable(f.WellLists, func(i, j int) bool {
		a, b := ingest.MemberName(f.WellLists[i]), ingest.MemberName(f.WellLists[j])
		return a < b || a == b && f.WellLists[i] < f.WellLists[j]
	})
	return f
}

// FileLayout is the published layout an ingest recognised for one file.
type FileLayout struct {
	Path   string
	Layout ingest.Layout
}

// Layouts says which layout each file of files is, guessed layouts first,
// then in the order of files. It reads no more of a file than its header
// or first record (a WellList.txt's first line, a disposition GeoJSON's
// first feature); a file its reader refuses before it knows is listed with
// the zero Layout, and the ingest reports why.
func Layouts(files Files) ([]FileLayout, error) {
	var out []FileLayout
	add := func(p string, l ingest.Layout) { out = append(out, FileLayout{p, l}) }
	probe := func(p string, read func(r io.Reader, name string, opt ReadOptions) error) {
		var l ingest.Layout
		withFile(p, func(r io.Reader, name string) error {
			return read(r, name, ReadOptions{Layout: func(got ingest.Layout) { l = got }})
		})
		add(p, l)
	}
	for _, p := range files.WellLists {
		l := ingest.Layout{}
		withFile(p, func(r io.Reader, name string) error {
			return ReadWellList(r, name, func(w Well) error {
				l, _ = WellListLayout(w.Columns)
				return errProbed
			})
		})
		add(p, l)
	}
	for _, p := range files.BACodes {
		var l ingest.Layout
		readBAFile(p, ReadOptions{Layout: func(got ingest.Layout) { l = got }}, func(BA) error { return errProbed })
		add(p, l)
	}
	for _, p := range files.Wells {
		probe(p, func(r io.Reader, name string, opt ReadOptions) error {
			return ReadPetrinexWells(r, name, opt, func(PetrinexWell) error { return errProbed })
		})
	}
	for _, p := range files.Facilities {
		add(p, FacilityLayout)
	}
	for _, p := range files.Volumetrics {
		add(p, VolumetricsLayout)
	}
	for _, p := range files.Pipelines {
		if strings.EqualFold(filepath.Ext(p), ".shp") {
			var l ingest.Layout
			readShapefile(p, nil, func(Pipeline) error { return errProbed }, func(got ingest.Layout) { l = got })
			add(p, l)
			continue
		}
		probe(p, func(r io.Reader, name string, opt ReadOptions) error {
			return ReadPipelinesGeoJSON(r, name, opt, func(Pipeline) error { return errProbed })
		})
	}
	for _, p := range files.Orphans {
		add(p, OWALayout)
	}
	for _, p := range files.Dispositions {
		l, err := dispositionLayout(p)
		if err != nil {
			return nil, err
		}
		add(p, l)
	}
	sort.SliceStable(out, func(i, j int) bool { return !out[i].Layout.Verified && out[j].Layout.Verified })
	return out, nil
}

// errProbed stops a reader once it has said which layout it read.
var errProbed = errors.New("energyingest: layout recognised")

// Banners are the lines an ingest prints first: each file's layout
// banner (ingest.Layout.Banner), guessed layouts first, the file named
// after it.
func Banners(files Files) ([]string, error) {
	ls, err := Layouts(files)
	if err != nil {
		return nil, err
	}
	out := make([]string, len(ls))
	for i, l := range ls {
		out[i] = fmt.Sprintf("%s [%s]", l.Layout.Banner(), filepath.Base(l.Path))
	}
	return out, nil
}

func dispositionLayout(path string) (ingest.Layout, error) {
	var l ingest.Layout
	err := withFile(path, func(r io.Reader, name string) error {
		var err error
		l, err = DispositionLayoutOf(r, name)
		return err
	})
	return l, err
}
