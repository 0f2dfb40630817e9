package gridindex

import (
	"encoding/binary"
	"sort"
	"sync/atomic"
	"unsafe"

	"github.com/paulmach/orb"
	"github.com/paulmach/orb/planar"

	"meridian/shared/lld"
)

// block is one block of a page as the cache keeps it: the inflated bytes
// of its records and, per record, where it starts, its key (sharing the
// bytes) and its box. A record is decoded (location, polygon) only when a
// lookup needs it, so a miss costs one inflate and one pass without
// allocating per record, and a cached DLS section weighs about 2.2 KB
// instead of the ~13 KB its decoded records took.
type block struct {
	id     uint64   // its cache key (blockKey): its records are cached under it
	raw    []byte   // immutable once scanned: keys point into it
	offs   []uint32 // where each record starts; its key first
	slots  []uint16 // open-addressing table of keys: record index + 1, 0 empty (nil when placed)
	bounds []box

	// dls, when placed (every record is a DLS township, section, quarter
	// or LSD of one block: a township with its sections, or a section's
	// quarters and LSDs), is each record's index + 1 by its place
	// (dlsPlace): a lookup by key finds its record without hashing the
	// key or probing slots, in the block's own bytes, two cache misses
	// fewer on a cold block.
	dls    [dlsPlaces]uint8
	placed bool

	kinds atomic.Pointer[[]kind] // parsed on first use (Within, Nearest, Containing)
}

// dlsPlaces are a DLS block's places: the township (0), sections 1-36,
// quarters NE, NW, SW, SE (37-40), LSDs 1-16 (41-56).
const dlsPlaces = 57

// dlsPlace returns l's place in its block, or false for a unit no place
// holds (a half section, another system).
func dlsPlace(l lld.Location) (int, bool) {
	if l.System != lld.DLS {
		return 0, false
	}
	switch l.Unit {
	case lld.Township:
		return 0, true
	case lld.Section:
		return int(l.Section), l.Section >= 1 && l.Section <= 36
	case lld.QuarterSection:
		return 36 + int(l.Aliquot), l.Aliquot.IsQuarter()
	case lld.LSD:
		return 40 + int(l.LSD), l.LSD >= 1 && l.LSD <= 16
	}
	return 0, false
}

// keyPlace returns the place of a DLS key as Location.String writes it
// (24-1-W5, 10-24-1-W5, NE-10-24-1-W5, 6-10-24-1-W5), from its first part
// and its number of parts, and the key past its first part (the township
// for a section's, the section for a quarter's or an LSD's), or false.
func keyPlace(key string) (place int, rest string, ok bool) {
	dashes, first := 0, -1
	for i := 0; i < len(key); i++ {
		if key[i] == '-' {
			if first < 0 {
				first = i
			}
			dashes++
		}
	}
	if first < 1 {
		return 0, "", false
	}
	head, rest := key[:first], key[first+1:]
	num := 0
	for i := 0; i < len(head); i++ {
		c := head[i]
		if c < '0' || c > '9' || len(head) > 2 {
			num = -1
			break
		}
		num = num*10 + int(c-'0')
	}
	switch {
	case dashes == 2:
		return 0, key, true
	case dashes == 3 && num >= 1 && num <= 36:
		return num, rest, true
	case dashes == 4 && num >= 1 && num <= 16:
		return 40 + num, rest, true
	case dashes == 4:
		for a := lld.NE; a <= lld.SE; a++ {
			if head == a.String() {
				return 36 + int(a), rest, true
			}
		}
	}
	return 0, "", false
}

// placeDLS fills p.dls when every record is a DLS one of the same
// township (the township and its sections) or the same section (its
// quarters and LSDs), each at its own place.
func (p *block) placeDLS() {
	n := p.len()
	if n == 0 || n >= 255 {
		return
	}
	var t [dlsPlaces]uint8
	group := ""
	for i := range n {
		place, rest, ok := keyPlace(p.key(i))
		if !ok || t[place] != 0 {
			return
		}
		if place == 0 { // the township: its sections' rest is its key
			rest = p.key(i)
		}
		if group == "" {
			group = rest
		} else if rest != group {
			return
		}
		t[place] = uint8(i + 1)
	}
	p.dls, p.placed = t, true
}

// findDLS returns the index of l's record (whose key is key) by its
// place, when p has its places; else as find does.
func (p *block) findDLS(l lld.Location, key string) (int, bool) {
	if p.placed {
		if place, ok := dlsPlace(l); ok {
			v := p.dls[place]
			if v == 0 {
				return 0, false
			}
			i := int(v - 1)
			return i, p.key(i) == key // the block is one township's or section's: l's, if its key says so
		}
	}
	return p.find(key)
}

func (p *block) len() int { return len(p.offs) }

// box is a record's bounding box in the format's own integers (degrees ×
// coordScale, as the file stores them), half the bytes of an orb.Bound:
// a province's index held whole has millions of records, and every byte
// of a record's tables is heap the collector works against (with
// Alberta's index held, the 32 bytes a record this and reading the
// centroid from the record save were 170 MiB of a server's heap). Its
// methods scale each coordinate as decoding a record does, so they answer
// exactly as the orb.Bound of the decoded record would.
type box struct{ minX, minY, maxX, maxY int32 }

// emptyBox is orb's bound of a geometry without points (emptyBound).
var emptyBox = box{int32(emptyBound.Min[0] * coordScale), int32(emptyBound.Min[1] * coordScale), int32(emptyBound.Max[0] * coordScale), int32(emptyBound.Max[1] * coordScale)}

func (b box) bound() orb.Bound {
	return orb.Bound{
		Min: orb.Point{float64(b.minX) / coordScale, float64(b.minY) / coordScale},
		Max: orb.Point{float64(b.maxX) / coordScale, float64(b.maxY) / coordScale},
	}
}

// contains is orb.Bound.Contains on b.bound(), comparison for comparison
// (a NaN coordinate is contained, as orb says).
func (b box) contains(pt orb.Point) bool {
	if pt[1] < float64(b.minY)/coordScale || float64(b.maxY)/coordScale < pt[1] {
		return false
	}
	return !(pt[0] < float64(b.minX)/coordScale || float64(b.maxX)/coordScale < pt[0])
}

// centroid returns record i's centroid, read from its header.
func (p *block) centroid(i int) (orb.Point, error) {
	d := decoder{b: p.raw[p.offs[i]:]}
	d.b = d.b[d.count(1):] // the key
	d.byte1()              // province
	d.byte1()              // flags
	cx, cy := d.varint(), d.varint()
	return orb.Point{float64(cx) / coordScale, float64(cy) / coordScale}, d.err
}

// record decodes record i.
func (p *block) record(i int) (Record, error) {
	d := decoder{b: p.raw[p.offs[i]:]}
	return decodeRecord(&d)
}

// recordOf decodes record i, whose key is l's: l is not parsed again.
func (p *block) recordOf(i int, l lld.Location) (Record, error) {
	d := decoder{b: p.raw[p.offs[i]:]}
	return decodeRecordAt(&d, l)
}

// key returns record i's key, sharing the block's bytes.
func (p *block) key(i int) string {
	b := p.raw[p.offs[i]:]
	n, k := binary.Uvarint(b) // checked by scanPage
	if n == 0 {
		return ""
	}
	return unsafe.String(&b[k], int(n))
}

// records decodes every record, in key order.
func (p *block) records() ([]Record, error) {
	out := make([]Record, p.len())
	for i := range out {
		r, err := p.record(i)
		if err != nil {
			return nil, err
		}
		out[i] = r
	}
	return out, nil
}

// find returns the index of key, or false: one or two probes of the
// block's hash table (a binary search over the keys took ten comparisons,
// each a cache miss on a cold block).
func (p *block) find(key string) (int, bool) {
	if p.slots == nil {
		i := sort.Search(p.len(), func(i int) bool { return p.key(i) >= key })
		return i, i < p.len() && p.key(i) == key
	}
	mask := uint32(len(p.slots) - 1)
	for h := keyHash(key) & mask; ; h = (h + 1) & mask {
		v := p.slots[h]
		if v == 0 {
			return 0, false
		}
		if i := int(v - 1); p.key(i) == key {
			return i, true
		}
	}
}

// keyHash is FNV-1a.
func keyHash(s string) uint32 {
	h := uint32(2166136261)
	for i := 0; i < len(s); i++ {
		h = (h ^ uint32(s[i])) * 16777619
	}
	return h
}

// hashKeys builds the key table: twice as many slots as records, so a
// probe rarely goes past the second slot. Blocks of 65,535 records or more
// are searched by bisection instead.
func (p *block) hashKeys() {
	n := p.len()
	if n == 0 || n >= 1<<16-1 {
		return
	}
	size := 1
	for size < 2*n {
		size <<= 1
	}
	p.slots = make([]uint16, size)
	mask := uint32(size - 1)
	for i := range n {
		h := keyHash(p.key(i)) & mask
		for p.slots[h] != 0 {
			h = (h + 1) & mask
		}
		p.slots[h] = uint16(i + 1)
	}
}

// kind is a record's system and unit.
type kind struct {
	sys  lld.System
	unit lld.Unit
}

// kindsOf returns the system and unit of each record, parsing the keys
// once.
func (p *block) kindsOf() ([]kind, error) {
	if k := p.kinds.Load(); k != nil {
		return *k, nil
	}
	kinds := make([]kind, p.len())
	for i := range kinds {
		l, err := lld.Parse(p.key(i))
		if err != nil {
			return nil, errCorrupt
		}
		kinds[i] = kind{l.System, l.Unit}
	}
	p.kinds.Store(&kinds)
	return kinds, nil
}

// contains reports whether record i's polygon contains pt, as
// planar.PolygonContains (MultiPolygonContains) says on the decoded
// record, boundary included, without building the record: each ring is
// decoded into *scratch, reused from ring to ring. A record without a
// polygon contains nothing.
func (p *block) contains(i int, pt orb.Point, scratch *[]orb.Point) (bool, error) {
	return p.containsOff(i, pt, scratch, 0)
}

// containsOff is contains, except that a point within margin degrees of
// an edge of the record's rings is not in it (margin 0: an edge is in):
// what a caller that must not decide a point on a shared edge asks.
func (p *block) containsOff(i int, pt orb.Point, scratch *[]orb.Point, margin float64) (bool, error) {
	d := decoder{b: p.raw[p.offs[i]:]}
	d.b = d.b[d.count(1):] // the key
	d.byte1()              // province
	flags := d.byte1()
	px, py := d.varint(), d.varint()
	d.uvarint() // accuracy
	if d.err != nil || flags&flagGeometry == 0 {
		return false, d.err
	}
	near := false // within margin of the outer ring containing pt, or of a hole's edge
	polygon := func() bool {
		in := false
		for r := range d.count(1) {
			n := d.count(2)
			ring := (*scratch)[:0]
			for range n {
				px += d.varint()
				py += d.varint()
				ring = append(ring, orb.Point{float64(px) / coordScale, float64(py) / coordScale})
			}
			*scratch = ring
			if d.err != nil || (r > 0 && !in) {
				continue // outside the outer ring, holes do not matter: read on for the deltas
			}
			c := len(ring) > 0 && planar.RingContains(orb.Ring(ring), pt)
			if margin > 0 && (c || r > 0) && nearEdge(ring, pt, margin) { // a hole's edge counts from outside it too
				near = true
			}
			if r == 0 {
				in = c
			} else if c {
				in = false // in a hole
			}
		}
		return in && !near && d.err == nil
	}
	if flags&flagMultiPolygon == 0 {
		in := polygon()
		return in, d.err
	}
	for range d.count(1) {
		if polygon() {
			return true, nil
		}
	}
	return false, d.err
}

// nearEdge reports whether pt is within margin degrees of an edge of
// ring (closed or not), in each axis: a box test, enough to tell a point
// on or next to an edge from one well inside.
func nearEdge(ring []orb.Point, pt orb.Point, margin float64) bool {
	for j := range ring {
		a, b := ring[j], ring[(j+1)%len(ring)]
		if pt[0] < min(a[0], b[0])-margin || pt[0] > max(a[0], b[0])+margin ||
			pt[1] < min(a[1], b[1])-margin || pt[1] > max(a[1], b[1])+margin {
			continue
		}
		// Distance from pt to the segment, in degrees.
		dx, dy := b[0]-a[0], b[1]-a[1]
		t := 0.0
		if l2 := dx*dx + dy*dy; l2 > 0 {
			t = max(0, min(1, ((pt[0]-a[0])*dx+(pt[1]-a[1])*dy)/l2))
		}
		ex, ey := a[0]+t*dx-pt[0], a[1]+t*dy-pt[1]
		if ex*ex+ey*ey <= margin*margin {
			return true
		}
	}
	return false
}

// scanBlock indexes the records of an inflated block in one pass that
// allocates only the block's tables: geometries are read for their boxes
// (what recordBound gives on a decoded record), not built.
func scanBlock(raw []byte) (*block, error) {
	d := decoder{b: raw}
	n := d.count(12)
	if d.err != nil {
		return nil, d.err
	}
	p := &block{
		raw:    raw,
		offs:   make([]uint32, n),
		bounds: make([]box, n),
	}
	prev := ""
	for i := range n {
		p.offs[i] = uint32(len(raw) - len(d.b))
		kn := d.count(1)
		if d.err != nil {
			return nil, d.err
		}
		key := ""
		if kn > 0 {
			key = unsafe.String(&d.b[0], kn) // raw is never written again
		}
		d.b = d.b[kn:]
		if key < prev {
			return nil, errCorrupt // a block holds its records sorted by key
		}
		prev = key
		d.byte1() // province
		flags := d.byte1()
		cx, cy := d.varint(), d.varint()
		d.uvarint() // accuracy
		if flags&flagGeometry == 0 {
			p.bounds[i] = box{int32(cx), int32(cy), int32(cx), int32(cy)}
			if !fitsInt32(cx, cy) {
				return nil, errCorrupt
			}
		} else {
			p.bounds[i] = geometryBound(&d, cx, cy, flags&flagMultiPolygon != 0)
		}
		if d.err != nil {
			return nil, d.err
		}
	}
	if len(d.b) != 0 {
		return nil, errCorrupt
	}
	// A DLS block finds its records by their places; the others hash
	// their keys. A key asked for without a place (a half section) is
	// looked for by bisection in a block with places, and is not there:
	// every record of such a block has a place.
	if p.placeDLS(); !p.placed {
		p.hashKeys()
	}
	return p, nil
}

// geometryBound reads a geometry as decodeRecord does, without building
// it, and returns its box as orb computes it on the decoded geometry: a
// polygon's outer ring; the union of the parts' outer rings for a
// multipolygon; orb's empty bound for a geometry without a ring or point.
// Extremes are taken on the integer coordinates, which box scales once:
// the same floats as scaling every point (division by coordScale is
// monotonic). A coordinate beyond int32 (no longitude or latitude is) is
// a corrupt block.
func geometryBound(d *decoder, px, py int64, multi bool) box {
	np := 1
	if multi {
		np = d.count(1)
	}
	var minX, minY, maxX, maxY int64
	seen := false
	for range np {
		nr := d.count(1)
		for r := range nr {
			n := d.count(2)
			for range n {
				px += d.varint()
				py += d.varint()
				if r != 0 {
					continue
				}
				if !seen {
					minX, maxX, minY, maxY, seen = px, px, py, py, true
					continue
				}
				minX, maxX = min(minX, px), max(maxX, px)
				minY, maxY = min(minY, py), max(maxY, py)
			}
		}
	}
	if d.err != nil || !seen {
		return emptyBox
	}
	if !fitsInt32(minX, minY) || !fitsInt32(maxX, maxY) {
		d.err = errCorrupt
		return emptyBox
	}
	return box{int32(minX), int32(minY), int32(maxX), int32(maxY)}
}

func fitsInt32(x, y int64) bool {
	return x == int64(int32(x)) && y == int64(int32(y))
}

// emptyBound is orb's bound of a geometry without points.
var emptyBound = orb.Polygon{}.Bound()

// dirLabel is the label part of a page directory's cache key (dirKey);
// block labels are below it.
const dirLabel = 0xff

// blockLabel is the block of a page that holds l. A DLS township's block
// 0 holds the township's record and its sections' (37 records: what a map
// of townships or sections draws), and block n section n's quarters,
// halves and LSDs (20 records: a lookup of one of them inflates no more).
// Every record of other systems is in block 0 (a Manitoba parish or
// Ontario township is one block).
func blockLabel(l lld.Location) uint8 {
	if l.System == lld.DLS && l.Unit != lld.Township && l.Unit != lld.Section {
		return l.Section
	}
	return 0
}

// pageDir is a page's directory: its blocks in label order, each with the
// box of its records and where its compressed bytes are in the page.
type pageDir struct {
	blocks []blockRef
}

type blockRef struct {
	bound       orb.Bound
	off, length uint32 // in the page
	count       uint32
	label       uint8
}

// find returns the index of the block labelled label, or false.
func (d *pageDir) find(label uint8) (int, bool) {
	for i := range d.blocks {
		if d.blocks[i].label == label {
			return i, true
		}
	}
	return 0, false
}

// parseDir reads the directory at the start of a page's bytes z (the
// whole page): block count, then per block its label, record count,
// compressed length and box. The blocks follow the directory, in its
// order, and fill the rest of the page exactly.
func parseDir(z []byte) (*pageDir, error) {
	d := decoder{b: z}
	n := d.count(7)
	if d.err != nil {
		return nil, d.err
	}
	dir := &pageDir{blocks: make([]blockRef, n)}
	for i := range dir.blocks {
		b := &dir.blocks[i]
		label, count, length := d.uvarint(), d.uvarint(), d.uvarint()
		b.bound = d.bound()
		if d.err != nil {
			return nil, d.err
		}
		if label >= dirLabel || (i > 0 && label <= uint64(dir.blocks[i-1].label)) ||
			count == 0 || count > maxUncompressed || length == 0 || length > uint64(len(z)) {
			return nil, errCorrupt
		}
		b.label, b.count, b.length = uint8(label), uint32(count), uint32(length)
	}
	off := uint64(len(z) - len(d.b))
	for i := range dir.blocks {
		b := &dir.blocks[i]
		if uint64(b.length) > uint64(len(z))-off {
			return nil, errCorrupt
		}
		b.off = uint32(off)
		off += uint64(b.length)
	}
	if off != uint64(len(z)) {
		return nil, errCorrupt
	}
	return dir, nil
}
