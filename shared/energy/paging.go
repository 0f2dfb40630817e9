package energy

import (
	"container/heap"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"meridian/shared/apierr"
	"meridian/shared/kv"
)

// MaxSortedRows caps page × per_page for a list sorted in another order
// than its partition's key order: such a page is the top page × per_page
// rows of the whole partition, kept in a bounded heap while the partition
// streams past, so this cap is the bound of the heap. Deeper pages are
// refused (400): the default sort pages with a cursor at constant cost.
const MaxSortedRows = 10_000

// scanLimit is the page size of a partition streamed to the end: what a
// request holds of the store's answer at once.
const scanLimit = kv.MaxLimit

// Paging is a list request's page, size, sort and direction.
type Paging struct {
	Page    int
	PerPage int
	Sort    string
	Desc    bool
}

// Dir is the direction's name: asc or desc.
func (p Paging) Dir() string {
	if p.Desc {
		return "desc"
	}
	return "asc"
}

// DecodeCursor reads an opaque cursor (meta.next_cursor of a previous
// page): the sort key of the last row of the previous page, bound to the
// sort and direction it was issued for. "" when raw is empty.
func DecodeCursor(raw string, p Paging) (string, error) {
	raw = strings.TrimSpace(raw)
	if raw == "" {
		return "", nil
	}
	bad := apierr.Invalidf("invalid_parameter", "cursor '%.40s' is not valid: pass meta.next_cursor of the previous page unchanged, with the same sort and dir", raw)
	b, err := base64.RawURLEncoding.DecodeString(raw)
	if err != nil {
		return "", bad
	}
	head, sk, ok := strings.Cut(string(b), "\x00")
	if !ok || head != "1|"+p.Sort+"|"+p.Dir() || sk == "" || len(sk) > kv.MaxSKBytes || !utf8.ValidString(sk) {
		return "", bad
	}
	if p.Page != 1 {
		return "", apierr.Invalidf("invalid_parameter", "page and cursor cannot be combined: a cursor already says where the page starts")
	}
	return sk, nil
}

// encodeCursor is the cursor of the page that follows the row at sk.
func encodeCursor(p Paging, sk string) string {
	return base64.RawURLEncoding.EncodeToString([]byte("1|" + p.Sort + "|" + p.Dir() + "\x00" + sk))
}

// listing is how one list endpoint reads its partition.
type listing[T any] struct {
	// q selects the partition's rows; its order (ascending) is the key
	// order of the list.
	q kv.Query
	// decode turns an item into a row (and recomputes what depends on the
	// clock).
	decode func(kv.Item) (T, error)
	// keep applies the request's filters; nil when the request has none.
	keep func(T) bool
	// cmp is the sort's comparator (ascending); ties keep the key order.
	cmp func(a, b T) int
	// keySorts are the sorts whose order is the key order, each with
	// whether the key order is the sort's descending direction.
	keySorts map[string]bool
	// rollup returns the totals of the unfiltered list without reading it
	// (ok == false when the dataset has no roll-up: count while reading).
	rollup func(ctx context.Context) (t totals, ok bool, err error)
	// add counts a row that passed the filters into the totals.
	add func(t *totals, row T)
	// rank is the partition of the rank items of the list q reads
	// (RankKey), "" when it has none: with a roll-up, page N in key
	// order then starts at the rank item at or below its first row's rank
	// instead of reading the rows before it.
	rank string
	// raw, when set, passes the stored JSON of the rows of a page in key
	// order without filters through instead of decoding them (raw.go).
	raw rawRow
}

// totals are a list's meta.total and, for tenure/expiring, its area sums.
type totals struct {
	n, known int
	// microHa is the area in millionths of a hectare: an exact integer sum,
	// the same whatever the order of the rows and equal to the difference
	// of the EXPIRING#DAYS tallies.
	microHa int64
	// base is the rank, in the ranked list (listing.rank), of the first
	// row the unfiltered query selects: 0 for a whole list, the tally of
	// the days before the window for tenure/expiring. Set by a roll-up.
	base int
}

// Page is one page of a list: its rows, the count of every row that
// passed the filters, and the cursor of the next page ("" when the page
// is not in key order or is the last).
type Page[T any] struct {
	Rows  []T
	Total int
	Next  string
	// Raw holds the page's rows instead of Rows (then empty) when they
	// were passed through as stored (raw.go).
	Raw RawPage

	totals totals
}

// read answers one page of the list. Its memory is one store page plus
// per_page rows when the sort is a key order, and page × per_page rows
// (at most MaxSortedRows) otherwise, whatever the size of the partition.
// Items read: see ACCESS.md.
func (l listing[T]) read(ctx context.Context, ds kv.Dataset, p Paging, cursor string) (Page[T], error) {
	out, err := l.page(ctx, ds, p, cursor)
	out.Total = out.totals.n
	return out, err
}

func (l listing[T]) page(ctx context.Context, ds kv.Dataset, p Paging, cursor string) (Page[T], error) {
	keyDesc, byKey := l.keySorts[p.Sort]
	if !byKey {
		if cursor != "" {
			return Page[T]{}, apierr.Invalidf("invalid_parameter", "cursor is not available here: it pages a list in its default sort (or its reverse; any sort of the operators list), the lists whose meta carries next_cursor")
		}
		if p.Page > MaxSortedRows/p.PerPage {
			return Page[T]{}, apierr.Invalidf("invalid_parameter",
				"page %d of %d rows is past the first %d rows of sort '%s': use the default sort and page on with meta.next_cursor",
				p.Page, p.PerPage, MaxSortedRows, p.Sort)
		}
		return l.sorted(ctx, ds, p)
	}
	return l.inKeyOrder(ctx, ds, p, cursor, p.Desc != keyDesc)
}

// inKeyOrder reads a page of a list sorted in its key order (reverse:
// descending keys). Unfiltered, with a roll-up, it reads the rows it skips
// ((page-1) × per_page, none after a cursor), the page and one more item;
// otherwise it reads the whole partition to count the rows that pass.
func (l listing[T]) inKeyOrder(ctx context.Context, ds kv.Dataset, p Paging, cursor string, reverse bool) (Page[T], error) {
	var out Page[T]
	counted := false
	if l.keep == nil && l.rollup != nil {
		t, ok, err := l.rollup(ctx)
		if err != nil {
			return out, err
		}
		out.totals, counted = t, ok
	}
	q := l.q
	q.Reverse = reverse
	if counted {
		q.After = cursor // nothing before the cursor needs reading
	}
	skip := 0
	if cursor == "" {
		skip = (p.Page - 1) * p.PerPage
	}
	if counted && skip > 0 && l.rank != "" {
		after, rest, err := l.seek(ctx, ds, out.totals, skip, reverse)
		switch {
		case err != nil:
			return out, err
		case rest < 0: // past the end of the list
			out.Rows = []T{}
			return out, nil
		}
		q.After, skip = after, rest
	}
	past := func(sk string) bool { // after the cursor in the query's order
		return cursor == "" || counted || (!reverse && sk > cursor) || (reverse && sk < cursor)
	}
	more, lastSK := false, ""
	seen := 0 // rows that passed the filters after the cursor
	// Rows counted by a roll-up and kept whatever they hold are passed
	// through as stored.
	passThrough := counted && l.keep == nil && l.raw != nil
	out.Raw.ok = passThrough
	kept := 0 // rows of the page
	for {
		q.Limit = scanLimit
		if counted { // read only up to the page and one row more
			q.Limit = min(scanLimit, max(1, skip+p.PerPage+1-seen))
		}
		pg, err := ds.Query(ctx, q)
		if err != nil {
			return out, err
		}
		for _, it := range pg.Items {
			if counted && l.keep == nil && seen < skip {
				seen++ // a row before the page: nothing to count or keep
				continue
			}
			if passThrough {
				seen++
				if kept == p.PerPage {
					more = true
					continue
				}
				err := out.Raw.appendRow(l.raw, it, func() (any, error) { return l.decode(it) })
				if err != nil {
					return out, err
				}
				kept, lastSK = kept+1, it.SK
				continue
			}
			row, err := l.decode(it)
			if err != nil {
				return out, err
			}
			if l.keep != nil && !l.keep(row) {
				continue
			}
			if !counted {
				l.count(&out.totals, row)
			}
			if !past(it.SK) {
				continue
			}
			seen++
			switch {
			case seen <= skip:
			case kept < p.PerPage:
				out.Rows, lastSK, kept = append(out.Rows, row), it.SK, kept+1
			default:
				more = true
			}
		}
		if pg.Next == "" || (counted && (more || seen > skip+p.PerPage)) {
			break
		}
		q.After = pg.Next
	}
	if more && lastSK != "" {
		out.Next = encodeCursor(p, lastSK)
	}
	if out.Rows == nil {
		out.Rows = []T{}
	}
	return out, nil
}

// seek finds where page N of the unfiltered list in key order starts
// without reading the rows before it: the list's rank item nearest before
// the page's first row (one Limit-1 Query), whose sort key the page is
// read after, and the rows to skip from there (fewer than
// RankEvery). rest < 0 means the page is past the end of the
// list. A dataset published before rank items existed has none: the page
// is then read from the selection's start (or end), skipping as before.
func (l listing[T]) seek(ctx context.Context, ds kv.Dataset, t totals, skip int, reverse bool) (after string, rest int, err error) {
	if skip >= t.n {
		return "", -1, nil
	}
	first, last := t.base, t.base+t.n-1 // the ranks of the selection's ends
	rq := kv.Query{PK: l.rank, Limit: 1}
	var at int // the rank of the page's first row
	if !reverse {
		// Read after the rank item at or below the row before the page:
		// from the selection's start when that item is before it (the
		// query's own bound then ignores the cursor).
		at = first + skip
		rq.SKTo, rq.Reverse = RankSK(at-1), true
	} else {
		// Read backwards after the rank item at or above the row after
		// the page (in key order); from the selection's end when none is.
		at = last - skip
		rq.SKFrom = RankSK(at + 1)
	}
	pg, err := ds.Query(ctx, rq)
	if err != nil {
		return "", 0, err
	}
	if len(pg.Items) == 0 {
		// Forward, rank 0 is at or below any row before a page: no item
		// means a dataset without rank items, read from the start. In
		// reverse it also means the page is within RankEvery rows of the
		// list's end: read from the selection's end either way.
		return "", skip, nil
	}
	r, err := strconv.Atoi(pg.Items[0].SK) // decimal: not Sscan, which reads leading zeros as octal
	if err != nil {
		return "", 0, fmt.Errorf("energy: rank item %s %s: %w", l.rank, pg.Items[0].SK, err)
	}
	it, err := decodeJSON[RankItem](pg.Items[0])
	if err != nil {
		return "", 0, err
	}
	if !reverse {
		return it.SK, at - max(r+1, first), nil
	}
	return it.SK, min(r-1, last) - at, nil
}

func (l listing[T]) count(t *totals, row T) {
	t.n++
	if l.add != nil {
		l.add(t, row)
	}
}

// sorted reads a page of a list in an order that is not its key order: it
// streams the whole partition, counting the rows that pass, and keeps the
// best page × per_page of them in a heap.
func (l listing[T]) sorted(ctx context.Context, ds kv.Dataset, p Paging) (Page[T], error) {
	var out Page[T]
	by := l.cmp
	if p.Desc {
		by = func(a, b T) int { return l.cmp(b, a) }
	}
	top := &bounded[T]{k: p.Page * p.PerPage, by: by}
	err := ds.Each(ctx, l.q, func(it kv.Item) error {
		row, err := l.decode(it)
		if err != nil {
			return err
		}
		if l.keep != nil && !l.keep(row) {
			return nil
		}
		l.count(&out.totals, row)
		top.offer(row)
		return nil
	})
	if err != nil {
		return out, err
	}
	rows := top.sorted()
	out.Rows = []T{}
	if start := (p.Page - 1) * p.PerPage; start < len(rows) {
		out.Rows = rows[start:]
	}
	return out, nil
}

// bounded keeps the k first rows offered in the order by, ties in the
// order offered (what a stable sort of every row would give).
type bounded[T any] struct {
	k    int
	by   func(a, b T) int
	rows []ranked[T] // a heap whose root is the last of the kept rows
	seq  int
}

type ranked[T any] struct {
	row T
	seq int
}

func (b *bounded[T]) less(x, y ranked[T]) bool { // x before y
	if c := b.by(x.row, y.row); c != 0 {
		return c < 0
	}
	return x.seq < y.seq
}

func (b *bounded[T]) offer(row T) {
	r := ranked[T]{row, b.seq}
	b.seq++
	if len(b.rows) < b.k {
		heap.Push((*boundedHeap[T])(b), r)
		return
	}
	if b.k > 0 && b.less(r, b.rows[0]) {
		b.rows[0] = r
		heap.Fix((*boundedHeap[T])(b), 0)
	}
}

// sorted returns the kept rows in order.
func (b *bounded[T]) sorted() []T {
	slices.SortFunc(b.rows, func(x, y ranked[T]) int {
		if b.less(x, y) {
			return -1
		}
		return 1
	})
	out := make([]T, len(b.rows))
	for i, r := range b.rows {
		out[i] = r.row
	}
	return out
}

// boundedHeap is the container/heap view of bounded: a max-heap in the
// order by, so the root is the row to drop first.
type boundedHeap[T any] bounded[T]

func (h *boundedHeap[T]) Len() int { return len(h.rows) }
func (h *boundedHeap[T]) Less(i, j int) bool {
	return (*bounded[T])(h).less(h.rows[j], h.rows[i])
}
func (h *boundedHeap[T]) Swap(i, j int) { h.rows[i], h.rows[j] = h.rows[j], h.rows[i] }
func (h *boundedHeap[T]) Push(x any)    { h.rows = append(h.rows, x.(ranked[T])) }
func (h *boundedHeap[T]) Pop() any {
	x := h.rows[len(h.rows)-1]
	h.rows = h.rows[:len(h.rows)-1]
	return x
}

// decodeJSON is the decoder of rows stored as JSON.
func decodeJSON[T any](it kv.Item) (T, error) {
	var row T
	if err := json.Unmarshal(it.Data, &row); err != nil {
		return row, fmt.Errorf("energy: decode %s %s: %w", it.PK, it.SK, err)
	}
	return row, nil
}
