// Package energy holds what the energy endpoints derive from the published
// datasets: the well status bucket, the disposition expiry state, the
// trailing-12-month production roll-ups and the operator liability counts
// (docs/data-sources.md §0.4, §4.2, §5.1; api-reference.md for the values).
// The derivations are pure functions of the records and a reference date,
// so an ingest run and a test give the same answers.
//
// It also reads the report store for every energy endpoint, so that the
// rules (the primary source, the dominant operator, the order of the
// tenure section, the sorts and filters of the lists) live with the rows
// they read and package energyapi only parses the request and writes the
// answer: Reporter.Report assembles the parcel report (report.go); the
// parcel lists (lists.go), the operators and their views (operators.go),
// expiring tenure and the disposition and pipeline licence details
// (detail.go) page over the store in paging.go and pass stored rows
// through in raw.go. ACCESS.md gives each read and its cost.
package energy

import (
	"cmp"
	"encoding/json"
	"math"
	"slices"
	"strings"
	"time"
)

// Bucket is a well's status for the product: the spec's derived state.
type Bucket string

const (
	Active               Bucket = "active"
	Suspended            Bucket = "suspended"
	Abandoned            Bucket = "abandoned"
	ReclamationCertified Bucket = "reclamation_certified"
	Orphan               Bucket = "orphan"
	Unknown              Bucket = "unknown" // a licence status we do not know (Cancelled, ...): counted, not bucketed
)

// Rank orders buckets for the default "status" sort: what needs attention
// first (orphan, suspended, active, abandoned, reclaimed, unknown).
func (b Bucket) Rank() int {
	switch b {
	case Orphan:
		return 0
	case Suspended:
		return 1
	case Active:
		return 2
	case Abandoned:
		return 3
	case ReclamationCertified:
		return 4
	}
	return 5
}

// Abandoned well modes (WELL-STAT-CODE digits 3-4): ABD, ABZONE, J&A, ABDWHP.
var abandonedModes = []string{"02", "03", "08", "14"}

// Suspended or inactive modes: SUSP, CAPPED, DRL&C, CLOSED.
var suspendedModes = []string{"01", "05", "07", "09"}

// WellBucket derives a well's bucket from its ST37 licence status (any case,
// padded or not), its status mode code (two digits, "" when unknown) and
// the orphan flag (Petrinex OrphanWellFlg or a listing in the Orphan Well
// Association inventory), which overrides everything.
//
// The licence status decides (Township Canada's legend: issued, amended,
// re-entered → active; suspension → suspended; abandoned → abandoned;
// reccertified, recexempt → reclamation certified), and the mode refines an
// active licence: a well whose licence is still Issued but whose mode says
// abandoned or suspended is reported as the mode says, since the licence
// status lags the field (docs/data-sources.md §0.4: "Issued + 00 N/A" is a
// licensed well not drilled, which stays active).
func WellBucket(licenceStatus, mode string, orphan bool) Bucket {
	if orphan {
		return Orphan
	}
	switch strings.ToLower(strings.TrimSpace(licenceStatus)) {
	case "issued", "amended", "re-entered":
		switch {
		case slices.Contains(abandonedModes, mode):
			return Abandoned
		case slices.Contains(suspendedModes, mode):
			return Suspended
		}
		return Active
	case "suspension":
		return Suspended
	case "abandoned":
		return Abandoned
	case "reccertified", "recexempt":
		return ReclamationCertified
	}
	return Unknown
}

// ExpiryState is a disposition's state against a reference date.
type ExpiryState string

const (
	Expired      ExpiryState = "expired"
	ExpiresToday ExpiryState = "expires_today"
	ExpiringSoon ExpiryState = "expiring_soon" // within ExpiringWindowMonths
	Current      ExpiryState = "active"
	Perpetual    ExpiryState = "perpetual" // continued indefinitely: never expires
)

// MarshalJSON writes the state, or null when it is unknown (a disposition
// with no expiry date that is not known to be perpetual).
func (s ExpiryState) MarshalJSON() ([]byte, error) {
	if s == "" {
		return []byte("null"), nil
	}
	return json.Marshal(string(s))
}

// ExpiringWindowMonths is the "expiring soon" window (Township Canada: 24
// months).
const ExpiringWindowMonths = 24

// Expiry returns a disposition's state and its signed days to expiry
// (negative once expired) on the calendar day of now. A perpetual
// disposition, or one with no expiry date (Saskatchewan publishes none),
// has no days: ok is false, and the state is Perpetual or "" (unknown).
func Expiry(expiry time.Time, perpetual bool, now time.Time) (state ExpiryState, days int, ok bool) {
	if perpetual {
		return Perpetual, 0, false
	}
	if expiry.IsZero() {
		return "", 0, false
	}
	today := civil(now)
	end := civil(expiry)
	days = int(math.Round(end.Sub(today).Hours() / 24))
	switch {
	case days < 0:
		return Expired, days, true
	case days == 0:
		return ExpiresToday, days, true
	case !end.After(today.AddDate(0, ExpiringWindowMonths, 0)):
		return ExpiringSoon, days, true
	}
	return Current, days, true
}

// civil is t's calendar day at UTC midnight (dates carry no zone).
func civil(t time.Time) time.Time {
	y, m, d := t.Date()
	return time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
}

// Urgency orders dispositions for the tenure list's default sort: expiring
// within the window first, then the rest, each soonest first (perpetual and
// undated last).
func Urgency(state ExpiryState) int {
	switch state {
	case ExpiresToday, ExpiringSoon:
		return 0
	case Current:
		return 1
	case Expired:
		return 2
	}
	return 3
}

// WithExpiry recomputes a tenure row's expiry state and days on now's day.
func WithExpiry(t TenureRow, now time.Time) TenureRow {
	perpetual := t.ExpiryState == Perpetual
	var exp time.Time
	if t.ExpiryDate != nil {
		exp, _ = time.Parse("2006-01-02", *t.ExpiryDate)
	}
	state, days, ok := Expiry(exp, perpetual, now)
	t.ExpiryState, t.DaysToExpiry = state, nil
	if ok {
		d := days
		t.DaysToExpiry = &d
	}
	return t
}

// ExpiryKey is a row's expiry date for sorting: undated and perpetual last.
func ExpiryKey(t TenureRow) string {
	if t.ExpiryDate == nil {
		return noExpiry
	}
	return *t.ExpiryDate
}

// ByUrgency orders dispositions by Urgency, then soonest expiry (undated
// and perpetual last), then id: the report's tenure section, and the
// tenure lists' default sort.
func ByUrgency(a, b TenureRow) int {
	c := cmp.Compare(Urgency(a.ExpiryState), Urgency(b.ExpiryState))
	if c == 0 {
		c = cmp.Compare(ExpiryKey(a), ExpiryKey(b))
	}
	if c != 0 {
		return c
	}
	return cmp.Compare(a.ID, b.ID)
}
