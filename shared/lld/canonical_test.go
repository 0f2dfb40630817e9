package lld

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// The fast path answers exactly what the general parser answers, on every
// name it takes, and takes every canonical name of a block in range: the
// ranges' edges and past them, each meridian, each unit (halves take the
// general way), leading zeros,
// lower case, spaces and near misses.
func TestParseCanonicalMatchesParse(t *testing.T) {
	var names []string
	meridians := []string{"W1", "W2", "W3", "W4", "W5", "W6", "E1", "E2", "W0", "W7", "E3", "w5", "X5", "W"}
	for _, m := range meridians {
		for _, r := range []int{0, 1, 9, 10, 33, 34, 35, 99, 256} {
			for _, tw := range []int{0, 1, 9, 10, 99, 100, 125, 126, 127, 255, 256, 999} {
				names = append(names, fmt.Sprintf("%d-%d-%s", tw, r, m))
				for _, s := range []int{0, 1, 9, 10, 36, 37} {
					names = append(names, fmt.Sprintf("%d-%d-%d-%s", s, tw, r, m))
					for _, q := range []string{"NE", "NW", "SW", "SE", "N", "S", "NN", "ne"} {
						names = append(names, fmt.Sprintf("%s-%d-%d-%d-%s", q, s, tw, r, m))
					}
					for _, lsd := range []int{0, 1, 9, 10, 16, 17} {
						names = append(names, fmt.Sprintf("%d-%d-%d-%d-%s", lsd, s, tw, r, m))
					}
				}
			}
		}
	}
	names = append(names, "06-32-048-07-W5", "6-32-048-7-W5", "NW-25-24-1W5", "25-24-1W5", "NW 25-24-1-W5",
		"NW-25-24-1-W5 ", "-25-24-1-W5", "NW--25-24-1-W5", "1-2-3-4-5-W5", "100/06-32-048-07W5/00", "", "W5",
		"1-W5", "NW-W5", "NW-1-W5", "1000-1-W5", "NW-25-24-1-W5M", "6-32-48-7-W5-")
	// Random canonical names over the whole survey.
	rng := rand.New(rand.NewPCG(1, 2))
	for range 20000 {
		l := Location{System: DLS, Meridian: Meridian(1 + rng.IntN(8)), Range: uint8(1 + rng.IntN(34)), Township: uint8(1 + rng.IntN(126)), Section: uint8(1 + rng.IntN(36))}
		switch rng.IntN(4) {
		case 0:
			l.Unit, l.LSD = LSD, uint8(1+rng.IntN(16))
		case 1:
			l.Unit, l.Aliquot = QuarterSection, Aliquot(1+rng.IntN(4))
		case 2:
			l.Unit = Section
		default:
			l.Unit, l.Section = Township, 0
		}
		names = append(names, l.String())
	}
	fast := 0
	for _, s := range names {
		want, werr := parseGeneral(s)
		got, ok := parseCanonical(s)
		switch {
		case ok && werr != nil:
			t.Errorf("%q: the fast path gives %v, Parse fails: %v", s, got, werr)
		case ok && got != want:
			t.Errorf("%q: the fast path gives %#v, Parse %#v", s, got, want)
		case !ok && werr == nil && want.System == DLS && want.Unit != HalfSection && want.String() == s:
			t.Errorf("%q: canonical and valid (%v) but the fast path does not take it", s, want)
		}
		if ok {
			fast++
		}
	}
	if fast < 20000 {
		t.Errorf("the fast path took %d of %d names", fast, len(names))
	}
	t.Logf("%d names, %d by the fast path", len(names), fast)
}

func BenchmarkParseCanonical(b *testing.B) {
	for _, s := range []string{"NW-25-24-1-W5", "6-32-48-7-W5"} {
		b.Run(s, func(b *testing.B) {
			for b.Loop() {
				if _, err := Parse(s); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(s+"/general", func(b *testing.B) {
			for b.Loop() {
				if _, err := parseGeneral(s); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
