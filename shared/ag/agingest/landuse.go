package agingest

import (
	"fmt"
	"slices"
)

// LandUseClass is a class of the AAFC Land Use rasters (1990, 2000, 2010,
// 2015, 2020) with its IPCC land category.
type LandUseClass struct {
	Code  int
	Label string
	IPCC  string // Unclassified, Settlement, Water, Forest, Cropland, Grassland, Wetland, Otherland
}

// landUseClasses are the classes of docs/data-sources.md §11 (from two
// independent parsers of the product). 51 is "Cropland" up to 2010 and
// "Perennial cropland" from 2015, when 52 Annual cropland was split off
// (see LandUseClassOf). The labels of 47, 48 and 81-89 are composed from
// the §11 descriptions ⚠.
var landUseClasses = []LandUseClass{
	{11, "Unclassified", "Unclassified"},
	{21, "Settlement", "Settlement"},
	{22, "High reflectance settlement", "Settlement"},
	{24, "Settlement forest", "Settlement"},
	{25, "Roads", "Settlement"},
	{28, "Vegetated settlement", "Settlement"},
	{29, "Very high reflectance settlement", "Settlement"},
	{31, "Water", "Water"},
	{41, "Forest", "Forest"},
	{42, "Forest wetland", "Forest"},
	{43, "Forest regenerating after harvest < 20 years", "Forest"},
	{44, "Forest wetland regenerating after harvest < 20 years", "Forest"},
	{45, "Trees", "Forest"},
	{46, "Treed wetland", "Forest"},
	{47, "Forest regenerating after harvest 20-29 years", "Forest"},
	{48, "Forest wetland regenerating after harvest 20-29 years", "Forest"},
	{49, "Forest regenerating after fire < 20 years", "Forest"},
	{51, "Cropland", "Cropland"},
	{52, "Annual cropland", "Cropland"},
	{55, "Land converted to cropland", "Cropland"},
	{56, "Land converted to annual cropland", "Cropland"},
	{61, "Grassland managed", "Grassland"},
	{62, "Grassland unmanaged", "Grassland"},
	{71, "Wetland", "Wetland"},
	{73, "Wetland shrub", "Wetland"},
	{74, "Wetland herb", "Wetland"},
	{81, "Newly-detected settlement < 10 years", "Settlement"},
	{82, "Newly-detected high reflectance settlement < 10 years", "Settlement"},
	{84, "Newly-detected settlement forest < 10 years", "Settlement"},
	{88, "Newly-detected vegetated settlement < 10 years", "Settlement"},
	{89, "Newly-detected very high reflectance settlement < 10 years", "Settlement"},
	{91, "Other land", "Otherland"},
	{92, "Snow and ice", "Otherland"},
}

// LandUseClasses returns the Land Use classes in code order.
func LandUseClasses() []LandUseClass { return slices.Clone(landUseClasses) }

// LandUseClassOf returns the Land Use class code of vintage year (0 for
// the labels up to 2010).
func LandUseClassOf(code, year int) (LandUseClass, bool) {
	i, ok := slices.BinarySearchFunc(landUseClasses, code, func(c LandUseClass, code int) int { return c.Code - code })
	if !ok {
		return LandUseClass{Code: code}, false
	}
	c := landUseClasses[i]
	if code == 51 && year >= 2015 {
		c.Label = "Perennial cropland"
	}
	return c, true
}

// ReadLandUse streams a per-quarter AAFC Land Use summary (Meridian's
// cache layout of zonal.go, not a published file; class codes of LandUseClassOf, years from 1990) to fn, one
// QuarterYear per quarter and vintage.
func ReadLandUse(src Source, fn func(QuarterYear) error) error {
	return readZonal(src, 1990, func(code int) bool {
		_, ok := LandUseClassOf(code, 0)
		return ok
	}, fn)
}

// LandUseShare is a class's share of a quarter.
type LandUseShare struct {
	LandUseClass
	Pct float64
}

// LandUse is what the report's land_use section says about a quarter in
// one vintage: the dominant class and every class's share, largest first
// (equal shares by code).
type LandUse struct {
	Year      int
	Dominant  LandUseClass
	Breakdown []LandUseShare
}

// DescribeLandUse labels one quarter-vintage of a land use summary.
func DescribeLandUse(q QuarterYear) (LandUse, error) {
	if len(q.Classes) == 0 {
		return LandUse{}, fmt.Errorf("ag: land use of %s %d has no class", q.Location, q.Year)
	}
	lu := LandUse{Year: q.Year}
	for _, c := range q.Classes {
		lc, ok := LandUseClassOf(c.Code, q.Year)
		if !ok {
			return LandUse{}, fmt.Errorf("ag: land use of %s %d: class %d is not in the legend", q.Location, q.Year, c.Code)
		}
		lu.Breakdown = append(lu.Breakdown, LandUseShare{LandUseClass: lc, Pct: c.Pct})
	}
	slices.SortStableFunc(lu.Breakdown, func(a, b LandUseShare) int {
		switch {
		case a.Pct > b.Pct:
			return -1
		case a.Pct < b.Pct:
			return 1
		}
		return a.Code - b.Code
	})
	lu.Dominant = lu.Breakdown[0].LandUseClass
	return lu, nil
}
