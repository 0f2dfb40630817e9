package kv

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"meridian/shared/apierr"
)

// Reserved partition keys: the dataset pointers, and the last version
// handed out per dataset. Dataset items never collide with them: their
// partition keys contain '@'.
const (
	DatasetPK     = "DATASET"
	LastVersionPK = "DATASET#LAST"
)

// MaxDatasetNameBytes bounds a dataset name.
const MaxDatasetNameBytes = 200

// Version numbers the ingests of a dataset: 1, 2, 3, ...
type Version int64

// DatasetInfo describes a dataset for meta.sources: what the caller of
// Publish knows about it.
type DatasetInfo struct {
	// Name identifies the dataset in the store, e.g. "ab-wells"; no '@',
	// '#' or NUL.
	Name string `json:"name"`
	// Source names the publisher and its dataset, e.g. "Alberta Energy
	// Regulator, ST37 well list".
	Source string `json:"source"`
	// FileDate is the date of the source files.
	FileDate time.Time `json:"file_date,omitzero"`
	// Demo marks data made by the project's generator, not a publisher.
	Demo bool `json:"demo,omitempty"`
	// Counts holds the caller's record counts, e.g. {"wells": 1200}.
	Counts map[string]int `json:"counts,omitempty"`
}

// Dataset is a published version of a dataset, for reading. Its Get and
// Query take the caller's un-namespaced partition keys.
type Dataset struct {
	Info      DatasetInfo
	Version   Version
	Published time.Time // when the version became visible
	Items     int       // items written by the version

	s      Store
	prefix string // "<name>@<version>#"
}

// pointer is the data of a dataset pointer item.
type pointer struct {
	DatasetInfo
	Version   Version   `json:"version"`
	Published time.Time `json:"published"`
	Items     int       `json:"items"`
}

// lastVersion is the data of a DATASET#LAST item.
type lastVersion struct {
	Version Version `json:"version"`
}

// versionPrefix returns the partition key prefix of a version's items.
func versionPrefix(name string, v Version) string {
	return name + "@" + strconv.FormatInt(int64(v), 10) + "#"
}

func checkName(name string) error {
	if name == "" || len(name) > MaxDatasetNameBytes || !utf8.ValidString(name) || strings.ContainsAny(name, "@#\x00") {
		return invalidf("invalid dataset name %q (non-empty UTF-8 of at most %d bytes without '@', '#' or NUL)", name, MaxDatasetNameBytes)
	}
	return nil
}

// Open returns the published version of dataset name, or ok == false if it
// was never published. It reads the pointer once: keep the Dataset for the
// length of a request, not longer.
func Open(ctx context.Context, s Store, name string) (Dataset, bool, error) {
	if err := checkName(name); err != nil {
		return Dataset{}, false, err
	}
	it, ok, err := s.Get(ctx, DatasetPK, name)
	if err != nil || !ok {
		return Dataset{}, false, err
	}
	d, err := decodePointer(s, it)
	if err != nil {
		return Dataset{}, false, err
	}
	return d, true, nil
}

// pointerMemo is the last pointer decoded of a dataset: its JSON and what
// it says. Every request opens its dataset, and the pointer changes only
// when a version is published, so its decoding is kept (a few per cent of
// a list request's CPU).
type pointerMemo struct {
	data []byte
	p    pointer
}

// pointers holds a *pointerMemo by dataset name.
var pointers sync.Map

func decodePointer(s Store, it Item) (Dataset, error) {
	var p pointer
	if m, ok := pointers.Load(it.SK); ok && bytes.Equal(m.(*pointerMemo).data, it.Data) {
		p = m.(*pointerMemo).p
		p.Counts = maps.Clone(p.Counts) // the caller's own, as if decoded
	} else {
		if err := json.Unmarshal(it.Data, &p); err != nil || p.Name != it.SK || p.Version <= 0 {
			if err == nil {
				err = fmt.Errorf("name %q, version %d", p.Name, p.Version)
			}
			return Dataset{}, apierr.Unavailablef(fmt.Errorf("kv: dataset pointer %q is corrupt: %w: %w", it.SK, ErrUnavailable, err), ReadMessage)
		}
		kept := p
		kept.Counts = maps.Clone(p.Counts)
		pointers.Store(it.SK, &pointerMemo{data: bytes.Clone(it.Data), p: kept})
	}
	return Dataset{
		Info:      p.DatasetInfo,
		Version:   p.Version,
		Published: p.Published,
		Items:     p.Items,
		s:         s,
		prefix:    versionPrefix(p.Name, p.Version),
	}, nil
}

// Datasets returns every published dataset, by name.
func Datasets(ctx context.Context, s Store) ([]Dataset, error) {
	var out []Dataset
	q := Query{PK: DatasetPK}
	for {
		page, err := s.Query(ctx, q)
		if err != nil {
			return nil, err
		}
		for _, it := range page.Items {
			d, err := decodePointer(s, it)
			if err != nil {
				return nil, err
			}
			out = append(out, d)
		}
		if page.Next == "" {
			return out, nil
		}
		q.After = page.Next
	}
}

func (d Dataset) check() error {
	if d.s == nil {
		return errors.New("kv: Dataset not opened (use kv.Open or kv.Datasets)")
	}
	return nil
}

// Get returns the item of the dataset's version with key (pk, sk).
func (d Dataset) Get(ctx context.Context, pk, sk string) (Item, bool, error) {
	if err := d.check(); err != nil {
		return Item{}, false, err
	}
	if err := checkPK(pk); err != nil {
		return Item{}, false, err
	}
	if !d.settled() {
		ctx = withConsistentRead(ctx)
	}
	it, ok, err := d.s.Get(ctx, d.prefix+pk, sk)
	if ok {
		it.PK = pk
	}
	return it, ok, err
}

// settled reports whether the version was published more than
// SettleWindow ago, so that eventually consistent reads see all of it.
// Until then its Get and Query ask the store for strongly consistent
// reads: Query.Consistent, and for Get a mark on the context (Get has no
// options), which wrappers of a Store pass on with the context.
func (d Dataset) settled() bool {
	return time.Since(d.Published) >= SettleWindow
}

// Query runs q on the dataset's version; q.PK and the items' PKs are
// un-namespaced.
func (d Dataset) Query(ctx context.Context, q Query) (Page, error) {
	if err := d.check(); err != nil {
		return Page{}, err
	}
	if err := checkPK(q.PK); err != nil {
		return Page{}, err
	}
	pk := q.PK
	q.PK = d.prefix + pk
	q.Consistent = q.Consistent || !d.settled()
	page, err := d.s.Query(ctx, q)
	for i := range page.Items {
		page.Items[i].PK = pk
	}
	return page, err
}

// Each calls fn with every item q selects, in q's order, reading MaxLimit
// items a page (q.Limit is ignored); it stops at fn's first error.
func (d Dataset) Each(ctx context.Context, q Query, fn func(Item) error) error {
	q.Limit = MaxLimit
	for {
		page, err := d.Query(ctx, q)
		if err != nil {
			return err
		}
		for _, it := range page.Items {
			if err := fn(it); err != nil {
				return err
			}
		}
		if page.Next == "" {
			return nil
		}
		q.After = page.Next
	}
}

// ScanKeys calls fn with the keys of the version's items whose PK begins
// with pkPrefix (un-namespaced), a batch at a time, in no particular order.
// It reads the store's whole key space on DynamoDB: tools only (sampling,
// audits), never a request path. fn must not keep keys after it returns.
func (d Dataset) ScanKeys(ctx context.Context, pkPrefix string, fn func(keys []Key) error) error {
	if err := d.check(); err != nil {
		return err
	}
	var out []Key // a copy: the store may page on the keys it handed over
	return d.s.ScanKeys(ctx, d.prefix+pkPrefix, func(keys []Key) error {
		out = out[:0]
		for _, k := range keys {
			out = append(out, Key{PK: strings.TrimPrefix(k.PK, d.prefix), SK: k.SK})
		}
		return fn(out)
	})
}

// writerBuffer is the number of items a Writer buffers before a Put, on a
// store that does not stream.
const writerBuffer = 1000

// Streamer is implemented by stores that take a dataset's items best as a
// stream: DynamoDB's (package dynamokv) writes batches concurrently, Bolt
// sorts runs on disk and loads them at the end. A Writer hands each item
// over as it comes, instead of buffering writerBuffer items and waiting for
// their Put. Wrappers of a Store hide it, and their Writer falls back to
// Put.
type Streamer interface {
	PutStream(ctx context.Context) ItemStream
}

// ItemStream is a stream of puts. Put may block while the store is
// behind; it returns the stream's first error. Close writes what remains
// (or, with abort, drops it), waits for every write in flight and returns
// the first error.
type ItemStream interface {
	Put(it Item) error
	Close(abort bool) error
}

// Writer writes the items of a dataset version being published. It is not
// safe for concurrent use.
type Writer struct {
	ctx    context.Context
	s      Store
	stream ItemStream // nil: buffered Puts
	prefix string
	buf    []Item
	n      int
	err    error // sticky: the first store error
}

func newWriter(ctx context.Context, s Store, prefix string) *Writer {
	w := &Writer{ctx: ctx, s: s, prefix: prefix}
	if st, ok := s.(Streamer); ok {
		w.stream = st.PutStream(ctx)
	}
	return w
}

// Put JSON-encodes v and writes it as the item (pk, sk) of the version.
// The encoding does not escape & < > (json.Marshal would write \u0026
// \u003c \u003e): it is the encoding of the API's responses
// (api.WriteJSON), so an endpoint can send a stored row as it is.
func (w *Writer) Put(pk, sk string, v any) error {
	data, err := MarshalItem(v)
	if err != nil {
		return fmt.Errorf("kv: encode item %q/%q: %w", pk, sk, err)
	}
	return w.PutRaw(pk, sk, data)
}

// MarshalItem is the JSON of an item's value as Writer.Put writes it:
// json.Marshal without HTML escaping.
func MarshalItem(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	// An exact copy, without the newline Encode ends the value with: the
	// Writer may hold many items, and the buffer's spare capacity with
	// them (json.Marshal copies too).
	return bytes.Clone(b.Bytes()[:b.Len()-1]), nil
}

// PutRaw writes data as the item (pk, sk) of the version. The Writer keeps
// data until it is written: do not modify it. On DynamoDB it may block
// while the table is behind (a bounded number of batches in flight).
func (w *Writer) PutRaw(pk, sk string, data []byte) error {
	if w.err != nil {
		return w.err
	}
	if err := checkPK(pk); err != nil {
		return err
	}
	it := Item{PK: w.prefix + pk, SK: sk, Data: data}
	if err := CheckItem(it); err != nil {
		return err
	}
	w.n++
	if w.stream != nil {
		if err := w.stream.Put(it); err != nil {
			w.err = err
			return err
		}
		return nil
	}
	w.buf = append(w.buf, it)
	if len(w.buf) >= writerBuffer {
		return w.flush()
	}
	return nil
}

// Len returns the number of items written so far (a key written twice
// counts twice).
func (w *Writer) Len() int { return w.n }

func (w *Writer) flush() error {
	if w.err != nil || len(w.buf) == 0 {
		return w.err
	}
	if err := w.s.Put(w.ctx, w.buf); err != nil {
		w.err = err
		return err
	}
	w.buf = w.buf[:0]
	return nil
}

// finish writes what the Writer holds and waits for every write in flight;
// with abort set it drops what is not yet written. It returns the first
// store error (none when aborting).
func (w *Writer) finish(abort bool) error {
	if w.stream != nil {
		err := w.stream.Close(abort)
		w.stream = nil
		if err != nil && w.err == nil {
			w.err = err
		}
		if abort {
			return nil
		}
		return w.err
	}
	if abort {
		w.buf = nil
		return nil
	}
	return w.flush()
}

// cleanupTimeout bounds the best-effort deletes Publish makes after a
// failure, which run even when the caller's context is done.
const cleanupTimeout = 2 * time.Minute

// ErrConflict is wrapped by the error of a Publish that lost a race with
// another Publish of the same dataset: the other one changed the dataset's
// pointer after this one read it. The dataset then serves the other
// version, whole; the loser's items are deleted. Run the ingest again if
// its data is the newer.
var ErrConflict = errors.New("kv: dataset changed by a concurrent publish")

// SettleWindow is how long after a version's flip a Dataset reads its items
// with strongly consistent reads (Query.Consistent). DynamoDB's eventually
// consistent reads reflect a write typically within a second; a minute
// covers that with room for clock skew between the publisher (which
// stamps Published) and the reader. Afterwards reads are eventually
// consistent again: items of a published version are never rewritten.
const SettleWindow = time.Minute

// reserveAttempts bounds the retries of the version counter's
// compare-and-swap when other publishes of the dataset keep winning.
const reserveAttempts = 20

// Publish writes a new version of dataset ds.Name with write and makes it
// the version readers see, atomically: see the package doc. It returns the
// new version.
//
// If write returns an error, or the store fails, the previous version stays
// served, what the new version wrote is deleted (best effort), and the
// error is returned. If another Publish of the dataset flipped the pointer
// after this one read it, this one fails with an error wrapping
// ErrConflict and deletes its items: the two never merge. If the new
// version was published but deleting older versions failed, Publish
// returns the new version and an error: the data served is right, and the
// next Publish deletes the leftovers. The version replaced stays in the
// store until the next Publish (see the package doc).
func Publish(ctx context.Context, s Store, ds DatasetInfo, write func(w *Writer) error) (Version, error) {
	if err := checkName(ds.Name); err != nil {
		return 0, err
	}
	name := ds.Name
	r, err := reserveVersion(ctx, s, name)
	if err != nil {
		return 0, fmt.Errorf("kv: publish %s: %w", name, err)
	}
	v, prev := r.next, r.published
	prefix := versionPrefix(name, v)
	w := newWriter(ctx, s, prefix)
	err = write(w)
	// Also reports a store error the callback ignored; after a failed
	// callback, waits for the writes in flight before deleting them.
	if ferr := w.finish(err != nil); err == nil {
		err = ferr
	}
	if err != nil {
		err = fmt.Errorf("kv: publish %s version %d: %w", name, v, err)
		return 0, errors.Join(err, deleteItems(ctx, s, prefix))
	}
	p := pointer{DatasetInfo: ds, Version: v, Published: time.Now().UTC(), Items: w.n}
	data, err := json.Marshal(p)
	if err != nil {
		return 0, fmt.Errorf("kv: publish %s: encode pointer: %w", name, err)
	}
	// The flip: only if the pointer still holds what this publish read
	// before reserving its version.
	swapped, err := s.Swap(ctx, Item{PK: DatasetPK, SK: name, Data: data}, r.pointer)
	if err != nil || !swapped {
		ambiguous := err != nil
		if ambiguous {
			err = fmt.Errorf("kv: publish %s version %d: write pointer: %w", name, v, err)
		} else {
			err = fmt.Errorf("kv: publish %s version %d: %w (the pointer no longer names version %d)", name, v, ErrConflict, prev)
		}
		// The write may have happened anyway (a timeout, or an SDK retry
		// of an attempt the server applied): only delete the new items if
		// the pointer is known not to name them.
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), cleanupTimeout)
		defer cancel()
		cur, ok, rerr := Open(cctx, s, name)
		switch {
		case rerr != nil:
			return 0, errors.Join(err, fmt.Errorf("kv: publish %s version %d: pointer unknown, new items kept for the next Publish to delete: %w", name, v, rerr))
		case ok && cur.Version == v:
			// Published after all.
		case ambiguous && ok && cur.Version > v:
			// A later version is served; whether this one was served
			// between the two is unknown, so its items are left for the
			// next Publish, as readers may hold it.
			return 0, errors.Join(err, fmt.Errorf("kv: publish %s version %d: version %d now served; new items kept for the next Publish to delete", name, v, cur.Version))
		default:
			return 0, errors.Join(err, deleteItems(ctx, s, prefix))
		}
	}
	// The version served until now stays, for readers that opened it just
	// before the flip (a request in flight, a Lambda's cached pointer); the
	// next Publish deletes it. Versions above this one belong to publishes
	// still running (they will fail their flip, and delete their own).
	if err := deleteOlder(ctx, s, name, v, prev); err != nil {
		return v, fmt.Errorf("kv: publish %s version %d: published, but older versions remain: %w", name, v, err)
	}
	return v, nil
}

// reservation is what reserveVersion found and took.
type reservation struct {
	next      Version // the version reserved
	published Version // the version the pointer named (0: none)
	pointer   []byte  // the pointer's data as read (nil: none), expected at the flip
}

// reserveVersion returns the next version of dataset name, one above both
// the published one and the last one handed out, and records it as handed
// out with a compare-and-swap of the counter, so that two publishes never
// get the same version and leftovers of a failed Publish are never read as
// part of a later version. The pointer is read before the counter is
// swapped: a publish that reserved a version before another's flip
// therefore always sees a pointer that flip changed, and cannot flip.
func reserveVersion(ctx context.Context, s Store, name string) (reservation, error) {
	for attempt := 1; ; attempt++ {
		var r reservation
		var last Version
		it, ok, err := s.Get(ctx, DatasetPK, name)
		if err != nil {
			return reservation{}, err
		}
		if ok {
			cur, err := decodePointer(s, it)
			if err != nil {
				return reservation{}, err
			}
			last, r.published, r.pointer = cur.Version, cur.Version, it.Data
		}
		lit, lok, err := s.Get(ctx, LastVersionPK, name)
		if err != nil {
			return reservation{}, err
		}
		var expect []byte
		if lok {
			var lv lastVersion
			if err := json.Unmarshal(lit.Data, &lv); err != nil {
				return reservation{}, fmt.Errorf("kv: last version of %s is corrupt: %w", name, err)
			}
			last, expect = max(last, lv.Version), lit.Data
		}
		r.next = last + 1
		data, _ := json.Marshal(lastVersion{Version: r.next})
		swapped, err := s.Swap(ctx, Item{PK: LastVersionPK, SK: name, Data: data}, expect)
		if err != nil {
			return reservation{}, err
		}
		if swapped {
			return r, nil
		}
		if attempt == reserveAttempts {
			return reservation{}, fmt.Errorf("kv: reserve a version of %s: %w (lost %d times)", name, ErrConflict, attempt)
		}
		t := time.NewTimer(Backoff(min(attempt, 4), 2*time.Second))
		select {
		case <-ctx.Done():
			t.Stop()
			return reservation{}, ctx.Err()
		case <-t.C:
		}
	}
}

// deleteOlder deletes the items of the versions of dataset name below v,
// except those of keep. Unlike the deletes after a failure, it runs under
// the caller's context, without a cap of its own: at province size it is a
// Scan of the whole table and millions of deletes, far beyond
// cleanupTimeout, and the new version is already served, so a caller that
// gives up (Ctrl-C, a deadline) only leaves the leftovers to the next
// Publish.
func deleteOlder(ctx context.Context, s Store, name string, v, keep Version) error {
	cctx := ctx
	prefix := name + "@"
	scan := s.ScanKeys
	if sk, ok := s.(skipScanner); ok {
		// The version just published and the one kept are most of the
		// keys (a fresh boltdir file holds nothing else): seek past them.
		skip := []string{versionPrefix(name, v)}
		if keep > 0 {
			skip = append(skip, versionPrefix(name, keep))
		}
		scan = func(ctx context.Context, prefix string, fn func([]Key) error) error {
			return sk.scanKeysSkipping(ctx, prefix, skip, fn)
		}
	}
	err := scan(cctx, prefix, func(keys []Key) error {
		del := keys[:0:0]
		for _, k := range keys {
			if w, ok := keyVersion(k.PK, prefix); ok && w < v && w != keep {
				del = append(del, k)
			}
		}
		if len(del) == 0 {
			return nil
		}
		return s.Delete(cctx, del)
	})
	if err != nil {
		return fmt.Errorf("kv: delete items under %s: %w", prefix, err)
	}
	return nil
}

// skipScanner is implemented by stores whose key scan can seek past the
// keys of a prefix without reading them ([Bolt]): deleteOlder then reads
// the keys it deletes, not the millions of the version it just published
// (on a province-size bbolt file, a scan of 7.6 M keys through 4.6 GB).
type skipScanner interface {
	scanKeysSkipping(ctx context.Context, pkPrefix string, skip []string, fn func([]Key) error) error
}

// keyVersion returns the version of a dataset item's partition key,
// "<name>@<version>#<pk>", given "<name>@".
func keyVersion(pk, prefix string) (Version, bool) {
	rest, ok := strings.CutPrefix(pk, prefix)
	if !ok {
		return 0, false
	}
	n, _, ok := strings.Cut(rest, "#")
	if !ok {
		return 0, false
	}
	v, err := strconv.ParseInt(n, 10, 64)
	return Version(v), err == nil && v > 0
}

// deleteItems deletes the items whose PK begins with prefix. It goes on after the caller's context is done, for
// cleanupTimeout at most.
func deleteItems(ctx context.Context, s Store, prefix string) error {
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), cleanupTimeout)
	defer cancel()
	err := s.ScanKeys(cctx, prefix, func(keys []Key) error {
		return s.Delete(cctx, keys)
	})
	if err != nil {
		return fmt.Errorf("kv: delete items under %s: %w", prefix, err)
	}
	return nil
}

// consistentKey marks a context whose reads must be strongly consistent.
type consistentKey struct{}

func withConsistentRead(ctx context.Context) context.Context {
	return context.WithValue(ctx, consistentKey{}, true)
}

// ConsistentRead reports whether reads under ctx must be strongly
// consistent (Dataset.Get of a version not yet settled).
func ConsistentRead(ctx context.Context) bool {
	v, _ := ctx.Value(consistentKey{}).(bool)
	return v
}

// CarryVersions records in to, for every dataset from has published or
// handed a version to, the last version handed out, so that a store that
// replaces from (a fresh file per ingest) continues from's version numbers
// rather than starting again at 1: a version number then names one
// content for the life of a deployment (ETags and caches rely on it). It
// copies no items.
func CarryVersions(ctx context.Context, from, to Store) error {
	last := map[string]Version{}
	ds, err := Datasets(ctx, from)
	if err != nil {
		return err
	}
	for _, d := range ds {
		last[d.Info.Name] = d.Version
	}
	q := Query{PK: LastVersionPK, Consistent: true}
	for {
		page, err := from.Query(ctx, q)
		if err != nil {
			return err
		}
		for _, it := range page.Items {
			var lv lastVersion
			if err := json.Unmarshal(it.Data, &lv); err != nil {
				return fmt.Errorf("kv: last version of %s is corrupt: %w", it.SK, err)
			}
			last[it.SK] = max(last[it.SK], lv.Version)
		}
		if page.Next == "" {
			break
		}
		q.After = page.Next
	}
	items := make([]Item, 0, len(last))
	for name, v := range last {
		data, _ := json.Marshal(lastVersion{Version: v})
		items = append(items, Item{PK: LastVersionPK, SK: name, Data: data})
	}
	if len(items) == 0 {
		return nil
	}
	return to.Put(ctx, items)
}

// Backoff returns the wait after an attempt (1 for the first): full jitter
// below min(50 ms * 2^(attempt-1), ceil), plus a millisecond. Publish waits
// it between two tries at reserving a version, and the DynamoDB store
// between two attempts at a batch.
func Backoff(attempt int, ceil time.Duration) time.Duration {
	const base = 50 * time.Millisecond
	limit := ceil
	if attempt < 20 {
		limit = min(base<<(attempt-1), ceil)
	}
	return rand.N(limit) + time.Millisecond
}
