package nts_test

import (
	"math/rand/v2"
	"testing"

	"github.com/paulmach/orb"

	"meridian/shared/lld"
	"meridian/shared/survey/datum"
	"meridian/shared/survey/nts"
)

// TestRingFollowsShift: every point of a block's NAD27 edge, moved to NAD83
// on its own, lies on Resolve's ring (within 1 mm): the vertices at the
// shift grid's node lines make the ring the exact image of the box. It
// covers every BC series, map area and map sheet and random blocks, units
// and quarter units, and logs how far straight edges between the four
// moved corners alone would be off, per unit.
func TestRingFollowsShift(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(5, 8))
	var locs []lld.Location
	for _, series := range []uint8{82, 83, 92, 93, 94, 102, 103, 104, 114} {
		locs = append(locs, lld.Location{System: lld.NTS, Unit: lld.Series, Series: series})
		for area := byte('A'); area <= 'P'; area++ {
			locs = append(locs, lld.Location{System: lld.NTS, Unit: lld.MapArea, Series: series, Area: area})
			for sheet := uint8(1); sheet <= 16; sheet++ {
				locs = append(locs, lld.Location{System: lld.NTS, Unit: lld.MapSheet, Series: series, Area: area, Sheet: sheet})
			}
		}
	}
	for range 600 {
		l := quarterUnit(byte('A'+rng.IntN(4)), uint8(1+rng.IntN(100)), byte('A'+rng.IntN(12)), 93, byte('A'+rng.IntN(16)), uint8(1+rng.IntN(16)))
		for range rng.IntN(3) {
			l, _ = l.Parent()
		}
		locs = append(locs, l)
	}
	chord := map[lld.Unit]float64{}
	n := map[lld.Unit]int{}
	for _, l := range locs {
		blk, ok := nts.Resolve(l)
		if !ok {
			continue
		}
		ring := blk.Geometry.(orb.Polygon)[0]
		b := nts.Bound(l)
		if !datum.Canada().Bound().Contains(b.Min) {
			continue // series 114 west of 142°W: no grid there
		}
		n[l.Unit]++
		corners := []orb.Point{b.Min, {b.Max[0], b.Min[1]}, b.Max, {b.Min[0], b.Max[1]}, b.Min}
		var moved orb.Ring
		for _, c := range corners {
			moved = append(moved, onNAD83(c))
		}
		for k := 1; k < len(corners); k++ {
			for range 16 {
				f := rng.Float64()
				p := onNAD83(orb.Point{corners[k-1][0] + f*(corners[k][0]-corners[k-1][0]), corners[k-1][1] + f*(corners[k][1]-corners[k-1][1])})
				if d := edgeDistance(ring, p); d > 1e-3 {
					t.Fatalf("%v: edge point %v is %.4f m off the ring", l, p, d)
				}
				chord[l.Unit] = max(chord[l.Unit], edgeDistance(moved, p))
			}
		}
	}
	for _, u := range units {
		if n[u] == 0 {
			t.Errorf("no %v checked", u)
		}
		t.Logf("%v (%d): straight edges between the moved corners would be off by up to %.3f m", u, n[u], chord[u])
	}
	for _, u := range []lld.Unit{lld.Block, lld.NTSUnit, lld.QuarterUnit} {
		if chord[u] > 1e-3 {
			t.Errorf("%v: the four corners are %.4f m off the exact edge; they lie within one node cell and should be exact", u, chord[u])
		}
	}
}

// TestLocateMovesToNAD27: a NAD83 point is located where its NAD27
// position falls in the grid, not where its own coordinates would fall.
func TestLocateMovesToNAD27(t *testing.T) {
	t.Parallel()
	// The NAD27 centre of A-2-F/93-P-8 (§4), moved to NAD83 (about 90 m
	// west), is located in A-2-F/93-P-8.
	l := quarterUnit('A', 2, 'F', 93, 'P', 8)
	c27 := nts.Bound(l).Center()
	if got, ok := nts.Locate(onNAD83(c27), lld.QuarterUnit); !ok || got != l {
		t.Errorf("Locate(NAD83 of the NAD27 centre) = %v, %v, want %v", got, ok, l)
	}
	// Across the quarter unit's east edge (NAD27, moved to NAD83), about
	// 1 m east, lies quarter B of unit 1 (units count east to west); 1 m
	// west is still A-2.
	b := nts.Bound(l)
	edge := onNAD83(orb.Point{b.Max[0], c27[1]})
	east := orb.Point{edge[0] + 1.0/71000, edge[1]}
	west := orb.Point{edge[0] - 1.0/71000, edge[1]}
	if got, ok := nts.Locate(west, lld.QuarterUnit); !ok || got != l {
		t.Errorf("1 m west of the moved east edge: Locate = %v, %v, want %v", got, ok, l)
	}
	if got, ok := nts.Locate(east, lld.QuarterUnit); !ok || got != quarterUnit('B', 1, 'F', 93, 'P', 8) {
		t.Errorf("1 m east of the moved east edge: Locate = %v, %v, want B-1-F/93-P-8", got, ok)
	}
	// The unshifted east edge itself, read as NAD83, is ~90 m east of the
	// moved edge: already in B-1.
	if got, _ := nts.Locate(orb.Point{b.Max[0] - 1.0/71000, c27[1]}, lld.QuarterUnit); got == l {
		t.Errorf("Locate of the NAD27 east edge read as NAD83 = %v: the shift was not applied", got)
	}
}
