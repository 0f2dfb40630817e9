package kv

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
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

// Unchanging reports whether what s holds cannot change while it is open:
// a read-only Bolt (a writer needs the file's exclusive lock). Answers
// read from it can be kept for as long as it is open.
func Unchanging(s Store) bool {
	b, ok := s.(*Bolt)
	return ok && b.readOnly
}

// Open returns the published version of dataset name, or ok == false if it
// was never published. It reads the pointer once: keep the Dataset for the
// length of a request, not longer. A read-only Bolt cannot change while it
// is open (a writer needs the file's exclusive lock), so its datasets are
// read once and kept with it: their Counts are then shared, read-only (a
// request's Get and decoding were 4% of GET /energy/changes' CPU).
func Open(ctx context.Context, s Store, name string) (Dataset, bool, error) {
	if err := checkName(name); err != nil {
		return Dataset{}, false, err
	}
	b, fixed := s.(*Bolt)
	if fixed = Unchanging(s); fixed {
		if d, ok := b.datasets.Load(name); ok {
			return d.(Dataset), true, nil
		}
	}
	it, ok, err := s.Get(ctx, DatasetPK, name)
	if err != nil || !ok {
		return Dataset{}, false, err
	}
	d, err := decodePointer(s, it)
	if err != nil {
		return Dataset{}, false, err
	}
	if fixed {
		b.datasets.Store(name, d)
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

// View calls fn with the sort key and data of every item q selects in the
// dataset's version, in q's order, until fn returns an error (ErrStopView:
// View returns nil). On a Viewer (Bolt) the items are read where the store
// keeps them, and sk and data are valid only during the call; on the other
// stores a page at a time through Query. Memory: nothing a Viewer holds;
// one page of MaxLimit items otherwise.
func (d Dataset) View(ctx context.Context, q Query, fn func(sk string, data []byte) error) error {
	if err := d.check(); err != nil {
		return err
	}
	if err := checkPK(q.PK); err != nil {
		return err
	}
	if v, ok := d.s.(Viewer); ok {
		q.PK = d.prefix + q.PK
		return v.View(ctx, q, fn)
	}
	err := d.Each(ctx, q, func(it Item) error { return fn(it.SK, it.Data) })
	if errors.Is(err, ErrStopView) {
		return nil
	}
	return err
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
