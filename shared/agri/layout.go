package agri

import (
	"errors"
	"fmt"
	"path/filepath"
	"sort"

	"meridian/shared/ingest"
	src "meridian/shared/ingest/ag"
)

// FileLayout is the layout a reader took one file to be.
type FileLayout struct {
	Path   string
	Layout ingest.Layout
}

// Banner is the line an ingest prints for the file: its name and the
// layout's banner.
func (f FileLayout) Banner() string {
	return fmt.Sprintf("%s: %s", filepath.Base(f.Path), f.Layout.Banner())
}

// errProbed stops a reader once it has said which layout it read.
var errProbed = errors.New("agri: layout recognised")

// probe returns the layout reader recognises in path: it reads up to the
// first record. A file the reader recognises nothing in (an empty one, or
// one it rejects first) is given def; the ingest reports its errors.
func probe[T any](path string, reader func(src.Source, func(T) error) error, def ingest.Layout) FileLayout {
	out := FileLayout{Path: path, Layout: def}
	f, err := src.Open(path)
	if err != nil {
		return out
	}
	defer f.Close()
	s := f.Source
	s.Recognised = func(l ingest.Layout) { out.Layout = l }
	reader(s, func(T) error { return errProbed })
	return out
}

// Layouts returns the layout of each file of files whose reader declares
// its layouts (LSRS, CLI, drought, hydrology, municipal boundaries, SK
// Crown land and pastures, the BC ALR and wetlands), guessed layouts
// first, then in file order. For the drought monitor only the latest
// month's files, the ones an ingest reads, are listed.
func Layouts(files Files) []FileLayout {
	var out []FileLayout
	add := func(l FileLayout) { out = append(out, l) }
	if p := files.AGRASIDLSRS; p != "" {
		add(probe(p, src.ReadAGRASIDLSRS, src.AGRASIDLSRSLayout))
	}
	if p := files.SLCLSRS; p != "" {
		add(probe(p, src.ReadSLCLSRS, src.SLCLSRSLayout))
	}
	for _, p := range []string{files.CLI, files.BCCapability} {
		if p != "" {
			add(probe(p, src.ReadCLI, src.CLIReadmeLayout))
		}
	}
	_, drought := latestDrought(files.Drought)
	for _, p := range drought {
		add(probe(p, src.ReadDrought, src.DroughtGeoJSONLayout))
	}
	for _, p := range files.WaterBodies {
		add(probe(p, src.ReadWaterBodies, src.NHNLayout))
	}
	for _, p := range files.Watercourses {
		add(probe(p, src.ReadWatercourses, src.NHNLayout))
	}
	for _, p := range files.Municipalities {
		add(probe(p, src.ReadMunicipalities, src.ProvincialMunicipalLayout))
	}
	if p := files.CrownLand; p != "" {
		add(probe(p, src.ReadCrownLand, src.SKCrownLandLayout))
	}
	if p := files.Pastures; p != "" {
		add(probe(p, src.ReadPastures, src.SKPastureLayout))
	}
	if p := files.ALR; p != "" {
		add(probe(p, src.ReadALR, src.ALRWarehouseLayout))
	}
	if p := files.FWAWetlands; p != "" {
		add(probe(p, src.ReadFWAWetlands, src.FWAWarehouseLayout))
	}
	sort.SliceStable(out, func(i, j int) bool { return !out[i].Layout.Verified && out[j].Layout.Verified })
	return out
}
