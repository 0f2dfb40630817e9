package agingest

import (
	"fmt"
	"path/filepath"
	"slices"
	"testing"

	"github.com/paulmach/orb"

	"meridian/shared/lld"
	"meridian/shared/survey"
)

// TestQuarterTable: every corner of the table round-trips through its
// index; quarters out of its bounds go to the overflow map; the province
// and the AGRASID bit are kept apart; each visits the quarters met in AB,
// SK or MB once, in index order, then the overflow's.
func TestQuarterTable(t *testing.T) {
	parse := func(s string) lld.Location {
		l, err := lld.Parse(s)
		if err != nil {
			t.Fatalf("Parse(%q): %v", s, err)
		}
		return l
	}
	in := []string{"NE-1-1-1-W1", "SE-36-126-34-E2", "SW-36-126-34-W6", "NW-25-24-1-W5", "SE-1-1-1-W4", "NE-36-1-34-E1"}
	seen := map[int]bool{}
	for _, s := range in {
		l := parse(s)
		i, ok := quarterIndex(l)
		if !ok || i < 0 || i >= qtSize {
			t.Fatalf("quarterIndex(%s) = %d, %v: want an index below %d", s, i, ok, qtSize)
		}
		if seen[i] {
			t.Fatalf("quarterIndex(%s) = %d, taken by another quarter", s, i)
		}
		seen[i] = true
		if got := quarterAt(i); got != l {
			t.Errorf("quarterAt(quarterIndex(%s)) = %+v, want %+v", s, got, l)
		}
	}
	for _, l := range []lld.Location{
		parse("10-25-24-1-W5"), // an LSD
		parse("25-24-1-W5"),    // a section
		{System: lld.DLS, Unit: lld.QuarterSection, Meridian: lld.W4, Range: 40, Township: 1, Section: 1, Aliquot: lld.NE},
		{System: lld.DLS, Unit: lld.QuarterSection, Meridian: lld.W4, Range: 1, Township: 127, Section: 1, Aliquot: lld.NE},
	} {
		if i, ok := quarterIndex(l); ok {
			t.Errorf("quarterIndex(%+v) = %d, want none", l, i)
		}
	}
	tb := newQuarterTable()
	ab, sk, out := parse("NW-25-24-1-W5"), parse("SE-1-1-1-W3"), lld.Location{System: lld.DLS, Unit: lld.QuarterSection, Meridian: lld.W4, Range: 40, Township: 1, Section: 1, Aliquot: lld.NE}
	none := parse("NE-1-1-1-W1")
	if _, ok := tb.province(ab); ok {
		t.Fatal("a new table has met a quarter")
	}
	tb.setProvince(ab, survey.AB)
	tb.setProvince(sk, survey.SK)
	tb.set(sk, tb.get(sk)|qtLSRS)
	tb.setProvince(out, survey.MB)
	tb.setProvince(none, survey.ProvinceNone)
	for _, c := range []struct {
		l    lld.Location
		p    survey.Province
		lsrs bool
	}{{ab, survey.AB, false}, {sk, survey.SK, true}, {out, survey.MB, false}, {none, survey.ProvinceNone, false}} {
		p, ok := tb.province(c.l)
		if !ok || p != c.p || (tb.get(c.l)&qtLSRS != 0) != c.lsrs {
			t.Errorf("%s: province %v, %v, lsrs %v; want %v, true, %v", c.l, p, ok, tb.get(c.l)&qtLSRS != 0, c.p, c.lsrs)
		}
	}
	var got []string
	tb.each(func(l lld.Location, p survey.Province) error { got = append(got, fmt.Sprint(l, p.Code())); return nil })
	want := []string{fmt.Sprint(sk, "SK"), fmt.Sprint(ab, "AB"), fmt.Sprint(out, "MB")}
	if !slices.Equal(got, want) {
		t.Errorf("each = %v, want %v", got, want)
	}
}

// checkSweepRasters: the years of a province's crop inventory in dir
// (the province-size data, which the external test writes with
// agdemo.WriteScale: this package's tests cannot import the generator)
// swept together give each quarter exactly the summaries the rasters give
// read one by one, and every file's RasterInfo.Quarters.
func checkSweepRasters(t *testing.T, dir string) {
	paths, _ := filepath.Glob(filepath.Join(dir, "aci_*_sk.tif"))
	if len(paths) < 2 {
		t.Fatalf("%d SK crop rasters, want several years", len(paths))
	}
	o := RasterOptions{Quarters: ModelQuarters}
	want := map[string]string{}
	wantQuarters := map[string]int{}
	for _, p := range paths {
		info, err := ReadCropRaster(p, o, func(y QuarterYear) error {
			want[fmt.Sprint(y.Location, y.Year)] = fmt.Sprint(y.Classes)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		wantQuarters[filepath.Base(p)] = info.Quarters
	}
	var files []*rasterFile
	for _, p := range paths {
		rf, err := openCropRaster(p, o)
		if err != nil {
			t.Fatal(err)
		}
		defer rf.f.Close()
		files = append(files, rf)
	}
	got := map[string]string{}
	calls := 0
	err := sweepRasters(files, ModelQuarters, func(ys []QuarterYear, _ orb.Bound) error {
		calls++
		for _, y := range ys {
			k := fmt.Sprint(y.Location, y.Year)
			if _, dup := got[k]; dup {
				t.Errorf("%s handed over twice", k)
			}
			if y.Location != ys[0].Location {
				t.Errorf("one call holds %s and %s", ys[0].Location, y.Location)
			}
			got[k] = fmt.Sprint(y.Classes)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(want) == 0 || calls*2 > len(want) {
		t.Fatalf("%d summaries in %d calls: want many, several years a call", len(want), calls)
	}
	for k, w := range want {
		if got[k] != w {
			t.Errorf("%s: swept %s, read alone %s", k, got[k], w)
		}
	}
	if len(got) != len(want) {
		t.Errorf("%d summaries swept, %d read alone", len(got), len(want))
	}
	for _, rf := range files {
		if rf.info.Quarters != wantQuarters[rf.name] {
			t.Errorf("%s: %d quarters swept, %d read alone", rf.name, rf.info.Quarters, wantQuarters[rf.name])
		}
	}
}
