package geojsonfc_test

import (
	"fmt"
	"io"
	"strings"

	"meridian/shared/ingest/geojsonfc"
)

func ExampleReader() {
	in := `{"type": "FeatureCollection", "features": [
{"type": "Feature", "properties": {"LOT": "10", "AREA": 64.7}, "geometry": {"type": "Point", "coordinates": [-79.93, 44.17]}},
{"type": "Feature", "properties": {"LOT": "11"}, "geometry": {"type": "LineString", "coordinates": [[-79.9, 44.1]]}}
]}`
	rd := geojsonfc.NewReader(strings.NewReader(in), geojsonfc.Options{Types: []string{"Point"}})
	for {
		f, err := rd.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			fmt.Println(err)
			break
		}
		fmt.Println(f.Number, f.Line, f.Properties, f.Geometry)
	}
	// Output:
	// 1 2 [{LOT string 10} {AREA number 64.7}] [-79.93 44.17]
	// geojsonfc: line 3: feature: geometry: type "LineString": want Point
}
