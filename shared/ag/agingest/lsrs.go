package agingest

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/paulmach/orb"

	"meridian/shared/ingest"
	"meridian/shared/lld"
)

// LSRSQuarter is an Alberta quarter section's dominant LSRS rating, from
// AGRASID 4.1's DominantAGRASID_LSRSforQuarterSections.
type LSRSQuarter struct {
	ParcelID string       // PARCEL_ID as written
	Location lld.Location // the quarter section, from M, RGE, TWP, SEC and QS
	Rating   Rating       // Dom_LSRS; the zero Rating when the quarter is not rated
	Geometry orb.Geometry // the quarter's polygon when read from the shapefile
}

// The layouts of the LSRS readers.
var (
	// AGRASIDLSRSLayout is AGRASID 4.1's dominant LSRS by quarter section.
	AGRASIDLSRSLayout = ingest.Layout{
		Dataset:   "AGRASID 4.1 DominantAGRASID_LSRSforQuarterSections",
		Publisher: "Alberta Agriculture and Irrigation",
		Form:      "PARCEL_ID, M, RGE, TWP, SEC, QS, Dom_LSRS (a rating string or a class number: 3, 3.0, 3.00000000000)",
		Verified:  true,
		Evidence:  "evidence id 59397448838: a script reading the real file by these names, Dom_LSRS read as a number (docs/real-layouts.md, Agriculture)",
	}
	// SLCLSRSLayout is Meridian's table of LSRS ratings by SLC polygon.
	SLCLSRSLayout = ingest.Layout{
		Dataset:   "LSRS ratings by SLC v3.2 polygon (SK, MB)",
		Publisher: "AAFC",
		Form:      "Meridian's table POLY_ID, PROVINCE, CROP, RATING (CSV or DBF)",
		Verified:  false,
		Evidence:  "no published file found (docs/real-layouts.md: no real layout for SK/MB LSRS from SLC): check AAFC's download for its column names and rating strings, and convert it to POLY_ID, PROVINCE, CROP, RATING",
	}
)

// ReadAGRASIDLSRS streams AGRASID 4.1's
// DominantAGRASID_LSRSforQuarterSections (shapefile, its .dbf, or a CSV
// export; AGRASIDLSRSLayout) to fn. Columns: PARCEL_ID, M (meridian, 4 to
// 6 or W4 to W6), RGE, TWP, SEC, QS (NE, NW, SE, SW) and Dom_LSRS: a
// rating ParseRating reads ("2A 7:3 4W"), or the class alone as a number,
// as the real file may hold it ("3", "3.0", "3.00000000000"); empty or 0
// when not rated.
//
// Fatal: a quarter that is not one, a Dom_LSRS number that is not a whole
// class 0 to 7 (ingest.BadValue), a rating string ParseRating refuses.
// There are no notices.
func ReadAGRASIDLSRS(src Source, fn func(LSRSQuarter) error) error {
	t, err := src.Open()
	if err != nil {
		return err
	}
	if err := t.Need("PARCEL_ID", "M", "RGE", "TWP", "SEC", "QS", "DOM_LSRS"); err != nil {
		return err
	}
	return t.Each(func(r *ingest.Row) error {
		t.Recognise(AGRASIDLSRSLayout)
		q := LSRSQuarter{ParcelID: r.Get("PARCEL_ID")}
		loc, why := quarterFromParts(r.Get("M"), r.Get("RGE"), r.Get("TWP"), r.Get("SEC"), r.Get("QS"), 4, 6)
		if why != "" {
			return t.Errorf(r.Line, "%s", why)
		}
		q.Location = loc
		dom := r.Get("DOM_LSRS")
		if isNumber(dom) {
			n, err := parseInt(dom, 0, 7)
			if err != nil {
				return t.BadValue(r.Line, "Dom_LSRS", dom, []string{"a class 0 to 7 (3, 3.0, 3.00000000000)", "a rating such as 2A 7:3 4W"})
			}
			dom = strconv.Itoa(n)
		}
		if q.Rating, err = ParseRating(dom); err != nil {
			return t.Errorf(r.Line, "Dom_LSRS: %v", strings.TrimPrefix(err.Error(), "ag: "))
		}
		if t.Spatial {
			g, why := polygonal(r.Geom)
			if why != "" {
				return t.Errorf(r.Line, "%s: %s", loc, why)
			}
			q.Geometry = g
		}
		return fn(q)
	})
}

// quarterFromParts builds a DLS quarter section from its parts, with the
// meridian between minM and maxM.
func quarterFromParts(m, rge, twp, sec, qs string, minM, maxM int) (lld.Location, string) {
	mn, err := parseInt(strings.TrimPrefix(strings.ToUpper(m), "W"), minM, maxM)
	if err != nil {
		return lld.Location{}, fmt.Sprintf("M (meridian): %v", err)
	}
	parts := []struct {
		name   string
		v      string
		lo, hi int
	}{{"RGE", rge, 1, 34}, {"TWP", twp, 1, 126}, {"SEC", sec, 1, 36}}
	n := make([]int, 3)
	for i, p := range parts {
		if n[i], err = parseInt(p.v, p.lo, p.hi); err != nil {
			return lld.Location{}, fmt.Sprintf("%s: %v", p.name, err)
		}
	}
	q := strings.ToUpper(qs)
	switch q {
	case "NE", "NW", "SE", "SW":
	default:
		return lld.Location{}, fmt.Sprintf("QS %q: want NE, NW, SE or SW", qs)
	}
	s := fmt.Sprintf("%s-%d-%d-%d-W%d", q, n[2], n[1], n[0], mn)
	loc, err := lld.Parse(s)
	if err != nil {
		return lld.Location{}, fmt.Sprintf("%s is not a quarter section: %v", s, err)
	}
	return loc, ""
}

// LSRSPolygon is the LSRS rating of an SLC v3.2 polygon, the source for
// Saskatchewan and Manitoba.
type LSRSPolygon struct {
	PolyID   int
	Province string // SK or MB
	Crop     string // the crop rated: SSSG (spring-seeded small grains) unless the file says otherwise
	Rating   Rating
}

// ReadSLCLSRS streams LSRS ratings by SLC polygon (Saskatchewan and
// Manitoba) to fn. AAFC publishes these ratings per SLC v3.2 polygon ⚠;
// no published file has been seen, so the layout is Meridian's
// (SLCLSRSLayout, guessed), CSV or DBF:
//
//	POLY_ID,PROVINCE,CROP,RATING
//	647012,SK,SSSG,2A 7:3 4W
//
// POLY_ID joins the SLC polygons; PROVINCE is SK or MB; CROP is optional
// (SSSG when absent or empty); RATING is a rating ParseRating reads. A
// polygon appears once per crop (checked for consecutive rows only).
// Fatal: a bad POLY_ID, a province other than SK or MB, a crop that is not
// a code, a rating ParseRating refuses, a repeated polygon; no notices.
func ReadSLCLSRS(src Source, fn func(LSRSPolygon) error) error {
	t, err := src.Open()
	if err != nil {
		return err
	}
	if err := t.Need("POLY_ID", "PROVINCE", "RATING"); err != nil {
		return err
	}
	var prev LSRSPolygon
	return t.Each(func(r *ingest.Row) error {
		t.Recognise(SLCLSRSLayout)
		var p LSRSPolygon
		var err error
		if p.PolyID, err = parseInt(r.Get("POLY_ID"), 1, math.MaxInt32); err != nil {
			return t.Errorf(r.Line, "POLY_ID: %v", err)
		}
		p.Province = strings.ToUpper(r.Get("PROVINCE"))
		if p.Province != "SK" && p.Province != "MB" {
			return t.Errorf(r.Line, "PROVINCE %q: want SK or MB", r.Get("PROVINCE"))
		}
		p.Crop = strings.ToUpper(r.Get("CROP"))
		if p.Crop == "" {
			p.Crop = "SSSG"
		}
		if !isCode(p.Crop, 12) {
			return t.Errorf(r.Line, "CROP %q: want a crop code such as SSSG", p.Crop)
		}
		if p.Rating, err = ParseRating(r.Get("RATING")); err != nil {
			return t.Errorf(r.Line, "RATING: %v", strings.TrimPrefix(err.Error(), "ag: "))
		}
		if p.PolyID == prev.PolyID && p.Crop == prev.Crop {
			return t.Errorf(r.Line, "polygon %d has a second %s rating", p.PolyID, p.Crop)
		}
		prev = p
		return fn(p)
	})
}
