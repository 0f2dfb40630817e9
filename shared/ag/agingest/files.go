package agingest

import (
	"os"
	"path/filepath"
	"sort"
	"strings"

	"meridian/shared/ingest"
)

// Files are the agriculture files of one ingest, by kind; FilesOf sorts a
// download's files into them by the publishers' names.
type Files struct {
	CropSummaries, LandUse string
	// CropRasters and LandUseRasters are AAFC's published GeoTIFFs
	// (aci_<year>_<prov>.tif; IMG_AAFC_LANDUSE_Z<zone>_<year>.tif or
	// LU<year>_….tif), summarised per quarter by zonal statistics.
	// CropSummaries and LandUse are the per-quarter CSV layout of
	// ag/zonal.go, an internal cache of such summaries, not a download.
	CropRasters, LandUseRasters           []string
	SLCPolygons, SLCComponents, SoilNames string
	AGRASIDLSRS, SLCLSRS, CLI             string
	Drought                               []string // CDM_{yy}{mm}_D{d}_LR.geojson, one a class: the latest month's are read
	WaterBodies, Watercourses             []string
	Municipalities                        []string // municipalities* or a publisher's name (municipal): each province's file
	CrownLand, Pastures                   string
	BCCapability, ALR, FWAWetlands        string // British Columbia map layers
	// Unused are files recognised but read by no report: the ACI class
	// legend (the rasters' classes are Meridian's table, CropClasses), the
	// SLC soil layers, a README, a publisher's PDF or .xml metadata (not a
	// file's own, x.shp.xml, which is a companion), a shapefile beside
	// the GeoJSON of the same name (the GeoJSON is read), and a file of a
	// kind read once (CLI, Crown land, ...) that another of that kind,
	// later by name, replaces.
	Unused       []string
	Unrecognised []string
}

// FileNames are the names FilesOf recognises, for messages ("the ingest
// reads ...").
const FileNames = "aci_*.tif, IMG_AAFC_LANDUSE_*|LU*.tif (AAFC rasters); aci_quarter_summary*.csv, landuse_quarter_summary*.csv; " +
	"ca_all_slc*.shp, ca_all_slc*_cmp.dbf, soil_name* (SLC); DominantAGRASID_LSRS*.shp; slc_lsrs*; cli_*.shp|.geojson; " +
	"CDM_{yy}{mm}_D{d}_LR.geojson|.shp (or their cdm_{yy}{mm}_drought_areas folder); waterbody*, watercourse*, NHN_*_HN_WATERBODY_2, " +
	"NHN_*_HN_NLFLOW_1|HN_SLWATER_1 .shp|.geojson; municipalities*, MG_MUNICIPALITY_POLY*, MB_Municipal_Boundaries*, SK_Municipality*; sk_ag_crown_land*, sk_pastures*; bc_ag_capability*, " +
	"OATS_ALR_POLYS*|ALC_ALR_POLYGONS*|TSLRPLS*|bc_alr*, FWA_WETLANDS* .shp|.geojson; aci_class_legend*, soil_layer*, README*, SCALE.json, *.pdf (not read); " +
	"a .zip of any of these"

// companionExt are the extensions of the files a shapefile or a raster
// is read with (.prj, .shx, the .shp.xml and .tif.aux.xml metadata, a
// .tfw world file): FilesOf lists them nowhere, and the -check calls
// one a companion when a file of its name is read.
var companionExt = map[string]bool{".shx": true, ".prj": true, ".cpg": true, ".sbn": true, ".sbx": true, ".qix": true,
	".xml": true, ".tfw": true, ".ovr": true, ".aux": true}

// FilesIn sorts the files of dir, and of its drought monitor folders
// (SubfolderFiles), by name (FilesOf), not opening zips: ingest.OpenFolder
// does.
func FilesIn(dir string) (Files, error) {
	paths, err := ingest.DirFiles(dir)
	if err != nil {
		return Files{}, err
	}
	sub, err := SubfolderFiles(dir)
	if err != nil {
		return Files{}, err
	}
	return FilesOf(append(paths, sub...)), nil
}

// SubfolderFiles returns the files of dir's subfolders that belong to
// the download: those of a Canadian Drought Monitor month's folder, named
// as AAFC names it, cdm_{yy}{mm}_drought_areas. Other subfolders are not
// read.
func SubfolderFiles(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range entries {
		l := strings.ToLower(e.Name())
		if !e.IsDir() || !strings.HasPrefix(l, "cdm_") || !strings.HasSuffix(l, "_drought_areas") {
			continue
		}
		sub, err := ingest.DirFiles(filepath.Join(dir, e.Name()))
		if err != nil {
			return nil, err
		}
		out = append(out, sub...)
	}
	return out, nil
}

// FilesOf sorts files by the publishers' (and the documented per-quarter
// summaries') names: a file's name, or for a member of a zip
// (ingest.Unpack, "aci_2023_ab.zip!aci_2023_ab.tif") the member's. A
// shapefile's .dbf, .prj, .shx and .cpg are read with it and listed
// nowhere. When a layer comes both as GeoJSON and as a shapefile of the
// same name beside it, the GeoJSON is read (the shapefile is Unused). Of the kinds read from one
// file (CLI, Crown land, pastures, the BC layers, ...) the last by name is
// read and the others are Unused.
func FilesOf(paths []string) Files {
	paths = append([]string(nil), paths...)
	sort.SliceStable(paths, func(i, j int) bool {
		a, b := ingest.MemberName(paths[i]), ingest.MemberName(paths[j])
		return a < b || a == b && paths[i] < paths[j]
	})
	stem := func(p string) string { return strings.ToLower(strings.TrimSuffix(p, filepath.Ext(p))) }
	geojson, shp, names := map[string]bool{}, map[string]bool{}, map[string]bool{}
	for _, p := range paths {
		if !strings.EqualFold(filepath.Ext(p), ".xml") {
			names[strings.ToLower(p)], names[stem(p)] = true, true
		}
		switch strings.ToLower(filepath.Ext(p)) {
		case ".geojson":
			geojson[stem(p)] = true
		case ".shp":
			shp[stem(p)] = true
		}
	}
	var f Files
	one := func(field *string, p string) {
		if *field != "" {
			f.Unused = append(f.Unused, *field)
		}
		*field = p
	}
	for _, p := range paths {
		n := ingest.MemberName(p)
		l, ext := strings.ToLower(n), strings.ToLower(filepath.Ext(n))
		raster := ext == ".tif" || ext == ".tiff"
		spatial := ext == ".shp" || ext == ".geojson"
		switch {
		case strings.HasPrefix(l, "readme") || l == "scale.json" || ext == ".pdf",
			ext == ".xml" && !names[stem(p)] && !names[stem(stem(p))]: // a publisher's metadata (MUNICIPALITY.xml), not x.shp.xml
			f.Unused = append(f.Unused, p)
			continue
		case companionExt[ext]:
			continue
		case ext != ".csv" && !spatial && ext != ".dbf" && !raster:
			f.Unrecognised = append(f.Unrecognised, p)
			continue
		case ext == ".dbf" && shp[stem(p)]:
			continue // a shapefile's table: read with it
		case ext == ".shp" && geojson[stem(p)]:
			f.Unused = append(f.Unused, p) // the GeoJSON of its name is read
			continue
		}
		switch {
		case strings.HasPrefix(l, "aci_") && raster:
			f.CropRasters = append(f.CropRasters, p)
		case (strings.HasPrefix(l, "img_aafc_landuse") || strings.HasPrefix(l, "lu")) && raster:
			f.LandUseRasters = append(f.LandUseRasters, p)
		case raster:
			f.Unrecognised = append(f.Unrecognised, p)
		case strings.HasPrefix(l, "aci_class_legend"), strings.HasPrefix(l, "soil_layer"):
			f.Unused = append(f.Unused, p)
		case strings.HasPrefix(l, "aci_quarter_summary"):
			one(&f.CropSummaries, p)
		case strings.HasPrefix(l, "landuse_quarter_summary"):
			one(&f.LandUse, p)
		case strings.HasPrefix(l, "ca_all_slc") && strings.Contains(l, "_cmp"):
			one(&f.SLCComponents, p)
		case strings.HasPrefix(l, "ca_all_slc") && ext == ".shp":
			one(&f.SLCPolygons, p)
		case strings.HasPrefix(l, "soil_name"):
			one(&f.SoilNames, p)
		case strings.HasPrefix(l, "dominantagrasid_lsrs") && ext == ".shp":
			one(&f.AGRASIDLSRS, p)
		case strings.HasPrefix(l, "slc_lsrs"):
			one(&f.SLCLSRS, p)
		case strings.HasPrefix(l, "cli_") && spatial:
			one(&f.CLI, p)
		case strings.HasPrefix(l, "cdm_") && spatial:
			f.Drought = append(f.Drought, p) // a name ReadDrought refuses is read, and rejected, with the latest month
		case strings.HasPrefix(l, "waterbody") && spatial, nhnLayer(l, "hn_waterbody_2") && spatial:
			f.WaterBodies = append(f.WaterBodies, p)
		case strings.HasPrefix(l, "watercourse") && spatial, (nhnLayer(l, "hn_nlflow_1") || nhnLayer(l, "hn_slwater_1")) && spatial:
			f.Watercourses = append(f.Watercourses, p)
		case municipal(l) && spatial:
			f.Municipalities = append(f.Municipalities, p)
		case strings.HasPrefix(l, "sk_ag_crown_land") && spatial:
			one(&f.CrownLand, p)
		case strings.HasPrefix(l, "sk_pastures") && spatial:
			one(&f.Pastures, p)
		case strings.HasPrefix(l, "bc_ag_capability") && spatial:
			one(&f.BCCapability, p)
		case bcALR(l) && spatial:
			one(&f.ALR, p)
		case strings.HasPrefix(l, "fwa_wetlands") && spatial:
			one(&f.FWAWetlands, p)
		default:
			f.Unrecognised = append(f.Unrecognised, p)
		}
	}
	return f
}

// municipal reports whether a (lower-case) file name is a province's
// municipal boundaries: municipalities*, or as published, Manitoba's
// MG_MUNICIPALITY_POLY (geoportal) and MB_Municipal_Boundaries (MLI), a
// Saskatchewan SK_Municipality (testdata/real/README.md).
func municipal(name string) bool {
	for _, p := range []string{"municipalities", "mg_municipality", "mb_municipal", "sk_municipalit"} {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}

// nhnLayer reports whether a (lower-case) file name is the NHN layer named
// by suffix: NHN_HN_NLFLOW_1.shp, or a work unit's NHN_…_HN_NLFLOW_1.shp.
func nhnLayer(name, layer string) bool {
	base := strings.TrimSuffix(name, filepath.Ext(name))
	return strings.HasPrefix(base, "nhn_") && strings.HasSuffix(base, layer)
}

// latestDrought returns the month of the latest Canadian Drought Monitor
// release among files and its files (one a class), with every file whose
// name is not a release's, which ReadDrought then rejects.
func latestDrought(files []string) (string, []string) {
	month := ""
	for _, p := range files {
		if m, _, ok := ParseDroughtName(ingest.MemberName(p)); ok && m > month {
			month = m
		}
	}
	var out []string
	for _, p := range files {
		if m, _, ok := ParseDroughtName(ingest.MemberName(p)); !ok || m == month {
			out = append(out, p)
		}
	}
	return month, out
}

// bcALR reports whether a (lower-case) file name is the ALR polygons': the
// BC Geographic Warehouse's OATS_ALR_POLYS, ALC_ALR_POLYGONS, DataBC's
// shapefile TSLRPLS_polygon, or bc_alr.
func bcALR(name string) bool {
	for _, p := range []string{"oats_alr_polys", "alc_alr_polygons", "tslrpls", "bc_alr"} {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}
