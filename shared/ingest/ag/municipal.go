package ag

import (
	"strings"

	"github.com/paulmach/orb"
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

// ReadMunicipalities streams municipal boundaries (shapefile or GeoJSON)
// to fn. docs/data-sources.md §17 gives no field layout for the provincial
// products; the reader follows Statistics Canada's census subdivisions
// (CSDUID, CSDNAME, CSDTYPE, PRUID) and also reads the usual provincial
// names, by the first present:
//
//   - code: CSDUID, MUNI_CODE, MUNCODE, RM_NO
//   - name: CSDNAME, MUNI_NAME, MUNNAME, RM_NAME, NAME (required)
//   - type: CSDTYPE (a code, labelled by CSDType), MUNI_TYPE, TYPE (text)
//   - province: PRUID (46, 47, 48) or PROVINCE (AB, SK, MB)
func ReadMunicipalities(src Source, fn func(Municipality) error) error {
	t, err := src.open()
	if err != nil {
		return err
	}
	if !t.spatial {
		return t.errorf(t.headerAt, "municipal boundaries need geometry: give the shapefile or GeoJSON, not %s", src.Format)
	}
	return each(t, func(r *row) error {
		m := Municipality{
			Code: r.get("CSDUID", "MUNI_CODE", "MUNCODE", "RM_NO"),
			Name: r.get("CSDNAME", "MUNI_NAME", "MUNNAME", "RM_NAME", "NAME"),
		}
		if m.Name == "" {
			return t.errorf(r.line, "municipality without a name")
		}
		if c := r.get("CSDTYPE"); c != "" {
			m.TypeCode = strings.ToUpper(c)
			if l, ok := CSDType(c); ok {
				m.Type = l
			} else {
				m.Type = m.TypeCode
			}
		} else {
			m.Type = r.get("MUNI_TYPE", "TYPE")
		}
		if p := r.get("PRUID"); p != "" {
			if m.Province = provinceByPRUID[p]; m.Province == "" {
				return t.errorf(r.line, "PRUID %q: want 46 (MB), 47 (SK) or 48 (AB)", p)
			}
		} else if p := strings.ToUpper(r.get("PROVINCE")); p != "" {
			switch p {
			case "AB", "SK", "MB":
				m.Province = p
			default:
				return t.errorf(r.line, "PROVINCE %q: want AB, SK or MB", p)
			}
		}
		g, why := polygonal(r.geom)
		if why != "" {
			return t.errorf(r.line, "%s: %s", m.Name, why)
		}
		m.Geometry = g
		return fn(m)
	})
}
