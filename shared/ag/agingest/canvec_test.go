package agingest_test

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/paulmach/orb"

	"meridian/shared/ag/agingest"
	"meridian/shared/ingest"
)

// realCanVec opens a file of the top-level testdata/real/canvec-hydro: NRCan's national
// 1:15M CanVec Hydro shapefiles as published (see PROVENANCE.md there).
func realCanVec(t *testing.T, name string, notices *ingest.Notices, layout *ingest.Layout) agingest.Source {
	t.Helper()
	f, err := agingest.Open(filepath.Join("..", "..", "..", "testdata", "real", "canvec-hydro", name))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	s := f.Source
	s.Notices, s.Recognised = notices, func(l ingest.Layout) { *layout = l }
	return s
}

// TestReadCanVecReal reads the real national water bodies and
// watercourses: recognised as CanVec (not NHN), every feature's kind and
// permanency read, names decoded as the .cpg says, and the watercourse
// whose vertex lies 1e-12° west of -180 read with it clamped, not the
// file rejected.
func TestReadCanVecReal(t *testing.T) {
	t.Parallel()
	var notices ingest.Notices
	var layout ingest.Layout
	wb := collect(t, agingest.ReadWaterBodies, realCanVec(t, "waterbody_2.shp", &notices, &layout))
	if layout != agingest.CanVecHydroLayout {
		t.Errorf("waterbody_2: layout %q, want CanVec", layout.Form)
	}
	if len(wb) != 140 {
		t.Fatalf("waterbody_2: %d water bodies, want 140", len(wb))
	}
	for _, w := range wb {
		if w.Kind != "lake" || w.Permanency != agingest.Permanent || w.DefinitionCode != 0 {
			t.Fatalf("water body %s %q: kind %q, %v, code %d; want a permanent lake", w.ID, w.Name, w.Kind, w.Permanency, w.DefinitionCode)
		}
		if _, ok := w.Geometry.(orb.MultiPolygon); !ok {
			if _, ok := w.Geometry.(orb.Polygon); !ok {
				t.Fatalf("water body %s: geometry %T", w.ID, w.Geometry)
			}
		}
	}
	for i, want := range map[int][2]string{
		0:   {"9b5b7131-f4e5-409c-aa7b-370dedcab635", "Superior, Lake"},
		1:   {"e4773334-019d-4f4c-9735-797630371b5a", "Huron, Lake"},
		22:  {"", "Caniapiscau, Réservoir de"},
		139: {"b90065bb-71bd-4983-ac60-bc9411499379", "Reindeer Lake"},
	} {
		if (want[0] != "" && wb[i].ID != want[0]) || wb[i].Name != want[1] {
			t.Errorf("water body %d: %s %q, want %v", i+1, wb[i].ID, wb[i].Name, want)
		}
	}

	wc := collect(t, agingest.ReadWatercourses, realCanVec(t, "watercourse_1.shp", &notices, &layout))
	if layout != agingest.CanVecHydroLayout {
		t.Errorf("watercourse_1: layout %q, want CanVec", layout.Form)
	}
	perm, unknown, unnamed := 0, 0, 0
	for _, w := range wc {
		if w.Kind != "watercourse" {
			t.Fatalf("watercourse %s: kind %q", w.ID, w.Kind)
		}
		switch w.Permanency {
		case agingest.Permanent:
			perm++
		case agingest.PermanencyUnknown:
			unknown++
		}
		if w.Name == "" {
			unnamed++
		}
	}
	// perm_en: 444 Permanent, 33 Not Identified; 76 have no name_en.
	if len(wc) != 477 || perm != 444 || unknown != 33 || unnamed != 76 {
		t.Errorf("watercourse_1: %d read, %d permanent, %d unknown, %d unnamed; want 477, 444, 33, 76", len(wc), perm, unknown, unnamed)
	}
	if wc[0].Name != "Missouri River" || wc[0].ID != "f6092576-c6f6-417a-8dd8-19db6d4058af" || wc[29].Permanency != agingest.PermanencyUnknown {
		t.Errorf("watercourse 1 %+v, 30 %v", wc[0].Name, wc[29].Permanency)
	}
	last := wc[476]
	if last.ID != "b4017282-ee3c-4c7d-8772-b4c6cff08aa8" || !touches(last.Geometry, -180) {
		t.Errorf("watercourse 477 %s: no vertex at -180 (the noisy one clamped)", last.ID)
	}
	if n := notices.Total(); n != 0 {
		t.Errorf("notices %q", notices.Lines())
	}
}

// touches reports whether a vertex of g has longitude lng exactly.
func touches(g orb.Geometry, lng float64) bool {
	found := false
	var walk func(orb.Geometry)
	walk = func(g orb.Geometry) {
		switch g := g.(type) {
		case orb.LineString:
			found = found || slices.ContainsFunc(g, func(p orb.Point) bool { return p[0] == lng })
		case orb.MultiLineString:
			for _, l := range g {
				walk(l)
			}
		}
	}
	walk(g)
	return found
}

// TestReadCanVec reads CanVec's other spellings of kind and permanency:
// the French words, the catalogue codes alone; an unknown code is a
// notice, the feature kept.
func TestReadCanVec(t *testing.T) {
	t.Parallel()
	in := fc(
		feature(`"feature_id":"a","definit":86,"perm":60`, box),
		feature(`"feature_id":"b","definit":"87.0","perm":"59"`, box),
		feature(`"feature_id":"c","definit_fr":"Fossé de drainage","perm_fr":"Intermittent","name_en":"Drain 7"`, box),
		feature(`"feature_id":"d","definit_en":"Not Identified","perm_en":"Not Identified"`, box),
		feature(`"feature_id":"e","definit":99,"perm":20`, box),
	)
	src := geoJSONSource("waterbody_2.geojson", in)
	var notices ingest.Notices
	src.Notices = &notices
	got := collect(t, agingest.ReadWaterBodies, src)
	want := []struct {
		kind string
		perm agingest.Permanency
	}{{"pond", agingest.Intermittent}, {"reservoir", agingest.Permanent}, {"ditch", agingest.Intermittent}, {"", agingest.PermanencyUnknown}, {"", agingest.PermanencyUnknown}}
	for i, w := range got {
		if w.Kind != want[i].kind || w.Permanency != want[i].perm {
			t.Errorf("%s: %q %v, want %q %v", w.ID, w.Kind, w.Permanency, want[i].kind, want[i].perm)
		}
	}
	if l := notices.Lines(); len(l) != 1 || !strings.Contains(l[0], `:7: column DEFINIT: new value "99": not in the CanVec catalogue`) {
		t.Errorf("notices %q", l)
	}
}

// TestReadWaterNoLayout: a file whose columns match neither layout is an
// error naming its columns and the closest layout's missing ones, never
// read as the other layout; the layout report says so too.
func TestReadWaterNoLayout(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, props string
		closest     ingest.Layout
		missing     []string
	}{
		// The CanVec columns the reader used to guess: no real file has them.
		{"guessed CanVec", `"feature_id":"a","definition_en":"Lake","permanency_en":"Permanent"`, agingest.CanVecHydroLayout, []string{"DEFINIT_EN or DEFINIT_FR or DEFINIT", "PERM_EN or PERM_FR or PERM"}},
		{"NHN without NID", `"DEFINITION":4,"PERMANENCY":1`, agingest.NHNLayout, []string{"NID"}},
	} {
		err := agingest.ReadWaterBodies(geoJSONSource("wb.geojson", fc(feature(tc.props, box))), func(agingest.WaterFeature) error { return nil })
		var ie *ingest.Error
		if !errors.As(err, &ie) || ie.Mismatch == nil || ie.Line != 3 {
			t.Fatalf("%s: error %v, want a mismatch at line 3", tc.name, err)
		}
		if ie.Mismatch.Closest != tc.closest || !slices.Equal(ie.Mismatch.Missing, tc.missing) || !strings.Contains(ie.Reason, "the file has ") {
			t.Errorf("%s: %v", tc.name, err)
		}
	}
	dir := t.TempDir()
	p := filepath.Join(dir, "waterbody_2.geojson")
	if err := os.WriteFile(p, []byte(fc(feature(`"feature_id":"a","definition_en":"Lake"`, box))), 0o644); err != nil {
		t.Fatal(err)
	}
	l := agingest.Layouts(agingest.Files{WaterBodies: []string{p}})
	if len(l) != 1 || l[0].Err == nil || l[0].Layout.Verified ||
		!strings.HasPrefix(l[0].Banner(), "waterbody_2.geojson: NO KNOWN LAYOUT: columns match no known layout: the file has FEATURE_ID, DEFINITION_EN; the closest, CanVec Hydro") {
		t.Errorf("Layouts = %+v", l)
	}
}

// TestLayoutsMissingColumns: a file without the columns of its reader's
// one layout is reported as of no known layout, not as that layout.
func TestLayoutsMissingColumns(t *testing.T) {
	t.Parallel()
	p := filepath.Join(t.TempDir(), "lsrs.csv")
	if err := os.WriteFile(p, []byte("PARCEL_ID,M,RGE,TWP,SEC,QS\n1,5,1,24,25,NW\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	l := agingest.Layouts(agingest.Files{AGRASIDLSRS: p})
	if len(l) != 1 || l[0].Err == nil || l[0].Banner() != "lsrs.csv: NO KNOWN LAYOUT: missing column DOM_LSRS (the file has PARCEL_ID, M, RGE, TWP, SEC, QS)" {
		t.Errorf("Layouts = %+v", l)
	}
}
