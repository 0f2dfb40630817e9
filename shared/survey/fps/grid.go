package fps

import (
	"math"

	"github.com/paulmach/orb"

	"meridian/shared/lld"
)

// box is a NAD27 block in minutes: latitude north, longitude west, with
// south < north and east < west.
type box struct {
	south, north float64
	east, west   float64
}

// bound returns b as an orb.Bound in degrees, longitude negative west.
func (b box) bound() orb.Bound {
	return orb.Bound{
		Min: orb.Point{-b.west / 60, b.south / 60},
		Max: orb.Point{-b.east / 60, b.north / 60},
	}
}

// boxOf returns the NAD27 box of l and false when l is not a valid FPS
// location.
func boxOf(l lld.Location) (box, bool) {
	r := l.FPS
	if l.System != lld.FPS || !lld.ValidFPS(r) {
		return box{}, false
	}
	s, e, w := float64(r.South()), float64(r.Lng), float64(r.WidthMin())
	b := box{south: s, north: s + 10, east: e, west: e + w}
	switch l.Unit {
	case lld.Grid:
		if r.Section != 0 || r.Unit != 0 {
			return box{}, false
		}
		return b, true
	case lld.FPSSection, lld.FPSUnit:
		if r.Section == 0 || (l.Unit == lld.FPSSection) != (r.Unit == 0) {
			return box{}, false
		}
	default:
		return box{}, false
	}
	cols := float64(r.Columns())
	n := int(r.Section) - 1
	c, row := float64(n/10), float64(n%10)
	sw := w / cols // section width, minutes
	b = box{south: s + row, north: s + row + 1, east: e + c*sw, west: e + (c+1)*sw}
	if l.Unit == lld.FPSSection {
		return b, true
	}
	idx := int(r.Unit - 'A')
	uy, k := idx/4, idx%4
	ux := k
	if uy%2 == 1 {
		ux = 3 - k
	}
	uw := sw / 4
	south, east := b.south+float64(uy)*0.25, b.east+float64(ux)*uw
	return box{south: south, north: south + 0.25, east: east, west: east + uw}, true
}

// Bound27 returns the NAD27 box of the FPS location l in degrees
// (longitude negative west) and false when l is not a valid FPS location.
func Bound27(l lld.Location) (orb.Bound, bool) {
	b, ok := boxOf(l)
	if !ok {
		return orb.Bound{}, false
	}
	return b.bound(), true
}

// Locate27 returns the FPS block of unit u (Grid, FPSSection or FPSUnit)
// containing the NAD27 point p (longitude negative west), with half-open
// intervals: a point on a line belongs to the block north or west of it.
// ok is false outside 40°-85° N or the western hemisphere, or for another
// unit.
func Locate27(p orb.Point, u lld.Unit) (lld.Location, bool) {
	lat, west := p[1]*60, -p[0]*60 // minutes
	if !(lat >= 40*60 && lat < 85*60 && west >= 0 && west < 180*60) {
		return lld.Location{}, false
	}
	south := math.Floor(lat/10) * 10
	r := lld.FPSRef{Lat: uint16(south) + 10}
	w := float64(r.WidthMin())
	east := math.Floor(west/w) * w
	if east+w > 180*60 {
		return lld.Location{}, false
	}
	r.Lng = uint16(east)
	l := lld.Location{System: lld.FPS, Unit: u}
	switch u {
	case lld.Grid:
		l.FPS = r
		return l, true
	case lld.FPSSection, lld.FPSUnit:
	default:
		return lld.Location{}, false
	}
	cols := r.Columns()
	fx := (west - east) * float64(cols) / w // columns west of the east edge
	fy := lat - south                       // rows north of the south edge
	c, row := clampInt(fx, cols-1), clampInt(fy, 9)
	r.Section = uint8(c*10 + row + 1)
	if u == lld.FPSUnit {
		ux, uy := clampInt((fx-float64(c))*4, 3), clampInt((fy-float64(row))*4, 3)
		k := ux
		if uy%2 == 1 {
			k = 3 - ux
		}
		r.Unit = byte('A' + 4*uy + k)
	}
	l.FPS = r
	return l, true
}

// clampInt is ⌊v⌋ kept within [0, hi] (floating rounding at an edge).
func clampInt(v float64, hi int) int {
	i := int(math.Floor(v))
	return max(0, min(i, hi))
}
