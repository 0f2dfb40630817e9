package agingest

import (
	"fmt"
	"math"

	"meridian/shared/ingest"
	"meridian/shared/lld"
)

// The per-quarter summary layout: Meridian's own, not a publisher's. AAFC
// publishes the Annual Crop Inventory and Land Use as 30 m GeoTIFF rasters,
// which ReadCropRaster and ReadLandUseRaster (raster.go) summarise per
// quarter directly; this CSV is kept as an internal cache of such
// summaries (a user downloads the rasters, never this), with this header:
//
//	legal_location,year,class_code,pixels,pct
//	NW-25-24-1-W5,2023,153,612,84.30
//	NW-25-24-1-W5,2023,146,114,15.70
//
//   - legal_location: the quarter section, canonical (as lld.Location.String
//     writes it; any spelling lld.Parse reads is accepted).
//   - year: the raster's year (ACI: the growing season; Land Use: the
//     vintage, 1990, 2000, 2010, 2015, 2020).
//   - class_code: the raster's class value, which must be in the legend
//     (CropClassOf, LandUseClassOf).
//   - pixels: how many pixels of the class, 1 or more.
//   - pct: 100 × pixels / all the quarter's pixels that year, to 2 decimals.
//
// The rows of one quarter and year are consecutive (files are written
// quarter by quarter; one file may hold one year or several). Within them
// a class appears once, and the shares agree with the pixel counts to
// 0.05 and add up to 100 (±0.5). The readers hand over one QuarterYear per
// group; a group split across the file is not detected and arrives twice.

// ClassShare is one class's share of a quarter in one year.
type ClassShare struct {
	Code   int
	Pixels int
	Pct    float64 // 0 to 100
}

// QuarterYear is a quarter section's class shares in one year, from a
// per-quarter summary file.
type QuarterYear struct {
	Location lld.Location // a DLS quarter section
	Year     int
	Classes  []ClassShare // in file order
}

// Majority returns the class with the largest share; among equal shares
// the lowest code.
func (q QuarterYear) Majority() (ClassShare, bool) {
	best := -1
	for i, c := range q.Classes {
		if best < 0 || c.Pixels > q.Classes[best].Pixels || c.Pixels == q.Classes[best].Pixels && c.Code < q.Classes[best].Code {
			best = i
		}
	}
	if best < 0 {
		return ClassShare{}, false
	}
	return q.Classes[best], true
}

// zonalColumns is the header of the per-quarter summary layout.
var zonalColumns = []string{"LEGAL_LOCATION", "YEAR", "CLASS_CODE", "PIXELS", "PCT"}

// readZonal streams a per-quarter summary file, grouped by quarter and
// year; known says whether a class code is in the dataset's legend.
func readZonal(src Source, minYear int, known func(int) bool, fn func(QuarterYear) error) error {
	t, err := src.Open()
	if err != nil {
		return err
	}
	if err := t.Need(zonalColumns...); err != nil {
		return err
	}
	var (
		cur      QuarterYear
		curText  string // legal_location as written in the group's first row
		total    int
		sumPct   float64
		lastLine int
	)
	flush := func() error {
		if len(cur.Classes) == 0 {
			return nil
		}
		if math.Abs(sumPct-100) > 0.5 {
			return t.Errorf(lastLine, "%s %d: shares add up to %.2f %%, want 100", cur.Location, cur.Year, sumPct)
		}
		for _, c := range cur.Classes {
			if want := 100 * float64(c.Pixels) / float64(total); math.Abs(c.Pct-want) > 0.05 {
				return t.Errorf(lastLine, "%s %d class %d: pct %.2f disagrees with %d of %d pixels (%.2f)", cur.Location, cur.Year, c.Code, c.Pct, c.Pixels, total, want)
			}
		}
		err := fn(cur)
		cur, total, sumPct = QuarterYear{}, 0, 0
		return err
	}
	err = t.Each(func(r *ingest.Row) error {
		text := r.Get("LEGAL_LOCATION")
		year, err := parseInt(r.Get("YEAR"), minYear, 2100)
		if err != nil {
			return t.Errorf(r.Line, "year: %v", err)
		}
		var loc lld.Location
		if text == curText && len(cur.Classes) > 0 {
			loc = cur.Location
		} else if loc, err = lld.Parse(text); err != nil || loc.System != lld.DLS || loc.Unit != lld.QuarterSection {
			return t.Errorf(r.Line, "legal_location %q: want a DLS quarter section such as NW-25-24-1-W5", text)
		}
		code, err := parseInt(r.Get("CLASS_CODE"), 1, 254)
		if err != nil {
			return t.Errorf(r.Line, "class_code: %v", err)
		}
		if !known(code) {
			return t.Errorf(r.Line, "class_code %d is not in the legend", code)
		}
		px, err := parseInt(r.Get("PIXELS"), 1, math.MaxInt32)
		if err != nil {
			return t.Errorf(r.Line, "pixels: %v", err)
		}
		pct, err := parseFloat(r.Get("PCT"))
		if err != nil || pct <= 0 || pct > 100 {
			return t.Errorf(r.Line, "pct %q: want a share above 0 and at most 100", r.Get("PCT"))
		}
		if loc != cur.Location || year != cur.Year {
			if err := flush(); err != nil {
				return err
			}
			cur.Location, cur.Year, curText = loc, year, text
		}
		for _, c := range cur.Classes {
			if c.Code == code {
				return t.Errorf(r.Line, "%s %d: class %d appears twice", loc, year, code)
			}
		}
		cur.Classes = append(cur.Classes, ClassShare{Code: code, Pixels: px, Pct: pct})
		if total += px; total > math.MaxInt32 {
			return t.Errorf(r.Line, "%s %d: more than %d pixels", loc, year, math.MaxInt32)
		}
		sumPct += pct
		lastLine = r.Line
		return nil
	})
	if err != nil {
		return err
	}
	return flush()
}

// zonalRow formats one row of the per-quarter summary layout.
func zonalRow(loc string, year int, c ClassShare) string {
	return fmt.Sprintf("%s,%d,%d,%d,%.2f\n", loc, year, c.Code, c.Pixels, c.Pct)
}
