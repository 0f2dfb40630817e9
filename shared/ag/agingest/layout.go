package agingest

import (
	"errors"
	"fmt"
	"path/filepath"
	"sort"

	"meridian/shared/ingest"
)

// FileLayout is the layout a reader took one file to be.
type FileLayout struct {
	Path   string
	Layout ingest.Layout // the zero Layout when Err is set
	// Err, when set, is why the file matches none of its reader's
	// layouts (an *ingest.Error whose Mismatch names the columns the file
	// has and the closest layout's missing ones).
	Err error
}

// Banner is the line an ingest prints for the file: its name and the
// layout's banner, or why it matches no layout.
func (f FileLayout) Banner() string {
	if f.Err != nil {
		var ie *ingest.Error
		if errors.As(f.Err, &ie) {
			return fmt.Sprintf("%s: NO KNOWN LAYOUT: %s", filepath.Base(f.Path), ie.Reason)
		}
		return fmt.Sprintf("%s: NO KNOWN LAYOUT: %v", filepath.Base(f.Path), f.Err)
	}
	return fmt.Sprintf("%s: %s", filepath.Base(f.Path), f.Layout.Banner())
}

// errProbed stops a reader once it has said which layout it read.
var errProbed = errors.New("agri: layout recognised")

// probe returns the layout reader recognises in path: it reads up to the
// first record. A file whose columns match none of the reader's layouts
// has no layout, and Err says why; a file the reader recognises nothing
// in for another reason (an empty one, or one it rejects first) is given
// def, and the ingest reports its errors.
func probe[T any](path string, reader func(Source, func(T) error) error, def ingest.Layout) FileLayout {
	out := FileLayout{Path: path, Layout: def}
	f, err := Open(path)
	if err != nil {
		return out
	}
	defer f.Close()
	s := f.Source
	recognised := false
	s.Recognised = func(l ingest.Layout) { out.Layout, recognised = l, true }
	err = reader(s, func(T) error { return errProbed })
	var ie *ingest.Error
	if !recognised && errors.As(err, &ie) && ie.Mismatch != nil {
		out.Layout, out.Err = ingest.Layout{}, err
	}
	return out
}

// Layouts returns the layout of each file of files (the crop rasters, SLC, LSRS, CLI, drought, hydrology, municipal boundaries, SK
// Crown land and pastures, the BC ALR and wetlands), files of no known
// layout and guessed layouts first, then in file order. For the drought monitor only the latest
// month's files, the ones an ingest reads, are listed.
func Layouts(files Files) []FileLayout {
	var out []FileLayout
	add := func(l FileLayout) { out = append(out, l) }
	if p := files.AGRASIDLSRS; p != "" {
		add(probe(p, ReadAGRASIDLSRS, AGRASIDLSRSLayout))
	}
	if p := files.SLCLSRS; p != "" {
		add(probe(p, ReadSLCLSRS, SLCLSRSLayout))
	}
	for _, p := range []string{files.CLI, files.BCCapability} {
		if p != "" {
			add(probe(p, ReadCLI, CLIReadmeLayout))
		}
	}
	for _, p := range files.CropRasters {
		add(FileLayout{Path: p, Layout: ACIRasterLayout})
	}
	for _, p := range files.LandUseRasters {
		add(FileLayout{Path: p, Layout: LandUseRasterLayout})
	}
	for _, p := range []string{files.SLCPolygons, files.SLCComponents, files.SoilNames} {
		if p != "" {
			add(FileLayout{Path: p, Layout: SLCLayout})
		}
	}
	_, drought := latestDrought(files.Drought)
	for _, p := range drought {
		add(probe(p, ReadDrought, DroughtGeoJSONLayout))
	}
	for _, p := range files.WaterBodies {
		add(probe(p, ReadWaterBodies, NHNLayout))
	}
	for _, p := range files.Watercourses {
		add(probe(p, ReadWatercourses, NHNLayout))
	}
	for _, p := range files.Municipalities {
		add(probe(p, ReadMunicipalities, ProvincialMunicipalLayout))
	}
	if p := files.CrownLand; p != "" {
		add(probe(p, ReadCrownLand, SKCrownLandLayout))
	}
	if p := files.Pastures; p != "" {
		add(probe(p, ReadPastures, SKPastureLayout))
	}
	if p := files.ALR; p != "" {
		add(probe(p, ReadALR, ALRWarehouseLayout))
	}
	if p := files.FWAWetlands; p != "" {
		add(probe(p, ReadFWAWetlands, FWAWarehouseLayout))
	}
	sort.SliceStable(out, func(i, j int) bool { return !out[i].Layout.Verified && out[j].Layout.Verified })
	return out
}

// CropLegendLayout is the ACI class legend AAFC publishes with the
// rasters: recognised, not read by the ingest (Files.Unused), whose
// classes are Meridian's table (CropClasses); ReadCropLegend reads it.
var CropLegendLayout = ingest.Layout{
	Dataset:   "AAFC Annual Crop Inventory class legend",
	Publisher: "Agriculture and Agri-Food Canada",
	Form:      "CSV of class value, label and colour",
	Verified:  true,
	Evidence:  "the full real legend in samples/aafc-aci/aci_class_legend.csv",
}

// SLCLayout is Soil Landscapes of Canada v3.2: the polygon shapefile (PAT
// key POLY_ID) and the CMP, soil name and soil layer DBF tables.
var SLCLayout = ingest.Layout{
	Dataset:   "Soil Landscapes of Canada v3.2",
	Publisher: "Agriculture and Agri-Food Canada (CanSIS)",
	Form:      "ca_all_slc_v3r2.shp with ca_all_slc_v3r2_cmp.dbf, soil_name_*.dbf, soil_layer_*.dbf",
	Verified:  true,
	Evidence:  "180 real AB/SK/MB polygons fully joined in samples/slc-v3.2",
}
