package gridingest

import (
	"fmt"
	"io"
	"path"
	"slices"
	"strings"

	"meridian/shared/ingest"
	"meridian/shared/ingest/shp"

	"github.com/paulmach/orb"

	"meridian/shared/lld"
	"meridian/shared/survey"
	"meridian/shared/survey/gridindex"
)

// AltaLIS ATS v4.1 polygons (Shapefiles)
//
// AltaLIS also publishes the ATS as polygons, one Shapefile per unit:
// V4-1_SEC.shp (sections), and LSD, quarter-section and township layers
// (V4-1_LSD.shp, ...); the Alberta base features carry the sections with
// their road allowances as BF_ATS_SEC_RA_POLYGON_V41. Every layer has the
// same attributes (docs/real-layouts.md, "AltaLIS ATS v4.1 polygons"):
//
//	PID         13  digits: meridian, range, township, section, LSD, road allowance
//	FILE_NAME    8  not used
//	TRM          8  not used
//	M            3  meridian: 4, 5 or 6 (W4-W6)
//	RGE          3  range 1-34
//	TWP          3  township 1-126
//	SEC          3  section 1-36; blank or 0 in the township layer
//	QS           2  quarter NE, NW, SW, SE; blank outside the quarter layer
//	LS           3  LSD 1-16; blank or 0 outside the LSD layer
//	DESCRIPTOR  34  "SEC-01 TWP-027 RGE-29 MER-4" (LSD-nn and QS-xx first in
//	                the finer layers)
//	RA              road allowance: blank for a parcel, set for a road
//	                allowance polygon
//
// Field names are matched without regard to case. Numbers may be zero
// padded or not. The unit of a feature is the finest of LS, QS and SEC
// that has a value (township when none has), so one reader serves every
// layer.
//
// Road-allowance polygons (RA not blank) are not blocks of the grid: they
// are counted in Stats.Skipped ("road allowance (RA set)") and left out;
// each distinct RA value is reported once as a Notice, since the RA
// vocabulary is not documented. Features without a shape are skipped and
// counted.
//
// Fatal (BadValue naming file, record, column, value and the accepted
// values): a missing M, RGE or TWP column; M, RGE, TWP, SEC, QS or LS out
// of range or not a number; a DESCRIPTOR in KEY-value form that names
// another block than the separate fields. A polygon outside Alberta (a
// wrong .prj) is an error too. Notices: a DESCRIPTOR that is not in
// KEY-value form (the location is then read from the separate fields
// alone), each distinct RA value.
//
// The .prj says the coordinate system (AltaLIS ships geographic NAD83 and
// 10TM; package proj decides which systems are supported). Province AB;
// AccuracyM as for the coordinate file: 5 m for townships and sections,
// 20 m for quarters and LSDs (AltaLIS subdivides them; the file does not
// say which quarter points were surveyed).
//
// # Format selection
//
// Both forms are FormatATS: BuildGrid reads a .shp file with this reader
// and anything else as the coordinate file. Give one form per index: the
// polygon layers and the coordinate file describe the same blocks.

// ATSPolygonLayout is the ATS v4.1 polygon Shapefiles (V4-1_SEC.shp and
// the LSD, quarter and township layers).
var ATSPolygonLayout = ingest.Layout{
	Dataset:   "AltaLIS ATS v4.1 polygons",
	Publisher: "AltaLIS",
	Form:      "V4-1_*.shp Shapefiles (PID, FILE_NAME, TRM, M, RGE, TWP, SEC, QS, LS, DESCRIPTOR, RA)",
	Verified:  true,
	Evidence:  "docs/real-layouts.md \"AltaLIS ATS v4.1 polygons\": layer names (id 53723583897), attributes (floglass/ATS_LSD_Convert README.md and Data_Formatting.py), RA blank for parcels (id 70266997556)",
}

// ATSPolygonFields returns the polygon layers' attributes in the
// published order (ATSPolygonLayout.Form), as character fields of the
// widths the fixtures and the demo write: the reader matches names, not
// widths or types.
func ATSPolygonFields() []shp.Field {
	return []shp.Field{
		{Name: "PID", Type: shp.Character, Length: 13},
		{Name: "FILE_NAME", Type: shp.Character, Length: 8},
		{Name: "TRM", Type: shp.Character, Length: 8},
		{Name: "M", Type: shp.Character, Length: 3},
		{Name: "RGE", Type: shp.Character, Length: 3},
		{Name: "TWP", Type: shp.Character, Length: 3},
		{Name: "SEC", Type: shp.Character, Length: 3},
		{Name: "QS", Type: shp.Character, Length: 2},
		{Name: "LS", Type: shp.Character, Length: 3},
		{Name: "DESCRIPTOR", Type: shp.Character, Length: 34},
		{Name: "RA", Type: shp.Character, Length: 2},
	}
}

// ATSBaseFeaturesLayout is the base features' sections with road
// allowances, exported from the geodatabase to a Shapefile. Only its name
// is documented; the reader takes it to carry the polygon layers'
// attributes.
var ATSBaseFeaturesLayout = ingest.Layout{
	Dataset:   "AltaLIS ATS v4.1 polygons",
	Publisher: "AltaLIS (Alberta base features)",
	Form:      "BF_ATS_SEC_RA_POLYGON_V41 exported to a Shapefile",
	Verified:  false,
	Evidence:  "only the feature class name is documented (GeoDiscover metadata, docs/real-layouts.md); check that the export has M, RGE, TWP, SEC and RA fields and that road allowances have RA set",
}

// ATSLayout returns the layout BuildGrid reads file as under FormatATS,
// from its name: a .shp is a polygon layer (the base features' form when
// its name starts with BF_ATS), anything else the coordinate file.
func ATSLayout(file string) ingest.Layout {
	base := strings.ToUpper(ingest.MemberName(path.Base(file)))
	switch {
	case !strings.HasSuffix(base, ".SHP"):
		return ATSCoordinateLayout
	case strings.HasPrefix(base, "BF_ATS"):
		return ATSBaseFeaturesLayout
	}
	return ATSPolygonLayout
}

// ATS polygon accuracy, metres (see above).
const (
	atsPolyAccuracyCoarse = 5
	atsPolyAccuracyFine   = 20
)

// atsSkipRA is the Stats.Skipped reason of road-allowance polygons.
const atsSkipRA = "road allowance (RA set)"

// Alberta's extent with a margin, for sanity checks of converted polygons.
var abBound = orb.Bound{Min: orb.Point{-120.1, 48.9}, Max: orb.Point{-109.9, 60.1}}

// ReadATSPolygons reads one layer of the AltaLIS ATS v4.1 polygons (.shp
// and .dbf, with the .prj text giving the coordinate system) and emits a
// record per parcel; see the documentation at the top of atspolygon.go for
// the fields, what is fatal and what is a notice.
func ReadATSPolygons(shpR, dbfR io.Reader, prj, file string, emit Emit, opts ATSOptions) (Stats, error) {
	var st Stats
	out := emitter{emit: emit, stats: &st}
	checked := false
	err := readShapefile(shpR, dbfR, prj, file, func(no int, f shpFeature, g orb.Geometry) error {
		st.Rows++
		if !checked {
			for _, n := range []string{"m", "rge", "twp"} {
				if !f.has(n) {
					return ingest.BadValue(file, 0, "field list", fieldNames(f), []string{"PID, FILE_NAME, TRM, M, RGE, TWP, SEC, QS, LS, DESCRIPTOR, RA (M, RGE and TWP required)"})
				}
			}
			checked = true
		}
		if ra := f.get("ra"); ra != "" {
			st.skip(atsSkipRA)
			opts.Notices.Add(ingest.Notice{File: file, Line: no, Column: "RA", Value: ra, Reason: "road allowance: left out of the grid"})
			return nil
		}
		l, err := atsPolygonLocation(f, file, no, opts.Notices)
		if err != nil {
			return err
		}
		if g == nil {
			st.skip("feature without geometry")
			return nil
		}
		if b := g.Bound(); !abBound.Contains(b.Min) || !abBound.Contains(b.Max) {
			return ingest.Errorf(file, no, "%s lies at %v-%v, not in Alberta: is the .prj right?", l, b.Min, b.Max)
		}
		acc := float64(atsPolyAccuracyCoarse)
		if l.Unit == lld.QuarterSection || l.Unit == lld.LSD {
			acc = atsPolyAccuracyFine
		}
		return out.send(gridindex.Record{Location: l, Province: survey.AB, Geometry: g, AccuracyM: acc})
	})
	if err == nil && st.Rows == 0 {
		err = ingest.Errorf(file, 0, "no features")
	}
	return st, err
}

// fieldNames lists the fields of f's layer, for messages.
func fieldNames(f shpFeature) string {
	names := make([]string, len(f.cols))
	for i, n := range f.cols {
		if !slices.Contains(f.cols[:i], n) {
			names[i] = n
		}
	}
	return strings.Join(names, ", ")
}

// atsPolygonLocation reads the block a polygon feature names from M, RGE,
// TWP, SEC, QS and LS, and checks DESCRIPTOR against it.
func atsPolygonLocation(f shpFeature, file string, no int, ns *ingest.Notices) (lld.Location, error) {
	num := func(col string, lo, hi int, zero bool) (int, error) {
		v := f.get(strings.ToLower(col))
		if v == "" && zero {
			return 0, nil
		}
		n, ok := parseUint(v)
		if ok && n == 0 && zero {
			return 0, nil
		}
		if !ok || n < lo || n > hi {
			acc := fmt.Sprintf("%d-%d", lo, hi)
			if zero {
				acc += " (or blank)"
			}
			return 0, ingest.BadValue(file, no, col, v, []string{acc})
		}
		return n, nil
	}
	mer, err := num("M", 4, 6, false)
	if err != nil {
		return lld.Location{}, err
	}
	rng, err := num("RGE", 1, 34, false)
	if err != nil {
		return lld.Location{}, err
	}
	twp, err := num("TWP", 1, 126, false)
	if err != nil {
		return lld.Location{}, err
	}
	sec, err := num("SEC", 1, 36, true)
	if err != nil {
		return lld.Location{}, err
	}
	lsd, err := num("LS", 1, 16, true)
	if err != nil {
		return lld.Location{}, err
	}
	l := lld.Location{System: lld.DLS, Unit: lld.Township, Meridian: lld.Meridian(mer), Range: uint8(rng), Township: uint8(twp)}
	qs := strings.ToUpper(f.get("qs"))
	switch {
	case lsd != 0 || qs != "":
		if sec == 0 {
			col, v := "LS", f.get("ls")
			if lsd == 0 {
				col, v = "QS", qs
			}
			return lld.Location{}, ingest.Errorf(file, no, "column %s: %q names a part of a section but SEC is blank", col, v)
		}
		fallthrough
	case sec != 0:
		l.Unit, l.Section = lld.Section, uint8(sec)
	}
	switch {
	case lsd != 0:
		l.Unit, l.LSD = lld.LSD, uint8(lsd)
	case qs != "":
		a, ok := atsQuarters[qs]
		if !ok {
			return lld.Location{}, ingest.BadValue(file, no, "QS", qs, []string{"NE", "NW", "SW", "SE", "(blank)"})
		}
		l.Unit, l.Aliquot = lld.QuarterSection, a
	}
	if d := f.get("descriptor"); d != "" {
		dl, ok := atsDescriptor(d)
		switch {
		case !ok:
			ns.Add(ingest.Notice{File: file, Line: no, Column: "DESCRIPTOR", Value: d, Reason: "not in KEY-value form (\"SEC-01 TWP-027 RGE-29 MER-4\"): block read from M, RGE, TWP, SEC, QS, LS"})
		case dl != l:
			return lld.Location{}, ingest.Errorf(file, no, "column DESCRIPTOR: %q names %s, but M, RGE, TWP, SEC, QS, LS name %s", d, dl, l)
		}
	}
	return l, nil
}

var atsQuarters = map[string]lld.Aliquot{"NE": lld.NE, "NW": lld.NW, "SW": lld.SW, "SE": lld.SE}

// atsDescriptor reads a DESCRIPTOR of KEY-value words ("LSD-07 SEC-15
// TWP-024 RGE-01 MER-5", keys LSD, LS, QS, SEC, TWP, RGE, MER in any
// order). ok is false when the text is not of that form or does not name
// a township, section, quarter or LSD.
func atsDescriptor(d string) (l lld.Location, ok bool) {
	parts := map[string]string{}
	for _, w := range strings.Fields(d) {
		k, v, found := strings.Cut(w, "-")
		if !found || v == "" {
			return l, false
		}
		k = strings.ToUpper(k)
		if k == "LS" {
			k = "LSD"
		}
		switch k {
		case "LSD", "QS", "SEC", "TWP", "RGE", "MER":
		default:
			return l, false
		}
		if _, dup := parts[k]; dup {
			return l, false
		}
		parts[k] = strings.ToUpper(v)
	}
	n := func(k string, lo, hi int) (int, bool) {
		v, found := parts[k]
		if !found {
			return 0, true
		}
		x, ok := parseUint(v)
		return x, ok && x >= lo && x <= hi
	}
	mer, ok1 := n("MER", 4, 6)
	rng, ok2 := n("RGE", 1, 34)
	twp, ok3 := n("TWP", 1, 126)
	sec, ok4 := n("SEC", 1, 36)
	lsd, ok5 := n("LSD", 1, 16)
	if !ok1 || !ok2 || !ok3 || !ok4 || !ok5 || mer == 0 || rng == 0 || twp == 0 {
		return l, false
	}
	l = lld.Location{System: lld.DLS, Unit: lld.Township, Meridian: lld.Meridian(mer), Range: uint8(rng), Township: uint8(twp)}
	qs, hasQS := parts["QS"]
	if sec == 0 {
		return l, lsd == 0 && !hasQS
	}
	l.Unit, l.Section = lld.Section, uint8(sec)
	switch {
	case lsd != 0 && hasQS:
		return l, false
	case lsd != 0:
		l.Unit, l.LSD = lld.LSD, uint8(lsd)
	case hasQS:
		a, found := atsQuarters[qs]
		if !found {
			return l, false
		}
		l.Unit, l.Aliquot = lld.QuarterSection, a
	}
	return l, true
}

// readATSShapefile reads the ATS polygon layer name (a .shp) of src with
// its .dbf and .prj beside it.
func readATSShapefile(src GridSource, name string, emit Emit) (Stats, error) {
	shpF, dbfF, prj, err := openShapefile(src, name)
	if err != nil {
		return Stats{}, err
	}
	defer shpF.Close()
	defer dbfF.Close()
	return ReadATSPolygons(shpF, dbfF, prj, path.Base(name), emit, ATSOptions{Notices: src.Notices})
}
