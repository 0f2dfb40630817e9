package nts

import (
	"math/rand/v2"
	"testing"

	"github.com/paulmach/orb"

	"meridian/shared/survey"
)

// TestInBCShortcutsAgree: InBC's look-ups by latitude band answer what the
// outline itself answers.
func TestInBCShortcutsAgree(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(5, 6))
	for range 200000 {
		pt := orb.Point{-131 + rng.Float64()*18, 48.5 + rng.Float64()*12}
		want := bcBound.Contains(pt) && pt[1] < bcBound.Max[1] && survey.RingContains(bcOutline, pt)
		if got := InBC(pt); got != want {
			t.Fatalf("InBC(%v) = %v, the outline says %v", pt, got, want)
		}
	}
}
