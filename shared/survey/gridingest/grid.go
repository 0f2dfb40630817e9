package gridingest

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"meridian/shared/ingest"

	"github.com/paulmach/orb"

	"meridian/shared/survey"
	"meridian/shared/survey/gridindex"
)

// Emit receives each grid record a reader produces, in file order. An error
// from Emit stops the reader, which returns it unchanged.
type Emit func(gridindex.Record) error

// Stats counts what a grid reader did with its input.
type Stats struct {
	// Rows is the number of data rows, records or features read (header
	// lines excluded).
	Rows int
	// Records is the number of records passed to Emit.
	Records int
	// Skipped counts rows the reader read correctly but cannot represent,
	// by reason ("township lot", "lot label lld cannot parse"). Malformed
	// rows are never skipped: they reject the file.
	Skipped map[string]int
	// Layout is the published layout the file was read as (zero when the
	// reader refused the file before it knew).
	Layout ingest.Layout
}

// SkippedTotal is the number of rows skipped for any reason.
func (s Stats) SkippedTotal() int {
	n := 0
	for _, v := range s.Skipped {
		n += v
	}
	return n
}

// String summarises s on one line, reasons in alphabetical order.
func (s Stats) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d rows, %d records", s.Rows, s.Records)
	if len(s.Skipped) > 0 {
		reasons := make([]string, 0, len(s.Skipped))
		for r := range s.Skipped {
			reasons = append(reasons, r)
		}
		sort.Strings(reasons)
		b.WriteString(", skipped")
		for i, r := range reasons {
			if i > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, " %d %s", s.Skipped[r], r)
		}
	}
	return b.String()
}

func (s *Stats) skip(reason string) {
	if s.Skipped == nil {
		s.Skipped = make(map[string]int)
	}
	s.Skipped[reason]++
}

// emitter wraps an Emit and counts the records it passes on.
type emitter struct {
	emit  Emit
	stats *Stats
}

func (e emitter) send(r gridindex.Record) error {
	e.stats.Records++
	return e.emit(r)
}

// reverseRing reverses r in place.
func reverseRing(r orb.Ring) {
	for i, j := 0, len(r)-1; i < j; i, j = i+1, j-1 {
		r[i], r[j] = r[j], r[i]
	}
}

// orientPolygon closes every ring of p and orients its outer ring
// counter-clockwise and its holes clockwise, in place.
func orientPolygon(p orb.Polygon) orb.Polygon {
	for i := range p {
		p[i] = survey.CloseRing(p[i])
		a := survey.TwiceSignedArea(p[i])
		if (i == 0 && a < 0) || (i > 0 && a > 0) {
			reverseRing(p[i])
		}
	}
	return p
}

// orientGeometry applies orientPolygon to a Polygon or MultiPolygon.
func orientGeometry(g orb.Geometry) orb.Geometry {
	switch g := g.(type) {
	case orb.Polygon:
		return orientPolygon(g)
	case orb.MultiPolygon:
		for i := range g {
			g[i] = orientPolygon(g[i])
		}
		return g
	}
	return g
}

// checkPolygonal reports why g is not a usable block polygon in lng/lat: it
// must be a Polygon or MultiPolygon of closed rings of at least 4 points
// with finite coordinates, each ring with a non-zero area. It returns "" when
// g is fine.
func checkPolygonal(g orb.Geometry) string {
	var polys []orb.Polygon
	switch g := g.(type) {
	case orb.Polygon:
		polys = []orb.Polygon{g}
	case orb.MultiPolygon:
		polys = g
	case nil:
		return "no geometry"
	default:
		return fmt.Sprintf("geometry is a %s, want a Polygon or MultiPolygon", g.GeoJSONType())
	}
	if len(polys) == 0 {
		return "empty geometry"
	}
	for _, p := range polys {
		if len(p) == 0 {
			return "polygon without rings"
		}
		for _, r := range p {
			if len(r) < 4 {
				return fmt.Sprintf("ring of %d points, want at least 4", len(r))
			}
			for _, pt := range r {
				if !finite(pt[0]) || !finite(pt[1]) || pt[0] < -180 || pt[0] > 180 || pt[1] < -90 || pt[1] > 90 {
					return fmt.Sprintf("coordinate %v is not a longitude/latitude", pt)
				}
			}
			if survey.TwiceSignedArea(r) == 0 {
				return "ring with zero area"
			}
		}
	}
	return ""
}

func finite(f float64) bool { return !math.IsNaN(f) && !math.IsInf(f, 0) }
