package ag_test

import (
	"fmt"
	"strings"

	"meridian/shared/ingest/ag"
)

func ExampleParseRating() {
	r, err := ag.ParseRating("2A 7:3 4W")
	if err != nil {
		panic(err)
	}
	score, _ := r.Score()
	limiter, _ := r.Limiter()
	fmt.Println(r.Class(), limiter, score)
	// Output: 2 A - Moisture deficit 75
}

func ExampleReadPolygonComponents() {
	cmp := `POLY_ID,CMP,PERCENT,SLOPE,STONE,LOCSF,PROVINCE,SOIL_CODE,MODIFIER,PROFILE,SOIL_ID,CMP_ID
243004,1,40,B,S,U,AB,BUF,~~~~~,N,ABBUF~~~~~N,24300401
243004,2,60,A,N,U,AB,HHY,~~~~~,N,ABHHY~~~~~N,24300402
`
	src := ag.Source{Name: "cmp.csv", Format: ag.CSV, R: strings.NewReader(cmp)}
	err := ag.ReadPolygonComponents(src, func(p ag.PolygonSoils) error {
		d, _ := p.Dominant()
		slope, _ := ag.Slope(d.Slope)
		fmt.Println(p.PolyID, d.SoilID, d.Percent, slope.Range)
		return nil
	})
	if err != nil {
		fmt.Println(err)
	}
	name, _ := ag.SubgroupName("CH", "O.BLC")
	fmt.Println(name)
	// Output:
	// 243004 ABHHY~~~~~N 60 0-3%
	// Orthic Black Chernozem
}

func ExampleReadCropSummaries() {
	in := `legal_location,year,class_code,pixels,pct
NW-25-24-1-W5,2023,153,612,84.30
NW-25-24-1-W5,2023,146,114,15.70
NW-25-24-1-W5,2024,146,700,100.00
`
	var years []ag.QuarterYear
	err := ag.ReadCropSummaries(ag.Source{Name: "aci.csv", Format: ag.CSV, R: strings.NewReader(in)}, func(q ag.QuarterYear) error {
		years = append(years, q)
		return nil
	})
	if err != nil {
		panic(err)
	}
	c, _ := ag.Summarize(years)
	fmt.Printf("%s (%s); %s; %.4f over %d years\n", c.Dominant.Label, c.Dominant.Category, c.Rotation, c.DiversityIndex, c.YearsCovered())
	bad := "legal_location,year,class_code,pixels,pct\nNW-25-24-1-W5,2023,144,10,100\n"
	fmt.Println(ag.ReadCropSummaries(ag.Source{Name: "aci.csv", Format: ag.CSV, R: strings.NewReader(bad)}, func(ag.QuarterYear) error { return nil }))
	// Output:
	// Spring Wheat (Cereal); Canola and Rapeseed-Spring Wheat; 0.6931 over 2 years
	// aci.csv:2: class_code 144 is not in the legend
}
