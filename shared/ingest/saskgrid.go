package ingest

import (
	"fmt"
	"io"
	"strings"

	"github.com/paulmach/orb"

	"meridian/shared/lld"
	"meridian/shared/survey"
	"meridian/shared/survey/gridindex"
)

// skAccuracy is the AccuracyM of SaskGrid polygons (our choice,
// unverified): ISC describes SaskGrid as "a reference grid approximately
// depicting the township system ... as reflected in the original township
// surveys and theoretic projections", not surveyed corners.
const skAccuracy = 50

// Saskatchewan's extent with a margin, for sanity checks of converted
// polygons.
var skBound = orb.Bound{Min: orb.Point{-110.2, 48.9}, Max: orb.Point{-101.2, 60.1}}

// SaskGrid attribute names are not public. A feature's block is read from
// the first of these legal-description fields that has a value, parsed by
// lld.Parse (any spelling it accepts, "NE-1-17-19-W2", "17-19-W2M") or, in
// AltaLIS's DESCRIPTOR style, as KEY-value words ("LSD-01 SEC-01 TWP-017
// RGE-19 MER-2", keys LSD, QS, SEC, TWP, RGE, MER in any order):
var skLegalFields = []string{"legal", "legaldesc", "legal desc", "lld", "descriptor", "label"}

// Failing those, from separate fields (the first present of each group):
var (
	skMerFields = []string{"mer", "meridian"}      // 2, W2 or W2M
	skRgeFields = []string{"rge", "range"}         // 19
	skTwpFields = []string{"twp", "township"}      // 17
	skSecFields = []string{"sec", "section"}       // 1-36; empty or 0: none
	skQtrFields = []string{"qs", "qtr", "quarter"} // NE, NW, SW, SE; empty: none
	skLSDFields = []string{"lsd"}                  // 1-16; empty or 0: none
)

// ReadSaskGrid reads one layer of ISC's SaskGrid (township, section,
// quarter or LSD polygons) from its .shp and .dbf, with the .prj text
// giving the coordinate system (typically NAD83 / UTM zone 13N), and emits
// a record per feature: Province SK, the polygon in lng/lat, AccuracyM 50.
// The layer's unit is whatever each feature's description names (see
// skLegalFields and the field groups above); a feature whose block cannot
// be read, or that is not a DLS township, section, quarter or LSD west of
// the 1st, 2nd or 3rd meridian, rejects the file with its record number.
// Features without a shape (Null) are skipped and counted.
func ReadSaskGrid(shpR, dbfR io.Reader, prj, file string, emit Emit) (Stats, error) {
	var st Stats
	out := emitter{emit: emit, stats: &st}
	err := readShapefile(shpR, dbfR, prj, file, func(no int, f shpFeature, g orb.Geometry) error {
		st.Rows++
		l, err := skLocation(f)
		if err != nil {
			return Errorf(file, no, "%v", err)
		}
		if g == nil {
			st.skip("feature without geometry")
			return nil
		}
		if b := g.Bound(); !skBound.Contains(b.Min) || !skBound.Contains(b.Max) {
			return Errorf(file, no, "%s lies at %v-%v, not in Saskatchewan: is the .prj right?", l, b.Min, b.Max)
		}
		return out.send(gridindex.Record{Location: l, Province: survey.SK, Geometry: g, AccuracyM: skAccuracy})
	})
	return st, err
}

// skDescriptor reads an AltaLIS-style DESCRIPTOR ("LSD-01 SEC-01 TWP-017
// RGE-19 MER-2"): every word must be KEY-value with a known key.
func skDescriptor(v string) (map[string]string, bool) {
	words := strings.Fields(v)
	if len(words) == 0 {
		return nil, false
	}
	parts := make(map[string]string, len(words))
	for _, w := range words {
		k, val, ok := strings.Cut(w, "-")
		if !ok || val == "" {
			return nil, false
		}
		k = strings.ToUpper(k)
		switch k {
		case "LSD", "QS", "SEC", "TWP", "RGE", "MER":
			parts[k] = val
		default:
			return nil, false
		}
	}
	return parts, true
}

// skLocation reads the block a SaskGrid feature names.
func skLocation(f onFeature) (lld.Location, error) {
	var desc string
	for _, n := range skLegalFields {
		if v := f.get(n); v != "" {
			if parts, ok := skDescriptor(v); ok {
				desc = skJoin(parts["LSD"], parts["QS"], parts["SEC"], parts["TWP"], parts["RGE"], parts["MER"])
			} else {
				desc = v
			}
			break
		}
	}
	if desc == "" {
		mer, rge, twp := f.get(skMerFields...), f.get(skRgeFields...), f.get(skTwpFields...)
		if mer == "" || rge == "" || twp == "" {
			return lld.Location{}, fmt.Errorf("no legal description (LEGAL, LEGALDESC, LLD, DESCRIPTOR, LABEL) and no MER, RGE, TWP fields")
		}
		desc = skJoin(f.get(skLSDFields...), f.get(skQtrFields...), f.get(skSecFields...), twp, rge, mer)
	}
	l, err := lld.Parse(desc)
	if err != nil {
		return lld.Location{}, fmt.Errorf("legal description %q: %v", desc, err)
	}
	if l.System != lld.DLS || (l.Unit != lld.Township && l.Unit != lld.Section && l.Unit != lld.QuarterSection && l.Unit != lld.LSD) {
		return lld.Location{}, fmt.Errorf("%q is a %s %s, want a DLS township, section, quarter section or LSD", desc, l.System, l.Unit)
	}
	if l.Meridian != lld.W1 && l.Meridian != lld.W2 && l.Meridian != lld.W3 {
		return lld.Location{}, fmt.Errorf("%s: meridian %s is not in Saskatchewan (W1, W2, W3)", l, l.Meridian)
	}
	return l, nil
}

// skJoin writes a description from its parts: the smallest present of
// LSD, quarter and section, then township, range and meridian.
func skJoin(lsd, qs, sec, twp, rge, mer string) string {
	none := func(s string) bool { return s == "" || strings.Trim(s, "0") == "" }
	if allDigits(mer) {
		mer = "W" + mer
	}
	tail := twp + "-" + rge + "-" + mer
	switch {
	case !none(lsd) && !none(sec):
		return lsd + "-" + sec + "-" + tail
	case !none(qs) && !none(sec):
		return qs + "-" + sec + "-" + tail
	case !none(sec):
		return sec + "-" + tail
	}
	return tail
}
