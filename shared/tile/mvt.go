package tile

import (
	"encoding/binary"
	"math"
	"slices"
	"strconv"
	"sync"

	"github.com/paulmach/orb"
	"github.com/paulmach/orb/encoding/mvt"
	"github.com/paulmach/orb/geojson"
)

// marshalLayer writes one layer as a Mapbox Vector Tile (protobuf), the
// same bytes as orb's mvt.Marshal of that layer. orb builds the whole
// protobuf tree (a struct, a pointer and a map entry per value) and then
// marshals it; in a province build that was a sixth of the CPU and much
// of the garbage. This writes the bytes straight from the features with
// buffers reused from tile to tile. ok is false when the layer has a
// geometry or a property value it does not write (a collection, a bound,
// a slice or map value, a Stringer): the caller then uses orb's.
//
// The encoding, from the MVT 2.1 specification and orb's choices (which
// the test holds it to, byte for byte): fields in number order; a
// feature's tags are its properties sorted by key, keys and values
// numbered in order of first use, a value shared when the Go value is
// equal (an int and an int64 are different values); a nil value is the
// string "null"; an ID that is not a non-negative integer is left out.
func marshalLayer(l *mvt.Layer) (b []byte, ok bool) {
	e := encoders.Get().(*layerEncoder)
	defer encoders.Put(e)
	if b, ok = e.marshal(l); ok {
		b = slices.Clone(b)
	}
	return b, ok
}

// marshal is marshalLayer into e's buffer, which the next call reuses.
func (e *layerEncoder) marshal(l *mvt.Layer) ([]byte, bool) {
	return e.marshalKV(l, nil, nil)
}

// marshalKV is marshal for a layer whose features point into base and
// whose properties are those of the Features of fs beside them (base[i]
// is fs[i]'s), not their maps; with base nil, the maps'. The layer's
// features are a subsequence of base, in its order (prepareLayer keeps
// the order).
func (e *layerEncoder) marshalKV(l *mvt.Layer, base []geojson.Feature, fs []Feature) ([]byte, bool) {
	e.reset()
	j := 0
	for _, f := range l.Features {
		if f.Geometry == nil {
			continue
		}
		var keys []string
		var vals []any
		if base != nil {
			for j < len(base) && &base[j] != f {
				j++
			}
			if j == len(base) {
				return nil, false // not one of base: cannot happen
			}
			keys, vals = fs[j].Keys, fs[j].Vals
		}
		if !e.feature(f, base != nil, keys, vals) {
			return nil, false
		}
	}

	// The layer: name (1), features (2, already in e.features), keys (3),
	// values (4), extent (5), version (15).
	body := e.body[:0]
	body = appendString(body, 1, l.Name)
	body = append(body, e.features...)
	for _, k := range e.keys {
		body = appendString(body, 3, k)
	}
	for _, v := range e.values {
		body = appendBytes(body, 4, e.msgs[v.start:v.end])
	}
	body = appendVarintField(body, 5, uint64(l.Extent))
	body = appendVarintField(body, 15, uint64(l.Version))
	e.body = body

	// The tile: the layer as field 3.
	e.out = appendBytes(e.out[:0], 3, body)
	return e.out, true
}

var encoders = sync.Pool{New: func() any {
	return &layerEncoder{keyIndex: map[string]uint32{}, stringIndex: map[string]uint32{}, numberIndex: map[numberKey]uint32{}}
}}

// layerEncoder holds one layer's keys and values and the buffers a tile
// is written in; it is reused, so a tile allocates only its result.
type layerEncoder struct {
	features    []byte // the layer's features, each a field 2
	one         []byte // one feature's fields
	body        []byte // the layer's fields
	out         []byte // the tile
	keys        []string
	keyIndex    map[string]uint32
	values      []value
	stringIndex map[string]uint32    // string values (and nil as "null")
	numberIndex map[numberKey]uint32 // the others
	sorted      []string             // the last feature's keys, sorted
	sortedIndex []uint32             // their indexes in keys, as far as known in this layer
	vals        []any                // a map's values in the order of sorted
	tags        []uint32
	geometry    []uint32
	msgs        []byte // the values' messages, one after another
}

func (e *layerEncoder) reset() {
	e.features = e.features[:0]
	e.keys = e.keys[:0]
	clear(e.keyIndex)
	e.sortedIndex = e.sortedIndex[:0]
	clear(e.vals)
	e.values = e.values[:0]
	// A map keeps the room its largest tile needed, and a low-zoom tile
	// holds far more values than the zoom-14 tiles that follow it: their
	// lookups would miss the cache in a map sized for it.
	if len(e.stringIndex) > maxKeptValues {
		e.stringIndex = map[string]uint32{}
	}
	if len(e.numberIndex) > maxKeptValues {
		e.numberIndex = map[numberKey]uint32{}
	}
	clear(e.stringIndex)
	clear(e.numberIndex)
	e.msgs = e.msgs[:0]
}

// maxKeptValues is how many values a map may have held and still be
// cleared for the next tile rather than made anew.
const maxKeptValues = 4096

// value is one entry of the layer's value table: where its encoded
// message is in msgs.
type value struct{ start, end int }

// numberKey identifies a value that is not a string as orb's map[any]
// does: by Go type and value.
type numberKey struct {
	kind uint8
	n    uint64
}

// Kinds of numberKey, one per Go type a value can have.
const (
	kInt uint8 = iota
	kInt8
	kInt16
	kInt32
	kInt64
	kUint
	kUint8
	kUint16
	kUint32
	kUint64
	kFloat32
	kFloat64
	kBool
)

// feature writes f with its properties: keys and vals when kv is set,
// f.Properties otherwise.
func (e *layerEncoder) feature(f *geojson.Feature, kv bool, keys []string, vals []any) bool {
	g := f.Geometry
	var typ uint64
	e.geometry = e.geometry[:0]
	var x, y int32
	switch g := g.(type) {
	case orb.Point:
		typ = 1
		e.geometry = append(e.geometry, 1<<3|1)
		x, y = e.points(x, y, []orb.Point{g})
	case orb.MultiPoint:
		typ = 1
		e.geometry = append(e.geometry, uint32(len(g))<<3|1)
		x, y = e.points(x, y, g)
	case orb.LineString:
		if len(g) == 0 {
			return false
		}
		typ = 2
		x, y = e.line(x, y, g)
	case orb.MultiLineString:
		typ = 2
		for _, ls := range g {
			if len(ls) == 0 {
				return false
			}
			x, y = e.line(x, y, ls)
		}
	case orb.Ring:
		typ = 3
		if _, _, ok := e.ring(x, y, g); !ok {
			return false
		}
	case orb.Polygon:
		typ = 3
		for _, r := range g {
			var ok bool
			if x, y, ok = e.ring(x, y, r); !ok {
				return false
			}
		}
	case orb.MultiPolygon:
		typ = 3
		for _, p := range g {
			for _, r := range p {
				var ok bool
				if x, y, ok = e.ring(x, y, r); !ok {
					return false
				}
			}
		}
	default:
		return false
	}
	if kv {
		if !e.propertiesKV(keys, vals) {
			return false
		}
	} else if !e.properties(f.Properties) {
		return false
	}

	// The feature: id (1), tags (2), type (3), geometry (4).
	b := e.one[:0]
	if id, ok := featureID(f.ID); ok {
		b = appendVarintField(b, 1, id)
	}
	b = appendPacked(b, 2, e.tags)
	b = appendVarintField(b, 3, typ)
	b = appendPacked(b, 4, e.geometry)
	e.one = b
	e.features = appendBytes(e.features, 2, b)
	return true
}

// points appends the points as parameters of a command, each a
// zigzag-encoded delta from the cursor, and returns the new cursor.
func (e *layerEncoder) points(x, y int32, ps []orb.Point) (int32, int32) {
	for _, p := range ps {
		px, py := int32(p[0]), int32(p[1])
		dx, dy := px-x, py-y
		x, y = px, py
		e.geometry = append(e.geometry, uint32((dx<<1)^(dx>>31)), uint32((dy<<1)^(dy>>31)))
	}
	return x, y
}

// line writes a MoveTo to the first point and a LineTo through the rest.
func (e *layerEncoder) line(x, y int32, ls []orb.Point) (int32, int32) {
	e.geometry = append(e.geometry, 1<<3|1)
	x, y = e.points(x, y, ls[:1])
	e.geometry = append(e.geometry, uint32(len(ls)-1)<<3|2)
	return e.points(x, y, ls[1:])
}

// ring writes a ring without its closing point (ClosePath stands for it)
// and returns the cursor after it; ok is false for an empty ring.
func (e *layerEncoder) ring(x, y int32, r orb.Ring) (_, _ int32, ok bool) {
	if len(r) == 0 {
		return x, y, false
	}
	if r.Closed() {
		r = r[:len(r)-1]
	}
	x, y = e.line(x, y, r)
	e.geometry = append(e.geometry, 1<<3|7)
	return x, y, true
}

// properties sets e.tags to the feature's key and value indexes, keys
// sorted, adding new keys and values to the layer's tables.
//
// The features of a layer mostly have the same keys: when p has the
// previous feature's keys, their sorted order and their indexes are
// reused. Ranging over the map, sorting its keys and looking each up in
// keyIndex was 5% of an agriculture layer's build.
func (e *layerEncoder) properties(p geojson.Properties) bool {
	if !sameKeys(p, e.sorted) {
		e.sorted = e.sorted[:0]
		for k := range p {
			e.sorted = append(e.sorted, k)
		}
		slices.Sort(e.sorted)
		e.sortedIndex = e.sortedIndex[:0]
	}
	e.vals = e.vals[:0]
	for _, k := range e.sorted {
		e.vals = append(e.vals, p[k])
	}
	return e.tagsOf(e.vals)
}

// propertiesKV is properties for keys (sorted and distinct, as a map's
// keys are once sorted) and their values vals: the same tags, without a
// map to range over or look up.
func (e *layerEncoder) propertiesKV(keys []string, vals []any) bool {
	if !slices.Equal(keys, e.sorted) {
		e.sorted = append(e.sorted[:0], keys...)
		e.sortedIndex = e.sortedIndex[:0]
	}
	return e.tagsOf(vals)
}

// tagsOf sets e.tags to the indexes of e.sorted's keys and of vals, the
// value of each.
func (e *layerEncoder) tagsOf(vals []any) bool {
	e.tags = e.tags[:0]
	for i, k := range e.sorted {
		var ki uint32
		if i < len(e.sortedIndex) {
			ki = e.sortedIndex[i]
		} else {
			var ok bool
			if ki, ok = e.keyIndex[k]; !ok {
				ki = uint32(len(e.keys))
				e.keys = append(e.keys, k)
				e.keyIndex[k] = ki
			}
			e.sortedIndex = append(e.sortedIndex, ki)
		}
		vi, ok := e.value(vals[i])
		if !ok {
			return false
		}
		e.tags = append(e.tags, ki, vi)
	}
	return true
}

// sameKeys reports whether p's keys are exactly keys (which are
// distinct).
func sameKeys(p geojson.Properties, keys []string) bool {
	if len(p) != len(keys) {
		return false
	}
	for _, k := range keys {
		if _, ok := p[k]; !ok {
			return false
		}
	}
	return true
}

// value returns the index of v in the layer's value table, adding it when
// new.
func (e *layerEncoder) value(v any) (uint32, bool) {
	var k numberKey
	var bits uint64 // a float's own bits (-0 is 0 in k)
	switch v := v.(type) {
	case nil:
		return e.stringValue("null"), true
	case string:
		return e.stringValue(v), true
	case int:
		k = numberKey{kInt, uint64(v)}
	case int8:
		k = numberKey{kInt8, uint64(v)}
	case int16:
		k = numberKey{kInt16, uint64(v)}
	case int32:
		k = numberKey{kInt32, uint64(v)}
	case int64:
		k = numberKey{kInt64, uint64(v)}
	case uint:
		k = numberKey{kUint, uint64(v)}
	case uint8:
		k = numberKey{kUint8, uint64(v)}
	case uint16:
		k = numberKey{kUint16, uint64(v)}
	case uint32:
		k = numberKey{kUint32, uint64(v)}
	case uint64:
		k = numberKey{kUint64, v}
	case float32:
		bits = uint64(math.Float32bits(v))
		if v == 0 {
			v = 0 // -0 equals 0, as in a map
		}
		k = numberKey{kFloat32, uint64(math.Float32bits(v))}
	case float64:
		bits = math.Float64bits(v)
		if v == 0 {
			v = 0
		}
		k = numberKey{kFloat64, math.Float64bits(v)}
	case bool:
		k = numberKey{kind: kBool}
		if v {
			k.n = 1
		}
	default:
		return 0, false
	}
	nan := (k.kind == kFloat32 || k.kind == kFloat64) && v != v // never equal to itself
	if i, ok := e.numberIndex[k]; ok && !nan {
		return i, true
	}

	// The value message: float (2), double (3), uint (5), sint (6) or
	// bool (7), as orb writes each Go type.
	start := len(e.msgs)
	switch k.kind {
	case kFloat32:
		e.msgs = append(e.msgs, 2<<3|5)
		e.msgs = binary.LittleEndian.AppendUint32(e.msgs, uint32(bits))
	case kFloat64:
		e.msgs = append(e.msgs, 3<<3|1)
		e.msgs = binary.LittleEndian.AppendUint64(e.msgs, bits)
	case kUint, kUint8, kUint16, kUint32, kUint64:
		e.msgs = appendVarintField(e.msgs, 5, k.n)
	case kBool:
		e.msgs = appendVarintField(e.msgs, 7, k.n)
	default: // the signed integers
		n := int64(k.n)
		switch k.kind {
		case kInt8:
			n = int64(int8(k.n))
		case kInt16:
			n = int64(int16(k.n))
		case kInt32:
			n = int64(int32(k.n))
		}
		e.msgs = appendVarintField(e.msgs, 6, uint64(n<<1)^uint64(n>>63))
	}
	i := uint32(len(e.values))
	e.values = append(e.values, value{start, len(e.msgs)})
	e.numberIndex[k] = i
	return i, true
}

// stringValue returns the index of string value s, adding it when new.
func (e *layerEncoder) stringValue(s string) uint32 {
	if i, ok := e.stringIndex[s]; ok {
		return i
	}
	start := len(e.msgs)
	e.msgs = appendString(e.msgs, 1, s)
	i := uint32(len(e.values))
	e.values = append(e.values, value{start, len(e.msgs)})
	e.stringIndex[s] = i
	return i
}

// featureID is an MVT feature ID from a GeoJSON one, as orb converts it:
// an integer (or a float or string holding one) that is not negative.
func featureID(id any) (uint64, bool) {
	var n int
	switch id := id.(type) {
	case int:
		n = id
	case int8:
		n = int(id)
	case int16:
		n = int(id)
	case int32:
		n = int(id)
	case int64:
		n = int(id)
	case uint:
		return uint64(id), true
	case uint8:
		return uint64(id), true
	case uint16:
		return uint64(id), true
	case uint32:
		return uint64(id), true
	case uint64:
		return id, true
	case float32:
		n = int(id)
	case float64:
		n = int(id)
	case string:
		var err error
		if n, err = strconv.Atoi(id); err != nil {
			return 0, false
		}
	default:
		return 0, false
	}
	return uint64(n), n >= 0
}

func appendVarintField(b []byte, field int, v uint64) []byte {
	return binary.AppendUvarint(append(b, byte(field<<3)), v)
}

func appendBytes(b []byte, field int, v []byte) []byte {
	b = binary.AppendUvarint(append(b, byte(field<<3|2)), uint64(len(v)))
	return append(b, v...)
}

func appendString(b []byte, field int, s string) []byte {
	b = binary.AppendUvarint(append(b, byte(field<<3|2)), uint64(len(s)))
	return append(b, s...)
}

// appendPacked writes a packed repeated uint32 field; nothing when empty.
func appendPacked(b []byte, field int, vs []uint32) []byte {
	if len(vs) == 0 {
		return b
	}
	n := 0
	for _, v := range vs {
		n += uvarintLen(uint64(v))
	}
	b = binary.AppendUvarint(append(b, byte(field<<3|2)), uint64(n))
	for _, v := range vs {
		b = binary.AppendUvarint(b, uint64(v))
	}
	return b
}

func uvarintLen(v uint64) int {
	n := 1
	for v >= 0x80 {
		v >>= 7
		n++
	}
	return n
}
