package energyingest

import (
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
	"time"

	"github.com/paulmach/orb"

	"meridian/shared/ingest"
	"meridian/shared/ingest/shp"
	"meridian/shared/lld"
)

// Pipeline is one segment of the AER "Pipelines" spatial product
// (Pipelines_GCS_NAD83.shp; docs/data-sources.md §3) with its 50
// attributes. The product publishes every attribute as text; numbers are
// parsed here, and empty or null ones are Amount.Empty.
type Pipeline struct {
	ObjectID    int64  // OBJECTID
	Licence     string // LICENCE_NO: "61408"
	IsNEB       bool   // IS_NEB (Y/N)
	LineNo      string // LINE_NO: "2"
	LicenceLine string // LIC_LI_NO: "61408-2"
	SegmentID   string // PLLICSEGID: "347051"
	Company     string // COMP_NAME
	BA          string // BA_CODE, 4 characters
	SpecID      string // PL_SPEC_ID
	LengthKM    Amount // SEG_LENGTH, km
	// Status is SEG_STATUS as published: Operating, Discontinued,
	// Abandoned, Removed or Permitted in the real product (id 61397967180);
	// another word is kept and reported as a notice.
	Status       string
	FromFacility string // FROM_FAC: "Pipeline", "Well", "Battery" ...
	// FromText is FROM_LOC as published (LSD-SEC-TWP-RGE-WM) and From its
	// location: the zero Location when FROM_LOC is empty or not an LSD.
	FromText   string
	From       lld.Location
	ToFacility string // TO_FAC
	ToText     string // TO_LOC
	To         lld.Location
	// H2SReleaseVolume and H2SReleaseLevel are H2S_R_VOLM and H2S_R_LEVL
	// as published.
	H2SReleaseVolume Amount
	H2SReleaseLevel  string
	// H2SContent is H2S_CONT (H2S_CONTNT in older exports), the raw value.
	// AER pipeline licences give H2S in mol/kmol (1 mol/kmol = 0.1 %); the
	// product metadata has not been checked, so no conversion is made
	// (docs/data-sources.md §3, unverified).
	H2SContent        Amount
	TechStandard      string // PIPTECHSTD
	OutsideDiameterMM Amount // OUT_DIAMET, mm
	WallThicknessMM   Amount // WALL_THICK, mm
	PipeType          string // PIPE_TYPE: "Z245.1"
	PipeGrade         string // PIPE_GRADE: "3592"
	Material          string // PIP_MATERL: "Steel"
	MAOPkPa           Amount // PIPE_MAOP, kPa
	Bidirectional     bool   // BIDIRE_IND (Y/N)
	HDD               bool   // HDD_IND (Y/N): horizontal directional drilling
	LinerGrade        string // LINER_GRD
	LinerType         string // LINER_TYPE
	ExternalCoating   string // EXT_COAT
	Environment       string // PIPE_ENVIR: "Creek Crossing"
	ClassLocation     string // CLASS_LOC: "Class 1"
	StressLevel       Amount // STRESSLEVL, % of SMYS
	JointMethod       string // JOINTMETHD
	InternalCoating   string // INT_COAT
	FieldCentre       string // FLD_CTR_NM: "Grande Prairie"
	// Substances are SUBSTANCE1..3: Natural Gas, Sour Natural Gas,
	// Oil-Well Effluent, Crude Oil, Condensate, Salt Water ...; "" when
	// empty. The older exports' single SUBSTANCE is Substances[0].
	Substances [3]string
	// InternalProtection and CrossingType are INT_PROTEC and CROSS_TYPE of
	// the older exports ("" in the current product).
	InternalProtection, CrossingType string
	OrigLicence                      string    // ORIG_LICNO
	OrigSpecID                       string    // ORIGPSPPID
	OrigLineNo                       string    // ORIGLIN_NO
	ApplicationDate                  time.Time // LICAPPDATE
	OriginalIssueDate                time.Time // ORG_ISSUED
	PermitApprovedDate               time.Time // PERMT_APPR
	PermitExpiryDate                 time.Time // PERMT_EXPI
	LastOccupiedYear                 int       // LAST_OCCYR; 0 when empty
	TemporarySurfaceLine             string    // TEMPSURFPL
	GeometrySource                   string    // GEOM_SRCE: "ROW centre line"
	ShapeLength                      Amount    // SHAPE_LEN as published (metres in the GCS product)
	// Geometry is an orb.LineString or orb.MultiLineString in longitude,
	// latitude (NAD83); nil for a segment without geometry.
	Geometry orb.Geometry
}

// The two forms of the AER pipelines product ReadPipelinesGeoJSON and
// ReadPipelinesShapefile read, told apart by their fields.
var (
	PipelineLayout = ingest.Layout{
		Dataset:   "AER Pipelines",
		Publisher: "Alberta Energy Regulator",
		Form:      "Pipelines_GCS_NAD83.shp (EPSG:4269) or GeoJSON, 50 attributes with FROM_LOC and SUBSTANCE1..3",
		Verified:  true,
		Evidence:  "the product's field list (docs/real-layouts.md, id 61397967180) and one real segment (samples/aer-pipelines)",
	}
	PipelineOlderLayout = ingest.Layout{
		Dataset:   "AER Pipelines",
		Publisher: "Alberta Energy Regulator",
		Form:      "older export: FRM_LOC, a single SUBSTANCE, H2S_CONTNT, INT_PROTEC, CROSS_TYPE",
		Verified:  true,
		Evidence: "a Makefile over the real older shapefile names these fields (docs/real-layouts.md, id 25686593994); " +
			"LICENCE_NO is assumed present as in the current product (the reader requires it)",
	}
)

// pipelineAliases are the older exports' names of current attributes.
var pipelineAliases = map[string]string{"FROM_LOC": "FRM_LOC", "SUBSTANCE1": "SUBSTANCE", "H2S_CONT": "H2S_CONTNT"}

// olderPipelineForm reports whether a feature with these attributes is an
// older export: FRM_LOC or a single SUBSTANCE, and no SUBSTANCE1.
func olderPipelineForm(has func(string) bool) bool {
	return !has("SUBSTANCE1") && (has("FRM_LOC") || has("SUBSTANCE"))
}

// pipelineStatuses are the SEG_STATUS values of the product
// (docs/real-layouts.md, id 61397967180); others are notices.
var pipelineStatuses = []string{"Operating", "Abandoned", "Discontinued", "Removed", "Permitted"}

func knownPipelineStatus(s string) bool {
	for _, k := range pipelineStatuses {
		if strings.EqualFold(s, k) {
			return true
		}
	}
	return s == ""
}

// pipelineAttributes are the 50 attribute names of the product, in the
// published order.
var pipelineAttributes = [...]string{
	"OBJECTID", "LICENCE_NO", "IS_NEB", "LINE_NO", "LIC_LI_NO", "PLLICSEGID", "COMP_NAME", "BA_CODE",
	"PL_SPEC_ID", "SEG_LENGTH", "SEG_STATUS", "FROM_FAC", "FROM_LOC", "TO_FAC", "TO_LOC", "H2S_R_VOLM",
	"H2S_R_LEVL", "H2S_CONT", "PIPTECHSTD", "OUT_DIAMET", "WALL_THICK", "PIPE_TYPE", "PIPE_GRADE",
	"PIP_MATERL", "PIPE_MAOP", "BIDIRE_IND", "HDD_IND", "LINER_GRD", "LINER_TYPE", "EXT_COAT",
	"PIPE_ENVIR", "CLASS_LOC", "STRESSLEVL", "JOINTMETHD", "INT_COAT", "FLD_CTR_NM", "SUBSTANCE1",
	"SUBSTANCE2", "SUBSTANCE3", "ORIG_LICNO", "ORIGPSPPID", "ORIGLIN_NO", "LICAPPDATE", "ORG_ISSUED",
	"PERMT_APPR", "PERMT_EXPI", "LAST_OCCYR", "TEMPSURFPL", "GEOM_SRCE", "SHAPE_LEN",
}

// PipelineAttributes returns the 50 attribute names of the AER pipelines
// product in the published order.
func PipelineAttributes() []string { return append([]string(nil), pipelineAttributes[:]...) }

// requiredPipelineAttributes must be present in every feature (their
// values may still be empty unless parsePipeline says otherwise).
var requiredPipelineAttributes = []string{"LICENCE_NO", "LINE_NO", "BA_CODE", "SEG_STATUS"}

var pipelineKinds = []string{"LineString", "MultiLineString"}

// ReadPipelinesGeoJSON streams a GeoJSON FeatureCollection of AER pipeline
// segments to fn (the format of the team's sample; attribute values text or
// numbers, null for empty; geometry LineString or MultiLineString in
// longitude, latitude). Features are decoded one at a time. Errors name the
// line where the bad feature starts.
//
// Both forms are read (PipelineLayout, PipelineOlderLayout; opt.Layout is
// told the first feature's): an older export's FRM_LOC is FromText, its
// SUBSTANCE Substances[0], its H2S_CONTNT H2SContent. Fatal: a missing
// LICENCE_NO, LINE_NO, BA_CODE or SEG_STATUS attribute and the values
// parsePipeline refuses. Notices: a SEG_STATUS outside Operating,
// Abandoned, Discontinued, Removed, Permitted (kept as published).
func ReadPipelinesGeoJSON(r io.Reader, file string, opt ReadOptions, fn func(Pipeline) error) error {
	first := true
	return readFeatures(r, file, pipelineKinds, func(f *feature) error {
		if first {
			first = false
			if olderPipelineForm(f.has) {
				opt.recognised(PipelineOlderLayout)
			} else {
				opt.recognised(PipelineLayout)
			}
		}
		for _, a := range requiredPipelineAttributes {
			if !f.has(a) {
				return ingest.Errorf(file, f.line, "feature has no %s attribute", a)
			}
		}
		p, err := parsePipeline(func(name string) string {
			if alt, ok := pipelineAliases[name]; ok && !f.has(name) {
				return f.get(alt)
			}
			return f.get(name)
		})
		if err != nil {
			return ingest.Errorf(file, f.line, "%v", err)
		}
		pipelineNotice(opt.Notices, file, f.line, p)
		p.Geometry = f.geom
		return fn(p)
	})
}

func pipelineNotice(ns *ingest.Notices, file string, line int, p Pipeline) {
	if !knownPipelineStatus(p.Status) {
		ns.Add(ingest.Notice{File: file, Line: line, Column: "SEG_STATUS", Value: p.Status,
			Reason: "not one of " + strings.Join(pipelineStatuses, ", ") + ": kept as given"})
	}
}

// ReadPipelinesShapefile streams the AER product as published,
// Pipelines_GCS_NAD83.shp with its .dbf (prj is the .prj text, "" when
// absent), to fn. Memory is bounded by the largest record. Shapes must be
// PolyLine (Z and M values are dropped) or Null; coordinates must be
// longitude, latitude: the 10TM variant is refused (it would need
// reprojecting). Text is read as UTF-8 or Windows-1252. Errors carry the
// record number as Line (0 for the file headers). Both forms are read, as
// ReadPipelinesGeoJSON reads them, told apart by the .dbf's fields.
func ReadPipelinesShapefile(shpR, dbfR io.Reader, prj, file string, opt ReadOptions, fn func(Pipeline) error) error {
	if p := strings.TrimSpace(prj); p != "" && !strings.HasPrefix(strings.ToUpper(p), "GEOGCS") {
		return ingest.Errorf(file, 0, "the .prj is not a geographic coordinate system (the 10TM variant?): want Pipelines_GCS_NAD83")
	}
	t, err := ingest.Source{
		Name: file, Format: ingest.Shapefile, R: shpR, DBF: dbfR,
		Names: strings.ToUpper, ShapeTypes: pipelineShapes,
		Geometry: func(g orb.Geometry) (orb.Geometry, string) {
			switch g.(type) {
			case orb.LineString, orb.MultiLineString:
				if err := checkLngLat(g); err != nil {
					return g, "geometry: " + err.Error()
				}
				return g, ""
			}
			return g, fmt.Sprintf("geometry %s: want a line", g.GeoJSONType())
		},
	}.Open()
	if err != nil {
		return err
	}
	has := func(name string) bool { return t.Col(name) >= 0 }
	if olderPipelineForm(has) {
		opt.recognised(PipelineOlderLayout)
	} else {
		opt.recognised(PipelineLayout)
	}
	col := func(name string) int {
		if alt, ok := pipelineAliases[name]; ok {
			return t.Col(name, alt)
		}
		return t.Col(name)
	}
	for _, a := range requiredPipelineAttributes {
		if col(a) < 0 {
			return ingest.Errorf(file, 0, "the .dbf has no %s field", a)
		}
	}
	return t.Each(func(r *ingest.Row) error {
		p, err := parsePipeline(func(name string) string { return strings.TrimSpace(r.At(col(name))) })
		if err != nil {
			return ingest.Errorf(file, r.Line, "%v", err)
		}
		pipelineNotice(opt.Notices, file, r.Line, p)
		p.Geometry = r.Geom
		return fn(p)
	})
}

// pipelineShapes are the shape types of a pipelines shapefile.
var pipelineShapes = []shp.ShapeType{shp.PolyLine, shp.PolyLineZ, shp.PolyLineM, shp.Null}

// parsePipeline reads the attributes of one segment through get (by
// published name, "" when empty or absent).
func parsePipeline(get func(string) string) (Pipeline, error) {
	var firstErr error
	fail := func(name string, err error) {
		if firstErr == nil {
			firstErr = fmt.Errorf("%s: %v", name, err)
		}
	}
	amount := func(name string) Amount {
		a, err := parseAmount(get(name))
		if err != nil {
			fail(name, err)
		}
		return a
	}
	date := func(name string) time.Time {
		d, err := parseDate(get(name))
		if err != nil {
			fail(name, err)
		}
		return d
	}
	flag := func(name string) bool {
		b, err := parseFlag(get(name))
		if err != nil {
			fail(name, err)
		}
		return b
	}
	p := Pipeline{
		Licence:              get("LICENCE_NO"),
		IsNEB:                flag("IS_NEB"),
		LineNo:               get("LINE_NO"),
		LicenceLine:          get("LIC_LI_NO"),
		SegmentID:            get("PLLICSEGID"),
		Company:              get("COMP_NAME"),
		BA:                   get("BA_CODE"),
		SpecID:               get("PL_SPEC_ID"),
		LengthKM:             amount("SEG_LENGTH"),
		Status:               get("SEG_STATUS"),
		FromFacility:         get("FROM_FAC"),
		FromText:             get("FROM_LOC"),
		ToFacility:           get("TO_FAC"),
		ToText:               get("TO_LOC"),
		H2SReleaseVolume:     amount("H2S_R_VOLM"),
		H2SReleaseLevel:      get("H2S_R_LEVL"),
		H2SContent:           amount("H2S_CONT"),
		TechStandard:         get("PIPTECHSTD"),
		OutsideDiameterMM:    amount("OUT_DIAMET"),
		WallThicknessMM:      amount("WALL_THICK"),
		PipeType:             get("PIPE_TYPE"),
		PipeGrade:            get("PIPE_GRADE"),
		Material:             get("PIP_MATERL"),
		MAOPkPa:              amount("PIPE_MAOP"),
		Bidirectional:        flag("BIDIRE_IND"),
		HDD:                  flag("HDD_IND"),
		LinerGrade:           get("LINER_GRD"),
		LinerType:            get("LINER_TYPE"),
		ExternalCoating:      get("EXT_COAT"),
		Environment:          get("PIPE_ENVIR"),
		ClassLocation:        get("CLASS_LOC"),
		StressLevel:          amount("STRESSLEVL"),
		JointMethod:          get("JOINTMETHD"),
		InternalCoating:      get("INT_COAT"),
		FieldCentre:          get("FLD_CTR_NM"),
		Substances:           [3]string{get("SUBSTANCE1"), get("SUBSTANCE2"), get("SUBSTANCE3")},
		InternalProtection:   get("INT_PROTEC"),
		CrossingType:         get("CROSS_TYPE"),
		OrigLicence:          get("ORIG_LICNO"),
		OrigSpecID:           get("ORIGPSPPID"),
		OrigLineNo:           get("ORIGLIN_NO"),
		ApplicationDate:      date("LICAPPDATE"),
		OriginalIssueDate:    date("ORG_ISSUED"),
		PermitApprovedDate:   date("PERMT_APPR"),
		PermitExpiryDate:     date("PERMT_EXPI"),
		TemporarySurfaceLine: get("TEMPSURFPL"),
		GeometrySource:       get("GEOM_SRCE"),
		ShapeLength:          amount("SHAPE_LEN"),
	}
	if s := get("OBJECTID"); s != "" {
		f, ok := parseNumber(s)
		if !ok || f != math.Trunc(f) || f < 0 || f > 1<<53 {
			fail("OBJECTID", fmt.Errorf("%q is not an object id", s))
		}
		p.ObjectID = int64(f)
	}
	if !allUpperAlnum(p.Licence) {
		fail("LICENCE_NO", fmt.Errorf("%q is not a licence number", p.Licence))
	}
	if p.LineNo == "" {
		fail("LINE_NO", errors.New("empty"))
	}
	if p.BA != "" && (len(p.BA) != 4 || !allUpperAlnum(p.BA)) {
		fail("BA_CODE", fmt.Errorf("%q is not a 4-character BA code", p.BA))
	}
	if s := get("LAST_OCCYR"); s != "" {
		y, ok := ingest.ParseUint(s)
		if !ok || y < 1800 || y > 2200 {
			fail("LAST_OCCYR", fmt.Errorf("%q is not a year", s))
		}
		p.LastOccupiedYear = y
	}
	p.From, _ = parseLSDText(p.FromText)
	p.To, _ = parseLSDText(p.ToText)
	if firstErr != nil {
		return Pipeline{}, firstErr
	}
	return p, nil
}

// parseLSDText reads the regulators' fixed LSD spelling LS-SC-TWP-RGEWM
// ("09-10-060-22W5", also with one-digit parts or "W5M"). Truncated forms
// such as Petrinex's "01-062-19W5" are refused rather than misread as a
// section.
func parseLSDText(s string) (lld.Location, bool) {
	s = strings.TrimSuffix(strings.ToUpper(strings.TrimSpace(s)), "M")
	parts := strings.Split(s, "-")
	if len(parts) != 4 {
		return lld.Location{}, false
	}
	w := strings.LastIndexByte(parts[3], 'W')
	if w < 1 {
		return lld.Location{}, false
	}
	lsd, ok1 := ingest.ParseUint(parts[0])
	sec, ok2 := ingest.ParseUint(parts[1])
	twp, ok3 := ingest.ParseUint(parts[2])
	rge, ok4 := ingest.ParseUint(parts[3][:w])
	mer, ok5 := ingest.ParseUint(parts[3][w+1:])
	if !(ok1 && ok2 && ok3 && ok4 && ok5) || len(parts[0]) > 2 || len(parts[1]) > 2 || len(parts[2]) > 3 || w > 2 || len(parts[3])-w-1 != 1 {
		return lld.Location{}, false
	}
	l, err := DLSLocation(lsd, sec, twp, rge, mer)
	return l, err == nil
}
