package tile

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/cespare/xxhash/v2"
	"github.com/klauspost/compress/gzip"

	"github.com/paulmach/orb"
	"github.com/paulmach/orb/maptile"

	"meridian/shared/api"
	"meridian/shared/apierr"
	"meridian/shared/survey"
)

// Archive is a built tile archive of one layer (package archive reads
// PMTiles); Tile returns the stored, gzip-compressed MVT.
type Archive interface {
	Tile(ctx context.Context, z uint8, x, y uint32) (data []byte, ok bool, err error)
}

// An EncodedArchive is an Archive that says, with each tile, how the bytes
// it returns are encoded: "gzip", or "" for uncompressed MVT, from the header
// of the archive version the tile was read from (package archive's Set).
// The Handler gzips uncompressed tiles and checks gzip ones before serving;
// an Archive that is not an EncodedArchive is taken to store gzip.
type EncodedArchive interface {
	EncodedTile(ctx context.Context, z uint8, x, y uint32) (data []byte, encoding string, ok bool, err error)
}

// ArchiveInfo is what a layer's TileJSON takes from its built archive.
type ArchiveInfo struct {
	Bounds      orb.Bound // the data's extent; zero: the layer's region
	Attribution string    // the data's sources; "": the handler's Attribution
}

// A Describer is an Archive that says what it holds (package archive's
// readers do, from the archive's header and metadata).
type Describer interface {
	Info(ctx context.Context) (ArchiveInfo, error)
}

// Archives finds the built archive of a layer: (nil, nil) when there is
// none.
type Archives interface {
	Archive(ctx context.Context, l Layer) (Archive, error)
}

// Options configure a Handler.
type Options struct {
	// Generator makes survey grid tiles on demand where no archive is
	// built; nil: archives only.
	Generator *Generator
	// Archives are the built archives; nil: none.
	Archives Archives
	// CacheBytes bounds the cache of generated tiles (default 64 MiB).
	CacheBytes int
	// PublicURL is {tiles_url} as clients reach it (a CDN), written into
	// TileJSON; empty: the request's own scheme, host and /tiles.
	PublicURL string
	// Attribution returns a layer's attribution (data sources); nil: the
	// layer's title.
	Attribution func(Layer) string
}

// Handler serves tiles and TileJSON under /tiles.
type Handler struct {
	o      Options
	cache  *lru
	flight flight
	// checked remembers archive tiles whose gzip was checked, by hash.
	checked checkedTiles
}

// NewHandler returns a Handler.
func NewHandler(o Options) *Handler {
	if o.CacheBytes <= 0 {
		o.CacheBytes = 64 << 20
	}
	return &Handler{o: o, cache: newLRU(o.CacheBytes)}
}

// Invalidate drops the generated tiles cached (the grid data changed).
func (h *Handler) Invalidate() { h.cache.clear() }

// Cache lifetimes: tiles change only when data is rebuilt; TileJSON carries
// the caller's key, so shared caches key it by the full URL.
const (
	tileCacheControl     = "public, max-age=86400, stale-while-revalidate=604800"
	tileJSONCacheControl = "public, max-age=300"
	// ContentType is the registered media type of Mapbox Vector Tiles.
	ContentType = "application/vnd.mapbox-vector-tile"
)

// Routes are the maps product's routes. The mux patterns end in whole-segment
// wildcards ({layer} holds "sec.json", {y} holds "5461.mvt"); the document
// writes the paths clients call, with the extension in the template.
func (h *Handler) Routes() []api.Route {
	region := api.Param{Name: "region", In: "path", Required: true, Description: "ab, bc, sk, mb, on (survey grids); ag; energy",
		Schema: map[string]any{"type": "string", "enum": []string{"ab", "bc", "sk", "mb", "on", "ag", "energy"}}, Example: "ab"}
	return []api.Route{
		{
			Pattern: "GET /tiles/{region}/{layer}",
			Handler: api.Func(h.serveTileJSON),
			Op: api.Operation{
				Tag: "maps", Summary: "TileJSON 3.0.0 of a layer: tile URL with your key, source layer, zooms, fields, bounds",
				Description: "For example /tiles/ab/sec.json, /tiles/ab/sec-label.json, /tiles/ag/soils.json. The key may be sent as ?api_key= (map libraries cannot send headers); the tile URL in the answer then carries it too.",
				Path:        "/tiles/{region}/{layer}.json",
				Params: []api.Param{region, {Name: "layer", In: "path", Required: true, Description: "layer name (twp, sec, qtr-unit-label, soils, ...); the path adds .json",
					Example: "sec"}},
				Errors:   []int{403, 404},
				QueryKey: true,
			},
		},
		{
			Pattern: "GET /tiles/{region}/{layer}/{z}/{x}/{y}",
			Handler: api.Func(h.serveTile),
			Op: api.Operation{
				Tag: "maps", Summary: "One MVT tile (gzip when accepted)",
				Description: "403 archive_not_published for a layer outside the published list. The key may be sent as ?api_key= (map libraries cannot send headers).",
				Path:        "/tiles/{region}/{layer}/{z}/{x}/{y}.mvt",
				Params: []api.Param{region,
					{Name: "layer", In: "path", Required: true, Description: "twp, sec, qtr, lsd, series, block, unit, qtr-unit, con, lot, each also with -label; or an agriculture or energy archive",
						Example: "sec"},
					{Name: "z", In: "path", Required: true, Schema: map[string]any{"type": "integer", "minimum": 0, "maximum": 22}, Example: 10},
					{Name: "x", In: "path", Required: true, Description: "tile column, 0 to 2^z-1", Schema: map[string]any{"type": "integer", "minimum": 0}, Example: 187},
					{Name: "y", In: "path", Required: true, Description: "tile row, 0 to 2^z-1 (XYZ scheme, north at 0); the path adds .mvt", Schema: map[string]any{"type": "integer", "minimum": 0}, Example: 342}},
				ContentType: ContentType,
				NoContent:   "a tile with no features, or a zoom outside the layer's range (MapLibre draws nothing there and overzooms past maxzoom)",
				Errors:      []int{400, 403, 404, 503},
				QueryKey:    true,
			},
		},
	}
}

// layerOf finds the published layer or refuses with 403.
func layerOf(region, name string) (Layer, error) {
	l, ok := Lookup(region, name)
	if !ok {
		return Layer{}, apierr.Forbiddenf("archive_not_published", "'%s/%s' is not a published tile layer: survey grids are {ab,bc,sk,mb}/{twp,sec,qtr,lsd}, bc/{series,block,unit,qtr-unit} and on/{twp,con,lot}, each also with -label; agriculture and energy archives are under ag/ and energy/", region, name)
	}
	return l, nil
}

func (h *Handler) serveTileJSON(w http.ResponseWriter, r *http.Request) error {
	name, ok := strings.CutSuffix(r.PathValue("layer"), ".json")
	if !ok {
		return apierr.NotFoundf("no such path: TileJSON is at /tiles/{region}/{layer}.json, tiles at /tiles/{region}/{layer}/{z}/{x}/{y}.mvt")
	}
	l, err := layerOf(r.PathValue("region"), name)
	if err != nil {
		return err
	}
	attribution := l.Title
	if h.o.Attribution != nil {
		attribution = h.o.Attribution(l)
	}
	var info ArchiveInfo
	if !l.Survey() {
		a, err := h.archive(r.Context(), l)
		if err != nil {
			return err
		}
		if a == nil {
			return notBuilt(l)
		}
		if d, ok := a.(Describer); ok {
			if info, err = d.Info(r.Context()); err != nil {
				return err
			}
		}
	}
	if info.Attribution != "" {
		attribution = info.Attribution
	}
	doc := TileJSON(l, h.baseURL(r), r.URL.Query().Get("api_key"), attribution, info.Bounds)
	w.Header().Set("Cache-Control", tileJSONCacheControl)
	varyOnKey(w.Header(), r)
	api.WriteJSON(w, http.StatusOK, doc)
	return nil
}

func notBuilt(l Layer) error {
	if l.Survey() {
		return apierr.NotFoundf("the %s archive is published but not built on this server: run 'meridian build-tiles %s'", l.Path(), l.Path())
	}
	return apierr.NotFoundf("the %s archive is published but not built on this server: agriculture and energy archives are built from the report data", l.Path())
}

// baseURL is {tiles_url} for TileJSON.
func (h *Handler) baseURL(r *http.Request) string {
	if h.o.PublicURL != "" {
		return strings.TrimSuffix(h.o.PublicURL, "/")
	}
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	if p := r.Header.Get("X-Forwarded-Proto"); p == "https" || p == "http" {
		scheme = p
	}
	return scheme + "://" + r.Host + "/tiles"
}

func (h *Handler) archive(ctx context.Context, l Layer) (Archive, error) {
	if h.o.Archives == nil {
		return nil, nil
	}
	return h.o.Archives.Archive(ctx, l)
}

// maxZoom bounds the zooms of tile requests (the spec's layers reach 22).
const maxZoom = 22

func parseTile(zs, xs, ys string) (maptile.Tile, error) {
	ys, ok := strings.CutSuffix(ys, ".mvt")
	if !ok {
		return maptile.Tile{}, apierr.Invalidf("invalid_parameter", "tiles end in .mvt: /tiles/{region}/{layer}/{z}/{x}/{y}.mvt")
	}
	return ParseTile(zs, xs, ys)
}

// ParseTile reads a tile address's zoom, column and row: whole numbers, z
// 0 to 22 and x and y below 2^z, or a 400 invalid_parameter saying which.
func ParseTile(zs, xs, ys string) (maptile.Tile, error) {
	z, errZ := strconv.ParseUint(zs, 10, 8)
	x, errX := strconv.ParseUint(xs, 10, 32)
	y, errY := strconv.ParseUint(ys, 10, 32)
	if errZ != nil || errX != nil || errY != nil || z > maxZoom {
		return maptile.Tile{}, apierr.Invalidf("invalid_parameter", "'%s/%s/%s' is not a tile: z is 0 to %d, x and y whole numbers", zs, xs, ys, maxZoom)
	}
	if n := uint64(1) << z; x >= n || y >= n {
		return maptile.Tile{}, apierr.Invalidf("invalid_parameter", "tile %d/%d/%d does not exist: x and y run 0 to %d at zoom %d", z, x, y, (uint64(1)<<z)-1, z)
	}
	return maptile.New(uint32(x), uint32(y), maptile.Zoom(z)), nil
}

func (h *Handler) serveTile(w http.ResponseWriter, r *http.Request) error {
	t, err := parseTile(r.PathValue("z"), r.PathValue("x"), r.PathValue("y"))
	if err != nil {
		return err
	}
	l, err := layerOf(r.PathValue("region"), r.PathValue("layer"))
	if err != nil {
		return err
	}
	data, sum, err := h.tile(r.Context(), l, t)
	if err == nil {
		err = writeTile(w, r, data, sum)
	}
	if err != nil {
		// Nothing of a failed tile may be cached, by the client or a CDN.
		w.Header().Set("Cache-Control", "no-store")
		return err
	}
	return nil
}

// Tile returns layer l's tile t, gzip-compressed, from its archive when one
// is built, else generated (survey layers) through the cache; nil when the
// tile is empty.
func (h *Handler) Tile(ctx context.Context, l Layer, t maptile.Tile) ([]byte, error) {
	data, _, err := h.tile(ctx, l, t)
	return data, err
}

// tile is Tile, with the FNV-1a hash of the bytes of an archive tile (its
// ETag's), computed to check it; 0 when not computed.
func (h *Handler) tile(ctx context.Context, l Layer, t maptile.Tile) ([]byte, uint64, error) {
	if int(t.Z) < l.MinZoom || int(t.Z) > l.MaxZoom {
		return nil, 0, nil
	}
	a, err := h.archive(ctx, l)
	if err != nil {
		return nil, 0, err
	}
	if a != nil {
		return h.archiveTile(ctx, a, l, t)
	}
	if !l.Survey() || h.o.Generator == nil {
		return nil, 0, notBuilt(l)
	}
	key := l.Path() + "/" + strconv.Itoa(int(t.Z)) + "/" + strconv.Itoa(int(t.X)) + "/" + strconv.Itoa(int(t.Y))
	if data, ok := h.cache.get(key); ok {
		return data, 0, nil
	}
	data, err := h.flight.do(key, func() ([]byte, error) {
		// Others may wait for this tile: a caller that hangs up must not
		// cancel it for them.
		data, err := h.o.Generator.Tile(context.WithoutCancel(ctx), l, t)
		if err == nil {
			h.cache.put(key, data)
		}
		return data, err
	})
	return data, 0, err
}

// maxTileBytes bounds a tile decompressed (MVT tiles are kilobytes; the
// spec's limit for a tile is 500 KiB): a larger one is not served.
const maxTileBytes = 16 << 20

// archiveTile reads tile t of layer l from a and returns it gzipped and
// checked, with the hash of the bytes returned (0: not computed): a gzip
// tile must decompress whole (its CRC-32 and length trailer match), an
// uncompressed one is gzipped here. A tile that fails is a 503
// upstream_unavailable: the archive cannot be read as it is, and the answer
// must not be cached as the tile. Bytes that checked once (the same hash)
// are not decompressed again: see checkedTiles.
func (h *Handler) archiveTile(ctx context.Context, a Archive, l Layer, t maptile.Tile) ([]byte, uint64, error) {
	var data []byte
	encoding := "gzip"
	var err error
	if ea, ok := a.(EncodedArchive); ok {
		data, encoding, _, err = ea.EncodedTile(ctx, uint8(t.Z), t.X, t.Y)
	} else {
		data, _, err = a.Tile(ctx, uint8(t.Z), t.X, t.Y)
	}
	if err != nil || len(data) == 0 {
		return nil, 0, err
	}
	switch encoding {
	case "gzip":
		sum := etagSum(data)
		if !h.checked.has(sum) {
			if err := checkGzip(data); err != nil {
				return nil, 0, apierr.Unavailablef(fmt.Errorf("tile: %s %d/%d/%d: %w", l.Path(), t.Z, t.X, t.Y, err), "the %s archive cannot be read at the moment; try again later", l.Path())
			}
			h.checked.add(sum)
		}
		return data, sum, nil
	case "":
		return Gzip(data), 0, nil
	}
	return nil, 0, apierr.Unavailablef(fmt.Errorf("tile: %s: tile encoding %q is not supported", l.Path(), encoding), "the %s archive cannot be read at the moment; try again later", l.Path())
}

// gzipReaders reuse decompressors (each holds a 32 KiB window) across
// checks.
var gzipReaders sync.Pool

// checkGzip decompresses data into nothing, up to maxTileBytes: it is good
// when the whole member decompresses and its CRC-32 and length trailer match.
func checkGzip(data []byte) error {
	zr, _ := gzipReaders.Get().(*gzip.Reader)
	var err error
	if zr == nil {
		zr, err = gzip.NewReader(bytes.NewReader(data))
	} else {
		err = zr.Reset(bytes.NewReader(data))
	}
	if err != nil {
		return err
	}
	defer gzipReaders.Put(zr)
	n, err := io.Copy(io.Discard, io.LimitReader(zr, maxTileBytes+1))
	if err != nil {
		return err
	}
	if n > maxTileBytes {
		return fmt.Errorf("more than %d bytes decompressed", maxTileBytes)
	}
	return nil
}

// gunzip decompresses a whole gzip member, checking its trailer, up to
// maxTileBytes.
func gunzip(data []byte) ([]byte, error) {
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		return nil, err
	}
	raw, err := io.ReadAll(io.LimitReader(zr, maxTileBytes+1))
	if err != nil {
		return nil, err
	}
	if len(raw) > maxTileBytes {
		return nil, fmt.Errorf("more than %d bytes decompressed", maxTileBytes)
	}
	return raw, nil
}

// WriteTile answers 204 for an empty tile, 304 when the client holds it,
// else the tile, gzip passed through when accepted. data is gzip that
// decompresses (checked by Tile); the cache headers are set only once the
// body to send is in hand, so a failure leaves none behind.
func WriteTile(w http.ResponseWriter, r *http.Request, data []byte) error {
	return writeTile(w, r, data, 0)
}

// writeTile is WriteTile given the ETag's hash of data when known (not 0).
func writeTile(w http.ResponseWriter, r *http.Request, data []byte, sum uint64) error {
	hd := w.Header()
	if len(data) == 0 {
		hd["Cache-Control"] = tileCacheControlValue
		hd["Vary"] = varyAcceptEncoding
		varyOnKey(hd, r)
		w.WriteHeader(http.StatusNoContent)
		return nil
	}
	body, encoding := data, "gzip"
	if !acceptsGzip(r) {
		raw, err := gunzip(data)
		if err != nil {
			return err
		}
		body, encoding = raw, ""
	}
	if sum == 0 {
		sum = etagSum(data)
	}
	etag := etagOf(sum)
	hd["Cache-Control"] = tileCacheControlValue
	hd["Vary"] = varyAcceptEncoding
	varyOnKey(hd, r)
	hd["Etag"] = []string{etag}
	if match := r.Header.Get("If-None-Match"); match != "" && strings.Contains(match, etag) {
		w.WriteHeader(http.StatusNotModified)
		return nil
	}
	hd["Content-Type"] = contentTypeValue
	if encoding != "" {
		hd["Content-Encoding"] = gzipEncodingValue
	}
	hd.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(http.StatusOK)
	w.Write(body)
	return nil
}

// The values of the headers every tile answer carries, set without
// canonicalising their names or allocating (the names are canonical). Each
// slice has no spare capacity, so a later Header.Add (varyOnKey) appends to
// a copy and never to these.
var (
	tileCacheControlValue = []string{tileCacheControl}
	varyAcceptEncoding    = []string{"Accept-Encoding"}
	contentTypeValue      = []string{ContentType}
	gzipEncodingValue     = []string{"gzip"}
)

// varyOnKey adds X-API-Key to Vary when the caller sent its key in that
// header: the answer is public (a CDN may keep it), but a shared cache must
// not give it to a caller without the key. A key in the query string is
// part of the URL, which caches key on anyway.
func varyOnKey(hd http.Header, r *http.Request) {
	if r.Header.Get("X-API-Key") != "" {
		hd.Add("Vary", "X-API-Key")
	}
}

func acceptsGzip(r *http.Request) bool {
	for _, part := range strings.Split(r.Header.Get("Accept-Encoding"), ",") {
		coding, q, _ := strings.Cut(strings.TrimSpace(part), ";")
		if strings.EqualFold(strings.TrimSpace(coding), "gzip") || strings.TrimSpace(coding) == "*" {
			return strings.ReplaceAll(strings.TrimSpace(q), " ", "") != "q=0"
		}
	}
	return false
}

// ETag is a tile's entity tag: a hash of its bytes, so a tile has the same
// tag generated or read from an archive, here or behind a CDN.
func ETag(data []byte) string { return etagOf(etagSum(data)) }

// etagSum is the xxHash64 of data, never 0 (0 is taken as 1). FNV-1a, a
// byte at a time, was 8.8% of a full-size agriculture tile's server CPU
// (tiles of about 6 KB); xxHash reads 8 bytes at a time.
func etagSum(data []byte) uint64 {
	return max(xxhash.Sum64(data), 1)
}

// etagOf is the ETag of a tile whose hash is sum: its 16 hex digits, quoted.
func etagOf(sum uint64) string {
	var b [18]byte
	b[0], b[17] = '"', '"'
	var be [8]byte
	binary.BigEndian.PutUint64(be[:], sum)
	hex.Encode(b[1:17], be[:])
	return string(b[:])
}

// checkedSlots is the size of checkedTiles' table: 16,384 tiles (128 KiB).
const checkedSlots = 1 << 14

// checkedTiles remembers the hashes of archive tiles whose gzip checked, so
// that a tile served again is not decompressed again: a table of hashes
// indexed by their low bits, where a newer tile takes the slot of an older
// one (which is then checked again when next served). Tiles are immutable
// in a version of an archive; bytes that hash alike are taken to be the
// same bytes (64 bits: a chance of one in 2^64 per pair).
type checkedTiles struct {
	slots [checkedSlots]atomic.Uint64
}

func (c *checkedTiles) has(sum uint64) bool {
	return c.slots[sum%checkedSlots].Load() == sum
}

func (c *checkedTiles) add(sum uint64) { c.slots[sum%checkedSlots].Store(sum) }

// flight runs one generation per key at a time; callers of a key in
// progress wait for its result.
type flight struct {
	mu    sync.Mutex
	calls map[string]*call
	// joined, when set (tests), is called when a caller is about to wait
	// for a call in progress.
	joined func(key string)
}

type call struct {
	done chan struct{}
	data []byte
	err  error
}

func (f *flight) do(key string, fn func() ([]byte, error)) ([]byte, error) {
	f.mu.Lock()
	if c, ok := f.calls[key]; ok {
		f.mu.Unlock()
		if f.joined != nil {
			f.joined(key)
		}
		<-c.done
		return c.data, c.err
	}
	if f.calls == nil {
		f.calls = map[string]*call{}
	}
	c := &call{done: make(chan struct{})}
	f.calls[key] = c
	f.mu.Unlock()
	// If fn panics, the waiters get an error and the key is freed before
	// the panic goes on to the request's recovery (which logs its stack,
	// still intact: nothing here recovers it); otherwise they would wait
	// for ever, and so would every later request for the tile.
	returned := false
	defer func() {
		if !returned {
			c.data, c.err = nil, fmt.Errorf("tile: generating %s failed (panic)", key)
		}
		// The key goes before the waiters are released, so none of them
		// asking again can join this finished call.
		f.mu.Lock()
		delete(f.calls, key)
		f.mu.Unlock()
		close(c.done)
	}()
	c.data, c.err = fn()
	returned = true
	return c.data, c.err
}

// TileJSON is the TileJSON 3.0.0 document of layer l, its tile URL under
// base carrying key, over bounds (zero: the layer's region).
func TileJSON(l Layer, base, key, attribution string, bounds orb.Bound) map[string]any {
	if bounds.IsZero() {
		bounds = l.Bounds
	}
	tiles := base + "/" + l.Path() + "/{z}/{x}/{y}.mvt"
	if key != "" {
		tiles += "?api_key=" + url.QueryEscape(key)
	}
	maxZ := min(l.MaxZoom, MaxDataZoom)
	fields := map[string]string{}
	for _, f := range l.Fields {
		fields[f.Name] = f.Description
	}
	c := bounds.Center()
	return map[string]any{
		"tilejson":    "3.0.0",
		"name":        l.Path(),
		"description": l.Title,
		"attribution": attribution,
		"scheme":      "xyz",
		"tiles":       []string{tiles},
		"minzoom":     l.MinZoom,
		"maxzoom":     maxZ,
		"bounds":      []float64{survey.Round6(bounds.Min[0]), survey.Round6(bounds.Min[1]), survey.Round6(bounds.Max[0]), survey.Round6(bounds.Max[1])},
		"center":      []float64{survey.Round6(c[0]), survey.Round6(c[1]), float64(max(l.MinZoom, min(maxZ, 6)))},
		"vector_layers": []map[string]any{{
			"id":          l.SourceLayer,
			"description": l.Title,
			"minzoom":     l.MinZoom,
			"maxzoom":     maxZ,
			"fields":      fields,
		}},
	}
}
