package agingest

import (
	"fmt"
	"math"

	"github.com/paulmach/orb"

	"meridian/shared/ingest"
)

// Component is one row of the SLC v3.2 component table (CMP): a soil that
// covers a share of an SLC polygon.
type Component struct {
	PolyID      int    // POLY_ID, the polygon
	Number      int    // CMP, 1-based within the polygon
	Percent     int    // PERCENT of the polygon's area
	Slope       string // SLOPE class letter (see Slope)
	Stone       string // STONE stoniness class (see Stoniness)
	SurfaceForm string // LOCSF local surface form (see SurfaceForm)
	Province    string // PROVINCE, "AB"
	SoilCode    string // SOIL_CODE, 3 characters
	Modifier    string // MODIFIER, 5 characters padded with '~'
	Profile     string // PROFILE: N native, A agricultural
	SoilID      string // SOIL_ID = PROVINCE + SOIL_CODE + MODIFIER + PROFILE, the key of the soil name table
	ID          int    // CMP_ID = POLY_ID×100 + CMP; 0 when the file has no CMP_ID column
}

// SoilName is one row of an SLC soil name table (SNT): a soil and its
// classification. The PM*, MDEP* and *2 fields keep their codes.
type SoilName struct {
	SoilID           string // key
	Province         string
	SoilCode         string
	Modifier         string
	Profile          string
	Name             string // SOILNAME, "BUFFALO"
	Kind             string // KIND (see SoilKind)
	WaterTable       string // WATERTBL: NO, YB, YU, YG ...
	RootRestriction  string // ROOTRESTRI
	RestrictionType  string // RESTR_TYPE
	Drainage         string // DRAINAGE (see Drainage)
	ParentTexture    [3]string
	ParentChemistry  [3]string
	ParentDeposition [3]string // MDEP1-3: TILL, LACU, GLFL ...
	Order2           string
	GreatGroup2      string
	Subgroup2        string
	Order3           string // ORDER3 (see SoilOrder)
	GreatGroup3      string // G_GROUP3 (see GreatGroup)
	Subgroup3        string // S_GROUP3 (see SubgroupPrefix)
}

// SoilLayer is one row of an SLC soil layer table (SLT): a horizon of a
// soil's profile. Measurements the table gives as -9 (not available), or
// whose column is absent, are NaN.
type SoilLayer struct {
	SoilID  string
	LayerNo int     // LAYER_NO, 1-based from the surface
	Upper   float64 // UDEPTH, cm (negative above the mineral surface: LFH)
	Lower   float64 // LDEPTH, cm

	HorizonLit      string // HZN_LIT, lithological discontinuity
	HorizonMaster   string // HZN_MAS: A, B, C, LFH ...
	HorizonSuffix   string // HZN_SUF
	HorizonModifier string // HZN_MOD
	DominantSand    string // DOMSAND: VC, C, M, F, VF, -

	CoarseFragments float64 // COFRAG, % volume
	VeryFineSand    float64 // VFSAND, %
	Sand            float64 // TSAND, %
	Silt            float64 // TSILT, %
	Clay            float64 // TCLAY, %
	OrganicCarbon   float64 // ORGCARB, %
	PHCaCl2         float64 // PHCA
	PHWater         float64 // PH2
	BaseSaturation  float64 // BASES, %
	CEC             float64 // cmol/kg
	KSat            float64 // saturated hydraulic conductivity, cm/h
	KP0             float64 // water retention at 0 kPa, %
	KP10            float64
	KP33            float64
	KP1500          float64
	BulkDensity     float64 // BD, g/cm³
	EC              float64 // electrical conductivity, dS/m
	CaCO3           float64 // %
	VonPost         float64 // organic horizons' decomposition
	Wood            float64 // %
}

// SLCPolygon is a polygon of the SLC attribute table (PAT), with its
// geometry when read from the shapefile.
type SLCPolygon struct {
	PolyID    int
	EcoID     int     // ECO_ID, the ecodistrict; 0 when absent
	Area      float64 // AREA, square degrees as published; NaN when absent
	Perimeter float64 // PERIMETER, degrees; NaN when absent
	Geometry  orb.Geometry
}

// PolygonSoils is an SLC polygon with all its components.
type PolygonSoils struct {
	PolyID     int
	Components []Component
}

// Dominant returns the polygon's dominant component (see Dominant).
func (p PolygonSoils) Dominant() (Component, bool) { return Dominant(p.Components) }

// Dominant returns the component with the highest PERCENT and, among
// equal shares, the lowest CMP number (the table lists components in order
// of importance). The SLC documentation says the dominant component covers
// 40 % or more; in the AB/SK/MB sample half of the polygons have no such
// component, so no threshold is applied.
func Dominant(cs []Component) (Component, bool) {
	best := -1
	for i, c := range cs {
		if best < 0 || c.Percent > cs[best].Percent || c.Percent == cs[best].Percent && c.Number < cs[best].Number {
			best = i
		}
	}
	if best < 0 {
		return Component{}, false
	}
	return cs[best], true
}

// Soil is what the report's soil section says about a component: the
// classification of its soil name, drainage and slope, with labels.
type Soil struct {
	PolyID  int
	Percent int
	SoilID  string
	Name    string // soil name, "BUFFALO"
	Kind    string // label: "Mineral"
	Classification
	DrainageCode string // "W"
	Drainage     string // "Well drained"
	Slope        SlopeClass
}

// DescribeSoil joins a component to its soil name (same SOIL_ID).
func DescribeSoil(c Component, n SoilName) (Soil, error) {
	if c.SoilID != n.SoilID {
		return Soil{}, fmt.Errorf("ag: component %d of polygon %d is soil %s, not %s", c.Number, c.PolyID, c.SoilID, n.SoilID)
	}
	s := Soil{PolyID: c.PolyID, Percent: c.Percent, SoilID: c.SoilID, Name: n.Name, Classification: Classify(n), DrainageCode: n.Drainage}
	s.Kind, _ = SoilKind(n.Kind)
	s.Drainage, _ = Drainage(n.Drainage)
	if sc, ok := Slope(c.Slope); ok {
		s.Slope = sc
	} else {
		s.Slope = SlopeClass{Code: c.Slope}
	}
	return s, nil
}

// soilID checks the parts of a SOIL_ID against the whole.
func soilID(r *ingest.Row) (prov, code, mod, profile, id string, why string) {
	prov, code, mod, profile, id = r.Get("PROVINCE"), r.Get("SOIL_CODE"), r.Get("MODIFIER"), r.Get("PROFILE"), r.Get("SOIL_ID")
	switch {
	case len(prov) != 2 || !isUpper(prov):
		why = fmt.Sprintf("PROVINCE %q: want a two-letter code", prov)
	case !isCode(code, 3):
		why = fmt.Sprintf("SOIL_CODE %q: want up to 3 characters", code)
	case len(mod) != 5 || !isCode(mod, 5):
		why = fmt.Sprintf("MODIFIER %q: want 5 characters padded with ~", mod)
	case profile != "N" && profile != "A":
		why = fmt.Sprintf("PROFILE %q: want N (native) or A (agricultural)", profile)
	case id != prov+code+mod+profile:
		why = fmt.Sprintf("SOIL_ID %q is not PROVINCE+SOIL_CODE+MODIFIER+PROFILE (%s)", id, prov+code+mod+profile)
	}
	return
}

func isUpper(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 'A' || s[i] > 'Z' {
			return false
		}
	}
	return true
}

var cmpColumns = []string{"POLY_ID", "CMP", "PERCENT", "SLOPE", "STONE", "LOCSF", "PROVINCE", "SOIL_CODE", "MODIFIER", "PROFILE", "SOIL_ID"}

// ReadComponents streams the SLC component table (ca_all_slc_v3r2_cmp.dbf,
// or a CSV export) to fn, one component per row in file order. Columns:
// POLY_ID, CMP, PERCENT, SLOPE, STONE, LOCSF, PROVINCE, SOIL_CODE,
// MODIFIER, PROFILE, SOIL_ID and, when present, CMP_ID, which must be
// POLY_ID×100 + CMP. Errors are *ingest.Error; fn's errors are returned
// unchanged. As with every reader here, records passed to fn before an
// error belong to a rejected file and must be discarded.
func ReadComponents(src Source, fn func(Component) error) error {
	t, err := src.Open()
	if err != nil {
		return err
	}
	if err := t.Need(cmpColumns...); err != nil {
		return err
	}
	return t.Each(func(r *ingest.Row) error {
		c, why := component(r)
		if why != "" {
			return t.Errorf(r.Line, "%s", why)
		}
		return fn(c)
	})
}

func component(r *ingest.Row) (Component, string) {
	var c Component
	var err error
	if c.PolyID, err = parseInt(r.Get("POLY_ID"), 1, math.MaxInt32); err != nil {
		return c, "POLY_ID: " + err.Error()
	}
	if c.Number, err = parseInt(r.Get("CMP"), 1, 99); err != nil {
		return c, "CMP: " + err.Error()
	}
	if c.Percent, err = parseInt(r.Get("PERCENT"), 0, 100); err != nil {
		return c, "PERCENT: " + err.Error()
	}
	c.Slope, c.Stone, c.SurfaceForm = r.Get("SLOPE"), r.Get("STONE"), r.Get("LOCSF")
	for _, f := range []struct{ name, v string }{{"SLOPE", c.Slope}, {"STONE", c.Stone}, {"LOCSF", c.SurfaceForm}} {
		if !optCode(f.v, 4) {
			return c, fmt.Sprintf("%s %q: want a code of up to 4 characters", f.name, f.v)
		}
	}
	var why string
	if c.Province, c.SoilCode, c.Modifier, c.Profile, c.SoilID, why = soilID(r); why != "" {
		return c, why
	}
	if s := r.Get("CMP_ID"); s != "" || r.Has("CMP_ID") {
		id, err := parseInt(s, 1, math.MaxInt)
		if err != nil {
			return c, "CMP_ID: " + err.Error()
		}
		if id != c.PolyID*100+c.Number {
			return c, fmt.Sprintf("CMP_ID %d is not POLY_ID×100 + CMP (%d)", id, c.PolyID*100+c.Number)
		}
		c.ID = id
	}
	return c, ""
}

// ReadPolygonComponents streams the component table grouped by polygon:
// fn gets each polygon with all its components. The table lists a
// polygon's components together, numbered 1, 2, 3 ... in order, with
// shares that add up to 100 %, as the real table does; a file that breaks
// this is rejected. Memory is bounded by the largest polygon.
func ReadPolygonComponents(src Source, fn func(PolygonSoils) error) error {
	var cur PolygonSoils
	sum, line := 0, 0
	name := src.Name
	flush := func() error {
		if len(cur.Components) == 0 {
			return nil
		}
		if sum != 100 {
			return errorAt(name, line, "polygon %d: component shares add up to %d %%, want 100", cur.PolyID, sum)
		}
		err := fn(cur)
		cur = PolygonSoils{} // fn may keep the slice
		sum = 0
		return err
	}
	t, err := src.Open()
	if err != nil {
		return err
	}
	if err := t.Need(cmpColumns...); err != nil {
		return err
	}
	name = t.Name
	err = t.Each(func(r *ingest.Row) error {
		c, why := component(r)
		if why != "" {
			return t.Errorf(r.Line, "%s", why)
		}
		if c.PolyID != cur.PolyID {
			if err := flush(); err != nil {
				return err
			}
			cur.PolyID = c.PolyID
		}
		if c.Number != len(cur.Components)+1 {
			return t.Errorf(r.Line, "polygon %d: component %d follows component %d; a polygon's components must be together and numbered from 1", c.PolyID, c.Number, len(cur.Components))
		}
		if cur.Components == nil {
			cur.Components = make([]Component, 0, 8)
		}
		cur.Components = append(cur.Components, c)
		sum += c.Percent
		line = r.Line
		return nil
	})
	if err != nil {
		return err
	}
	return flush()
}

var sntColumns = []string{"SOIL_ID", "PROVINCE", "SOIL_CODE", "MODIFIER", "PROFILE", "SOILNAME", "KIND", "DRAINAGE", "ORDER3", "G_GROUP3", "S_GROUP3"}

// ReadSoilNames streams an SLC soil name table (soil_name_<prov>_v2r….dbf
// or a CSV export) to fn. Required columns: SOIL_ID, PROVINCE, SOIL_CODE,
// MODIFIER, PROFILE, SOILNAME, KIND, DRAINAGE, ORDER3, G_GROUP3, S_GROUP3;
// WATERTBL, ROOTRESTRI, RESTR_TYPE, PMTEX1-3, PMCHEM1-3, MDEP1-3, ORDER2,
// G_GROUP2 and S_GROUP2 are read when present. Codes are kept as written
// ("-" is the tables' not applicable); labels come from the code tables.
func ReadSoilNames(src Source, fn func(SoilName) error) error {
	t, err := src.Open()
	if err != nil {
		return err
	}
	if err := t.Need(sntColumns...); err != nil {
		return err
	}
	return t.Each(func(r *ingest.Row) error {
		n, why := soilName(r)
		if why != "" {
			return t.Errorf(r.Line, "%s", why)
		}
		return fn(n)
	})
}

func soilName(r *ingest.Row) (SoilName, string) {
	var n SoilName
	var why string
	if n.Province, n.SoilCode, n.Modifier, n.Profile, n.SoilID, why = soilID(r); why != "" {
		return n, why
	}
	n.Name = r.Get("SOILNAME")
	if n.Name == "" {
		return n, "SOILNAME is empty"
	}
	n.Kind, n.WaterTable, n.RootRestriction, n.RestrictionType, n.Drainage = r.Get("KIND"), r.Get("WATERTBL"), r.Get("ROOTRESTRI"), r.Get("RESTR_TYPE"), r.Get("DRAINAGE")
	for i, s := range []string{"1", "2", "3"} {
		n.ParentTexture[i], n.ParentChemistry[i], n.ParentDeposition[i] = r.Get("PMTEX"+s), r.Get("PMCHEM"+s), r.Get("MDEP"+s)
	}
	n.Order2, n.GreatGroup2, n.Subgroup2 = r.Get("ORDER2"), r.Get("G_GROUP2"), r.Get("S_GROUP2")
	n.Order3, n.GreatGroup3, n.Subgroup3 = r.Get("ORDER3"), r.Get("G_GROUP3"), r.Get("S_GROUP3")
	if !isCode(n.Kind, 1) {
		return n, fmt.Sprintf("KIND %q: want one letter", n.Kind)
	}
	if !isCode(n.Order3, 2) {
		return n, fmt.Sprintf("ORDER3 %q: want a soil order code such as CH, or - for non-soil", n.Order3)
	}
	for _, f := range []struct{ name, v string }{
		{"DRAINAGE", n.Drainage}, {"G_GROUP3", n.GreatGroup3}, {"S_GROUP3", n.Subgroup3},
		{"ORDER2", n.Order2}, {"G_GROUP2", n.GreatGroup2}, {"S_GROUP2", n.Subgroup2},
		{"WATERTBL", n.WaterTable}, {"ROOTRESTRI", n.RootRestriction}, {"RESTR_TYPE", n.RestrictionType},
	} {
		if !optCode(f.v, 5) {
			return n, fmt.Sprintf("%s %q: want a code of up to 5 characters", f.name, f.v)
		}
	}
	return n, ""
}

// ReadSoilLayers streams an SLC soil layer table (soil_layer_<prov>_….dbf
// or a CSV export) to fn. Required columns: SOIL_ID (with PROVINCE,
// SOIL_CODE, MODIFIER and PROFILE), LAYER_NO, UDEPTH and LDEPTH; the
// measurement columns of SoilLayer are read when present.
func ReadSoilLayers(src Source, fn func(SoilLayer) error) error {
	t, err := src.Open()
	if err != nil {
		return err
	}
	if err := t.Need("SOIL_ID", "PROVINCE", "SOIL_CODE", "MODIFIER", "PROFILE", "LAYER_NO", "UDEPTH", "LDEPTH"); err != nil {
		return err
	}
	return t.Each(func(r *ingest.Row) error {
		l, why := soilLayer(r)
		if why != "" {
			return t.Errorf(r.Line, "%s", why)
		}
		return fn(l)
	})
}

func soilLayer(r *ingest.Row) (SoilLayer, string) {
	var l SoilLayer
	var why string
	if _, _, _, _, l.SoilID, why = soilID(r); why != "" {
		return l, why
	}
	var err error
	if l.LayerNo, err = parseInt(r.Get("LAYER_NO"), 1, 99); err != nil {
		return l, "LAYER_NO: " + err.Error()
	}
	if l.Upper, err = parseFloat(r.Get("UDEPTH")); err != nil {
		return l, "UDEPTH: " + err.Error()
	}
	if l.Lower, err = parseFloat(r.Get("LDEPTH")); err != nil {
		return l, "LDEPTH: " + err.Error()
	}
	if l.Lower < l.Upper {
		return l, fmt.Sprintf("LDEPTH %g is above UDEPTH %g", l.Lower, l.Upper)
	}
	l.HorizonLit, l.HorizonMaster, l.HorizonSuffix, l.HorizonModifier, l.DominantSand = r.Get("HZN_LIT"), r.Get("HZN_MAS"), r.Get("HZN_SUF"), r.Get("HZN_MOD"), r.Get("DOMSAND")
	for _, m := range []struct {
		name string
		v    *float64
	}{
		{"COFRAG", &l.CoarseFragments}, {"VFSAND", &l.VeryFineSand}, {"TSAND", &l.Sand}, {"TSILT", &l.Silt},
		{"TCLAY", &l.Clay}, {"ORGCARB", &l.OrganicCarbon}, {"PHCA", &l.PHCaCl2}, {"PH2", &l.PHWater},
		{"BASES", &l.BaseSaturation}, {"CEC", &l.CEC}, {"KSAT", &l.KSat}, {"KP0", &l.KP0}, {"KP10", &l.KP10},
		{"KP33", &l.KP33}, {"KP1500", &l.KP1500}, {"BD", &l.BulkDensity}, {"EC", &l.EC}, {"CACO3", &l.CaCO3},
		{"VONPOST", &l.VonPost}, {"WOOD", &l.Wood},
	} {
		if *m.v, err = parseMeasure(r.Get(m.name)); err != nil {
			return l, m.name + ": " + err.Error()
		}
	}
	return l, ""
}

// ReadSLCPolygons streams the SLC polygon attribute table to fn: the
// shapefile ca_all_slc_v3r2.shp (polygons in NAD83 longitude and
// latitude) or its attributes alone as DBF or CSV (Geometry nil). Columns:
// POLY_ID, and AREA, PERIMETER and ECO_ID when present.
func ReadSLCPolygons(src Source, fn func(SLCPolygon) error) error {
	t, err := src.Open()
	if err != nil {
		return err
	}
	if err := t.Need("POLY_ID"); err != nil {
		return err
	}
	return t.Each(func(r *ingest.Row) error {
		var p SLCPolygon
		var err error
		if p.PolyID, err = parseInt(r.Get("POLY_ID"), 1, math.MaxInt32); err != nil {
			return t.Errorf(r.Line, "POLY_ID: %v", err)
		}
		if s := r.Get("ECO_ID"); s != "" {
			if p.EcoID, err = parseInt(s, 0, math.MaxInt32); err != nil {
				return t.Errorf(r.Line, "ECO_ID: %v", err)
			}
		}
		for _, m := range []struct {
			name string
			v    *float64
		}{{"AREA", &p.Area}, {"PERIMETER", &p.Perimeter}} {
			*m.v = math.NaN()
			if s := r.Get(m.name); s != "" {
				if *m.v, err = parseFloat(s); err != nil || *m.v < 0 {
					return t.Errorf(r.Line, "%s %q: want a number, 0 or more", m.name, s)
				}
			}
		}
		if t.Spatial {
			g, why := polygonal(r.Geom)
			if why != "" {
				return t.Errorf(r.Line, "polygon %d: %s", p.PolyID, why)
			}
			p.Geometry = g
		}
		return fn(p)
	})
}
