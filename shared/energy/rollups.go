package energy

import (
	"math"
	"slices"
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
