package agingest_test

import (
	"fmt"
	"strings"

	"meridian/shared/ag/agingest"
)

func ExampleParseRating() {
	r, err := agingest.ParseRating("2A 7:3 4W")
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
	src := agingest.Source{Name: "cmp.csv", Format: agingest.CSV, R: strings.NewReader(cmp)}
	err := agingest.ReadPolygonComponents(src, func(p agingest.PolygonSoils) error {
		d, _ := p.Dominant()
		slope, _ := agingest.Slope(d.Slope)
		fmt.Println(p.PolyID, d.SoilID, d.Percent, slope.Range)
		return nil
	})
	if err != nil {
		fmt.Println(err)
	}
	name, _ := agingest.SubgroupName("CH", "O.BLC")
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
	var years []agingest.QuarterYear
	err := agingest.ReadCropSummaries(agingest.Source{Name: "aci.csv", Format: agingest.CSV, R: strings.NewReader(in)}, func(q agingest.QuarterYear) error {
		years = append(years, q)
		return nil
	})
	if err != nil {
		panic(err)
	}
	c, _ := agingest.Summarize(years)
	fmt.Printf("%s (%s); %s; %.4f over %d years\n", c.Dominant.Label, c.Dominant.Category, c.Rotation, c.DiversityIndex, c.YearsCovered())
	bad := "legal_location,year,class_code,pixels,pct\nNW-25-24-1-W5,2023,144,10,100\n"
	fmt.Println(agingest.ReadCropSummaries(agingest.Source{Name: "aci.csv", Format: agingest.CSV, R: strings.NewReader(bad)}, func(agingest.QuarterYear) error { return nil }))
	// Output:
	// Spring Wheat (Cereal); Canola and Rapeseed-Spring Wheat; 0.6931 over 2 years
	// aci.csv:2: class_code 144 is not in the legend
}
