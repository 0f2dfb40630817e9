package kv

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
	"time"
	"unsafe"

	bolt "go.etcd.io/bbolt"
	bolterrors "go.etcd.io/bbolt/errors"

	"meridian/shared/apierr"
)

// DefaultBoltTimeout is how long OpenBolt waits for the file lock when
// BoltOptions.Timeout is zero.
const DefaultBoltTimeout = time.Second

// bucketName is the one bucket of a Bolt file.
var bucketName = []byte("items")

// BoltOptions configure OpenBolt.
type BoltOptions struct {
	// Timeout bounds the wait for the file lock: another process (or
	// handle) holding the file open for writing makes OpenBolt fail after
	// it with an Unavailable error. DefaultBoltTimeout when zero.
	Timeout time.Duration
	// ReadOnly opens the file with a shared lock: several read-only
	// handles can be open at once, and writes fail. The file must exist.
	ReadOnly bool
	// NoSync skips fsync after each write transaction: faster bulk loads
	// that a crash can corrupt. For throwaway files only.
	NoSync bool
	// ReleaseEvery drops the file's pages from the process's resident set
	// at this interval (madvise MADV_DONTNEED on bbolt's read-only shared
	// mapping; the pages stay in the page cache and the next read maps them
	// again). A whole-file scan (an archive build) or a bulk load (an
	// ingest) then holds at most what it touches in one interval, not the
	// file. Zero keeps the pages mapped. A server releases too, less often
	// (boltdir.ServeRelease, with RandomAccess).
	// A read-only handle with ReleaseEvery is taken to read the file
	// through (a scan): the kernel is told to read ahead on its mapping
	// again (bbolt advises random access, and without read-ahead a scan
	// of a file not in the page cache took a disk read per 4 KiB page:
	// 90 s for the province's 4.7 million LSD items, 15 s with it).
	ReleaseEvery time.Duration
	// RandomAccess keeps bbolt's random-access advice on a read-only
	// handle with ReleaseEvery: a server's lookups, which release their
	// pages to bound what the process maps but read a few pages each and
	// gain nothing from read-ahead.
	RandomAccess bool
	// SortBudget is the bytes of items (keys and data) a Publish's Writer
	// holds in memory before it sorts them and spills them to a temporary
	// file next to the store file (see boltload.go): DefaultSortBudget
	// when zero or less, at most 1 GiB.
	SortBudget int
}

// Bolt is a Store in one bbolt file: one bucket whose keys are
// PK + 0x00 + SK, so that a partition's items are contiguous and in SK
// order, and a query is a cursor seek. Put and Delete are one transaction
// per call. A Publish's Writer sorts the version's items (an external
// sort, see boltload.go) and writes them in key order when the write
// callback returns. It is safe for concurrent use.
type Bolt struct {
	db   *bolt.DB
	path string

	releaser *releaser // nil unless BoltOptions.ReleaseEvery
	load     loadLimits
	readOnly bool
	datasets sync.Map // name → Dataset, opened once on a read-only file (Open)
	txs      readTxs  // a read-only file's read transactions, kept open between views
}

// OpenBolt opens (or, unless read-only, creates) the store file at path.
// bbolt locks the file for the life of the handle; a file locked by another
// process fails after opts.Timeout with an error that maps to 503.
func OpenBolt(path string, opts BoltOptions) (*Bolt, error) {
	timeout := opts.Timeout
	if timeout <= 0 {
		timeout = DefaultBoltTimeout
	}
	db, err := bolt.Open(path, 0o644, &bolt.Options{Timeout: timeout, ReadOnly: opts.ReadOnly, NoSync: opts.NoSync})
	if err != nil {
		cause := fmt.Errorf("kv: open %s: %w: %w", path, ErrUnavailable, err)
		if errors.Is(err, bolterrors.ErrTimeout) {
			cause = fmt.Errorf("kv: open %s: file locked by another process for %v: %w: %w", path, timeout, ErrUnavailable, err)
		}
		return nil, apierr.Unavailablef(cause, ReadMessage)
	}
	budget := opts.SortBudget
	if budget <= 0 {
		budget = DefaultSortBudget
	}
	b := &Bolt{db: db, path: path, readOnly: opts.ReadOnly, load: loadLimits{
		budget: min(budget, maxSortBudget), txItems: loadTxItems, txBytes: loadTxBytes, fanIn: mergeFanIn,
	}}
	b.txs.keep = opts.ReadOnly
	if opts.ReleaseEvery > 0 {
		b.releaser = startReleaser(db, opts.ReleaseEvery)
		if opts.ReadOnly && !opts.RandomAccess {
			adviseScan(db) // a read-only handle is mapped once: the advice stays
		}
	}
	if !opts.ReadOnly {
		err = db.Update(func(tx *bolt.Tx) error {
			_, err := tx.CreateBucketIfNotExists(bucketName)
			return err
		})
		if err != nil {
			db.Close()
			return nil, b.wrap(context.Background(), "create bucket", err)
		}
	}
	return b, nil
}

// boltKey returns PK + 0x00 + SK.
func boltKey(pk, sk string) []byte {
	k := make([]byte, 0, len(pk)+1+len(sk))
	k = append(k, pk...)
	k = append(k, 0)
	return append(k, sk...)
}

// splitBoltKey returns the PK and SK of a key.
func splitBoltKey(k []byte) Key {
	i := bytes.IndexByte(k, 0)
	if i < 0 {
		return Key{PK: string(k)}
	}
	return Key{PK: string(k[:i]), SK: string(k[i+1:])}
}

// wrap turns a bbolt error into the package's errors.
func (b *Bolt) wrap(ctx context.Context, op string, err error) error {
	if canceled(ctx) && errors.Is(err, context.Canceled) {
		return fmt.Errorf("kv: %s %s: %w", op, b.path, err)
	}
	msg := ReadMessage
	if op == "put" || op == "delete" {
		msg = WriteMessage
	}
	return apierr.Unavailablef(fmt.Errorf("kv: %s %s: %w: %w", op, b.path, ErrUnavailable, err), msg)
}

// view runs fn in a read transaction on the bucket, with a cursor of its
// own on it (kept with the transaction: fn positions it); a read-only file
// without the bucket reads as empty.
func (b *Bolt) view(ctx context.Context, op string, fn func(bk *bolt.Bucket, c *bolt.Cursor) error) error {
	if err := ctx.Err(); err != nil {
		return b.wrap(ctx, op, err)
	}
	if err := b.txs.view(b.db, fn); err != nil {
		return b.wrap(ctx, op, err)
	}
	return nil
}

// readTxs gives each view a read transaction and its bucket. On a
// read-only file (keep) it keeps them open between views, each used by one
// view at a time (a bbolt transaction is not safe for concurrent use):
// nothing writes a file opened read-only, so an old transaction reads what
// a new one would; beginning and ending one per view, and opening the
// bucket in it, was 3.5% of a township's changes' CPU at full size. On a
// writable file each view has its own, ended after it, so that it sees
// the writes before it and does not hold back bbolt's remapping. Memory:
// at most maxFreeReadTxs idle transactions (a few hundred bytes each).
// Close ends them all; a view in progress ends its own (and Close waits
// for it, as bbolt's does).
type readTxs struct {
	keep   bool // the file is read-only
	mu     sync.Mutex
	free   []readTx
	closed bool
}

type readTx struct {
	tx  *bolt.Tx
	bk  *bolt.Bucket // nil: the file has no bucket (an empty store)
	cur *bolt.Cursor // bk's, reused from view to view: a seek resets it, and its stack is not grown again
}

// maxFreeReadTxs bounds the idle transactions kept: more views than this
// at once (requests on many more goroutines than cores) end theirs.
const maxFreeReadTxs = 64

// view runs fn on the bucket in an idle transaction, or a new one.
func (p *readTxs) view(db *bolt.DB, fn func(bk *bolt.Bucket, c *bolt.Cursor) error) error {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return bolterrors.ErrDatabaseNotOpen
	}
	var rt readTx
	if n := len(p.free); n > 0 {
		rt, p.free = p.free[n-1], p.free[:n-1]
	}
	p.mu.Unlock()
	if rt.tx == nil {
		tx, err := db.Begin(false)
		if err != nil {
			return err
		}
		rt = readTx{tx: tx, bk: tx.Bucket(bucketName)}
		if rt.bk != nil {
			rt.cur = rt.bk.Cursor()
		}
	}
	defer p.put(rt) // also when fn panics: an open transaction left behind would block Close
	if rt.bk == nil {
		return nil
	}
	return fn(rt.bk, rt.cur)
}

func (p *readTxs) put(rt readTx) {
	p.mu.Lock()
	keep := p.keep && !p.closed && len(p.free) < maxFreeReadTxs
	if keep {
		p.free = append(p.free, rt)
	}
	p.mu.Unlock()
	if !keep {
		rt.tx.Rollback()
	}
}

// close ends the idle transactions; views still running end theirs.
func (p *readTxs) close() {
	p.mu.Lock()
	free := p.free
	p.free, p.closed = nil, true
	p.mu.Unlock()
	for _, rt := range free {
		rt.tx.Rollback()
	}
}

// Get implements Store.
func (b *Bolt) Get(ctx context.Context, pk, sk string) (Item, bool, error) {
	if err := CheckKey(pk, sk); err != nil {
		return Item{}, false, err
	}
	var it Item
	var ok bool
	err := b.view(ctx, "get", func(bk *bolt.Bucket, _ *bolt.Cursor) error {
		if v := bk.Get(boltKey(pk, sk)); v != nil {
			it, ok = Item{PK: pk, SK: sk, Data: cloneData(v)}, true
		}
		return nil
	})
	return it, ok, err
}

// Query implements Store.
func (b *Bolt) Query(ctx context.Context, q Query) (Page, error) {
	limit, err := CheckQuery(q)
	if err != nil {
		return Page{}, err
	}
	bd, _, empty := queryBounds(q)
	if empty {
		return Page{}, nil
	}
	var page Page
	err = b.view(ctx, "query", func(_ *bolt.Bucket, c *bolt.Cursor) error {
		page = boltQuery(c, q.PK, bd, q.Reverse, limit)
		return nil
	})
	return page, err
}

// boltQuery reads up to limit items of pk within bd, plus one to tell
// whether more follow.
func boltQuery(c *bolt.Cursor, pk string, bd bounds, reverse bool, limit int) Page {
	part := boltKey(pk, "") // pk + 0x00: every key of the partition starts with it
	k, v := boltSeek(c, pk, bd, reverse)
	// The page is walked first, keeping the transaction's keys and values
	// (valid until it ends), then copied out once its size is known: the
	// items, one buffer for their data and one string for their sort keys.
	// A copy per item (allocate, clear, copy) was 7% of an operator's
	// dispositions page's CPU; slices sized for a full page of 51 items,
	// whatever the query found, were half of what GET /energy/changes
	// allocated on a township of a few changes.
	var kbuf, vbuf [16][]byte
	keys, vals := kbuf[:0], vbuf[:0]
	dataSize, keySize := 0, 0
	more := false
	for ; k != nil && bytes.HasPrefix(k, part); k, v = step(c, reverse) {
		sk := k[len(part):]
		if s := unsafeString(sk); !bd.aboveLo(s) || !bd.belowHi(s) {
			break
		}
		if len(keys) == limit {
			more = true
			break
		}
		if len(keys) == len(kbuf) { // past the arrays: room for a full page, up to 64
			keys = append(make([][]byte, 0, min(limit, 64)), keys...)
			vals = append(make([][]byte, 0, min(limit, 64)), vals...)
		}
		keys, vals = append(keys, sk), append(vals, v)
		keySize += len(sk)
		dataSize += len(v)
	}
	var page Page
	if len(keys) == 0 {
		return page
	}
	page.Items = make([]Item, len(keys))
	sks := make([]byte, 0, keySize)
	for _, sk := range keys {
		sks = append(sks, sk...)
	}
	all := unsafeString(sks) // the sort keys are slices of it: sks is never written again
	buf := make([]byte, 0, dataSize)
	at := 0
	for i, v := range vals {
		page.Items[i].PK = pk
		page.Items[i].SK = all[at : at+len(keys[i])]
		at += len(keys[i])
		if len(v) > 0 {
			start := len(buf)
			buf = append(buf, v...)
			page.Items[i].Data = buf[start:len(buf):len(buf)]
		}
	}
	if more {
		page.Next = page.Items[len(page.Items)-1].SK
	}
	return page
}

// boltSeek positions c on the first item of pk within bd in the query's
// order (it may be past the partition or the bound: the caller checks).
func boltSeek(c *bolt.Cursor, pk string, bd bounds, reverse bool) (k, v []byte) {
	if !reverse {
		seek := boltKey(pk, bd.lo) // the partition's start when there is no lower bound
		k, v = c.Seek(seek)
		if bd.loExcl && bytes.Equal(k, seek) {
			k, v = c.Next()
		}
		return k, v
	}
	// Position on the last key at or below the upper bound.
	var seek []byte
	if bd.hasHi {
		seek = boltKey(pk, bd.hi)
	} else {
		seek = append([]byte(pk), 1) // just past the partition
	}
	k, v = c.Seek(seek)
	switch {
	case k == nil:
		k, v = c.Last()
	case bytes.Compare(k, seek) > 0 || !bd.hasHi || bd.hiExcl:
		// Past the bound, or exactly on an exclusive bound.
		k, v = c.Prev()
	}
	return k, v
}

// View implements Viewer: one read transaction, the items handed to fn
// where bbolt keeps them.
func (b *Bolt) View(ctx context.Context, q Query, fn func(sk string, data []byte) error) error {
	if _, err := CheckQuery(q); err != nil {
		return err
	}
	bd, _, empty := queryBounds(q)
	if empty {
		return nil
	}
	var fnErr error // fn's own: not the store's failure (view wraps those as 503)
	err := b.view(ctx, "view", func(_ *bolt.Bucket, c *bolt.Cursor) error {
		part := boltKey(q.PK, "")
		for k, v := boltSeek(c, q.PK, bd, q.Reverse); k != nil && bytes.HasPrefix(k, part); k, v = step(c, q.Reverse) {
			sk := unsafeString(k[len(part):])
			if !bd.aboveLo(sk) || !bd.belowHi(sk) {
				return nil
			}
			if fnErr = fn(sk, v); fnErr != nil {
				return nil
			}
		}
		return nil
	})
	if fnErr != nil && !errors.Is(fnErr, ErrStopView) {
		return fnErr
	}
	return err
}

// unsafeString views b as a string without copying, for comparisons
// while b is valid (b must not change meanwhile).
func unsafeString(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(&b[0], len(b))
}

func step(c *bolt.Cursor, reverse bool) ([]byte, []byte) {
	if reverse {
		return c.Prev()
	}
	return c.Next()
}

// Put implements Store: one transaction, all items or none.
func (b *Bolt) Put(ctx context.Context, items []Item) error {
	if err := CheckItems(items); err != nil {
		return err
	}
	if len(items) == 0 {
		return nil
	}
	if err := ctx.Err(); err != nil {
		return b.wrap(ctx, "put", err)
	}
	err := b.db.Update(func(tx *bolt.Tx) error {
		bk := tx.Bucket(bucketName)
		for _, it := range items {
			data := it.Data
			if data == nil {
				data = []byte{} // bbolt stores nil as empty anyway; be explicit
			}
			if err := bk.Put(boltKey(it.PK, it.SK), data); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return b.wrap(ctx, "put", err)
	}
	return nil
}

// Swap implements Store: the check and the write are one transaction.
func (b *Bolt) Swap(ctx context.Context, item Item, expect []byte) (bool, error) {
	if err := CheckItem(item); err != nil {
		return false, err
	}
	if err := ctx.Err(); err != nil {
		return false, b.wrap(ctx, "put", err)
	}
	swapped := false
	err := b.db.Update(func(tx *bolt.Tx) error {
		bk := tx.Bucket(bucketName)
		k := boltKey(item.PK, item.SK)
		v := bk.Get(k)
		if !swapHolds(v != nil, func() []byte { return v }, expect) {
			return nil
		}
		data := item.Data
		if data == nil {
			data = []byte{}
		}
		swapped = true
		return bk.Put(k, data)
	})
	if err != nil {
		return false, b.wrap(ctx, "put", err)
	}
	return swapped, nil
}

// Delete implements Store: one transaction, all keys or none.
func (b *Bolt) Delete(ctx context.Context, keys []Key) error {
	if err := CheckKeys(keys); err != nil {
		return err
	}
	if len(keys) == 0 {
		return nil
	}
	if err := ctx.Err(); err != nil {
		return b.wrap(ctx, "delete", err)
	}
	err := b.db.Update(func(tx *bolt.Tx) error {
		bk := tx.Bucket(bucketName)
		for _, k := range keys {
			if err := bk.Delete(boltKey(k.PK, k.SK)); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return b.wrap(ctx, "delete", err)
	}
	return nil
}

// ScanKeys implements Store: a prefix seek, one read transaction per batch,
// with no transaction open while fn runs (fn may write).
func (b *Bolt) ScanKeys(ctx context.Context, pkPrefix string, fn func([]Key) error) error {
	return b.scanKeysSkipping(ctx, pkPrefix, nil, fn)
}

// scanKeysSkipping implements skipScanner: ScanKeys without the keys whose
// PK begins with one of skip, which it seeks past without reading them.
func (b *Bolt) scanKeysSkipping(ctx context.Context, pkPrefix string, skip []string, fn func([]Key) error) error {
	if err := CheckPrefix(pkPrefix); err != nil {
		return err
	}
	prefix := []byte(pkPrefix)
	type skipRange struct{ lo, hi []byte } // hi nil: to the end of the keys
	var skips []skipRange
	for _, p := range skip {
		r := skipRange{lo: []byte(p)}
		if end, ok := prefixEnd(p); ok {
			r.hi = []byte(end)
		}
		skips = append(skips, r)
	}
	// skipped returns where to seek to when k is in a skipped range.
	skipped := func(k []byte) (to []byte, ok bool) {
		for _, r := range skips {
			if bytes.HasPrefix(k, r.lo) {
				return r.hi, true
			}
		}
		return nil, false
	}
	var batch []Key
	return b.scanBatches(ctx, prefix, func(c *bolt.Cursor, k, _ []byte) (last []byte) {
		batch = nil // fn may keep the previous one
		for k != nil && bytes.HasPrefix(k, prefix) && len(batch) < scanBatch {
			if to, ok := skipped(k); ok {
				if to == nil {
					break
				}
				k, _ = c.Seek(to)
				continue
			}
			batch = append(batch, splitBoltKey(k))
			last = k
			k, _ = c.Next()
		}
		return last
	}, func() error { return fn(batch) })
}

// scanBatches runs the batches of a scan from prefix on: one read
// transaction a batch, each resuming after the previous batch's last key,
// and no transaction open while emit hands a batch over (it may write).
// collect reads a batch from the cursor at its first key and value and
// returns the last key it took, nil when it took none (the scan is over).
func (b *Bolt) scanBatches(ctx context.Context, prefix []byte, collect func(c *bolt.Cursor, k, v []byte) (last []byte), emit func() error) error {
	from, resume := prefix, false
	for {
		var last []byte
		err := b.view(ctx, "scan", func(_ *bolt.Bucket, c *bolt.Cursor) error {
			k, v := c.Seek(from)
			if resume && bytes.Equal(k, from) {
				k, v = c.Next() // the previous batch's last key
			}
			last = bytes.Clone(collect(c, k, v)) // the cursor's key is valid only in the transaction
			return nil
		})
		if err != nil || last == nil {
			return err
		}
		if err := emit(); err != nil {
			return err
		}
		from, resume = last, true
	}
}

// ScanItems implements ItemScanner: a prefix seek, one read transaction
// per batch (at most scanBatch items or scanItemBytes of keys and data),
// the data copied out of it into one buffer a batch.
func (b *Bolt) ScanItems(ctx context.Context, pkPrefix string, fn func([]Item) error) error {
	if err := CheckPrefix(pkPrefix); err != nil {
		return err
	}
	prefix := []byte(pkPrefix)
	var batch []Item
	return b.scanBatches(ctx, prefix, func(c *bolt.Cursor, k, v []byte) (last []byte) {
		batch = nil // fn may keep the previous one
		var buf []byte
		for size := 0; k != nil && bytes.HasPrefix(k, prefix) && len(batch) < scanBatch && size < scanItemBytes; size += len(k) + len(v) {
			key := splitBoltKey(k)
			it := Item{PK: key.PK, SK: key.SK}
			if len(v) > 0 {
				start := len(buf)
				buf = append(buf, v...)
				it.Data = buf[start:len(buf):len(buf)]
			}
			batch = append(batch, it)
			last = k
			k, v = c.Next()
		}
		return last
	}, func() error { return fn(batch) })
}

// Close implements Store: it closes the file and releases its lock.
// Sync flushes the file to disk: what a handle opened with NoSync calls
// before its file is trusted.
func (b *Bolt) Sync() error {
	if err := b.db.Sync(); err != nil {
		return b.wrap(context.Background(), "sync", err)
	}
	return nil
}

func (b *Bolt) Close() error {
	b.releaser.stop()
	b.txs.close() // before bbolt's Close, which waits for every read transaction
	if err := b.db.Close(); err != nil {
		return fmt.Errorf("kv: close %s: %w", b.path, err)
	}
	return nil
}

// CopyTo writes a consistent copy of the store, as of one read
// transaction, to a new file at path (which must not exist), synced: a
// read-only handle can copy a file that other read-only handles serve.
func (b *Bolt) CopyTo(path string) error {
	err := b.db.View(func(tx *bolt.Tx) error {
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if err != nil {
			return err
		}
		if _, err := tx.WriteTo(f); err != nil {
			f.Close()
			return err
		}
		return errors.Join(f.Sync(), f.Close())
	})
	if err != nil {
		return fmt.Errorf("kv: copy %s to %s: %w", b.path, path, err)
	}
	return nil
}
