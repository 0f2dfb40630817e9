package grid

import (
	"errors"

	"github.com/paulmach/orb"

	"meridian/shared/apierr"
	"meridian/shared/lld"
	"meridian/shared/survey"
	"meridian/shared/survey/fps"
)

// Federal Permit System grids (package survey/fps) through the conversion
// endpoints.
//
// Units. FPS has a Grid, a Section and a Unit; DLS also has a Section and
// NTS a Unit, so a request's unit is read together with its survey_system:
// unit=Section&survey_system=FPS is the FPS section, unit=Section alone the
// DLS one. unit=Grid alone means FPS.
//
// Default reverse. Without survey_system (and without an FPS unit) a point
// is answered in FPS only where no other grid of this server covers it and
// it lies north of 60° N outside Nunavik and Labrador (the coarse box
// 60°-62.6° N, 80°-63.5° W is left out): the Northwest Territories,
// Nunavut, the Arctic islands and waters, and Yukon, where the federal grid
// is assumed (unverified). Greenland is left out by a coarse median line
// between its west coast and the Canadian Arctic islands (greenlandLine,
// drawn from coastline positions to within about 30 km, not the 1973
// treaty's 127 points). Offshore areas south of 60° (Atlantic, Hudson Bay
// south of 60°, Pacific) need survey_system=FPS: without a coastline the
// server cannot tell them from provincial land.

// fpsUnits: reverse lookups from the largest block down.
var fpsUnits = []lld.Unit{lld.Grid, lld.FPSSection, lld.FPSUnit}

// withFPSUnit reads q's unit as an FPS unit when q's system is FPS
// ("Section" and "Unit" name the DLS section and the NTS unit otherwise).
func withFPSUnit(q ReverseQuery) ReverseQuery {
	if q.System == lld.FPS {
		if u, ok := lld.FPSUnitOf(q.Unit); ok {
			q.Unit = u
		}
	}
	return q
}

// resolveFPS returns the block of an FPS location.
func resolveFPS(l lld.Location, input string) (survey.Block, error) {
	b, err := fps.Resolve(l)
	switch {
	case err == nil:
		return b, nil
	case errors.Is(err, fps.ErrOutside):
		return survey.Block{}, apierr.NotFoundf("No legal land location matches '%s': FPS grid %s lies outside the NAD27 to NAD83 grid (40°-84° N, 44°-142° W) that places FPS blocks on NAD83", input, gridOf(l))
	}
	return survey.Block{}, apierr.NotFoundf("No legal land location matches '%s': %s is not an FPS block", input, l)
}

// gridOf is the grid area of an FPS location.
func gridOf(l lld.Location) lld.Location {
	l.Unit, l.FPS.Section, l.FPS.Unit = lld.Grid, 0, 0
	return l
}

func reverseFPS(q ReverseQuery) ([]survey.Block, error) {
	units := answerUnits(q, fpsUnits)
	blocks := make([]survey.Block, 0, len(units))
	for _, u := range units {
		l, err := fps.Locate(q.Point, u)
		var b survey.Block
		if err == nil {
			b, err = fps.Resolve(l)
		}
		if err != nil {
			return nil, apierr.NotFoundf("No FPS block contains %s: FPS grids are answered between 40° and 84° N and 44° and 142° W, where the NAD27 to NAD83 grid places them", fmtPoint(q.Point))
		}
		blocks = append(blocks, b)
	}
	return blocks, nil
}

// fpsByDefault reports whether a point no other grid covers is answered in
// FPS without survey_system (see the top of this file).
func fpsByDefault(pt orb.Point) bool {
	lng, lat := pt[0], pt[1]
	if lat < 60 || lat >= 84 || lng < -142 || lng > -44 {
		return false
	}
	nunavikLabrador := lat < 62.6 && lng > -80 && lng < -63.5
	return !nunavikLabrador && lng < greenlandLng(lat)
}

// greenlandLine is a coarse Canada-Greenland median line, south to north:
// latitude, longitude. East of it lies Greenland.
var greenlandLine = [...][2]float64{
	{60, -57.5}, {67, -57.5}, {70, -61}, {73, -64.5}, {75.5, -69}, {77, -73},
	{78.5, -73.5}, {80, -68.5}, {81, -64.5}, {82, -61}, {84, -60},
}

// greenlandLng is the longitude of greenlandLine at latitude lat (60-84).
func greenlandLng(lat float64) float64 {
	for i := 1; i < len(greenlandLine); i++ {
		a, b := greenlandLine[i-1], greenlandLine[i]
		if lat <= b[0] {
			return a[1] + (b[1]-a[1])*(lat-a[0])/(b[0]-a[0])
		}
	}
	return greenlandLine[len(greenlandLine)-1][1]
}
