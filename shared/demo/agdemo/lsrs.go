package agdemo

import (
	"fmt"
	"strconv"

	"github.com/paulmach/orb"

	"meridian/shared/ingest/shp"
	"meridian/shared/survey/dls"
)

// demoAGRASID are the Dom_LSRS values drawn from for each Alberta township.
var demoAGRASID = map[string][]string{
	"24-1-W5":  {"2H", "3H", "2H", "3HT", "2H(3M)"},
	"25-1-W5":  {"3H", "3T", "2H 7:3 4W", "4T"},
	"50-26-W4": {"2H", "1", "2W", "2H 8:2 4W"},
	"48-7-W5":  {"3H", "4W", "3HW", "5W"},
	"10-15-W4": {"3A", "4A", "3A(2M)", "5N", "4AM"},
}

func (d *demo) lsrs() error {
	fields := []shp.Field{cField("PARCEL_ID", 12), nField("M", 1, 0), nField("RGE", 2, 0), nField("TWP", 3, 0), nField("SEC", 2, 0), cField("QS", 2), cField("Dom_LSRS", 16)}
	n := 0
	err := d.shapefile(AGRASIDLSRS, shp.Polygon, fields, func(add func(orb.Geometry, ...string) error) error {
		for _, twp := range demoTownships[:5] {
			for _, loc := range demoQuarters(twp) {
				if twp == "48-7-W5" && loc.Section >= 31 {
					continue // not in AGRASID
				}
				ratings := demoAGRASID[twp]
				rating := ratings[newDemoRand("lsrs "+loc.String()).Intn(len(ratings))]
				if loc.String() == "NE-36-10-15-W4" {
					rating = "" // not rated
				}
				n++
				err := add(dls.Bound(loc).ToPolygon(), fmt.Sprintf("AB%010d", 9000000+n), strconv.Itoa(loc.Meridian.Number()),
					strconv.Itoa(int(loc.Range)), strconv.Itoa(int(loc.Township)), strconv.Itoa(int(loc.Section)), loc.Aliquot.String(), rating)
				if err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	// SK and MB by SLC polygon; none for 50-20-W3's polygon 990009.
	csv := "POLY_ID,PROVINCE,CROP,RATING\n" +
		"990007,SK,SSSG,3A\n" +
		"990008,SK,SSSG,2A 7:3 4N\n" +
		"990010,MB,SSSG,2W\n" +
		"990011,MB,SSSG,2W 6:4 3D\n" +
		"990012,MB,SSSG,3H\n"
	return d.write(SLCLSRS, []byte(csv))
}
