package agri_test

import (
	"math"
	"testing"

	"meridian/shared/agri"
)

var legend = map[int]string{146: "Canola", 140: "Wheat", 133: "Barley", 174: "Peas"}

func name(code int) string { return legend[code] }

func TestSummariseCrops(t *testing.T) {
	t.Parallel()
	c, ok := agri.SummariseCrops([]agri.YearCrop{{2021, 146}, {2022, 140}, {2023, 146}, {2024, 140}, {2025, 146}}, name)
	// Shares 3/5 and 2/5: H = -(0.6 ln 0.6 + 0.4 ln 0.4) = 0.6730.
	if !ok || c.DominantCode != 146 || c.Rotation != "Canola-Wheat" || c.DiversityIndex != 0.673 || c.YearsCovered != 5 {
		t.Errorf("got %+v", c)
	}
	mono, _ := agri.SummariseCrops([]agri.YearCrop{{2021, 140}, {2022, 140}}, name)
	if mono.DiversityIndex != 0 || mono.Rotation != "Wheat" {
		t.Errorf("monoculture %+v", mono)
	}
	// A tie: the crop grown first leads.
	tie, _ := agri.SummariseCrops([]agri.YearCrop{{2022, 133}, {2021, 174}, {2023, 133}, {2024, 174}}, name)
	if tie.Rotation != "Peas-Barley" || tie.DominantCode != 174 || math.Abs(tie.DiversityIndex-0.6931) > 1e-9 {
		t.Errorf("tie %+v", tie)
	}
	if _, ok := agri.SummariseCrops(nil, name); ok {
		t.Error("no years gave a summary")
	}
}

func TestScores(t *testing.T) {
	t.Parallel()
	want := map[int]float64{1: 95, 2: 82, 3: 67, 4: 52, 5: 37, 6: 22, 7: 7}
	for class, score := range want {
		if got, ok := agri.LSRSScore(class); !ok || got != score {
			t.Errorf("LSRSScore(%d) = %v, want %v", class, got, score)
		}
	}
	for _, bad := range []int{0, 8, -1} {
		if _, ok := agri.LSRSScore(bad); ok {
			t.Errorf("class %d rated", bad)
		}
	}
	if s, ok := agri.CLIScore(" 3"); !ok || s != 67 {
		t.Errorf("CLI 3 = %v", s)
	}
	if _, ok := agri.CLIScore("O"); ok {
		t.Error("organic soils rated")
	}
	if l, ok := agri.DroughtLabel("d1"); !ok || l != "Moderate Drought" {
		t.Errorf("D1 = %q", l)
	}
	if _, ok := agri.DroughtLabel("D5"); ok {
		t.Error("D5 accepted")
	}
}

func TestBreakdown(t *testing.T) {
	t.Parallel()
	got, ok := agri.Breakdown([]agri.Share{{52, "Annual cropland", "Cropland", 60.04}, {61, "Grassland managed", "Grassland", 30}, {52, "Annual cropland", "Cropland", 5}, {31, "Water", "Water", 0.04}, {71, "Wetland", "Wetland", 4.96}})
	if !ok || len(got) != 3 || got[0].Code != 52 || got[0].Pct != 65 || got[1].Code != 61 || got[2].Pct != 5 {
		t.Errorf("Breakdown = %+v", got)
	}
	if _, ok := agri.Breakdown(nil); ok {
		t.Error("empty breakdown")
	}
}
