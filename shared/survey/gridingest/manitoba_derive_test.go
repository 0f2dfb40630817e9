package gridingest

import (
	"testing"

	"github.com/paulmach/orb"
	"github.com/paulmach/orb/planar"

	"meridian/shared/lld"
	"meridian/shared/survey"
	"meridian/shared/survey/dls"
	"meridian/shared/survey/gridindex"
)

func TestDeriveManitoba(t *testing.T) {
	t.Parallel()
	// Every quarter of 5-6-W1 from the model (shared corners, as real
	// corner data has), one quarter of section 7 missing.
	var group []gridindex.Record
	for s := uint8(1); s <= 36; s++ {
		for _, a := range []lld.Aliquot{lld.NE, lld.NW, lld.SW, lld.SE} {
			if s == 7 && a == lld.NW {
				continue
			}
			l := lld.Location{System: lld.DLS, Unit: lld.QuarterSection, Meridian: lld.W1, Range: 6, Township: 5, Section: s, Aliquot: a}
			b, _ := dls.Resolve(l)
			group = append(group, gridindex.Record{Location: l, Province: survey.MB, Geometry: b.Geometry, AccuracyM: 1})
		}
	}
	got, err := DeriveManitoba(group)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 35 {
		t.Fatalf("%d records, want 35 sections (section 7 lacks a quarter) and no township", len(got))
	}
	for _, r := range got {
		if err := gridindex.Validate(&r); err != nil {
			t.Fatalf("%s: %v", r.Location, err)
		}
		model, _ := dls.Resolve(r.Location)
		if d := planar.Area(r.Geometry) / planar.Area(model.Geometry); d < 0.999 || d > 1.001 {
			t.Errorf("%s area is %.4f of the model's", r.Location, d)
		}
		if r.Location.Section == 7 {
			t.Errorf("section 7 derived without its NW quarter")
		}
	}
	// With the missing quarter the township appears too.
	l := lld.Location{System: lld.DLS, Unit: lld.QuarterSection, Meridian: lld.W1, Range: 6, Township: 5, Section: 7, Aliquot: lld.NW}
	b, _ := dls.Resolve(l)
	got, _ = DeriveManitoba(append(group, gridindex.Record{Location: l, Province: survey.MB, Geometry: b.Geometry, AccuracyM: 1}))
	last := got[len(got)-1]
	model, _ := dls.Resolve(last.Location)
	if len(got) != 37 || last.Location.Unit != lld.Township || !planar.PolygonContains(last.Geometry.(orb.Polygon), model.Centroid) {
		t.Errorf("%d records, last %v: want 36 sections and the township", len(got), last.Location)
	}
	// River lots pass through.
	rl, _ := lld.Parse("RL-22-St. Norbert")
	if got, _ := DeriveManitoba([]gridindex.Record{{Location: rl, HasCentroid: true}}); len(got) != 0 {
		t.Errorf("lots derived %v", got)
	}
}
