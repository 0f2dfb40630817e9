package energy

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"meridian/shared/api"
)

// The summary and production sections are written as encoding/json writes
// them (api.AppendJSON): random sections, with strings that need escaping,
// numbers written in exponent form, nil maps and slices, null and present
// optional fields, other volume keys.
func TestSectionsAsEncoder(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	strs := []string{"", "AB", "Petrinex", `q "x" \ y`, "é", "tab\there", "<&>", "CNRL 10-02"}
	floats := []float64{0, math.Copysign(0, -1), 0.5, 12.25, 1e-7, 3e21, -4.5, 1234567.89}
	str := func() string { return strs[r.IntN(len(strs))] }
	opt := func() *string {
		if r.IntN(3) == 0 {
			return nil
		}
		s := str()
		return &s
	}
	flt := func() float64 { return floats[r.IntN(len(floats))] }
	lia := func() Liability {
		return Liability{Total: r.IntN(50), Active: r.IntN(9), Suspended: r.IntN(9), Abandoned: r.IntN(9), Orphan: r.IntN(3), ReclamationCertified: r.IntN(3)}
	}
	for i := range 3000 {
		s := &reportSummary{LastActivityDate: opt()}
		s.Wells.Liability, s.Wells.PrimarySource = lia(), str()
		if r.IntN(4) > 0 {
			s.Wells.BySource = map[string]Liability{}
			for range r.IntN(4) {
				s.Wells.BySource[str()] = lia()
			}
		}
		s.Pipelines = summaryPipelines{SegmentCount: r.IntN(20), LengthMOnParcel: flt()}
		s.Facilities.Count = r.IntN(5)
		if r.IntN(4) > 0 {
			s.Facilities.Categories = []string{}
			for range r.IntN(3) {
				s.Facilities.Categories = append(s.Facilities.Categories, str())
			}
		}
		if r.IntN(3) > 0 {
			s.Operators.Dominant = &dominant{Party: Party{Name: opt(), BACode: opt(), Slug: opt()}, WellCount: r.IntN(40), WellSharePct: flt(), ShareBasis: str()}
		}
		p := &reportProduction{WindowMonths: r.IntN(13), LastProducingMonth: opt(), HasOil: r.IntN(2) == 0, HasGas: r.IntN(2) == 0,
			HasCondensate: r.IntN(2) == 0, HasWater: r.IntN(2) == 0, DominantProduct: opt(), ProducingWellCount: r.IntN(9)}
		switch r.IntN(5) {
		case 0: // nil
		case 1:
			p.Volumes = map[string]float64{"oil_m3": flt(), "other": flt()}
		default:
			p.Volumes = map[string]float64{"oil_m3": flt(), "gas_e3m3": flt(), "condensate_m3": flt(), "water_m3": flt()}
		}
		for name, c := range map[string]struct {
			v     any
			write func([]byte) ([]byte, error)
		}{"summary": {s, s.appendJSON}, "production": {p, p.appendJSON}} {
			want, err := api.AppendJSON([]byte("keep"), c.v)
			if err != nil {
				t.Fatal(err)
			}
			got, err := c.write([]byte("keep"))
			if err != nil || string(got) != string(want) {
				t.Fatalf("%s %d:\n got %s (%v)\nwant %s", name, i, got, err, want)
			}
		}
	}
	// Written by hand, not through the encoder, in the usual case.
	s := &reportSummary{Wells: summaryWells{PrimarySource: "AER ST37", BySource: map[string]Liability{"AER ST37": {Total: 1}}}}
	if _, ok := writeHand(s.appendJSON); !ok || strings.Contains(string(must(s.appendJSON(nil))), "\n") {
		t.Error("a plain summary was not written by hand")
	}
}

// writeHand reports whether write wrote without falling back, by
// comparing its bytes with a second call's (the same either way) and
// counting allocations: the encoder's way allocates far more.
func writeHand(write func([]byte) ([]byte, error)) ([]byte, bool) {
	b, _ := write(make([]byte, 0, 4096))
	n := testing.AllocsPerRun(20, func() { write(make([]byte, 0, 4096)) })
	return b, n <= 2
}

func must(b []byte, err error) []byte {
	if err != nil {
		panic(err)
	}
	return b
}
