package gridindex

import (
	"bufio"
	"cmp"
	"container/heap"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"sort"
	"strings"

	"github.com/paulmach/orb"
	"github.com/paulmach/orb/planar"

	"meridian/shared/lld"
)

// Meta describes the dataset an index was built from. The conversion
// endpoints report Source in each feature's source property.
type Meta struct {
	Name    string   `json:"name"`    // dataset id: "altalis-ats-v4.1", "mb-original-survey", ...
	Title   string   `json:"title"`   // human name
	Source  string   `json:"source"`  // the features' source property, e.g. "AltaLIS ATS v4.1"
	License string   `json:"license"` // as the publisher states it
	AsOf    string   `json:"as_of"`   // the dataset's date, as published
	Fixture bool     `json:"fixture"` // generated test data in the official format, not the real dataset
	Files   []string `json:"files"`   // input files

	// Filled in by the writer.
	Records   uint64         `json:"records"`
	Groups    uint32         `json:"groups"`
	Systems   []string       `json:"systems"`
	Provinces []string       `json:"provinces"`
	Units     map[string]int `json:"units"`
}

// WriterOptions tune a Writer.
type WriterOptions struct {
	// TempDir holds spill files; default os.TempDir().
	TempDir string
	// MemoryLimit is how many bytes of buffered records (their encoding,
	// keys and bookkeeping) are held before a sorted run is spilled to
	// disk; default 16 MiB. Memory use is bounded by it, by the largest
	// group, and by one directory entry per group.
	MemoryLimit int
	// Derive, when set, is called once per group with its records (sorted
	// by key, duplicates merged) and may return more records of that group
	// (Ontario concessions dissolved from their lots). An error rejects the
	// whole index.
	Derive func(group []Record) ([]Record, error)
}

// Writer builds an index from records added in any order, in bounded
// memory: records are buffered, spilled to sorted runs, and merged by group.
type Writer struct {
	meta    Meta
	opts    WriterOptions
	buf     []spilled
	bufSize int
	runs    []*os.File
	added   uint64
}

// spilled is an encoded record with its sort keys.
type spilled struct {
	group, key string
	data       []byte // encodeRecord output
}

// NewWriter returns a Writer for a dataset described by meta.
func NewWriter(meta Meta, opts WriterOptions) *Writer {
	if opts.MemoryLimit <= 0 {
		opts.MemoryLimit = 16 << 20
	}
	return &Writer{meta: meta, opts: opts}
}

// Add validates r and queues it. Records of the same block are merged
// (gridindex.Merge) when the index is written.
func (w *Writer) Add(r Record) error {
	if err := Validate(&r); err != nil {
		return err
	}
	group, _ := GroupKey(r.Location)
	var e encoder
	encodeRecord(&e, &r)
	w.buf = append(w.buf, spilled{group: group, key: r.Location.String(), data: e.b})
	// The encoded record, the two keys and what the slice entry, string
	// headers and allocator add (measured: about 150 bytes).
	w.bufSize += len(e.b) + len(group) + len(w.buf[len(w.buf)-1].key) + 150
	w.added++
	if w.bufSize >= w.opts.MemoryLimit {
		return w.spill()
	}
	return nil
}

// Validate checks that r can be indexed: a DLS, river-lot or Ontario
// location, closed rings of at least four points with the outer ring
// counter-clockwise, coordinates in Canada (a projection mistake shows up
// here), and a centroid when there is no geometry.
func Validate(r *Record) error {
	l := r.Location
	if _, ok := GroupKey(l); !ok {
		return fmt.Errorf("%s cannot be indexed: only DLS, Manitoba lot and Ontario locations are", l)
	}
	if back, err := lld.Parse(l.String()); err != nil || back != l {
		return fmt.Errorf("location %+v is not canonical", l)
	}
	inCanada := func(p orb.Point) bool {
		return p[0] >= -142 && p[0] <= -52 && p[1] >= 41 && p[1] <= 84
	}
	checkPolygon := func(p orb.Polygon) error {
		if len(p) == 0 {
			return errors.New("polygon has no rings")
		}
		for i, ring := range p {
			if len(ring) < 4 || !ring.Closed() {
				return fmt.Errorf("ring %d of %s is not closed or has fewer than 4 points", i, l)
			}
			for _, pt := range ring {
				if !inCanada(pt) {
					return fmt.Errorf("%s has a vertex at %v, outside Canada: check the file's projection", l, pt)
				}
			}
			want := orb.CCW
			if i > 0 {
				want = orb.CW
			}
			if o := ring.Orientation(); o != want {
				return fmt.Errorf("ring %d of %s is oriented %v, want %v (outer rings counter-clockwise, holes clockwise)", i, l, o, want)
			}
		}
		return nil
	}
	switch g := r.Geometry.(type) {
	case nil:
		if !r.HasCentroid {
			return fmt.Errorf("%s has neither geometry nor centroid", l)
		}
	case orb.Polygon:
		if err := checkPolygon(g); err != nil {
			return err
		}
	case orb.MultiPolygon:
		if len(g) == 0 {
			return fmt.Errorf("%s has an empty MultiPolygon", l)
		}
		for _, p := range g {
			if err := checkPolygon(p); err != nil {
				return err
			}
		}
	default:
		return fmt.Errorf("%s has a %s geometry, want Polygon or MultiPolygon", l, r.Geometry.GeoJSONType())
	}
	if r.HasCentroid && !inCanada(r.Centroid) {
		return fmt.Errorf("%s has its centroid at %v, outside Canada: check the file's projection", l, r.Centroid)
	}
	if math.IsNaN(r.AccuracyM) || r.AccuracyM < 0 {
		return fmt.Errorf("%s has accuracy %v", l, r.AccuracyM)
	}
	return nil
}

func less(a, b *spilled) bool {
	if a.group != b.group {
		return a.group < b.group
	}
	return a.key < b.key
}

// spill writes the buffer as one sorted run.
func (w *Writer) spill() error {
	if len(w.buf) == 0 {
		return nil
	}
	slices.SortStableFunc(w.buf, func(a, b spilled) int {
		if less(&a, &b) {
			return -1
		}
		if less(&b, &a) {
			return 1
		}
		return 0
	})
	f, err := os.CreateTemp(w.opts.TempDir, "gridindex-run-*")
	if err != nil {
		return fmt.Errorf("gridindex: spill: %w", err)
	}
	bw := bufio.NewWriterSize(f, 256<<10)
	var e encoder
	for i := range w.buf {
		s := &w.buf[i]
		e.b = e.b[:0]
		e.str(s.group)
		e.str(s.key)
		e.str(string(s.data))
		bw.Write(e.b)
	}
	if err := bw.Flush(); err != nil {
		f.Close()
		os.Remove(f.Name())
		return fmt.Errorf("gridindex: spill: %w", err)
	}
	w.runs = append(w.runs, f)
	w.buf = w.buf[:0]
	w.bufSize = 0
	return nil
}

// Close removes the writer's temporary files. It is safe to call after
// Write and more than once.
func (w *Writer) Close() error {
	for _, f := range w.runs {
		f.Close()
		os.Remove(f.Name())
	}
	w.runs = nil
	w.buf = nil
	return nil
}

// runReader reads one spilled run back.
type runReader struct {
	r   *bufio.Reader
	cur spilled
}

func (rr *runReader) next() (bool, error) {
	read := func() (string, error) {
		n, err := binary.ReadUvarint(rr.r)
		if err != nil {
			return "", err
		}
		b := make([]byte, n)
		_, err = io.ReadFull(rr.r, b)
		return string(b), err
	}
	g, err := read()
	if err == io.EOF {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	k, err := read()
	if err != nil {
		return false, err
	}
	d, err := read()
	if err != nil {
		return false, err
	}
	rr.cur = spilled{group: g, key: k, data: []byte(d)}
	return true, nil
}

type runHeap []*runReader

func (h runHeap) Len() int           { return len(h) }
func (h runHeap) Less(i, j int) bool { return less(&h[i].cur, &h[j].cur) }
func (h runHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *runHeap) Push(x any)        { *h = append(*h, x.(*runReader)) }
func (h *runHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// groupEntry is the directory entry of one written page.
type groupEntry struct {
	key    string
	bound  orb.Bound
	off    uint64 // in the pages temp file, then in the final pages section
	length uint64
	count  int
	order  uint64 // Hilbert index of the bound's centre
}

// Stats sums up a written index.
type Stats struct {
	Records uint64
	Groups  int
	Bytes   int64
}

// Write merges everything added, writes the index to out and returns its
// statistics. The Writer cannot be used afterwards except for Close.
func (w *Writer) Write(out io.Writer) (Stats, error) {
	var st Stats
	if w.added == 0 {
		return st, errors.New("gridindex: no records")
	}
	if err := w.spill(); err != nil {
		return st, err
	}
	h := &runHeap{}
	for _, f := range w.runs {
		if _, err := f.Seek(0, io.SeekStart); err != nil {
			return st, err
		}
		rr := &runReader{r: bufio.NewReaderSize(f, 256<<10)}
		ok, err := rr.next()
		if err != nil {
			return st, fmt.Errorf("gridindex: read run: %w", err)
		}
		if ok {
			*h = append(*h, rr)
		}
	}
	heap.Init(h)

	pagesTmp, err := os.CreateTemp(w.opts.TempDir, "gridindex-pages-*")
	if err != nil {
		return st, err
	}
	defer func() { pagesTmp.Close(); os.Remove(pagesTmp.Name()) }()
	pw := bufio.NewWriterSize(pagesTmp, 256<<10)
	var (
		groups    []groupEntry
		pagesSize uint64
		bounds    = unionStart
		systems   = map[string]bool{}
		provinces = map[string]bool{}
		units     = map[string]int{}
	)
	writeGroup := func(key string, recs []Record) error {
		recs = mergeDuplicates(recs)
		if w.opts.Derive != nil {
			extra, err := w.opts.Derive(recs)
			if err != nil {
				return fmt.Errorf("gridindex: group %s: %w", key, err)
			}
			for i := range extra {
				if err := Validate(&extra[i]); err != nil {
					return fmt.Errorf("gridindex: derived record: %w", err)
				}
				if g, _ := GroupKey(extra[i].Location); g != key {
					return fmt.Errorf("gridindex: derived record %s is not in group %s", extra[i].Location, key)
				}
			}
			recs = append(recs, extra...)
			slices.SortStableFunc(recs, func(a, b Record) int { return strings.Compare(a.Location.String(), b.Location.String()) })
			recs = mergeDuplicates(recs)
		}
		page, gb := encodePage(recs)
		for i := range recs {
			r := &recs[i]
			systems[r.Location.System.String()] = true
			provinces[r.Province.Code()] = true
			units[r.Location.Unit.String()]++
		}
		if _, err := pw.Write(page); err != nil {
			return err
		}
		groups = append(groups, groupEntry{key: key, bound: gb, off: pagesSize, length: uint64(len(page)), count: len(recs)})
		pagesSize += uint64(len(page))
		bounds = bounds.Union(gb)
		st.Records += uint64(len(recs))
		return nil
	}
	var (
		curGroup string
		cur      []Record
	)
	for h.Len() > 0 {
		rr := (*h)[0]
		s := rr.cur
		if s.group != curGroup && len(cur) > 0 {
			if err := writeGroup(curGroup, cur); err != nil {
				return st, err
			}
			cur = cur[:0]
		}
		curGroup = s.group
		d := decoder{b: s.data}
		rec, err := decodeRecord(&d)
		if err != nil {
			return st, err
		}
		cur = append(cur, rec)
		ok, err := rr.next()
		if err != nil {
			return st, fmt.Errorf("gridindex: read run: %w", err)
		}
		if ok {
			heap.Fix(h, 0)
		} else {
			heap.Pop(h)
		}
	}
	if len(cur) > 0 {
		if err := writeGroup(curGroup, cur); err != nil {
			return st, err
		}
	}
	if err := pw.Flush(); err != nil {
		return st, err
	}

	// Order pages along a Hilbert curve; directory leaves in that order
	// (spatial) and in key order (keys, already sorted).
	byKey := slices.Clone(groups)
	for i := range groups {
		groups[i].order = hilbert(groups[i].bound.Center())
	}
	order := make([]int, len(groups))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return groups[order[a]].order < groups[order[b]].order })
	newOff := make([]uint64, len(groups))
	var off uint64
	for _, i := range order {
		newOff[i] = off
		off += groups[i].length
	}
	for i := range byKey {
		byKey[i].off = newOff[i]
	}

	var leaves []byte
	var root encoder
	spatialRefs, keyRefs := 0, 0
	var spatial, keyed encoder
	for start := 0; start < len(order); start += leafSize {
		end := min(start+leafSize, len(order))
		var e encoder
		e.uvarint(uint64(end - start))
		lb := groups[order[start]].bound
		for _, i := range order[start:end] {
			g := &groups[i]
			e.bound(g.bound)
			e.uvarint(newOff[i])
			e.uvarint(g.length)
			e.uvarint(uint64(g.count))
			lb = lb.Union(g.bound)
		}
		z := gzipBytes(e.b)
		spatial.bound(lb)
		spatial.uvarint(uint64(len(leaves)))
		spatial.uvarint(uint64(len(z)))
		leaves = append(leaves, z...)
		spatialRefs++
	}
	for start := 0; start < len(byKey); start += leafSize {
		end := min(start+leafSize, len(byKey))
		var e encoder
		e.uvarint(uint64(end - start))
		for _, g := range byKey[start:end] {
			e.str(g.key)
			e.uvarint(g.off)
			e.uvarint(g.length)
		}
		z := gzipBytes(e.b)
		keyed.str(byKey[start].key)
		keyed.str(byKey[end-1].key)
		keyed.uvarint(uint64(len(leaves)))
		keyed.uvarint(uint64(len(z)))
		leaves = append(leaves, z...)
		keyRefs++
	}
	root.uvarint(uint64(spatialRefs))
	root.b = append(root.b, spatial.b...)
	root.uvarint(uint64(keyRefs))
	root.b = append(root.b, keyed.b...)
	rootZ := gzipBytes(root.b)

	meta := w.meta
	meta.Records, meta.Groups = st.Records, uint32(len(groups))
	meta.Systems, meta.Provinces, meta.Units = sortedKeys(systems), sortedKeys(provinces), units
	metaJSON, err := json.Marshal(meta)
	if err != nil {
		return st, err
	}
	metaZ := gzipBytes(metaJSON)

	hd := header{records: st.Records, groups: uint32(len(groups)), bounds: bounds}
	hd.metaOff, hd.metaLen = headerLen, uint32(len(metaZ))
	hd.rootOff, hd.rootLen = hd.metaOff+uint64(len(metaZ)), uint32(len(rootZ))
	hd.leavesOff, hd.leavesLen = hd.rootOff+uint64(len(rootZ)), uint64(len(leaves))
	hd.pagesOff, hd.pagesLen = hd.leavesOff+uint64(len(leaves)), pagesSize

	bw := bufio.NewWriterSize(out, 256<<10)
	for _, b := range [][]byte{hd.marshal(), metaZ, rootZ, leaves} {
		bw.Write(b)
	}
	buf := make([]byte, 0, 64<<10)
	for _, i := range order {
		g := &groups[i]
		if cap(buf) < int(g.length) {
			buf = make([]byte, g.length)
		}
		buf = buf[:g.length]
		if _, err := pagesTmp.ReadAt(buf, int64(g.off)); err != nil {
			return st, fmt.Errorf("gridindex: reread page: %w", err)
		}
		if _, err := bw.Write(buf); err != nil {
			return st, err
		}
	}
	if err := bw.Flush(); err != nil {
		return st, err
	}
	st.Groups = len(groups)
	st.Bytes = int64(hd.pagesOff + hd.pagesLen)
	return st, nil
}

// encodePage writes a group's records, sorted by key, as a page: its
// directory, then one gzip member a block (see blockLabel), and returns it
// with the box of the records. Records without a centroid get the one of
// their geometry.
func encodePage(recs []Record) ([]byte, orb.Bound) {
	slices.SortStableFunc(recs, func(a, b Record) int { return cmp.Compare(blockLabel(a.Location), blockLabel(b.Location)) })
	var dir, blocks encoder
	n := 0
	for i := range recs {
		if i == 0 || blockLabel(recs[i].Location) != blockLabel(recs[i-1].Location) {
			n++
		}
	}
	dir.uvarint(uint64(n))
	gb := unionStart
	for i := 0; i < len(recs); {
		label := blockLabel(recs[i].Location)
		j := i
		for j < len(recs) && blockLabel(recs[j].Location) == label {
			j++
		}
		var e encoder
		e.uvarint(uint64(j - i))
		bb := unionStart
		for k := i; k < j; k++ {
			r := &recs[k]
			if !r.HasCentroid {
				r.Centroid, _ = planar.CentroidArea(r.Geometry)
			}
			encodeRecord(&e, r)
			bb = bb.Union(recordBound(r))
		}
		z := gzipBytes(e.b)
		dir.uvarint(uint64(label))
		dir.uvarint(uint64(j - i))
		dir.uvarint(uint64(len(z)))
		dir.bound(bb)
		blocks.b = append(blocks.b, z...)
		gb = gb.Union(bb)
		i = j
	}
	return append(dir.b, blocks.b...), gb
}

// unionStart is where a union of bounds starts: orb's empty bound would
// count its corners when extended by a point.
var unionStart = orb.Bound{Min: orb.Point{math.Inf(1), math.Inf(1)}, Max: orb.Point{math.Inf(-1), math.Inf(-1)}}

// mergeDuplicates merges adjacent records of the same location (the input
// is sorted by key).
func mergeDuplicates(recs []Record) []Record {
	out := recs[:0]
	for _, r := range recs {
		if n := len(out); n > 0 && out[n-1].Location == r.Location {
			out[n-1] = Merge(out[n-1], r)
			continue
		}
		out = append(out, r)
	}
	return out
}

func recordBound(r *Record) orb.Bound {
	if r.Geometry == nil {
		return orb.Bound{Min: r.Centroid, Max: r.Centroid}
	}
	return r.Geometry.Bound()
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		if k != "" {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

// hilbert returns the position of p along a Hilbert curve of order 16 over
// Canada's extent, so that nearby points get nearby numbers.
func hilbert(p orb.Point) uint64 {
	const n = 1 << 16
	scale := func(v, lo, hi float64) uint64 {
		f := (v - lo) / (hi - lo)
		return uint64(math.Max(0, math.Min(n-1, f*n)))
	}
	x, y := scale(p[0], -142, -52), scale(p[1], 41, 84)
	var d uint64
	for s := uint64(n / 2); s > 0; s /= 2 {
		var rx, ry uint64
		if x&s > 0 {
			rx = 1
		}
		if y&s > 0 {
			ry = 1
		}
		d += s * s * ((3 * rx) ^ ry)
		if ry == 0 {
			if rx == 1 {
				x, y = n-1-x, n-1-y
			}
			x, y = y, x
		}
	}
	return d
}
