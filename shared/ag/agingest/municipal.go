package agingest

import (
	"strings"

	"github.com/paulmach/orb"

	"meridian/shared/ingest"
)

// Municipality is a municipal boundary polygon.
type Municipality struct {
	Code     string // CSDUID, or the provincial municipal code / RM number
	Name     string // "Red Deer County", "RM of Oakdale No. 320"
	TypeCode string // CSDTYPE ("MD", "RM", ...) when the file gives a code
	Type     string // "Municipal District", "Rural Municipality", ...
	Province string // AB, SK or MB; "" when the file does not say
	Geometry orb.Geometry
}

// csdTypes labels Statistics Canada census subdivision types found in the
// Prairie provinces ⚠ (from the Census dictionary, not yet checked against
// a download). A type in no table keeps its code as its label.
var csdTypes = map[string]string{
	"CY":  "City",
	"T":   "Town",
	"VL":  "Village",
	"SV":  "Summer Village",
	"MD":  "Municipal District",
	"SM":  "Specialized Municipality",
	"ID":  "Improvement District",
	"SA":  "Special Area",
	"MS":  "Metis Settlement",
	"RM":  "Rural Municipality",
	"RV":  "Resort Village",
	"NV":  "Northern Village",
	"NH":  "Northern Hamlet",
	"NT":  "Northern Town",
	"MU":  "Municipality",
	"LGD": "Local Government District",
	"IRI": "Indian Reserve",
	"NO":  "Unorganized",
}

// CSDType returns the label of a census subdivision type code.
func CSDType(code string) (string, bool) {
	l, ok := csdTypes[strings.ToUpper(code)]
	return l, ok
}

// provinceByPRUID maps Statistics Canada province codes.
var provinceByPRUID = map[string]string{"46": "MB", "47": "SK", "48": "AB"}

// The layouts ReadMunicipalities reads.
var (
	// MBMunicipalLayout is Manitoba's municipal boundaries.
	MBMunicipalLayout = ingest.Layout{
		Dataset:   "Manitoba municipal boundaries",
		Publisher: "Province of Manitoba",
		Form:      "MUNI_NO, MUNI_NAME, MUNI_TYPE, MUNI_LIST_NAME_WITH_TYPE",
		Verified:  true,
		Evidence:  "two real releases in testdata/real/mb-municipal (the geoportal's MG_MUNICIPALITY_POLY and MLI's 2020 MB_Municipal_Boundaries): the code is MUNI_NO; docs/real-layouts.md, Agriculture (Municipal boundaries: MB ok); the Manitoba MUNICIPALITY FeatureServer is read in evidence id 61389629629",
	}
	// CSDLayout is Statistics Canada's census subdivision boundary file
	// (lcsd000a21a_e, lcsd000b21a_e and earlier years).
	CSDLayout = ingest.Layout{
		Dataset:   "Census subdivision boundary file (lcsd000a21a_e / lcsd000b21a_e)",
		Publisher: "Statistics Canada",
		Form:      "CSDUID, CSDNAME, CSDTYPE, PRUID",
		Verified:  true,
		Evidence:  "scripts reading the real boundary files: evidence ids 2414912648 and 30317936288 (CSDUID, CSDNAME, PRUID, PRNAME of lcsd000a14a_e / lcsd000b16a_e) and 71208676428 (CSDTYPE in the 2021 boundary file); the type labels come from the Census dictionary, a type not in CSDType's table is a notice",
	}
	// ABMunicipalLayout is Alberta's municipal boundary file (AltaLIS).
	ABMunicipalLayout = ingest.Layout{
		Dataset:   "Alberta municipal boundaries",
		Publisher: "AltaLIS / Alberta Municipal Affairs",
		Form:      "GEO_NAME (name), other columns unknown",
		Verified:  false,
		Evidence:  "only the display field Geo_Name of a hosted copy of the AltaLIS Municipal Boundary file seen (docs/real-layouts.md: AB no evidence): check the name and type columns of a download",
	}
	// ProvincialMunicipalLayout is any other provincial file (SK rural
	// municipalities, …) read by the usual names.
	ProvincialMunicipalLayout = ingest.Layout{
		Dataset:   "Municipal boundaries (SK and others)",
		Publisher: "provincial",
		Form:      "MUNI_CODE/MUNCODE/RM_NO/RMNO, MUNNAME/RM_NAME/RMNM/NAME, TYPE, PROVINCE",
		Verified:  false,
		Evidence:  "a real Saskatchewan rural municipality shapefile seen in a public repository but not kept (no licence named; testdata/real/README.md) has RMNO (\"095\") and RMNM (\"GOLDEN WEST\") with ISC's PPID, EFFDT, EXPDT, FEATURECD and no province column; the other names are guesses: check the Saskatchewan GeoHub rural and urban municipality files",
	}
)

// municipalLayouts are the municipal layouts, told apart by their
// columns: Manitoba's (MUNI_LIST_NAME_WITH_TYPE, or MUNI_NAME with
// MUNI_TYPE), StatCan's census subdivisions (CSDNAME), Alberta's
// (GEO_NAME), and any other file with a name column.
var municipalLayouts = []ingest.Candidate{
	{Layout: MBMunicipalLayout, Required: [][]string{{"MUNI_LIST_NAME_WITH_TYPE"}}},
	{Layout: MBMunicipalLayout, Required: [][]string{{"MUNI_NAME"}, {"MUNI_TYPE"}}},
	{Layout: CSDLayout, Required: [][]string{{"CSDNAME"}}},
	{Layout: ABMunicipalLayout, Required: [][]string{{"GEO_NAME"}}},
	{Layout: ProvincialMunicipalLayout, Required: [][]string{{"MUNI_NAME", "MUNNAME", "RM_NAME", "RMNM", "NAME"}}},
}

// ReadMunicipalities streams municipal boundaries (shapefile or GeoJSON)
// to fn. Layouts: MBMunicipalLayout and CSDLayout (verified),
// ABMunicipalLayout and ProvincialMunicipalLayout (guessed), chosen by the
// columns of the file (municipalLayouts; a GeoJSON file's first feature):
// a file without a name column matches none and is an error naming its
// columns. Columns, by the first present:
//
//   - code: CSDUID, MUNI_CODE, MUNI_NO (Manitoba's real files), MUNCODE, RM_NO,
//     RMNO (a real Saskatchewan RM file)
//   - name: CSDNAME, MUNI_NAME, GEO_NAME, MUNNAME, RM_NAME, RMNM, NAME (required)
//   - type: CSDTYPE (a code, labelled by CSDType), MUNI_TYPE, TYPE (text)
//   - province: PRUID (46, 47, 48) or PROVINCE (AB, SK, MB); MB for the
//     Manitoba layout
//
// Fatal: no name, a PRUID or PROVINCE outside the Prairies
// (ingest.BadValue), a feature without a polygon. Notices: a CSDTYPE code
// not in CSDType's table (its code is kept as its label).
func ReadMunicipalities(src Source, fn func(Municipality) error) error {
	t, err := src.Open()
	if err != nil {
		return err
	}
	if !t.Spatial {
		return t.Errorf(t.HeaderAt, "municipal boundaries need geometry: give the shapefile or GeoJSON, not %s", src.Format)
	}
	layout := -1
	return t.Each(func(r *ingest.Row) error {
		if layout < 0 {
			if layout, err = t.Choose(r, municipalLayouts); err != nil {
				return err
			}
		}
		mb := municipalLayouts[layout].Layout == MBMunicipalLayout
		m := Municipality{
			Code: r.Get("CSDUID", "MUNI_CODE", "MUNI_NO", "MUNCODE", "RM_NO", "RMNO"),
			Name: r.Get("CSDNAME", "MUNI_NAME", "GEO_NAME", "MUNNAME", "RM_NAME", "RMNM", "NAME"),
		}
		if m.Name == "" {
			return t.Errorf(r.Line, "municipality without a name")
		}
		if c := r.Get("CSDTYPE"); c != "" {
			m.TypeCode = strings.ToUpper(c)
			if l, ok := CSDType(c); ok {
				m.Type = l
			} else {
				m.Type = m.TypeCode
				t.Notice(r.Line, "CSDTYPE", c, "code kept as the type")
			}
		} else {
			m.Type = r.Get("MUNI_TYPE", "TYPE")
		}
		if p := r.Get("PRUID"); p != "" {
			if m.Province = provinceByPRUID[p]; m.Province == "" {
				return t.BadValue(r.Line, "PRUID", p, []string{"46 (MB)", "47 (SK)", "48 (AB)"})
			}
		} else if p := strings.ToUpper(r.Get("PROVINCE")); p != "" {
			switch p {
			case "AB", "SK", "MB":
				m.Province = p
			default:
				return t.BadValue(r.Line, "PROVINCE", p, []string{"AB", "SK", "MB"})
			}
		} else if mb {
			m.Province = "MB"
		}
		g, why := polygonal(r.Geom)
		if why != "" {
			return t.Errorf(r.Line, "%s: %s", m.Name, why)
		}
		m.Geometry = g
		return fn(m)
	})
}
