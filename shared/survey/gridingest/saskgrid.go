package gridingest

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"meridian/shared/ingest"

	"github.com/paulmach/orb"

	"meridian/shared/lld"
	"meridian/shared/survey"
	"meridian/shared/survey/gridindex"
)

// skAccuracy is the AccuracyM of SaskGrid polygons (our choice,
// unverified). ISC describes SaskGrid as "a reference grid approximately
// depicting the township system ... as reflected in the original township
// surveys and theoretic projections", not surveyed corners, and FEATURECD
// THEORETIC marks blocks placed by projection. Until the code of a
// surveyed block is known every block gets the same, cautious bound.
const skAccuracy = 200

// Saskatchewan's extent with a margin, for sanity checks of converted
// polygons.
var skBound = orb.Bound{Min: orb.Point{-110.2, 48.9}, Max: orb.Point{-101.2, 60.1}}

// The layouts ReadSaskGrid recognises, one per layer, told apart by the
// layer's fields. Only the LSD layer's field names have been seen (in a
// service built on SaskGrid, not in ISC's own download); the other layers
// are our reading of the same naming.
var (
	SaskGridLSDLayout = ingest.Layout{
		Dataset: "ISC SaskGrid", Publisher: "Information Services Corporation of Saskatchewan (ISC)",
		Form:     "LSD layer, Shapefile: text fields LSD, PSECT, PTWP, PRGE, PMER, FEATURECD",
		Verified: true,
		Evidence: "field names and FEATURECD THEORETIC from a web map over TSASK's GEIS MapServer layer 0 \"SaskGrid 2020\" (evidence id 70266997556, docs/real-layouts.md): a service over SaskGrid, not ISC's zip; check that the download's .dbf uses the same names",
	}
	SaskGridQuarterLayout = ingest.Layout{
		Dataset: "ISC SaskGrid", Publisher: "Information Services Corporation of Saskatchewan (ISC)",
		Form:     "quarter layer, Shapefile: a quarter field (PQSECT, PQS, QSECT, QS or QTR: NE, NW, SW, SE) with PSECT, PTWP, PRGE, PMER",
		Evidence: "no quarter layer seen: the quarter field's name is our guess; check the download's .dbf field names and quarter values",
	}
	SaskGridSectionLayout = ingest.Layout{
		Dataset: "ISC SaskGrid", Publisher: "Information Services Corporation of Saskatchewan (ISC)",
		Form:     "section layer, Shapefile: PSECT, PTWP, PRGE, PMER (no LSD, no quarter field)",
		Evidence: "no section layer seen: names taken from the LSD layer (id 70266997556); check the download's .dbf field names",
	}
	SaskGridTownshipLayout = ingest.Layout{
		Dataset: "ISC SaskGrid", Publisher: "Information Services Corporation of Saskatchewan (ISC)",
		Form:     "township layer, Shapefile: PTWP, PRGE, PMER (no PSECT)",
		Evidence: "no township layer seen: names taken from the LSD layer (id 70266997556); check the download's .dbf field names",
	}
)

// SaskGridLayouts lists the layouts ReadSaskGrid reads.
var SaskGridLayouts = []ingest.Layout{SaskGridLSDLayout, SaskGridQuarterLayout, SaskGridSectionLayout, SaskGridTownshipLayout}

// skQuarterFields are the quarter field names we accept (a guess).
var skQuarterFields = []string{"pqsect", "pqs", "qsect", "qs", "qtr"}

// skFeatureCodes are the FEATURECD values we know: THEORETIC, a block
// placed by theoretic projection rather than from the original township
// survey (the only value the evidence shows).
var skFeatureCodes = []string{"THEORETIC"}

// SaskGridOptions are ReadSaskGrid's options; the zero value is usable.
type SaskGridOptions struct {
	// Notices receives FEATURECD values other than THEORETIC; nil
	// discards them.
	Notices *ingest.Notices
	// Layout, when set, is called with the layout the layer's fields
	// match, once, before its first record is emitted.
	Layout func(ingest.Layout)
}

// ReadSaskGrid reads one layer of ISC's SaskGrid (township, section,
// quarter or LSD polygons) from its .shp and .dbf, with the .prj text
// giving the coordinate system (typically NAD83 / UTM zone 13N), and emits
// a record per feature: Province SK, the polygon in lng/lat.
//
// The layer is told by its fields (see SaskGridLayouts): LSD, PSECT, PTWP,
// PRGE, PMER for LSDs; a quarter field for quarters; PSECT without LSD for
// sections; PTWP, PRGE, PMER alone for townships. SaskGrid stores these
// numbers as text with inconsistent zero padding: "06", "6", " 6" and
// "006" all read as 6. PMER is the meridian's number (1, 2 or 3: W1, W2,
// W3).
//
// Fatal (the dataset is rejected, with file, record, field, value and the
// accepted values): a number part that is empty, not a number or out of
// range; a quarter value other than NE, NW, SW, SE; a layer without the
// fields of any layout; a polygon outside Saskatchewan.
//
// Notices (counted, not fatal): FEATURECD values other than THEORETIC
// (the only one known), an empty one included. FEATURECD says how a block
// was placed, not where it is, so the block is kept; AccuracyM is 200 m
// whatever the code (see skAccuracy). A layer without FEATURECD is read
// the same way.
//
// Features without a shape (Null) are skipped and counted.
func ReadSaskGrid(shpR, dbfR io.Reader, prj, file string, emit Emit, opt SaskGridOptions) (Stats, error) {
	var st Stats
	out := emitter{emit: emit, stats: &st}
	var layer *skLayer
	err := readShapefile(shpR, dbfR, prj, file, func(no int, f shpFeature, g orb.Geometry) error {
		st.Rows++
		if layer == nil {
			l, err := skDetect(f, file)
			if err != nil {
				return err
			}
			layer = l
			if opt.Layout != nil {
				opt.Layout(l.layout)
			}
		}
		loc, err := layer.location(f, file, no)
		if err != nil {
			return err
		}
		if g == nil {
			st.skip("feature without geometry")
			return nil
		}
		if b := g.Bound(); !skBound.Contains(b.Min) || !skBound.Contains(b.Max) {
			return ingest.Errorf(file, no, "%s lies at %v-%v, not in Saskatchewan: is the .prj right?", loc, b.Min, b.Max)
		}
		if layer.hasCode {
			if code := f.get("featurecd"); !slices.Contains(skFeatureCodes, code) {
				opt.Notices.Add(ingest.Notice{File: file, Line: no, Column: "FEATURECD", Value: code,
					Reason: fmt.Sprintf("block kept, accuracy %d m as for THEORETIC (the only code known)", skAccuracy)})
			}
		}
		return out.send(gridindex.Record{Location: loc, Province: survey.SK, Geometry: g, AccuracyM: skAccuracy})
	})
	return st, err
}

// skLayer is what the fields of a SaskGrid layer say it holds.
type skLayer struct {
	layout  ingest.Layout
	unit    lld.Unit
	quarter string // the quarter field's name, for the quarter layer
	hasCode bool   // the layer has FEATURECD
}

// skDetect decides a layer's layout from its fields.
func skDetect(f shpFeature, file string) (*skLayer, error) {
	l := &skLayer{hasCode: f.has("featurecd")}
	for _, n := range skQuarterFields {
		if f.has(n) {
			l.quarter = n
			break
		}
	}
	need := []string{"ptwp", "prge", "pmer"}
	switch {
	case f.has("lsd"):
		l.layout, l.unit = SaskGridLSDLayout, lld.LSD
		need = append(need, "psect")
	case l.quarter != "":
		l.layout, l.unit = SaskGridQuarterLayout, lld.QuarterSection
		need = append(need, "psect")
	case f.has("psect"):
		l.layout, l.unit = SaskGridSectionLayout, lld.Section
	case f.has("ptwp"):
		l.layout, l.unit = SaskGridTownshipLayout, lld.Township
	default:
		return nil, ingest.Errorf(file, 0, "fields %s: none of LSD, PSECT, PTWP, PRGE, PMER, so not a SaskGrid layer", skFieldNames(f))
	}
	for _, n := range need {
		if !f.has(n) {
			return nil, ingest.Errorf(file, 0, "a SaskGrid %s layer needs the field %s; fields are %s", l.unit, strings.ToUpper(n), skFieldNames(f))
		}
	}
	return l, nil
}

func skFieldNames(f shpFeature) string {
	names := make([]string, 0, len(f.cols))
	for _, n := range uniqueCols(f.cols) {
		names = append(names, strings.ToUpper(strings.ReplaceAll(n, " ", "_")))
	}
	slices.Sort(names)
	return strings.Join(names, ", ")
}

// location reads the block a feature names.
func (l *skLayer) location(f shpFeature, file string, no int) (lld.Location, error) {
	part := func(field string, lo, hi int) (int, error) {
		raw := skRaw(f, strings.ToLower(field))
		n, ok := skNumber(raw)
		if !ok || n < lo || n > hi {
			return 0, ingest.BadValue(file, no, field, raw, []string{fmt.Sprintf("%d to %d as text, zero-padded or not (\"06\", \"6\", \" 6\")", lo, hi)})
		}
		return n, nil
	}
	mer, err := part("PMER", 1, 3)
	if err != nil {
		return lld.Location{}, err
	}
	rge, err := part("PRGE", 1, 34)
	if err != nil {
		return lld.Location{}, err
	}
	twp, err := part("PTWP", 1, 126)
	if err != nil {
		return lld.Location{}, err
	}
	desc := fmt.Sprintf("%d-%d-W%d", twp, rge, mer)
	if l.unit != lld.Township {
		sec, err := part("PSECT", 1, 36)
		if err != nil {
			return lld.Location{}, err
		}
		switch l.unit {
		case lld.Section:
			desc = fmt.Sprintf("%d-%s", sec, desc)
		case lld.LSD:
			lsd, err := part("LSD", 1, 16)
			if err != nil {
				return lld.Location{}, err
			}
			desc = fmt.Sprintf("%d-%d-%s", lsd, sec, desc)
		case lld.QuarterSection:
			raw := skRaw(f, l.quarter)
			q := strings.ToUpper(strings.TrimSpace(raw))
			if q != "NE" && q != "NW" && q != "SW" && q != "SE" {
				return lld.Location{}, ingest.BadValue(file, no, strings.ToUpper(l.quarter), raw, []string{"NE", "NW", "SW", "SE"})
			}
			desc = fmt.Sprintf("%s-%d-%s", q, sec, desc)
		}
	}
	loc, err := lld.Parse(desc)
	if err != nil || loc.Unit != l.unit {
		return lld.Location{}, ingest.Errorf(file, no, "SaskGrid parts give %q, not a %s: %v", desc, l.unit, err)
	}
	return loc, nil
}

// skNumber reads a SaskGrid number part: digits with optional zero padding
// and surrounding spaces ("06", "6", " 6", "006").
func skNumber(s string) (int, bool) {
	s = strings.TrimSpace(s)
	if s == "" || len(s) > 4 || !ingest.AllDigits(s) {
		return 0, false
	}
	n, err := strconv.Atoi(s)
	return n, err == nil
}

// skRaw is a field's value as stored, untrimmed, for messages.
func skRaw(f shpFeature, name string) string { return f.row.Get(name) }
