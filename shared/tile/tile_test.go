package tile_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/paulmach/orb"
	"github.com/paulmach/orb/encoding/mvt"
	"github.com/paulmach/orb/maptile"

	"meridian/shared/api"
	"meridian/shared/lld"
	"meridian/shared/survey"
	"meridian/shared/survey/grid"
	"meridian/shared/tile"
)

var calgary = orb.Point{-114.0719, 51.0447}

func layer(t testing.TB, path string) tile.Layer {
	t.Helper()
	region, name, _ := strings.Cut(path, "/")
	l, ok := tile.Lookup(region, name)
	if !ok {
		t.Fatalf("no layer %s", path)
	}
	return l
}

func decode(t testing.TB, data []byte) mvt.Layers {
	t.Helper()
	ls, err := mvt.UnmarshalGzipped(data)
	if err != nil {
		t.Fatalf("not a gzip MVT: %v", err)
	}
	return ls
}

// The catalog is the spec's survey grid table, each grid with its label
// layer, and the 18 + 12 agriculture and energy archives.
func TestCatalog(t *testing.T) {
	t.Parallel()
	var grids, labels, ag, energy int
	for _, l := range tile.Layers() {
		switch {
		case l.Kind == tile.Grid:
			grids++
			if len(l.Fields) != 1 || l.Fields[0].Name != "id" {
				t.Errorf("%s fields %v, want id", l.Path(), l.Fields)
			}
		case l.Kind == tile.Label:
			labels++
			if !strings.HasSuffix(l.SourceLayer, "_label") || !strings.HasSuffix(l.Name, "-label") {
				t.Errorf("label layer %s source %s", l.Path(), l.SourceLayer)
			}
		case l.Region == "ag":
			ag++
		case l.Region == "energy":
			energy++
		}
	}
	if grids != 4*4+4+3 || labels != grids || ag != 18 || energy != 12 {
		t.Errorf("grids %d labels %d ag %d energy %d, want 23 23 18 12", grids, labels, ag, energy)
	}
	for path, want := range map[string]string{
		"ab/twp": "ab_twp 0-14", "mb/lsd": "mb_lsd 9-14", "bc/qtr-unit": "bc_qtr_unit 9-14", "bc/series": "bc_series 0-14",
		"on/lot-label": "on_lot_label 9-14", "sk/sec-label": "sk_sec_label 9-14", "ag/soils": "soils 6-22",
		"ag/sk_pastures_labels": "sk_pastures 8-22", "energy/og_activity_twp": "og_activity_twp 0-6",
	} {
		l := layer(t, path)
		if got := l.SourceLayer + " " + strconv.Itoa(l.MinZoom) + "-" + strconv.Itoa(l.MaxZoom); got != want {
			t.Errorf("%s: %s, want %s", path, got, want)
		}
	}
	names := func(l tile.Layer) string {
		var s []string
		for _, f := range l.Fields {
			s = append(s, f.Name)
		}
		return strings.Join(s, ",")
	}
	for path, want := range map[string]string{
		"ab/sec-label":      "id,descriptor,section,township,range,meridian",
		"mb/sec-label":      "id,descriptor,section,township,range,meridian,quarter_section",
		"bc/qtr-unit-label": "id,descriptor,qtr,unit,block,series,area,sheet",
		"on/con-label":      "id,descriptor,concession,twp",
	} {
		if got := names(layer(t, path)); got != want {
			t.Errorf("%s fields %s, want %s", path, got, want)
		}
	}
}

// A grid tile holds the blocks over it, with the spec's properties, each
// exactly the block search returns; a label tile one point per block inside
// its block.
func TestGeneratedTiles(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	svc := grid.New()
	g := tile.NewGenerator(svc)
	tl := maptile.At(calgary, 13)

	data, err := g.Tile(ctx, layer(t, "ab/qtr"), tl)
	if err != nil || data == nil {
		t.Fatalf("Tile = %d bytes, %v", len(data), err)
	}
	ls := decode(t, data)
	if len(ls) != 1 || ls[0].Name != "ab_qtr" || ls[0].Extent != tile.Extent {
		t.Fatalf("layers %v", ls)
	}
	ls.ProjectToWGS84(tl)
	seen := map[string]bool{}
	for _, f := range ls[0].Features {
		id, _ := f.Properties["id"].(string)
		l, err := lld.Parse(id)
		if err != nil || l.Unit != lld.QuarterSection || len(f.Properties) != 1 {
			t.Fatalf("feature properties %v", f.Properties)
		}
		seen[id] = true
		blk, _ := svc.Resolve(ctx, l, id)
		// Clipped to the tile plus its buffer, in tile units (~19 m at z13 / 4096).
		fb, bb := f.Geometry.Bound(), blk.Geometry.Bound()
		if !bb.Pad(1e-4).Contains(fb.Min) || !bb.Pad(1e-4).Contains(fb.Max) {
			t.Errorf("%s: tile geometry %v outside its block %v", id, fb, bb)
		}
	}
	if want, _ := convertSearch(svc, calgary, lld.QuarterSection); !seen[want] {
		t.Errorf("the quarter holding Calgary, %s, is not in its tile (%d features)", want, len(seen))
	}

	labels, err := g.Tile(ctx, layer(t, "ab/qtr-label"), tl)
	if err != nil || labels == nil {
		t.Fatalf("label tile: %v", err)
	}
	ll := decode(t, labels)
	if ll[0].Name != "ab_qtr_label" {
		t.Errorf("label layer %s", ll[0].Name)
	}
	ll.ProjectToWGS84(tl)
	for _, f := range ll[0].Features {
		pt, ok := f.Geometry.(orb.Point)
		if !ok {
			t.Fatalf("label geometry %T", f.Geometry)
		}
		p := f.Properties
		l, _ := lld.Parse(p["id"].(string))
		if p["quarter_section"] != l.Aliquot.String() || p["descriptor"] != l.Aliquot.String() || p["section"] != float64(l.Section) ||
			p["township"] != float64(l.Township) || p["range"] != float64(l.Range) || p["meridian"] != l.Meridian.String() {
			t.Errorf("label properties %v for %s", p, l)
		}
		blk, _ := svc.Resolve(ctx, l, "")
		if !blk.Geometry.Bound().Pad(1e-4).Contains(pt) {
			t.Errorf("label of %s at %v is outside the block", l, pt)
		}
	}

	// Same bytes every time (an archive holds what on demand serves).
	again, _ := g.Tile(ctx, layer(t, "ab/qtr"), tl)
	if !bytes.Equal(again, data) {
		t.Error("generating the same tile twice gave different bytes")
	}
	// Outside the zooms or the region: nothing.
	for _, c := range []struct {
		path string
		t    maptile.Tile
	}{
		{"ab/qtr", maptile.At(calgary, 8)},
		{"sk/qtr", tl},                                       // Calgary is not in Saskatchewan
		{"ab/twp", maptile.At(orb.Point{-100, 20}, 9)},       // Mexico
		{"bc/lsd", maptile.At(orb.Point{-123.1, 49.28}, 12)}, // Vancouver: no DLS
		{"bc/unit", maptile.At(orb.Point{-110.0, 52.0}, 12)}, // Alberta: no NTS
		{"on/lot", maptile.At(orb.Point{-79.93, 44.17}, 14)}, // no Ontario data loaded
	} {
		if d, err := g.Tile(ctx, layer(t, c.path), c.t); d != nil || err != nil {
			t.Errorf("%s %v: %d bytes, %v; want nothing", c.path, c.t, len(d), err)
		}
	}
}

func convertSearch(svc *grid.Service, pt orb.Point, u lld.Unit) (string, error) {
	b, err := svc.Reverse(context.Background(), grid.ReverseQuery{Point: pt, System: lld.DLS, Unit: u})
	if err != nil || len(b) == 0 {
		return "", err
	}
	return b[0].Location.String(), nil
}

// Every family's label tile carries its spec properties.
func TestLabelProperties(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	g := tile.NewGenerator(grid.New())
	for path, pt := range map[string]orb.Point{
		"ab/twp-label": calgary, "ab/sec-label": calgary, "ab/lsd-label": calgary,
		"mb/sec-label":      {-98.25626, 49.373292},
		"bc/series-label":   {-121.25, 49.12},
		"bc/block-label":    {-121.25, 49.12},
		"bc/unit-label":     {-121.25, 49.12},
		"bc/qtr-unit-label": {-121.25, 49.12},
	} {
		l := layer(t, path)
		data, err := g.Tile(ctx, l, maptile.At(pt, 10)) // blocks smaller than the tile
		if err != nil || data == nil {
			t.Fatalf("%s: %v", path, err)
		}
		for _, f := range decode(t, data)[0].Features {
			for _, fl := range l.Fields {
				if _, ok := f.Properties[fl.Name]; !ok {
					t.Fatalf("%s: feature %v lacks %s", path, f.Properties, fl.Name)
				}
			}
			if len(f.Properties) != len(l.Fields) {
				t.Fatalf("%s: properties %v, fields %v", path, f.Properties, l.Fields)
			}
		}
		if path == "mb/sec-label" {
			f := decode(t, data)[0].Features[0]
			if q := f.Properties["quarter_section"]; q != "SE,SW,NW,NE" {
				t.Errorf("mb section quarters %v", q)
			}
		}
	}
}

func TestLabelPoint(t *testing.T) {
	t.Parallel()
	// An L: the centroid falls in the notch.
	l := orb.Polygon{{{0, 0}, {10, 0}, {10, 2}, {2, 2}, {2, 10}, {0, 10}, {0, 0}}}
	c := orb.Point{3, 3}
	pt := tile.LabelPoint(l, c)
	if !survey.RingContains(l[0], pt) {
		t.Errorf("label of the L at %v is outside it", pt)
	}
	sq := survey.BoxPolygon(orb.Bound{Max: orb.Point{4, 4}})
	if got := tile.LabelPoint(sq, orb.Point{2, 2}); got != (orb.Point{2, 2}) {
		t.Errorf("square: %v, want its centroid", got)
	}
	mp := orb.MultiPolygon{survey.BoxPolygon(orb.Bound{Max: orb.Point{1, 1}}), survey.BoxPolygon(orb.Bound{Min: orb.Point{5, 5}, Max: orb.Point{9, 9}})}
	if got := tile.LabelPoint(mp, orb.Point{3, 3}); got != (orb.Point{7, 7}) {
		t.Errorf("multipolygon: %v, want the centre of its largest part", got)
	}
}

func serve(t testing.TB, h *tile.Handler, target string, hdr map[string]string) *httptest.ResponseRecorder {
	t.Helper()
	mux := api.NewMux()
	mux.Mount(h.Routes()...)
	r := httptest.NewRequest("GET", target, nil)
	for k, v := range hdr {
		r.Header.Set(k, v)
	}
	w := httptest.NewRecorder()
	mux.ServeHTTP(w, r)
	return w
}

func TestHandler(t *testing.T) {
	t.Parallel()
	h := tile.NewHandler(tile.Options{Generator: tile.NewGenerator(grid.New())})
	tl := maptile.At(calgary, 12)
	path := "/tiles/ab/sec/12/" + strconv.Itoa(int(tl.X)) + "/" + strconv.Itoa(int(tl.Y)) + ".mvt?api_key=k"

	gz := serve(t, h, path, map[string]string{"Accept-Encoding": "gzip, deflate"})
	if gz.Code != 200 || gz.Header().Get("Content-Encoding") != "gzip" || gz.Header().Get("Content-Type") != tile.ContentType ||
		gz.Header().Get("ETag") == "" || !strings.Contains(gz.Header().Get("Cache-Control"), "max-age") {
		t.Fatalf("gzip tile: %d %v", gz.Code, gz.Header())
	}
	decode(t, gz.Body.Bytes())
	plain := serve(t, h, path, nil)
	if plain.Code != 200 || plain.Header().Get("Content-Encoding") != "" {
		t.Fatalf("plain tile: %d %v", plain.Code, plain.Header())
	}
	if ls, err := mvt.Unmarshal(plain.Body.Bytes()); err != nil || len(ls[0].Features) == 0 {
		t.Fatalf("plain tile does not decode: %v", err)
	}
	if nm := serve(t, h, path, map[string]string{"If-None-Match": gz.Header().Get("ETag")}); nm.Code != 304 {
		t.Errorf("If-None-Match: %d", nm.Code)
	}

	for _, c := range []struct {
		target string
		code   int
		err    string
	}{
		{"/tiles/ab/sec/8/46/86.mvt", 204, ""},       // below the layer's zooms
		{"/tiles/ab/sec/15/5000/10000.mvt", 204, ""}, // above
		{"/tiles/ab/sec/12/0/0.mvt", 204, ""},        // no data there
		{"/tiles/xx/sec/12/0/0.mvt", 403, "archive_not_published"},
		{"/tiles/ab/parcels/12/0/0.mvt", 403, "archive_not_published"},
		{"/tiles/ag/not_an_archive.json", 403, "archive_not_published"},
		{"/tiles/ag/soils.json", 404, "not_found"}, // published, not built here
		{"/tiles/ag/soils/7/25/42.mvt", 404, "not_found"},
		{"/tiles/ab/sec/12/1/2.png", 400, "invalid_parameter"},
		{"/tiles/ab/sec/12/4096/2.mvt", 400, "invalid_parameter"},
		{"/tiles/ab/sec/23/1/2.mvt", 400, "invalid_parameter"},
		{"/tiles/ab/sec/x/1/2.mvt", 400, "invalid_parameter"},
		{"/tiles/ab/sec.geojson", 404, "not_found"},
	} {
		w := serve(t, h, c.target, nil)
		if w.Code != c.code || (c.err != "" && !strings.Contains(w.Body.String(), `"code":"`+c.err+`"`)) {
			t.Errorf("%s: %d %s, want %d %s", c.target, w.Code, w.Body.String(), c.code, c.err)
		}
	}
}

func TestTileJSON(t *testing.T) {
	t.Parallel()
	h := tile.NewHandler(tile.Options{Generator: tile.NewGenerator(grid.New())})
	w := serve(t, h, "/tiles/mb/sec-label.json?api_key=a%2Bb", map[string]string{"X-Forwarded-Proto": "https"})
	if w.Code != 200 {
		t.Fatalf("%d %s", w.Code, w.Body.String())
	}
	var doc struct {
		TileJSON     string    `json:"tilejson"`
		Tiles        []string  `json:"tiles"`
		MinZoom      int       `json:"minzoom"`
		MaxZoom      int       `json:"maxzoom"`
		Bounds       []float64 `json:"bounds"`
		Center       []float64 `json:"center"`
		Attribution  string    `json:"attribution"`
		VectorLayers []struct {
			ID      string            `json:"id"`
			Fields  map[string]string `json:"fields"`
			MinZoom int               `json:"minzoom"`
			MaxZoom int               `json:"maxzoom"`
		} `json:"vector_layers"`
	}
	if err := json.Unmarshal(w.Body.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.TileJSON != "3.0.0" || len(doc.Tiles) != 1 || doc.Tiles[0] != "https://example.com/tiles/mb/sec-label/{z}/{x}/{y}.mvt?api_key=a%2Bb" ||
		doc.MinZoom != 9 || doc.MaxZoom != 14 || len(doc.Bounds) != 4 || len(doc.Center) != 3 || doc.Attribution == "" {
		t.Errorf("TileJSON %s", w.Body.String())
	}
	if len(doc.VectorLayers) != 1 || doc.VectorLayers[0].ID != "mb_sec_label" || len(doc.VectorLayers[0].Fields) != 7 ||
		doc.VectorLayers[0].Fields["quarter_section"] == "" || doc.VectorLayers[0].MinZoom != 9 {
		t.Errorf("vector_layers %+v", doc.VectorLayers)
	}
	if c := doc.Center; c[0] < doc.Bounds[0] || c[0] > doc.Bounds[2] || c[1] < doc.Bounds[1] || c[1] > doc.Bounds[3] {
		t.Errorf("center %v outside bounds %v", c, doc.Bounds)
	}
	h2 := tile.NewHandler(tile.Options{PublicURL: "https://tiles.example.net/", Generator: tile.NewGenerator(grid.New())})
	if w := serve(t, h2, "/tiles/bc/qtr-unit.json?api_key=k", nil); !strings.Contains(w.Body.String(), `"https://tiles.example.net/bc/qtr-unit/{z}/{x}/{y}.mvt?api_key=k"`) {
		t.Errorf("PublicURL not used: %s", w.Body.String())
	}
}

func BenchmarkGenerate(b *testing.B) {
	ctx := context.Background()
	for _, c := range []struct {
		path string
		z    maptile.Zoom
	}{{"ab/lsd", 14}, {"ab/lsd", 12}, {"ab/lsd", 9}, {"ab/qtr", 12}, {"ab/sec", 12}, {"ab/twp", 6}, {"ab/lsd-label", 14}, {"bc/qtr-unit", 14}} {
		b.Run(strings.ReplaceAll(c.path, "/", "_")+"_z"+strconv.Itoa(int(c.z)), func(b *testing.B) {
			g := tile.NewGenerator(grid.New())
			l := layer(b, c.path)
			pt := calgary
			if l.Region == "bc" {
				pt = orb.Point{-121.25, 49.12}
			}
			tl := maptile.At(pt, c.z)
			var n int
			for b.Loop() {
				d, err := g.Tile(ctx, l, tl)
				if err != nil || d == nil {
					b.Fatal(err)
				}
				n = len(d)
			}
			b.ReportMetric(float64(n), "bytes/tile")
		})
	}
}

// Whatever the path, a tile request is answered without a 500.
func FuzzTileRequest(f *testing.F) {
	h := tile.NewHandler(tile.Options{Generator: tile.NewGenerator(grid.New())})
	mux := api.NewMux()
	mux.Mount(h.Routes()...)
	for _, s := range []string{"ab/sec/12/750/1370.mvt", "ab/sec.json", "bc/qtr-unit/9/80/170.mvt", "x/y/z/1/2.mvt", "ab/sec/99/1/1.mvt", "ag/soils/7/1/1.mvt"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, p string) {
		r, err := http.NewRequest("GET", "http://x/tiles/"+p, nil)
		if err != nil {
			return
		}
		w := httptest.NewRecorder()
		mux.ServeHTTP(w, r)
		if w.Code >= 500 {
			t.Fatalf("%s: %d %s", p, w.Code, w.Body)
		}
	})
}

// BenchmarkGzip compares tile.Gzip (klauspost/compress, level 6) with the
// standard library's default level on the same generated tiles, small
// (ab/lsd at zoom 14) and large (ab/lsd at zoom 12): time in ns/op, and
// the compressed bytes of each, to read as ratios.
func BenchmarkGzip(b *testing.B) {
	ctx := context.Background()
	g := tile.NewGenerator(grid.New())
	for _, z := range []maptile.Zoom{14, 12} {
		d, err := g.Tile(ctx, layer(b, "ab/lsd"), maptile.At(calgary, z))
		if err != nil || d == nil {
			b.Fatal(err)
		}
		zr, err := gzip.NewReader(bytes.NewReader(d))
		if err != nil {
			b.Fatal(err)
		}
		raw, err := io.ReadAll(zr)
		if err != nil {
			b.Fatal(err)
		}
		name := "z" + strconv.Itoa(int(z))
		b.Run(name+"/meridian", func(b *testing.B) {
			var n int
			for b.Loop() {
				n = len(tile.Gzip(raw))
			}
			b.ReportMetric(float64(n), "bytes/tile")
		})
		b.Run(name+"/stdlib", func(b *testing.B) {
			var buf bytes.Buffer
			zw := gzip.NewWriter(&buf)
			for b.Loop() {
				buf.Reset()
				zw.Reset(&buf)
				zw.Write(raw)
				zw.Close()
			}
			b.ReportMetric(float64(buf.Len()), "bytes/tile")
		})
	}
}

// TestAttribution: a grid layer's attribution says how its blocks are
// made: the DLS model, and for NTS the exact grid on NAD27 with the datum
// shift that places it (not "exact" alone: the shift is a 2 m step).
func TestAttribution(t *testing.T) {
	attr := tile.Attribution(grid.New().Sources)
	for path, want := range map[string][]string{
		"ab/sec":      {"DLS grid computed from the survey rules", "Meridian model"},
		"bc/qtr-unit": {"NTS grid", "NAD27", "NTv1", "NAD83"},
	} {
		got := attr(layer(t, path))
		for _, w := range want {
			if !strings.Contains(got, w) {
				t.Errorf("%s: attribution %q does not say %q", path, got, w)
			}
		}
	}
}
