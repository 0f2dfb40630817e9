package energy

import (
	"context"
	"strconv"
	"strings"
	"sync"

	"meridian/shared/apierr"
	"meridian/shared/kv"
	"meridian/shared/lld"
)

// ChangesQuery asks for the changes of an area (GET /energy/changes).
type ChangesQuery struct {
	Area    lld.Location // a DLS township, section, quarter section or LSD
	Since   string       // YYYY-MM-DD: changes with an as-of date on or after it; "" for all retained
	Kinds   map[ChangeKind]bool
	Page    int    // 1-based; pages after the first skip the rows before them
	PerPage int    // rows per page
	After   string // a cursor's sort key (DecodeCursor with ChangesPaging): the page starts after it
}

// ChangesPaging is the paging the changes' cursors are bound to: newest
// first, the partition's key order.
func ChangesPaging(page, perPage int) Paging {
	return Paging{Page: page, PerPage: perPage, Sort: "newest"}
}

// ChangesPage is what AppendChanges read besides the rows: how many rows
// it appended, the cursor of the next page ("" at the end), and the total
// when the page read the area's changes to their end (-1 otherwise).
type ChangesPage struct {
	Rows  int
	Next  string
	Total int
}

// AppendChanges appends a page of the changes of q.Area, newest first, to
// dst: the rows as stored (Change JSON, compact, written as the answer
// writes them; TestChangesListAsEncoder), separated by commas. It is one
// walk of the township's partition (CHG#<township>) from the cursor, or
// the start, to the since bound, keeping the rows in the area and of the
// kinds asked for. The area and kind of a row are read from its sort key,
// so rows that do not match are never decoded, and the rows kept are
// copied once, from where the store keeps them into dst
// (kv.Dataset.View). A page past the first without a cursor skips the
// matching rows before it: the cost of page N grows with N (a cursor
// pages at constant cost). Memory: the rows of the answer, in dst.
func (r *Reporter) AppendChanges(ctx context.Context, dst []byte, q ChangesQuery) ([]byte, ChangesPage, error) {
	ds, err := Open(ctx, r.store)
	if err != nil {
		return dst, ChangesPage{}, err
	}
	w := walks.Get().(*changesWalk) // as release left it: empty but for its walk and key buffer
	defer w.release()
	w.q, w.in, w.dst, w.out = q, AreaContains(q.Area), dst, ChangesPage{Total: -1}
	if q.After == "" {
		w.skip = (q.Page - 1) * q.PerPage
	}
	kq := kv.Query{PK: ChangesKey(q.Area), After: q.After}
	if q.Since != "" {
		kq.SKTo = ChangeSinceSK(q.Since)
	}
	if err := ds.View(ctx, kq, w.walk); err != nil {
		return dst, ChangesPage{}, err
	}
	if q.After == "" && w.out.Next == "" {
		w.out.Total = w.matched
	}
	return w.dst, w.out, nil
}

// walks keeps AppendChanges' walks for reuse: a walk is handed to the
// store as a function value, which puts it on the heap, and a township's
// changes are asked for thousands of times a second.
var walks = sync.Pool{New: func() any {
	w := new(changesWalk)
	w.walk = w.row
	return w
}}

// release gives w back to walks, holding nothing of its request's.
func (w *changesWalk) release() {
	*w = changesWalk{last: w.last[:0], walk: w.walk}
	walks.Put(w)
}

// changesWalk is AppendChanges' state along the partition: one value,
// reused (walks), so that a walk allocates nothing whatever it reads.
type changesWalk struct {
	walk    func(sk string, data []byte) error // w.row, made once with w
	q       ChangesQuery
	in      func(lsd string) bool
	skip    int // matching rows before the page (a page number without a cursor)
	matched int
	dst     []byte
	out     ChangesPage
	last    []byte // the sort key of the page's last row, once the page is full
}

func (w *changesWalk) row(sk string, data []byte) error {
	lsd, kind, ok := changeKeyParts(sk)
	if !ok || !w.in(lsd) || (w.q.Kinds != nil && !w.q.Kinds[kind]) {
		return nil
	}
	w.matched++
	if w.matched <= w.skip {
		return nil
	}
	if w.out.Rows == w.q.PerPage {
		// One more row exists: the page ends at the last one kept.
		w.out.Next = encodeCursor(ChangesPaging(1, w.q.PerPage), string(w.last))
		return kv.ErrStopView
	}
	if w.out.Rows > 0 {
		w.dst = append(w.dst, ',')
	}
	w.dst = append(w.dst, data...)
	w.out.Rows++
	if w.out.Rows == w.q.PerPage { // the next page starts after this row, if one more exists
		w.last = append(w.last[:0], sk...) // sk is the store's: valid only during the walk
	}
	return nil
}

// dlsKey packs the fields that name a DLS area (CheckChangesArea's units)
// into one number: a map keyed by it costs one hash of 8 bytes, where the
// area's name cost building a string and hashing it (and a sync.Map keyed
// by the Location, a walk of its trie: 2.3% of a township's changes).
func dlsKey(l lld.Location) uint64 {
	return uint64(l.Unit) | uint64(l.Meridian)<<8 | uint64(l.Range)<<16 | uint64(l.Township)<<24 |
		uint64(l.Section)<<32 | uint64(l.Aliquot)<<40 | uint64(l.LSD)<<48
}

// changeKeyParts reads a CHG# sort key's LSD and kind (ChangeSK:
// date#version#lsd#kind#entity).
func changeKeyParts(sk string) (string, ChangeKind, bool) {
	_, rest, ok1 := strings.Cut(sk, "#")     // date
	_, rest, ok2 := strings.Cut(rest, "#")   // version
	lsd, rest, ok3 := strings.Cut(rest, "#") // LSD
	kind, _, ok4 := strings.Cut(rest, "#")   // kind, then the entity
	return lsd, ChangeKind(kind), ok1 && ok2 && ok3 && ok4
}

// AreaContains returns whether an LSD (as lld writes it: "9-10-60-22-W5")
// lies in area: every LSD of a township's partition is in the township; a
// section's end with "-<section>"; a quarter's are also among its four
// LSD numbers.
func AreaContains(area lld.Location) func(lsd string) bool {
	switch area.Unit {
	case lld.Township:
		return func(string) bool { return true }
	case lld.LSD:
		want := area.String()
		return func(lsd string) bool { return lsd == want }
	}
	sec := area
	sec.Unit, sec.Aliquot = lld.Section, 0
	suffix := "-" + sec.String()
	var quarter map[int]bool
	if area.Unit == lld.QuarterSection {
		quarter = map[int]bool{}
		for n := 1; n <= 16; n++ {
			if lld.QuarterOfLSD(n) == area.Aliquot {
				quarter[n] = true
			}
		}
	}
	return func(lsd string) bool {
		head, ok := strings.CutSuffix(lsd, suffix)
		if !ok {
			return false
		}
		if quarter == nil {
			return true
		}
		n, err := strconv.Atoi(head)
		return err == nil && quarter[n]
	}
}

// CheckChangesArea refuses what GET /energy/changes cannot answer: a
// location outside the DLS, or a unit other than a township, section,
// quarter section or LSD.
func CheckChangesArea(l lld.Location, input string) error {
	if l.System == lld.NTS {
		return apierr.Invalidf("bc_not_supported", "'%s' is in British Columbia: energy data covers AB, SK and MB", input)
	}
	if l.System != lld.DLS {
		return apierr.Invalidf("invalid_legal_location", "'%s' is not a DLS location: changes are kept per LSD in AB, SK and MB; give an LSD, quarter, section or township", input)
	}
	switch l.Unit {
	case lld.Township, lld.Section, lld.QuarterSection, lld.LSD:
		return nil
	}
	return apierr.Invalidf("invalid_legal_location", "'%s' is a %s: give an LSD, quarter section, section or township", input, strings.ToLower(l.Unit.String()))
}

// Province places an area of GET /energy/changes on the grid and returns
// its province code; an area in British Columbia is refused. The province
// of a DLS area never changes, so each area placed is remembered
// (maxProvinceMemo of them, for the Reporter's life): an area asked again
// skips the grid lookup, which was 9% of a township's changes' CPU at
// full size. An area the grid does not place is looked up every time.
func (r *Reporter) Province(ctx context.Context, l lld.Location, input string) (string, error) {
	if l.System != lld.DLS { // not remembered: dlsKey names DLS areas only
		_, prov, err := r.place(ctx, l, input)
		return prov, err
	}
	key := dlsKey(l)
	r.mu.RLock()
	p, ok := r.provinces[key]
	r.mu.RUnlock()
	if ok {
		return p, nil
	}
	_, prov, err := r.place(ctx, l, input)
	if err == nil {
		r.mu.Lock()
		if r.provinces == nil {
			r.provinces = map[uint64]string{}
		}
		if len(r.provinces) < maxProvinceMemo {
			r.provinces[key] = prov
		}
		r.mu.Unlock()
	}
	return prov, err
}
