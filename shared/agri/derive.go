// Package agri holds what the agriculture report derives from the
// published datasets: the cropping summary of five years of crop inventory,
// the productivity scores of LSRS and CLI classes, the land-use breakdown
// and the drought class labels (docs/data-sources.md §10-§15). They are pure
// functions of the records, so an ingest run and a test give the same
// answers.
package agri

import (
	"math"
	"sort"
	"strconv"
	"strings"
)

// YearCrop is a quarter's dominant crop inventory class in one year.
type YearCrop struct {
	Year int
	Code int // AAFC ACI class value (146 canola, 140 wheat, ...)
}

// Cropping summarises a quarter's crop years.
type Cropping struct {
	DominantCode int
	// Rotation names the crops grown, most frequent first (ties: the
	// earliest grown first), joined by "-": "Canola-Wheat".
	Rotation string
	// DiversityIndex is the Shannon index (natural log) of the crop shares
	// over the years, rounded to 4 decimals: 0 for one crop every year,
	// ln 2 = 0.6931 for two crops equally.
	DiversityIndex float64
	YearsCovered   int
}

// SummariseCrops derives the cropping summary; name gives a class's
// label (the ACI legend). ok is false when there are no years.
func SummariseCrops(years []YearCrop, name func(code int) string) (c Cropping, ok bool) {
	if len(years) == 0 {
		return Cropping{}, false
	}
	count := map[int]int{}
	first := map[int]int{}
	for _, y := range years {
		count[y.Code]++
		if f, seen := first[y.Code]; !seen || y.Year < f {
			first[y.Code] = y.Year
		}
	}
	codes := make([]int, 0, len(count))
	for code := range count {
		codes = append(codes, code)
	}
	sort.Slice(codes, func(i, j int) bool {
		a, b := codes[i], codes[j]
		if count[a] != count[b] {
			return count[a] > count[b]
		}
		if first[a] != first[b] {
			return first[a] < first[b]
		}
		return a < b
	})
	names := make([]string, len(codes))
	h := 0.0
	for i, code := range codes {
		names[i] = name(code)
		p := float64(count[code]) / float64(len(years))
		h -= p * math.Log(p)
	}
	return Cropping{
		DominantCode:   codes[0],
		Rotation:       strings.Join(names, "-"),
		DiversityIndex: math.Round(h*1e4) / 1e4,
		YearsCovered:   len(years),
	}, true
}

// LSRSScore maps an LSRS class (1-7) to the report's 0-100 score: the
// middle of the class's band (1 → 90-100, 2 → 75-89, 3 → 60-74, 4 → 45-59,
// 5 → 30-44, 6 → 15-29, 7 → 0-14; data-sources.md §14). ok is false for
// class 0 (not rated) or anything else.
func LSRSScore(class int) (score float64, ok bool) {
	bands := [...][2]float64{{90, 100}, {75, 89}, {60, 74}, {45, 59}, {30, 44}, {15, 29}, {0, 14}}
	if class < 1 || class > 7 {
		return 0, false
	}
	b := bands[class-1]
	return math.Round((b[0] + b[1]) / 2), true
}

// CLIScore maps a Canada Land Inventory capability class (1-7; "O" organic
// soils) to a 0-100 score on the same bands as LSRS, both being seven
// classes from no limitation to no capability; organic soils are not rated.
func CLIScore(class string) (score float64, ok bool) {
	n, err := strconv.Atoi(strings.TrimSpace(class))
	if err != nil {
		return 0, false
	}
	return LSRSScore(n)
}

// DroughtLabel is the Canadian Drought Monitor's name of a class D0-D4
// (data-sources.md §15).
func DroughtLabel(class string) (string, bool) {
	switch strings.ToUpper(strings.TrimSpace(class)) {
	case "D0":
		return "Abnormally Dry", true
	case "D1":
		return "Moderate Drought", true
	case "D2":
		return "Severe Drought", true
	case "D3":
		return "Extreme Drought", true
	case "D4":
		return "Exceptional Drought", true
	}
	return "", false
}

// Share is one land-use class's part of a quarter.
type Share struct {
	Code  int
	Label string
	IPCC  string
	Pct   float64
}

// Breakdown orders shares largest first, merges repeated codes, rounds
// percentages to one decimal and drops classes under 0.05 %; the first is
// the dominant class. ok is false when nothing is left.
func Breakdown(shares []Share) ([]Share, bool) {
	by := map[int]*Share{}
	var out []Share
	for _, s := range shares {
		if p, ok := by[s.Code]; ok {
			p.Pct += s.Pct
			continue
		}
		s := s
		by[s.Code] = &s
	}
	for _, s := range by {
		s.Pct = math.Round(s.Pct*10) / 10
		if s.Pct > 0 {
			out = append(out, *s)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Pct != out[j].Pct {
			return out[i].Pct > out[j].Pct
		}
		return out[i].Code < out[j].Code
	})
	return out, len(out) > 0
}
