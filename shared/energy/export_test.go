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
