package agingest

import (
	"fmt"
	"math"
	"slices"
	"strings"
)

// ReadCropSummaries streams a per-quarter Annual Crop Inventory summary
// (Meridian's cache layout of zonal.go, not a published file; class codes from the ACI legend, years from
// 2009) to fn, one QuarterYear per quarter and year.
func ReadCropSummaries(src Source, fn func(QuarterYear) error) error {
	return readZonal(src, 2009, func(code int) bool {
		_, ok := CropClassOf(code)
		return ok
	}, fn)
}

// Cropping is what the report's cropping section says about a quarter.
type Cropping struct {
	// Dominant is the class that is the quarter's majority in most
	// years; among equally frequent classes, the one with the larger
	// summed share, then the lower code.
	Dominant CropClass
	// Rotation names the yearly majority classes, each once, in the order
	// they first appear: "Canola and Rapeseed-Spring Wheat-Barley".
	Rotation string
	// Sequence is the majority class of each year, oldest first.
	Sequence []CropClass
	// Years are the years covered, oldest first.
	Years []int
	// DiversityIndex is the Shannon index −Σ p·ln p of the yearly
	// majority classes (p = years the class is the majority / years
	// covered), to 4 decimals: 0 for a monoculture, ln 2 = 0.6931 for two
	// crops in equal turns.
	DiversityIndex float64
}

// YearsCovered is the number of years with data.
func (c Cropping) YearsCovered() int { return len(c.Years) }

// Summarize summarises one quarter's years of crop summaries (in any
// order). Years must belong to one quarter and each appear once.
func Summarize(years []QuarterYear) (Cropping, error) {
	if len(years) == 0 {
		return Cropping{}, fmt.Errorf("ag: no years to summarise")
	}
	ys := slices.Clone(years)
	slices.SortFunc(ys, func(a, b QuarterYear) int { return a.Year - b.Year })
	var c Cropping
	type tally struct {
		n   int
		pct float64
	}
	counts := map[int]*tally{}
	var order []int
	for i, y := range ys {
		if y.Location != ys[0].Location {
			return Cropping{}, fmt.Errorf("ag: summarise: %s and %s are different quarters", ys[0].Location, y.Location)
		}
		if i > 0 && y.Year == ys[i-1].Year {
			return Cropping{}, fmt.Errorf("ag: summarise %s: year %d appears twice", y.Location, y.Year)
		}
		m, ok := y.Majority()
		if !ok {
			continue
		}
		cc, _ := CropClassOf(m.Code)
		c.Sequence = append(c.Sequence, cc)
		c.Years = append(c.Years, y.Year)
		t := counts[m.Code]
		if t == nil {
			t = &tally{}
			counts[m.Code] = t
			order = append(order, m.Code)
		}
		t.n++
		t.pct += m.Pct
	}
	if len(c.Years) == 0 {
		return Cropping{}, fmt.Errorf("ag: summarise %s: no year has a class", ys[0].Location)
	}
	best := order[0]
	names := make([]string, 0, len(order))
	h := 0.0
	for _, code := range order {
		t, b := counts[code], counts[best]
		if t.n > b.n || t.n == b.n && (t.pct > b.pct || t.pct == b.pct && code < best) {
			best = code
		}
		cc, _ := CropClassOf(code)
		names = append(names, cc.Label)
		p := float64(t.n) / float64(len(c.Years))
		h -= p * math.Log(p)
	}
	c.Dominant, _ = CropClassOf(best)
	c.Rotation = strings.Join(names, "-")
	c.DiversityIndex = round(h, 4) + 0 // + 0 turns -0 into 0
	return c, nil
}
