package energy

import (
	"time"

	"meridian/shared/kv"
)

// What raw_test.go (package energy_test, which imports the demo data
// that imports energy) reads of the pass-through of stored rows.

type RawRow = rawRow

var (
	StoredRow     = storedRow
	ReportWellRow = reportWellRow
	DayNumber     = dayNumber
)

func NewExpiryClock(now time.Time) expiryClock { return newExpiryClock(now) }

func (c expiryClock) TenureRow(noCoverage bool) RawRow { return c.tenureRow(noCoverage) }

func DecodeJSON[T any](it kv.Item) (T, error) { return decodeJSON[T](it) }

// UrgencyCompare compares two stored tenure rows by their urgency keys on
// now's day; ok == false when either must be decoded.
func UrgencyCompare(now time.Time, a, b []byte) (int, bool) {
	c := newExpiryClock(now)
	ka, okA := c.urgencyOf(a)
	kb, okB := c.urgencyOf(b)
	return ka.cmp(kb), okA && okB
}
