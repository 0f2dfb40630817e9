package gridingest

import (
	"path/filepath"
	"strings"

	"meridian/shared/ingest"
)

// Files are a grid download's files sorted for one format by FilesOf.
type Files struct {
	// Read are the files the format's reader is given (GridSource.Files).
	Read []string
	// Unused are recognised and read by no reader: a GeoJSON beside the
	// Ontario shapefile of the same name (LIO offers both; the shapefile,
	// which carries its .prj, is read), a README or a publisher's PDF.
	Unused []string
	// Unrecognised are files the format does not read.
	Unrecognised []string
}

// companionExt are the extensions of a shapefile's companions (its table,
// index, projection, code page, metadata): read with the .shp of their
// name, listed nowhere by FilesOf.
var companionExt = map[string]bool{".dbf": true, ".shx": true, ".prj": true, ".cpg": true, ".sbn": true, ".sbx": true, ".qix": true, ".xml": true}

// FileNames are the files format f reads, for messages.
func (f GridFormat) FileNames() string {
	switch f {
	case FormatATS:
		return "the AltaLIS coordinate file ATS_V4_1.SEQ, or the ATS polygon shapefiles (V4-1_SEC.shp …, .dbf and .prj beside each)"
	case FormatManitoba:
		return "the Original Survey Legal Descriptions .csv and MB_QuarterSectionCorners.csv (a .csv whose name says corner)"
	case FormatSaskGrid:
		return "the SaskGrid shapefiles (.shp with .dbf and .prj beside each)"
	case FormatOntario:
		return "the LIO Geographic Lot Fabric and Geographic Township Improved (a name with township), .shp with .dbf and .prj, or .geojson"
	}
	return ""
}

// FilesOf sorts the files of a download (ingest.Unpack's paths, a zip
// member named after its archive) for format f by their names' extensions
// (a member's own name): .SEQ and .shp for ATS, .csv for Manitoba, .shp
// for SaskGrid, .shp or .geojson for Ontario; README* and .pdf are
// Unused, a shapefile's companions are listed nowhere, and any other
// file is Unrecognised.
func FilesOf(f GridFormat, paths []string) Files {
	stem := func(p string) string { return strings.ToLower(strings.TrimSuffix(p, filepath.Ext(p))) }
	shp := map[string]bool{}
	for _, p := range paths {
		if strings.EqualFold(filepath.Ext(p), ".shp") {
			shp[stem(p)] = true
		}
	}
	var out Files
	for _, p := range paths {
		n := ingest.MemberName(p)
		ext := strings.ToLower(filepath.Ext(n))
		switch {
		case f == FormatATS && (ext == ".seq" || ext == ".shp"),
			f == FormatManitoba && ext == ".csv",
			(f == FormatSaskGrid || f == FormatOntario) && ext == ".shp",
			f == FormatOntario && (ext == ".geojson" || ext == ".json") && !shp[stem(p)]:
			out.Read = append(out.Read, p)
		case f == FormatOntario && (ext == ".geojson" || ext == ".json"), strings.HasPrefix(strings.ToLower(n), "readme"), ext == ".pdf":
			out.Unused = append(out.Unused, p)
		case companionExt[ext] && f != FormatManitoba:
		default:
			out.Unrecognised = append(out.Unrecognised, p)
		}
	}
	return out
}
