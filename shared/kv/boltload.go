package kv

// The write side of a Publish on Bolt: an external sort.
//
// A dataset's items come in the order its ingest derives them (by LSD, by
// operator, by disposition, interleaved), which is random in the file's
// key order. Written as they come, every transaction touches pages all
// over the B+tree: each one splits and rewrites pages across the file,
// and the file's dirty pages and the freelist grow with it (the energy
// ingest at province size: 7.57 M items, 30 minutes, 8.45 GB resident).
// Written in key order, a load only ever appends to the right edge of
// the tree: each page is written once, full.
//
// So a Writer on a Bolt hands its items to a boltLoad, which copies them
// into an arena of at most the sort budget (BoltOptions.SortBudget,
// DefaultSortBudget), sorts the arena by bbolt key (PK, 0x00, SK) when it
// is full and spills it as a sorted run to a temporary file next to the
// store file. At close it merges the runs and the last arena (k-way, with
// a heap) and writes the merged stream in key order, in transactions of at
// most loadTxItems items or loadTxBytes bytes, with the bucket's
// FillPercent at 1 (pages filled whole: a key-ordered load never inserts
// before a full page). More than mergeFanIn runs are first merged into
// longer runs, mergeFanIn at a time, so the merge's memory does not grow
// with the input. The temporary file is removed when the load closes,
// aborts or fails. Nothing is written to the store before close: the
// items of a version are invisible until its pointer flips anyway, and no
// ingest reads its own items back before Publish returns.
//
// A key written twice: the last write wins, as with Put. Within a run the
// sort orders equal keys by arrival (their arena offset) and the spill
// keeps the last; across runs the merge keeps the one of the latest run.
//
// Memory: the arena (the budget, plus at most one item beyond it), 12
// bytes of index per item in it, the merge's read buffer and current item
// per run (mergeFanIn runs at most: 64 × 64 KiB plus the largest items),
// the merged items handed from the merge's goroutine to the writer's
// (mergeAhead: 4 batches of a 64th of the budget), and one transaction: a
// copy of its items (loadTxBytes at most, plus one item) and bbolt's dirty
// nodes and pages for them. With the defaults: 64 MiB + about 5 MiB +
// 4 MiB + 4 MiB + 32 MiB and bbolt's share of a 32 MiB transaction,
// whatever the number of items. Disk: the items once more in the
// temporary file while the load runs (twice during a merge pass of more
// than mergeFanIn runs).
//
// Dataset.ScanRanked (rankscan.go) reads a dataset through the same sort,
// its keys prefixed with a rank, the merged stream handed to a callback.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"

	bolt "go.etcd.io/bbolt"
	bolterrors "go.etcd.io/bbolt/errors"
)

// DefaultSortBudget is the bytes of items (keys and data) a Bolt's
// Writer holds in memory before it sorts them and spills them to a
// temporary file, when BoltOptions.SortBudget is zero.
const DefaultSortBudget = 64 << 20

// maxSortBudget keeps arena offsets within 32 bits.
const maxSortBudget = 1 << 30

const (
	// loadTxItems and loadTxBytes bound one transaction of a load.
	loadTxItems = 65536
	loadTxBytes = 32 << 20
	// mergeFanIn bounds the runs merged at once.
	mergeFanIn = 64
	// runBuffer is the read buffer of each run in a merge, and the write
	// buffer of a spill.
	runBuffer = 64 << 10
	// loadCtxEvery is how many puts pass between two checks of the
	// context.
	loadCtxEvery = 1024
)

// loadLimits are a load's tunables, the constants above unless a test
// changes them.
type loadLimits struct {
	budget  int
	txItems int
	txBytes int
	fanIn   int
	// hook, if set, runs after each spill ("spill") and before each
	// commit ("commit"): tests measure the heap there or inject a store
	// error.
	hook func(stage string) error
}

// PutStream implements Streamer: a Publish's Writer hands its items to an
// external sort that writes them in key order when it closes.
func (b *Bolt) PutStream(ctx context.Context) ItemStream {
	return &boltLoad{b: b, path: b.path, ctx: ctx, lim: b.load}
}

// boltLoad is the external sort of a Writer's items on a Bolt. With emit
// set and b nil it is the sort of a ScanRanked: the merged items go to
// emit, not to a store.
type boltLoad struct {
	b    *Bolt  // the store written; nil when emit is set
	path string // the temporary file is made next to it, and errors name it
	emit func(k, d []byte) error
	ctx  context.Context
	lim  loadLimits

	kbuf  []byte    // put's key, before it is copied into the arena
	arena []byte    // keys and data of the items not yet spilled
	ents  []loadEnt // the items of arena
	puts  int

	tmp   *os.File  // the runs, one after another; nil until the first spill
	end   int64     // tmp's size
	runs  []runSpan // the runs in tmp, oldest first
	wbuf  *bufio.Writer
	err   error // sticky: the first error
	items int   // items written to the store (after duplicates dropped)
}

// loadEnt is one item of the arena: its key at off, then its data.
type loadEnt struct {
	off, klen, dlen uint32
}

// runSpan is a sorted run in the temporary file.
type runSpan struct{ off, n int64 }

func (l *boltLoad) key(e loadEnt) []byte { return l.arena[e.off : e.off+e.klen] }
func (l *boltLoad) data(e loadEnt) []byte {
	s := e.off + e.klen
	return l.arena[s : s+e.dlen]
}

func (l *boltLoad) Put(it Item) error {
	l.kbuf = append(l.kbuf[:0], it.PK...)
	l.kbuf = append(l.kbuf, 0)
	l.kbuf = append(l.kbuf, it.SK...)
	return l.putKey(l.kbuf, it.Data)
}

// grow makes room for n more bytes in the arena without going past the
// budget (unless one item alone does).
func (l *boltLoad) grow(n int) {
	need := len(l.arena) + n
	if need <= cap(l.arena) {
		return
	}
	c := min(max(2*cap(l.arena), need, 64<<10), max(l.lim.budget, need))
	a := make([]byte, len(l.arena), c)
	copy(a, l.arena)
	l.arena = a
}

// ctxErr wraps the context's error: as a store error of a load, with the
// file's name in a scan's sort.
func (l *boltLoad) ctxErr(err error) error {
	if l.b != nil {
		return l.b.wrap(l.ctx, "put", err)
	}
	return fmt.Errorf("kv: sort items of %s: %w", l.path, err)
}

func (l *boltLoad) fail(err error) error {
	if l.err == nil {
		l.err = err
	}
	return l.err
}

// sortArena sorts the arena's items by key, equal keys by arrival.
func (l *boltLoad) sortArena() {
	slices.SortFunc(l.ents, func(a, b loadEnt) int {
		if c := bytes.Compare(l.key(a), l.key(b)); c != 0 {
			return c
		}
		return int(a.off) - int(b.off) // fits: offsets are below maxSortBudget plus one item
	})
}

// spill sorts the arena and appends it to the temporary file as a run,
// keeping the last item of each key.
func (l *boltLoad) spill() error {
	l.sortArena()
	if err := l.openTmp(); err != nil {
		return err
	}
	start := l.end
	w := l.runWriter()
	for i, e := range l.ents {
		if i+1 < len(l.ents) && bytes.Equal(l.key(e), l.key(l.ents[i+1])) {
			continue // a later write of the key follows
		}
		if err := w.write(l.key(e), l.data(e)); err != nil {
			return err
		}
	}
	if err := w.flush(); err != nil {
		return err
	}
	l.runs = append(l.runs, runSpan{start, l.end - start})
	l.arena, l.ents = l.arena[:0], l.ents[:0]
	if l.lim.hook != nil {
		return l.lim.hook("spill")
	}
	return nil
}

func (l *boltLoad) openTmp() error {
	if l.tmp != nil {
		return nil
	}
	f, err := os.CreateTemp(filepath.Dir(l.path), filepath.Base(l.path)+".sort-*")
	if err != nil {
		return fmt.Errorf("kv: sort items of %s: %w", l.path, err)
	}
	l.tmp = f
	l.wbuf = bufio.NewWriterSize(f, runBuffer)
	return nil
}

// runWriter appends records to the temporary file: uvarint key length,
// uvarint data length, key, data.
type runWriter struct{ l *boltLoad }

func (l *boltLoad) runWriter() runWriter { return runWriter{l} }

func (w runWriter) write(k, d []byte) error {
	var hdr [2 * binary.MaxVarintLen64]byte
	n := binary.PutUvarint(hdr[:], uint64(len(k)))
	n += binary.PutUvarint(hdr[n:], uint64(len(d)))
	bw := w.l.wbuf
	bw.Write(hdr[:n])
	bw.Write(k)
	if _, err := bw.Write(d); err != nil {
		return fmt.Errorf("kv: sort items of %s: write run: %w", w.l.path, err)
	}
	w.l.end += int64(n + len(k) + len(d))
	return nil
}

func (w runWriter) flush() error {
	if err := w.l.wbuf.Flush(); err != nil {
		return fmt.Errorf("kv: sort items of %s: write run: %w", w.l.path, err)
	}
	return nil
}

// Close implements ItemStream: unless abort is set, it merges the runs
// and writes them to the store in key order. The temporary file is
// removed in every case.
func (l *boltLoad) Close(abort bool) error {
	defer l.removeTmp()
	if abort {
		l.arena, l.ents = nil, nil
		return nil
	}
	if l.err != nil {
		return l.err
	}
	if err := l.ctx.Err(); err != nil {
		return l.fail(l.ctxErr(err))
	}
	if err := l.write(); err != nil {
		return l.fail(err)
	}
	return nil
}

func (l *boltLoad) removeTmp() {
	if l.tmp == nil {
		return
	}
	name := l.tmp.Name()
	l.tmp.Close()
	os.Remove(name) // best effort: a file we created and nobody else reads
	l.tmp, l.wbuf = nil, nil
}

// write merges the runs down to at most fanIn, then merges those and the
// arena into the store.
func (l *boltLoad) write() error {
	l.sortArena()
	for len(l.runs) > l.lim.fanIn-1 { // the arena is one more source
		if err := l.mergePass(); err != nil {
			return err
		}
	}
	srcs := make([]mergeSource, 0, len(l.runs)+1)
	for _, r := range l.runs {
		srcs = append(srcs, l.runReader(r))
	}
	srcs = append(srcs, &arenaSource{l: l}) // the newest writes
	if l.emit != nil {
		err := mergeAhead(srcs, l.emit, aheadBytes(l.lim.budget))
		l.arena, l.ents = nil, nil
		return err
	}
	tw := &txWriter{l: l}
	err := mergeAhead(srcs, tw.put, aheadBytes(l.lim.budget))
	if err == nil {
		err = tw.commit()
	}
	tw.rollback()
	l.arena, l.ents = nil, nil
	return err
}

// mergePass merges the oldest fanIn runs into one run at the end of the
// temporary file. The space of the merged runs is not reused: the file is
// removed when the load ends.
func (l *boltLoad) mergePass() error {
	n := min(l.lim.fanIn, len(l.runs))
	srcs := make([]mergeSource, n)
	for i, r := range l.runs[:n] {
		srcs[i] = l.runReader(r)
	}
	start := l.end
	w := l.runWriter()
	if err := merge(srcs, func(k, d []byte) error {
		if err := l.ctx.Err(); err != nil {
			return l.ctxErr(err)
		}
		return w.write(k, d)
	}); err != nil {
		return err
	}
	if err := w.flush(); err != nil {
		return err
	}
	// The merged run replaces the runs it holds, in their place: it is
	// newer than every run before them and older than every run after.
	l.runs = slices.Replace(l.runs, 0, n, runSpan{start, l.end - start})
	return nil
}

// mergeSource is a sorted sequence of items without duplicate keys. The
// slices cur returns are valid until the next call to next.
type mergeSource interface {
	next() (ok bool, err error)
	cur() (k, d []byte)
}

// merge calls emit with the items of srcs in key order; of items with
// equal keys, only the one of the latest source (the highest index). The
// slices emit gets are valid until it returns.
//
// The sources are a binary heap ordered by their current key, then by
// index, each with its key kept beside it: a step compares keys in place
// and moves the top's source on, one sift down, where container/heap's
// Pop and Push took two passes and an interface call per comparison.
func merge(srcs []mergeSource, emit func(k, d []byte) error) error {
	h := make(mergeHeap, 0, len(srcs))
	for i, s := range srcs {
		ok, err := s.next()
		if err != nil {
			return err
		}
		if ok {
			k, d := s.cur()
			h = append(h, mergeCursor{src: s, idx: i, k: k, d: d})
		}
	}
	for i := len(h)/2 - 1; i >= 0; i-- {
		h.down(i)
	}
	for len(h) > 0 {
		top := &h[0]
		// Another source holding the top's key is a later write of it
		// (equal keys order by index), and then the smaller of the
		// top's children holds it: the top is dropped.
		older := (len(h) > 1 && bytes.Equal(h[1].k, top.k)) || (len(h) > 2 && bytes.Equal(h[2].k, top.k))
		if !older {
			if err := emit(top.k, top.d); err != nil {
				return err
			}
		}
		ok, err := top.src.next()
		if err != nil {
			return err
		}
		if ok {
			top.k, top.d = top.src.cur()
		} else {
			h[0] = h[len(h)-1]
			h = h[:len(h)-1]
		}
		h.down(0)
	}
	return nil
}

// mergeCursor is a source in the merge, with its current item.
type mergeCursor struct {
	src  mergeSource
	idx  int
	k, d []byte
}

// mergeHeap is a binary min-heap of sources by current key, then index.
type mergeHeap []mergeCursor

func (h mergeHeap) less(i, j int) bool {
	if c := bytes.Compare(h[i].k, h[j].k); c != 0 {
		return c < 0
	}
	return h[i].idx < h[j].idx
}

// down moves the source at i down to its place.
func (h mergeHeap) down(i int) {
	for {
		c := 2*i + 1
		if c >= len(h) {
			return
		}
		if c+1 < len(h) && h.less(c+1, c) {
			c++
		}
		if !h.less(c, i) {
			return
		}
		h[i], h[c] = h[c], h[i]
		i = c
	}
}

// arenaSource reads the sorted arena, keeping the last of equal keys.
type arenaSource struct {
	l *boltLoad
	i int // index of the current item + 1
}

func (s *arenaSource) next() (bool, error) {
	ents := s.l.ents
	for s.i < len(ents) {
		s.i++
		if s.i < len(ents) && bytes.Equal(s.l.key(ents[s.i-1]), s.l.key(ents[s.i])) {
			continue
		}
		return true, nil
	}
	return false, nil
}

func (s *arenaSource) cur() ([]byte, []byte) {
	e := s.l.ents[s.i-1]
	return s.l.key(e), s.l.data(e)
}

// runReader reads a run of the temporary file: exactly its bytes, or
// an error.
type runReader struct {
	l    *boltLoad
	r    *bufio.Reader
	left int64 // bytes of the run not yet read
	buf  []byte
	klen int
}

func (l *boltLoad) runReader(r runSpan) *runReader {
	return &runReader{l: l, r: bufio.NewReaderSize(io.NewSectionReader(l.tmp, r.off, r.n), runBuffer), left: r.n}
}

func (s *runReader) next() (bool, error) {
	if s.left == 0 {
		return false, nil
	}
	klen, err := binary.ReadUvarint(s.r)
	if err != nil {
		return false, s.corrupt(err)
	}
	dlen, err := binary.ReadUvarint(s.r)
	if err != nil {
		return false, s.corrupt(err)
	}
	if klen == 0 || klen > rankBytes+MaxPKBytes+1+MaxSKBytes || dlen > MaxItemBytes {
		return false, s.corrupt(fmt.Errorf("record of %d+%d bytes", klen, dlen))
	}
	n := klen + dlen
	size := int64(uvarintLen(klen) + uvarintLen(dlen) + int(n))
	if size > s.left {
		return false, s.corrupt(fmt.Errorf("record of %d bytes past the run's end", size))
	}
	if uint64(cap(s.buf)) < n {
		s.buf = make([]byte, n)
	}
	s.buf = s.buf[:n]
	if _, err := io.ReadFull(s.r, s.buf); err != nil {
		return false, s.corrupt(err)
	}
	s.left -= size
	s.klen = int(klen)
	return true, nil
}

func uvarintLen(x uint64) int {
	var b [binary.MaxVarintLen64]byte
	return binary.PutUvarint(b[:], x)
}

func (s *runReader) cur() ([]byte, []byte) { return s.buf[:s.klen], s.buf[s.klen:] }

func (s *runReader) corrupt(err error) error {
	if errors.Is(err, io.EOF) {
		err = io.ErrUnexpectedEOF
	}
	return fmt.Errorf("kv: sort items of %s: read run: %w", s.l.path, err)
}

// txWriter writes items in key order in transactions of at most txItems
// items or txBytes bytes.
type txWriter struct {
	l      *boltLoad
	tx     *bolt.Tx
	bk     *bolt.Bucket
	n, sz  int
	chunks [][]byte // copies of the transaction's keys and data, reused
	ci     int      // the chunk being filled
}

// txChunk is the size of a chunk of a transaction's copies.
const txChunk = 1 << 20

// put writes one item. bbolt keeps the key and value slices until the
// transaction commits, and a run's slices change at its next item: they
// are copied into the transaction's chunks.
func (t *txWriter) put(k, d []byte) error {
	if t.tx == nil {
		if err := t.l.ctx.Err(); err != nil {
			return t.l.b.wrap(t.l.ctx, "put", err)
		}
		tx, err := t.l.b.db.Begin(true)
		if err != nil {
			return t.l.b.wrap(t.l.ctx, "put", err)
		}
		t.tx, t.bk = tx, tx.Bucket(bucketName)
		if t.bk == nil {
			return t.l.b.wrap(t.l.ctx, "put", bolterrors.ErrBucketNotFound)
		}
		t.bk.FillPercent = 1 // keys come in order: fill each page whole
	}
	kc := t.copy(k)
	dc := t.copy(d)
	if err := t.bk.Put(kc, dc); err != nil {
		return t.l.b.wrap(t.l.ctx, "put", err)
	}
	t.l.items++
	t.n++
	t.sz += len(k) + len(d)
	if t.n >= t.l.lim.txItems || t.sz >= t.l.lim.txBytes {
		return t.commit()
	}
	return nil
}

func (t *txWriter) copy(b []byte) []byte {
	if len(b) > txChunk/4 {
		return bytes.Clone(b) // a large item: its own allocation
	}
	if t.ci == len(t.chunks) {
		t.chunks = append(t.chunks, make([]byte, 0, txChunk))
	}
	c := t.chunks[t.ci]
	if len(c)+len(b) > cap(c) {
		t.ci++
		return t.copy(b)
	}
	t.chunks[t.ci] = append(c, b...)
	// A non-nil slice even when b is empty: bbolt stores it as empty.
	return t.chunks[t.ci][len(c) : len(c)+len(b) : len(c)+len(b)]
}

func (t *txWriter) commit() error {
	if t.tx == nil {
		return nil
	}
	if t.l.lim.hook != nil {
		if err := t.l.lim.hook("commit"); err != nil {
			return err
		}
	}
	err := t.tx.Commit()
	t.tx, t.bk = nil, nil
	t.n, t.sz = 0, 0
	for i := range t.chunks[:min(t.ci+1, len(t.chunks))] {
		t.chunks[i] = t.chunks[i][:0]
	}
	t.ci = 0
	if err != nil {
		return t.l.b.wrap(t.l.ctx, "put", err)
	}
	return nil
}

// rollback drops a transaction left open by an error.
func (t *txWriter) rollback() {
	if t.tx != nil {
		t.tx.Rollback()
		t.tx, t.bk = nil, nil
	}
}
