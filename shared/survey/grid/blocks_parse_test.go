package grid_test

import (
	"context"
	"testing"

	"github.com/paulmach/orb"

	"meridian/shared/lld"
	"meridian/shared/survey"
	"meridian/shared/survey/grid"
)

// Every township the model enumerates can be named: northern Manitoba east
// of E1 once gave range 35, which lld.Parse refuses (ranges 1-34), and an
// ingest stored a quarter no request could ask for.
func TestBlocksAreParseable(t *testing.T) {
	svc := grid.New()
	b := orb.Bound{Min: orb.Point{-102, 55.5}, Max: orb.Point{-88.5, 60}}
	n := 0
	err := svc.Blocks(context.Background(), lld.DLS, lld.Township, b, func(blk survey.Block) error {
		n++
		if _, err := lld.Parse(blk.Location.String()); err != nil {
			t.Errorf("Blocks gave %s, which does not parse: %v", blk.Location, err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n == 0 {
		t.Fatal("no townships in northern Manitoba")
	}
}
