package agingest_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"meridian/shared/ag/agingest"
	"meridian/shared/lld"
)

func TestCropLegendSample(t *testing.T) {
	t.Parallel()
	got := collect(t, agingest.ReadCropLegend, sample(t, "aafc-aci/aci_class_legend.csv"))
	if len(got) != 72 {
		t.Fatalf("legend classes = %d, want 72", len(got))
	}
	byCode := map[int]agingest.CropClass{}
	for _, c := range got {
		byCode[c.Code] = c
	}
	for _, want := range []agingest.CropClass{
		{10, "Cloud", "#000000", agingest.NonCrop},
		{122, "Pasture and Forages", "#ffcc33", agingest.Forage},
		{131, "Fallow", "#ff9900", agingest.OtherCrop},
		{146, "Spring Wheat", "#809769", agingest.Cereal},
		{153, "Canola and Rapeseed", "#d6ff70", agingest.Oilseed},
		{158, "Soybeans", "#cc9933", agingest.Oilseed},
		{174, "Lentils", "#b85900", agingest.Pulse},
		{177, "Potatoes", "#ffcccc", agingest.OtherCrop},
		{230, "Mixedwood", "#cc9900", agingest.NonCrop},
	} {
		if c := byCode[want.Code]; c != want {
			t.Errorf("class %d = %+v, want %+v", want.Code, c, want)
		}
	}
	// The Go table is the real legend, class for class.
	if diff := cmp.Diff(got, agingest.CropClasses()); diff != "" {
		t.Errorf("CropClasses differs from the real legend (-real +table):\n%s", diff)
	}
	for _, c := range got {
		if c.Category == agingest.CategoryUnknown {
			t.Errorf("class %d has no category", c.Code)
		}
	}
}

func TestCropLegendErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, in string
		line     int
		want     string
	}{
		{"header", "code,colour\n", 1, "missing column VALUE"},
		{"duplicate", "value,hex_colour,label\n10,#000000,Cloud\n10,#000000,Cloud\n", 3, "appears twice"},
		{"colour", "value,hex_colour,label\n10,#00000,Cloud\n", 2, "hex_colour"},
		{"range", "value,hex_colour,label\n256,#000000,X\n", 2, "outside 0 to 255"},
		{"label", "value,hex_colour,label\n10,#000000,\n", 2, "no label"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := agingest.ReadCropLegend(csvSource("legend.csv", tc.in), func(agingest.CropClass) error { return nil })
			wantError(t, err, "legend.csv", tc.line, tc.want)
		})
	}
}

const zonalHeader = "legal_location,year,class_code,pixels,pct\n"

func TestCropSummaries(t *testing.T) {
	t.Parallel()
	in := zonalHeader +
		"NW-25-24-1-W5,2023,153,612,84.30\n" +
		"NW-25-24-1-W5,2023,146,114,15.70\n" +
		"nw 25-24-1 w5m,2024,146,700,100\n" +
		"NE-25-24-1-W5,2024,122,700,100.00\n"
	got := collect(t, agingest.ReadCropSummaries, csvSource("crops.csv", in))
	nw, _ := lld.Parse("NW-25-24-1-W5")
	ne, _ := lld.Parse("NE-25-24-1-W5")
	want := []agingest.QuarterYear{
		{Location: nw, Year: 2023, Classes: []agingest.ClassShare{{153, 612, 84.30}, {146, 114, 15.70}}},
		{Location: nw, Year: 2024, Classes: []agingest.ClassShare{{146, 700, 100}}},
		{Location: ne, Year: 2024, Classes: []agingest.ClassShare{{122, 700, 100}}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("ReadCropSummaries (-want +got):\n%s", diff)
	}
}

func TestZonalErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, in string
		landUse  bool
		line     int
		want     string
	}{
		{"header", "legal_location,year\n", false, 1, "missing column CLASS_CODE, PIXELS, PCT"},
		{"not a quarter", zonalHeader + "25-24-1-W5,2023,153,10,100\n", false, 2, "want a DLS quarter section"},
		{"lsd", zonalHeader + "10-25-24-1-W5,2023,153,10,100\n", false, 2, "want a DLS quarter section"},
		{"year", zonalHeader + "NW-25-24-1-W5,2008,153,10,100\n", false, 2, "year"},
		{"nodata", zonalHeader + "NW-25-24-1-W5,2023,255,10,100\n", false, 2, "class_code"},
		{"unknown class", zonalHeader + "NW-25-24-1-W5,2023,144,10,100\n", false, 2, "not in the legend"},
		{"land use class", zonalHeader + "NW-25-24-1-W5,2020,153,10,100\n", true, 2, "not in the legend"},
		{"pixels", zonalHeader + "NW-25-24-1-W5,2023,153,0,100\n", false, 2, "pixels"},
		{"pct", zonalHeader + "NW-25-24-1-W5,2023,153,10,0\n", false, 2, "pct"},
		{"pct nan", zonalHeader + "NW-25-24-1-W5,2023,153,10,NaN\n", false, 2, "pct"},
		{"twice", zonalHeader + "NW-25-24-1-W5,2023,153,10,50\nNW-25-24-1-W5,2023,153,10,50\n", false, 3, "appears twice"},
		{"sum", zonalHeader + "NW-25-24-1-W5,2023,153,10,60\nNW-25-24-1-W5,2023,146,10,30\nNE-25-24-1-W5,2023,146,10,100\n", false, 3, "add up to 90.00"},
		{"pixels disagree", zonalHeader + "NW-25-24-1-W5,2023,153,30,50\nNW-25-24-1-W5,2023,146,10,50\n", false, 3, "disagrees"},
		{"fields", zonalHeader + "NW-25-24-1-W5,2023,153\n", false, 2, "wrong number of fields"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			read := agingest.ReadCropSummaries
			if tc.landUse {
				read = agingest.ReadLandUse
			}
			err := read(csvSource("z.csv", tc.in), func(agingest.QuarterYear) error { return nil })
			wantError(t, err, "z.csv", tc.line, tc.want)
		})
	}
}

func TestSummarize(t *testing.T) {
	t.Parallel()
	q, _ := lld.Parse("NW-25-24-1-W5")
	year := func(y int, codes ...int) agingest.QuarterYear {
		qy := agingest.QuarterYear{Location: q, Year: y}
		for i, c := range codes {
			qy.Classes = append(qy.Classes, agingest.ClassShare{Code: c, Pixels: 600 - 500*i, Pct: float64(90 - 80*i)})
		}
		return qy
	}
	canola, _ := agingest.CropClassOf(153)
	wheat, _ := agingest.CropClassOf(146)
	barley, _ := agingest.CropClassOf(133)
	for _, tc := range []struct {
		name  string
		years []agingest.QuarterYear
		want  agingest.Cropping
	}{
		{"canola-wheat", []agingest.QuarterYear{year(2025, 153, 110), year(2021, 153), year(2022, 146), year(2023, 153), year(2024, 146)}, agingest.Cropping{
			Dominant: canola, Rotation: "Canola and Rapeseed-Spring Wheat",
			Sequence: []agingest.CropClass{canola, wheat, canola, wheat, canola}, Years: []int{2021, 2022, 2023, 2024, 2025},
			DiversityIndex: 0.673,
		}},
		{"monoculture", []agingest.QuarterYear{year(2021, 146), year(2022, 146)}, agingest.Cropping{
			Dominant: wheat, Rotation: "Spring Wheat", Sequence: []agingest.CropClass{wheat, wheat}, Years: []int{2021, 2022},
		}},
		// Two years each: the larger summed share wins, then the lower code.
		{"tie", []agingest.QuarterYear{year(2021, 146), year(2022, 133), year(2023, 146), year(2024, 133)}, agingest.Cropping{
			Dominant: barley, Rotation: "Spring Wheat-Barley", Sequence: []agingest.CropClass{wheat, barley, wheat, barley},
			Years: []int{2021, 2022, 2023, 2024}, DiversityIndex: 0.6931,
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := agingest.Summarize(tc.years)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Summarize (-want +got):\n%s", diff)
			}
		})
	}
	if _, err := agingest.Summarize([]agingest.QuarterYear{year(2021, 146), year(2021, 153)}); err == nil {
		t.Error("Summarize with a year twice: no error")
	}
	other, _ := lld.Parse("NE-25-24-1-W5")
	if _, err := agingest.Summarize([]agingest.QuarterYear{year(2021, 146), {Location: other, Year: 2022}}); err == nil {
		t.Error("Summarize over two quarters: no error")
	}
}

func TestLandUse(t *testing.T) {
	t.Parallel()
	in := zonalHeader +
		"SE-1-10-15-W4,2020,25,10,1.43\n" +
		"SE-1-10-15-W4,2020,52,630,90.00\n" +
		"SE-1-10-15-W4,2020,51,60,8.57\n" +
		"SE-1-10-15-W4,2010,51,700,100\n"
	got := collect(t, agingest.ReadLandUse, csvSource("lu.csv", in))
	if len(got) != 2 {
		t.Fatalf("quarter-years = %d, want 2", len(got))
	}
	lu, err := agingest.DescribeLandUse(got[0])
	if err != nil {
		t.Fatal(err)
	}
	want := agingest.LandUse{
		Year:     2020,
		Dominant: agingest.LandUseClass{Code: 52, Label: "Annual cropland", IPCC: "Cropland"},
		Breakdown: []agingest.LandUseShare{
			{agingest.LandUseClass{Code: 52, Label: "Annual cropland", IPCC: "Cropland"}, 90},
			{agingest.LandUseClass{Code: 51, Label: "Perennial cropland", IPCC: "Cropland"}, 8.57},
			{agingest.LandUseClass{Code: 25, Label: "Roads", IPCC: "Settlement"}, 1.43},
		},
	}
	if diff := cmp.Diff(want, lu); diff != "" {
		t.Errorf("DescribeLandUse (-want +got):\n%s", diff)
	}
	if lu2010, _ := agingest.DescribeLandUse(got[1]); lu2010.Dominant.Label != "Cropland" {
		t.Errorf("51 in 2010 = %q, want Cropland", lu2010.Dominant.Label)
	}
	groups := map[string]int{}
	for _, c := range agingest.LandUseClasses() {
		groups[c.IPCC]++
	}
	if want := map[string]int{"Unclassified": 1, "Settlement": 11, "Water": 1, "Forest": 9, "Cropland": 4, "Grassland": 2, "Wetland": 3, "Otherland": 2}; !cmp.Equal(groups, want) {
		t.Errorf("classes by IPCC group = %v, want %v", groups, want)
	}
}
