package energydemo

import (
	"testing"

	"meridian/shared/lld"
	"meridian/shared/scale"
)

// TestScaleWellsFitTheirTownships: at every fraction the scale test or CI
// uses, no township is given more wells than it has UWIs in its province
// (its LSDs there times the layers). Townships cut by the AB-BC divide
// were given wells by their whole area ("29 wells in township 47-7-W6,
// more than its 10 UWIs" at x0.1).
func TestScaleWellsFitTheirTownships(t *testing.T) {
	t.Parallel()
	for _, f := range []float64{0.002, 0.005, 0.01, 0.09, 0.1, 0.11, 0.2, 1} {
		g := &scaleGen{o: scale.Options{Seed: 1, Fraction: f}, seed: 1}
		for _, p := range scaleProvinces {
			twps, weights := g.townships(p)
			wells := cumulative(g.o.N(p.wells), weights)
			for k, tw := range twps {
				nw := int(wells[k+1] - wells[k])
				if nw == 0 {
					continue
				}
				cells := scaleCells(&demoTownship{Twp: tw.twp, Rge: tw.rge, Mer: int(tw.mer - lld.W1 + 1)}, p.prov)
				if room := len(cells) * len(scaleLayers); nw > room {
					t.Errorf("fraction %g, %s: %d wells in township %d-%d-W%d, room for %d", f, p.code, nw, tw.twp, tw.rge, tw.mer-lld.W1+1, room)
				}
			}
		}
	}
}
