package realcorpus

import (
	"testing"

	"github.com/paulmach/orb"

	"meridian/shared/ag/agingest"
)

// readMBMunicipal reads the five real Manitoba municipal boundaries.
func readMBMunicipal(t *testing.T) []agingest.Municipality {
	t.Helper()
	f := open(t, "mb-municipal", "MG_MUNICIPALITY_POLY.shp")
	var got []agingest.Municipality
	if err := agingest.ReadMunicipalities(f.Source, func(m agingest.Municipality) error {
		got = append(got, m)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return got
}

// TestRealMBMunicipal reads Manitoba's MG_MUNICIPALITY_POLY shapefile (Web
// Mercator, DBF names cut to 10 characters: MUNI_LIST_, MUNI_LIS_1).
func TestRealMBMunicipal(t *testing.T) {
	got := readMBMunicipal(t)
	want := []struct {
		name, typ string
		lon, lat  float64 // a point inside the municipality
	}{
		{"RM OF SPRINGFIELD", "RM", -96.75, 49.93},
		{"RM OF ARGYLE", "RM", -99.1, 49.35},
		{"RM OF ROLAND", "RM", -97.9, 49.35},
		{"RM OF MONTCALM", "RM", -97.3, 49.1},
		{"CITY OF FLIN FLON", "CITY", -101.88, 54.77},
	}
	if len(got) != len(want) {
		t.Fatalf("read %d municipalities, want %d", len(got), len(want))
	}
	for i, w := range want {
		m := got[i]
		if m.Name != w.name || m.Type != w.typ || m.Province != "MB" {
			t.Errorf("municipality %d = %q %q %q, want %q %q MB", i, m.Name, m.Type, m.Province, w.name, w.typ)
		}
		b := m.Geometry.Bound()
		if !b.Contains(orb.Point{w.lon, w.lat}) {
			t.Errorf("%s: bound %v does not hold (%v, %v): the Web Mercator .prj was not applied", w.name, b, w.lon, w.lat)
		}
	}
}

// TestRealMBMunicipal_KnownGap: the real file numbers each municipality in
// MUNI_NO (Springfield 189, Argyle 102, Roland 169, Montcalm 151, Flin Flon
// 540), but ReadMunicipalities looks for the code only in CSDUID,
// MUNI_CODE, MUNCODE and RM_NO, so Code is "" for every Manitoba
// municipality today ("municipality 0: code \"\", want \"189\"").
func TestRealMBMunicipal_KnownGap(t *testing.T) {
	got := readMBMunicipal(t)
	want := []string{"189", "102", "169", "151", "540"}
	for i, m := range got {
		if i < len(want) && m.Code != want[i] {
			t.Errorf("municipality %d (%s): code %q, want %q (MUNI_NO)", i, m.Name, m.Code, want[i])
		}
	}
}
