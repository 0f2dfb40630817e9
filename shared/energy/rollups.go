package energy

import (
	"context"
	"fmt"
	"math"
	"slices"

	"meridian/shared/kv"
)

// Roll-up items that give the totals of an unfiltered list without reading
// the list: the list endpoints read them instead of counting rows.
//
//	roll-up                                         PK              SK            data
//	how many items a whole-partition list has       COUNTS          <list's PK>   ListCount
//	dispositions expiring on or before a day        EXPIRING#DAYS   <YYYY-MM-DD>  ExpiringDay (cumulative)
//
// The operator views take their totals from the operator's INFO item
// (OperatorInfo: wells, dispositions, footprint LSDs), written by the same
// ingest step that writes the rows it counts.
const (
	PKCounts       = "COUNTS"
	PKExpiringDays = "EXPIRING#DAYS"
)

// ListCount is a COUNTS item: the number of items of a list's partition.
type ListCount struct {
	Total int `json:"total"`
}

// ExpiringDay is an EXPIRING#DAYS item: the EXPIRING items whose expiry
// date is on or before its day, counted from the earliest. A window's
// totals are the difference of two days' items (the window's last day and
// the day before its first), two Limit-1 reads whatever the window.
type ExpiringDay struct {
	Count int `json:"count"` // dispositions
	Known int `json:"known"` // of which with an area
	// AreaMicroHa is their area in millionths of a hectare: an integer, so
	// that differences of cumulative sums are exact.
	AreaMicroHa int64 `json:"area_micro_ha"`
}

// Minus is the tally of the days after o up to d.
func (d ExpiringDay) Minus(o ExpiringDay) ExpiringDay {
	return ExpiringDay{Count: d.Count - o.Count, Known: d.Known - o.Known, AreaMicroHa: d.AreaMicroHa - o.AreaMicroHa}
}

// MicroHa is an area in millionths of a hectare, rounded.
func MicroHa(ha float64) int64 { return int64(math.Round(ha * 1e6)) }

// ExpiringTally counts dispositions by expiry day at ingest. It holds one
// entry per distinct day (a century of days is 36,525 entries, about 3 MB
// at most), whatever the number of dispositions.
type ExpiringTally struct {
	days map[string]ExpiringDay
}

// Add counts a disposition that has an EXPIRING item.
func (t *ExpiringTally) Add(expiry string, areaHa *float64) {
	if t.days == nil {
		t.days = map[string]ExpiringDay{}
	}
	d := t.days[expiry]
	d.Count++
	if areaHa != nil {
		d.Known++
		d.AreaMicroHa += MicroHa(*areaHa)
	}
	t.days[expiry] = d
}

// Cumulative calls fn with every counted day in ascending order and the
// tally of that day and all earlier ones.
func (t *ExpiringTally) Cumulative(fn func(day string, d ExpiringDay) error) error {
	days := make([]string, 0, len(t.days))
	for k := range t.days {
		days = append(days, k)
	}
	slices.Sort(days)
	var run ExpiringDay
	for _, k := range days {
		d := t.days[k]
		run.Count, run.Known, run.AreaMicroHa = run.Count+d.Count, run.Known+d.Known, run.AreaMicroHa+d.AreaMicroHa
		if err := fn(k, run); err != nil {
			return err
		}
	}
	return nil
}

// Rank items: where a page of a list starts, without reading the rows
// before it. Every RankEvery-th item of a ranked list, in the list's key
// order (ascending SK), has a rank item naming its sort key:
//
//	roll-up                                 PK                        SK                  data
//	the list's item of rank r (r % K == 0)  RANK#<list PK>#<prefix>   <r, 10 digits>      RankItem
//
// A list is a partition (OPERATORS and its sort orders, EXPIRING) or the
// rows of a partition under a sort-key prefix (an operator's WELL#, DISP#
// and LSD# rows). Page N of a list in key order starts at rank
// (N−1)·per_page (plus, for a window of EXPIRING, the rank of the window's
// first day: the EXPIRING#DAYS tally of the day before): the rank item at
// or below it is one Limit-1 Query, and the page is read from its sort key
// on, skipping fewer than RankEvery items. Ingest writes them from the
// keys of the lists sorted on disk (kv.KeySort): one item per RankEvery
// rows, whatever the province.
const (
	PKRankPrefix = "RANK#"
	RankEvery    = 100
)

// RankKey is the partition of the rank items of the list of partition pk
// and sort-key prefix (often "").
func RankKey(pk, prefix string) string { return PKRankPrefix + pk + "#" + prefix }

// RankSK is the sort key of the rank item of rank r: fixed width, so that
// the string order is the numeric order.
func RankSK(r int) string { return fmt.Sprintf("%010d", r) }

// RankItem is a rank item: the sort key of the list's item of its rank.
type RankItem struct {
	SK string `json:"sk"`
}

// Ranks collects the keys of the ranked lists an ingest writes, in any
// order, and writes their rank items once every row is written: the keys
// are sorted on disk (kv.KeySort), so memory is the sort's budget whatever
// the number of rows.
type Ranks struct {
	s *kv.KeySort
}

// NewRanks returns an empty collection that holds at most budget bytes of
// keys in memory (kv.DefaultSortBudget when 0) and spills the rest to a
// temporary file in the system's temporary directory. Close it.
func NewRanks(ctx context.Context, budget int) *Ranks {
	return &Ranks{s: kv.NewKeySort(ctx, "", budget)}
}

// Add counts the row of sort key sk of the list of partition pk and
// sort-key prefix.
func (r *Ranks) Add(pk, prefix, sk string) error { return r.s.Add(RankKey(pk, prefix), sk) }

// Write writes the rank items of every list added (a row added twice is
// one row, as a key written twice is one item) and returns how many. It
// can be called once.
func (r *Ranks) Write(w *kv.Writer) (int, error) {
	last, rank, n := "", 0, 0
	err := r.s.Each(func(list, sk string) error {
		if list != last {
			last, rank = list, 0
		}
		rank++
		if (rank-1)%RankEvery != 0 {
			return nil
		}
		n++
		return w.Put(list, RankSK(rank-1), RankItem{SK: sk})
	})
	return n, err
}

// Close releases the keys (their temporary file): after an error, or
// after Write.
func (r *Ranks) Close() { r.s.Close() }

// PutOperatorRow writes an operator's row in the partition of every order
// of the operators list (OperatorSorts) and adds it to their ranks.
func PutOperatorRow(w *kv.Writer, ranks *Ranks, r OperatorRow) error {
	for _, sort := range OperatorSorts {
		pk, sk := OperatorsKey(sort), OperatorsSortSK(sort, r)
		if err := w.Put(pk, sk, r); err != nil {
			return err
		}
		if err := ranks.Add(pk, "", sk); err != nil {
			return err
		}
	}
	return nil
}

// PutOperatorCounts writes the COUNTS item of every order's partition of
// the operators list: n operators each.
func PutOperatorCounts(w *kv.Writer, n int) error {
	for _, sort := range OperatorSorts {
		if err := w.Put(PKCounts, OperatorsKey(sort), ListCount{Total: n}); err != nil {
			return err
		}
	}
	return nil
}
