package nts

import (
	"math"
	"testing"

	"github.com/paulmach/orb"

	"meridian/shared/survey/datum"
)

// TestShiftPadding: padLat and padLng hold the largest NAD27 to NAD83
// shift over the BC series (48°–60°N, 112°–142°W), so Cells, padding a
// NAD83 box by them, finds every NAD27 block under it.
func TestShiftPadding(t *testing.T) {
	t.Parallel()
	g := datum.Canada()
	var maxLat, maxLng float64
	for lat := 48.0; lat <= 60; lat += 0.02 {
		for lng := -142.0; lng <= -112; lng += 0.02 {
			dLat, dLng, err := g.Shift(orb.Point{lng, lat})
			if err != nil {
				t.Fatalf("Shift(%v, %v): %v", lng, lat, err)
			}
			maxLat, maxLng = max(maxLat, math.Abs(dLat)), max(maxLng, math.Abs(dLng))
		}
	}
	t.Logf("largest shift over the BC series: %.2f″ latitude, %.2f″ longitude", maxLat, maxLng)
	if maxLat/3600 > padLat || maxLng/3600 > padLng {
		t.Errorf("largest shift %.2f″, %.2f″ exceeds the padding %.2f″, %.2f″", maxLat, maxLng, padLat*3600, padLng*3600)
	}
}

// TestRingVertices: the ring has a vertex at every node line an edge
// crosses, and only the corners for blocks within one node cell.
func TestRingVertices(t *testing.T) {
	t.Parallel()
	tests := []struct {
		c    cells
		want int // vertices, the closing one included
	}{
		{cells{0, 1, 0, 1}, 5},                                       // quarter unit
		{cells{0, blockRows, 0, blockCols}, 5},                       // block
		{cells{0, sheetRows, 0, sheetCols}, 7},                       // sheet: 15′ × 30′, one line across N and S edges
		{cells{0, areaRows, 0, areaCols}, 1 + 2*(4+8)},               // map area 1° × 2°
		{cells{0, seriesRows, 0, seriesCols}, 1 + 2*(16+32)},         // series 4° × 8°
		{cells{30, 30 + sheetRows, 20, 20 + sheetCols}, 1 + 2*(2+3)}, // not on node lines (not an NTS block: the general case)
	}
	for _, tc := range tests {
		r := tc.c.ring()
		if len(r) != tc.want || r[0] != r[len(r)-1] {
			t.Errorf("ring(%v) has %d vertices (closed %v), want %d closed", tc.c, len(r), r[0] == r[len(r)-1], tc.want)
		}
		if cap(r) < len(r) {
			t.Errorf("ring(%v) capacity", tc.c)
		}
	}
}
