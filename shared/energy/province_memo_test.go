package energy_test

import (
	"context"
	"testing"

	"meridian/shared/apierr"
	"meridian/shared/energy"
	"meridian/shared/kv"
	"meridian/shared/lld"
	"meridian/shared/survey"
)

// countingResolver places every township of W4 in Alberta and nothing
// else, counting the lookups.
type countingResolver struct{ calls int }

func (c *countingResolver) Resolve(_ context.Context, l lld.Location, input string) (survey.Block, error) {
	c.calls++
	if l.Meridian != 4 {
		return survey.Block{}, apierr.NotFoundf("%s not found", input)
	}
	return survey.Block{Location: l, Province: survey.AB}, nil
}

// An area placed once is not looked up again; one the grid does not place
// is looked up every time, and its error given each time.
func TestProvinceRemembersPlacedAreas(t *testing.T) {
	res := &countingResolver{}
	rep := energy.NewReporter(kv.NewMem(), res, nil)
	ctx := t.Context()
	twp, _ := lld.Parse("24-1-W4")
	for range 3 {
		if p, err := rep.Province(ctx, twp, "24-1-W4"); p != "AB" || err != nil {
			t.Fatalf("Province(24-1-W4) = %q, %v", p, err)
		}
	}
	if res.calls != 1 {
		t.Errorf("three asks of one township: %d grid lookups, want 1", res.calls)
	}
	gone, _ := lld.Parse("24-1-W5")
	for range 2 {
		if _, err := rep.Province(ctx, gone, "24-1-W5"); err == nil {
			t.Fatal("a township the grid does not place: no error")
		}
	}
	if res.calls != 3 {
		t.Errorf("an unplaced township asked twice: %d lookups in all, want 3", res.calls)
	}
}
