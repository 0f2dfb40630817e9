package fps_test

import (
	"fmt"

	"github.com/paulmach/orb"

	"meridian/shared/lld"
	"meridian/shared/survey/fps"
)

func ExampleBound27() {
	l, _ := lld.Parse("F 48 60-20 N 100-30 W")
	b, _ := fps.Bound27(l)
	fmt.Printf("%v S %.6f N %.6f W %.6f E %.6f (NAD27)\n", l, b.Min.Lat(), b.Max.Lat(), b.Min.Lon(), b.Max.Lon())
	// Output:
	// F 48 60-20 N 100-30 W S 60.287500 N 60.291667 W -100.648438 E -100.640625 (NAD27)
}

func ExampleResolve() {
	l, _ := lld.Parse("F 48 60-20 N 100-30 W")
	b, _ := fps.Resolve(l)
	fmt.Printf("%v centroid %.6f,%.6f (NAD83) %s accuracy %.0f m\n", b.Location, b.Centroid.Lon(), b.Centroid.Lat(), b.Province.Name(), b.AccuracyM)
	// Output:
	// F 48 60-20 N 100-30 W centroid -100.644961,60.289802 (NAD83) Canada Lands accuracy 8 m
}

func ExampleLocate() {
	// Hibernia B-16 2Z (UWI 302B164650048451), 46°45′02.08″N 48°46′54.45″W.
	l, err := fps.Locate(orb.Point{-48.781792, 46.750578}, lld.FPSUnit)
	fmt.Println(l, err)
	// Output:
	// B 16 46-50 N 48-45 W <nil>
}
