package nts_test

import (
	"fmt"

	"github.com/paulmach/orb"

	"meridian/shared/lld"
	"meridian/shared/survey/nts"
)

func ExampleBound() {
	l := lld.Location{System: lld.NTS, Unit: lld.QuarterUnit, Series: 93, Area: 'P', Sheet: 8, Block: 'F', UnitNo: 2, Quarter: 'A'}
	b := nts.Bound(l)
	fmt.Printf("%v S %.6f N %.6f W %.6f E %.6f\n", l, b.Min.Lat(), b.Max.Lat(), b.Min.Lon(), b.Max.Lon())
	// Output:
	// A-2-F/93-P-8 S 55.333333 N 55.337500 W -120.268750 E -120.262500
}

func ExampleLocate() {
	// BC Energy Regulator surface of WA 00001 "ROYAL CITY NO. 1".
	l, ok := nts.Locate(orb.Point{-123.11478, 49.14809}, lld.QuarterUnit)
	fmt.Println(l, ok)
	// Output:
	// D-80-H/92-G-3 true
}
