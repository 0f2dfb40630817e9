package agingest

import (
	"fmt"
	"strings"

	"meridian/shared/ingest"
)

// Category groups the Annual Crop Inventory classes for the report's
// cropping.dominant.category. The grouping is Meridian's (see cropClasses).
type Category uint8

// Categories.
const (
	CategoryUnknown Category = iota // a class not in the table
	Cereal
	Oilseed
	Pulse
	Forage
	OtherCrop
	NonCrop
)

var categoryNames = [...]string{"Unknown", "Cereal", "Oilseed", "Pulse", "Forage", "Other crop", "Non-crop"}

// String returns the category's label: "Cereal", "Oilseed", "Pulse",
// "Forage", "Other crop", "Non-crop".
func (c Category) String() string {
	if int(c) < len(categoryNames) {
		return categoryNames[c]
	}
	return fmt.Sprintf("Category(%d)", uint8(c))
}

// IsCrop reports whether c is a crop category (not non-crop, not unknown).
func (c Category) IsCrop() bool { return c >= Cereal && c <= OtherCrop }

// CropClass is a class of the AAFC Annual Crop Inventory raster.
type CropClass struct {
	Code     int    // pixel value, 10 to 230
	Label    string // AAFC's label, "Canola and Rapeseed"
	Colour   string // AAFC's legend colour, "#d6ff70"
	Category Category
}

// cropClasses is the ACI legend (AAFC, published with the rasters; a test
// checks it against the real legend in the shared samples) with Meridian's
// category for each class:
//
//   - Cereal: cereals and grains, including corn, sorghum, millet, canaryseed
//     and the pseudo-cereals quinoa and buckwheat (grown and marketed as
//     grains on the Prairies).
//   - Oilseed: canola, flax, mustard, camelina, borage, safflower, sunflower
//     and soybeans (an oilseed in Canadian crop statistics, though a legume).
//   - Pulse: peas, lentils, chickpeas, dry beans, faba beans, other pulses.
//   - Forage: pasture and forages, switchgrass and vetch (grown for forage).
//   - Other crop: every other class on farmland: undifferentiated
//     agriculture, fallow and too-wet-to-seed land (phases of a rotation,
//     not leaving farmland), vegetables, fruit, berries, orchards,
//     vineyards, hops, sod, herbs, nursery, hemp, tobacco, ginseng,
//     greenhouses and other crops.
//   - Non-crop: cloud, water, barren, urban, shrubland, wetland, peatland,
//     native grassland and forest.
var cropClasses = []CropClass{
	{10, "Cloud", "#000000", NonCrop},
	{20, "Water", "#3333ff", NonCrop},
	{30, "Exposed Land and Barren", "#996666", NonCrop},
	{34, "Urban and Developed", "#cc6699", NonCrop},
	{35, "Greenhouses", "#e1e1e1", OtherCrop},
	{50, "Shrubland", "#ffff00", NonCrop},
	{80, "Wetland", "#993399", NonCrop},
	{85, "Peatland", "#501b50", NonCrop},
	{110, "Grassland", "#cccc00", NonCrop},
	{120, "Agriculture (undifferentiated)", "#cc6600", OtherCrop},
	{122, "Pasture and Forages", "#ffcc33", Forage},
	{130, "Too Wet to be Seeded", "#7899f6", OtherCrop},
	{131, "Fallow", "#ff9900", OtherCrop},
	{132, "Cereals", "#660000", Cereal},
	{133, "Barley", "#dae31d", Cereal},
	{134, "Other Grains", "#d6cc00", Cereal},
	{135, "Millet", "#d2db25", Cereal},
	{136, "Oats", "#d1d52b", Cereal},
	{137, "Rye", "#cace32", Cereal},
	{138, "Spelt", "#c3c63a", Cereal},
	{139, "Triticale", "#b9bc44", Cereal},
	{140, "Wheat", "#a7b34d", Cereal},
	{141, "Switchgrass", "#b9c64e", Forage},
	{142, "Sorghum", "#999900", Cereal},
	{143, "Quinoa", "#e9e2b1", Cereal},
	{145, "Winter Wheat", "#92a55b", Cereal},
	{146, "Spring Wheat", "#809769", Cereal},
	{147, "Corn", "#ffff99", Cereal},
	{148, "Tobacco", "#98887c", OtherCrop},
	{149, "Ginseng", "#799b93", OtherCrop},
	{150, "Oilseeds", "#5ea263", Oilseed},
	{151, "Borage", "#52ae77", Oilseed},
	{152, "Camelina", "#41bf7a", Oilseed},
	{153, "Canola and Rapeseed", "#d6ff70", Oilseed},
	{154, "Flaxseed", "#8c8cff", Oilseed},
	{155, "Mustard", "#d6cc00", Oilseed},
	{156, "Safflower", "#ff7f00", Oilseed},
	{157, "Sunflower", "#315491", Oilseed},
	{158, "Soybeans", "#cc9933", Oilseed},
	{160, "Pulses", "#896e43", Pulse},
	{161, "Other Pulses", "#996633", Pulse},
	{162, "Peas", "#8f6c3d", Pulse},
	{163, "Chickpeas", "#b6a472", Pulse},
	{167, "Beans", "#82654a", Pulse},
	{168, "Fababeans", "#a39069", Pulse},
	{174, "Lentils", "#b85900", Pulse},
	{175, "Vegetables", "#b74b15", OtherCrop},
	{176, "Tomatoes", "#ff8a8a", OtherCrop},
	{177, "Potatoes", "#ffcccc", OtherCrop},
	{178, "Sugarbeets", "#6f55ca", OtherCrop},
	{179, "Other Vegetables", "#ffccff", OtherCrop},
	{180, "Fruits", "#dc5424", OtherCrop},
	{181, "Berries", "#d05a30", OtherCrop},
	{182, "Blueberry", "#d20000", OtherCrop},
	{183, "Cranberry", "#cc0000", OtherCrop},
	{185, "Other Berry", "#dc3200", OtherCrop},
	{188, "Orchards", "#ff6666", OtherCrop},
	{189, "Other Fruits", "#c5453b", OtherCrop},
	{190, "Vineyards", "#7442bd", OtherCrop},
	{191, "Hops", "#ffcccc", OtherCrop},
	{192, "Sod", "#b5fb05", OtherCrop},
	{193, "Herbs", "#ccff05", OtherCrop},
	{194, "Nursery", "#07f98c", OtherCrop},
	{195, "Buckwheat", "#00ffcc", Cereal},
	{196, "Canaryseed", "#cc33cc", Cereal},
	{197, "Hemp", "#8e7672", OtherCrop},
	{198, "Vetch", "#b1954f", Forage},
	{199, "Other Crops", "#749a66", OtherCrop},
	{200, "Forest (undifferentiated)", "#009900", NonCrop},
	{210, "Coniferous", "#006600", NonCrop},
	{220, "Broadleaf", "#00cc00", NonCrop},
	{230, "Mixedwood", "#cc9900", NonCrop},
}

// cropIndex finds a class by code.
var cropIndex = func() [256]int16 {
	var idx [256]int16
	for i := range idx {
		idx[i] = -1
	}
	for i, c := range cropClasses {
		idx[c.Code] = int16(i)
	}
	return idx
}()

// CropClasses returns the ACI legend in code order.
func CropClasses() []CropClass { return append([]CropClass(nil), cropClasses...) }

// CropClassOf returns the ACI class with pixel value code.
func CropClassOf(code int) (CropClass, bool) {
	if code < 0 || code > 255 || cropIndex[code] < 0 {
		return CropClass{Code: code}, false
	}
	return cropClasses[cropIndex[code]], true
}

// ReadCropLegend streams an ACI class legend (aci_class_legend.csv:
// value,hex_colour,label) to fn, each class with its Category from
// Meridian's table (CategoryUnknown for a value the table lacks). Values
// are 0 to 255 and appear once; colours are #rrggbb.
func ReadCropLegend(src Source, fn func(CropClass) error) error {
	t, err := src.Open()
	if err != nil {
		return err
	}
	if err := t.Need("VALUE", "HEX_COLOUR", "LABEL"); err != nil {
		return err
	}
	var seen [256]bool
	return t.Each(func(r *ingest.Row) error {
		code, err := parseInt(r.Get("VALUE"), 0, 255)
		if err != nil {
			return t.Errorf(r.Line, "value: %v", err)
		}
		if seen[code] {
			return t.Errorf(r.Line, "value %d appears twice", code)
		}
		seen[code] = true
		c := CropClass{Code: code, Label: r.Get("LABEL"), Colour: strings.ToLower(r.Get("HEX_COLOUR"))}
		if c.Label == "" {
			return t.Errorf(r.Line, "value %d has no label", code)
		}
		if !isColour(c.Colour) {
			return t.Errorf(r.Line, "hex_colour %q: want #rrggbb", c.Colour)
		}
		if k, ok := CropClassOf(code); ok {
			c.Category = k.Category
		}
		return fn(c)
	})
}

func isColour(s string) bool {
	if len(s) != 7 || s[0] != '#' {
		return false
	}
	for i := 1; i < 7; i++ {
		if !strings.ContainsRune("0123456789abcdef", rune(s[i])) {
			return false
		}
	}
	return true
}
