package grid_test

import (
	"context"
	"testing"

	"github.com/paulmach/orb"

	"meridian/shared/survey/grid"
)

func BenchmarkSearch(b *testing.B) {
	svc := grid.New()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := svc.Search(context.Background(), "NW-25-24-1-W5"); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkReverseAllUnits(b *testing.B) {
	svc := grid.New()
	q := grid.ReverseQuery{Point: orb.Point{-114.01924, 51.077932}, All: true}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := svc.Reverse(context.Background(), q); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkAutocompleteProximity(b *testing.B) {
	svc := grid.New()
	prox := orb.Point{-114.3, 52.66}
	for _, in := range []string{"NW-25-24", "10-36-42", "NW", "A-2-F/93"} {
		b.Run(in, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if got, _ := svc.Autocomplete(context.Background(), in, 3, &prox); len(got) == 0 {
					b.Fatal("no suggestions")
				}
			}
		})
	}
}
