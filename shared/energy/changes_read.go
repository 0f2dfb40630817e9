package energy

import (
	"context"
	"strconv"
	"strings"

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

// ChangesPage is a page of changes: the rows as stored (Change JSON, passed
// through as the response writes them), the cursor of the next page (""
// at the end), and the total when the page read the area's changes to
// their end (-1 otherwise).
type ChangesPage struct {
	Raw   RawPage
	Rows  int // how many rows Raw holds
	Next  string
	Total int

	buf *[]byte // the pooled buffer Raw's rows are copied into
}

// Changes reads a page of the changes of q.Area, newest first: one walk
// of the township's partition (CHG#<township>) from the cursor, or the
// start, to the since bound, keeping the rows in the area and of the
// kinds asked for. The area and kind of a row are read from its sort key,
// so rows that do not match are never decoded, and the rows kept are
// copied once, from where the store keeps them into the page
// (kv.Dataset.View). A page past the first without a cursor skips the
// matching rows before it: the cost of page N grows with N (a cursor
// pages at constant cost). Memory: the rows of the answer (in a pooled
// buffer: call Release on the page once written).
func (r *Reporter) Changes(ctx context.Context, q ChangesQuery) (ChangesPage, error) {
	ds, err := Open(ctx, r.store)
	if err != nil {
		return ChangesPage{}, err
	}
	in := AreaContains(q.Area)
	skip := 0
	if q.After == "" {
		skip = (q.Page - 1) * q.PerPage
	}
	kq := kv.Query{PK: ChangesKey(q.Area), After: q.After}
	if q.Since != "" {
		kq.SKTo = ChangeSinceSK(q.Since)
	}
	out := ChangesPage{Total: -1}
	out.Raw.ok = true
	out.buf = rowBufs.Get().(*[]byte)
	out.Raw.scratch = (*out.buf)[:0]
	matched := 0
	var last []byte // the sort key of the last row kept
	err = ds.View(ctx, kq, func(sk string, data []byte) error {
		lsd, kind, ok := changeKeyParts(sk)
		if !ok || !in(lsd) || (q.Kinds != nil && !q.Kinds[kind]) {
			return nil
		}
		matched++
		if matched <= skip {
			return nil
		}
		if out.Rows == q.PerPage {
			// One more row exists: the page ends at the last one kept.
			out.Next = encodeCursor(ChangesPaging(1, q.PerPage), string(last))
			return kv.ErrStopView
		}
		out.Raw.appendCopy(data)
		out.Rows++
		last = append(last[:0], sk...)
		return nil
	})
	if err != nil {
		out.Release()
		return ChangesPage{}, err
	}
	if q.After == "" && out.Next == "" {
		out.Total = matched
	}
	return out, nil
}

// Release gives the page's row buffer back for another request: the page
// must not be used afterwards.
func (p *ChangesPage) Release() {
	putRowBuf(p.buf, p.Raw.scratch)
	p.buf, p.Raw = nil, RawPage{}
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
	key := l.String()
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
			r.provinces = map[string]string{}
		}
		if len(r.provinces) < maxProvinceMemo {
			r.provinces[key] = prov
		}
		r.mu.Unlock()
	}
	return prov, err
}
