package dls_test

import (
	"fmt"

	"github.com/paulmach/orb"

	"meridian/shared/lld"
	"meridian/shared/survey/dls"
)

func ExampleResolve() {
	l := lld.Location{System: lld.DLS, Unit: lld.QuarterSection, Meridian: lld.W5, Range: 3, Township: 42, Section: 36, Aliquot: lld.NW}
	b, ok := dls.Resolve(l)
	fmt.Println(ok, b.Location, b.Province.Name(), b.AccuracyM, b.Source)
	fmt.Printf("%.5f %.5f\n", b.Centroid.Lat(), b.Centroid.Lon())
	// Output:
	// true NW-36-42-3-W5 Alberta 20 model
	// 52.66532 -114.30720
}

func ExampleLocate() {
	// An AER bottom hole of UWI 02/04-12-048-08W5/2.
	l, ok := dls.Locate(orb.Point{-115.04675, 53.12168}, lld.LSD)
	fmt.Println(l, ok)
	// A point in British Columbia outside the Peace River Block.
	_, ok = dls.Locate(orb.Point{-122.75, 53.92}, lld.LSD)
	fmt.Println(ok)
	// Output:
	// 4-12-48-8-W5 true
	// false
}
