package energydemo

import (
	"strings"
)

// The province-size data (WriteScale) needs far more operators than the
// demo's fifteen. They are invented the same way: a BA code Z9 + two
// characters that the AER register does not use, a name that is no real
// company's, marked "(demo)". The code alone gives the name, so nothing
// is registered or held in memory.
//
//	Z9 + [0-9C-WYZ] + [0-9A-Z]    operators (33 × 36 = 1,188), scaleOperator
//	Z9X + [0-9A-Z]                defunct licensees of orphan wells (36)
//
// Codes Z9A., Z9B. and Z9X1, Z9X2 are the demo's (demoOperators): they keep
// the demo's names.

const (
	scaleCodeChars  = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	scaleFirstChars = "0123456789CDEFGHIJKLMNOPQRSTUVWYZ" // not A, B (demo) nor X (defunct)
)

// scaleOperatorCount is the number of invented live operators.
var scaleOperatorCount = len(scaleFirstChars) * len(scaleCodeChars)

var scaleFirstWords = [...]string{"Alder", "Bluestem", "Bulrush", "Chickweed", "Clover", "Coyote", "Dogwood", "Dunlin",
	"Fescue", "Fireweed", "Goldenrod", "Gopher", "Hawkweed", "Heron", "Killdeer", "Lupine", "Magpie", "Mallow", "Milkvetch",
	"Muskrat", "Nettle", "Oxeye", "Pintail", "Plover", "Poplar", "Quackgrass", "Ryegrass", "Sandpiper", "Shrike", "Snowberry",
	"Sorrel", "Teal", "Thistle", "Vetch", "Wheatgrass", "Yarrow"}

var scaleSecondWords = [...]string{"Bend", "Bluff", "Butte", "Coulee", "Creek", "Crossing", "Draw", "Flats", "Gap", "Hills",
	"Hollow", "Knoll", "Lake", "Ledge", "Marsh", "Meadow", "Mesa", "Narrows", "Park", "Pass", "Point", "Prairie", "Ravine",
	"Ridge", "Run", "Slough", "Springs", "Terrace", "Trail", "Vale", "Valley", "Wash", "Woods"}

var scaleSuffixes = [...]string{"Energy Ltd.", "Resources Inc.", "Petroleum Corp.", "Oil And Gas Ltd.", "Exploration Inc."}

// scaleOperatorCode returns the BA code of invented operator i (0 ≤ i <
// scaleOperatorCount).
func scaleOperatorCode(i int) string {
	return "Z9" + string(scaleFirstChars[i/len(scaleCodeChars)]) + string(scaleCodeChars[i%len(scaleCodeChars)])
}

// scaleDefunctCode returns the BA code of invented defunct licensee i (0 ≤
// i < 36).
func scaleDefunctCode(i int) string { return "Z9X" + string(scaleCodeChars[i%len(scaleCodeChars)]) }

// scaleOperator returns the invented operator of a Z9 code of the scheme
// above, false for any other code.
func scaleOperator(ba string) (demoOperator, bool) {
	if len(ba) != 4 || ba[:2] != "Z9" {
		return demoOperator{}, false
	}
	c1, c2 := strings.IndexByte(scaleFirstChars, ba[2]), strings.IndexByte(scaleCodeChars, ba[3])
	if c2 < 0 {
		return demoOperator{}, false
	}
	if ba[2] == 'X' {
		first := scaleFirstWords[c2]
		return demoOperator{BA: ba, Name: first + " Legacy Petroleum Ltd. (demo)", Short: strings.ToUpper(first) + " LEGACY"}, true
	}
	if c1 < 0 {
		return demoOperator{}, false
	}
	first, second := scaleFirstWords[c2], scaleSecondWords[c1]
	name := first + " " + second + " " + scaleSuffixes[(c1+c2)%len(scaleSuffixes)] + " (demo)"
	return demoOperator{BA: ba, Name: name, Short: strings.ToUpper(first + " " + second)}, true
}
