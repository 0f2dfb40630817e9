package energy

import (
	"bytes"
	"cmp"
	"slices"
	"strconv"
	"time"

	"meridian/shared/api"
	"meridian/shared/kv"
)

// Rows in the store are the JSON of the row types the endpoints answer
// with (ingest writes WellRow, TenureRow, ... as they are
// served). A page in key order without filters passes that JSON through
// instead of decoding each row and encoding it again, which was most of
// such a request's CPU: a rawRow function returns an item's row as the
// response writes it, or ok == false when the item must be decoded (the
// response's encoding would differ). The answers are the same bytes
// either way (TestRawRowsAsDecoded).

// rawRow appends to parts the pieces whose concatenation is the JSON of an
// item's row as a response writes it: slices of the item's data, and of
// what it appends to *scratch (a piece keeps its bytes when *scratch
// grows); ok == false when the item must be decoded instead (parts is
// then returned as it was).
type rawRow func(parts [][]byte, scratch *[]byte, it kv.Item) (out [][]byte, ok bool)

// escaped reports whether stored JSON holds a \u00XX escape. Data written
// with HTML escaping (every dataset before kv.Writer.Put stopped escaping)
// has & < > as \u0026 \u003c \u003e, which the responses write as they
// are: such a row is decoded and encoded again. Control characters are
// escaped the same way by both encoders, but are rare enough to take the
// slow path too.
func escaped(data []byte) bool {
	return bytes.Contains(data, []byte(`\u00`))
}

// storedRow passes an item's JSON through unchanged: the rows whose
// response is the stored row (operators, an operator's wells and LSDs).
func storedRow(parts [][]byte, _ *[]byte, it kv.Item) ([][]byte, bool) {
	if escaped(it.Data) {
		return parts, false
	}
	return append(parts, it.Data), true
}

// expiryClock computes days_to_expiry and expiry_state of the stored
// expiry dates on one day, as Expiry does, without parsing a time
// per row.
type expiryClock struct {
	today, soon int // day numbers of now's calendar day and of the last day of the "expiring soon" window
}

func newExpiryClock(now time.Time) expiryClock {
	y, m, d := now.Date()
	today := time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
	sy, sm, sd := today.AddDate(0, ExpiringWindowMonths, 0).Date()
	return expiryClock{today: dayNumber(y, int(m), d), soon: dayNumber(sy, int(sm), sd)}
}

// dayNumber is the days from 1970-01-01 to the proleptic Gregorian date
// y-m-d (valid dates only).
func dayNumber(y, m, d int) int {
	if m <= 2 {
		y--
	}
	era := y / 400
	if y < 0 && y%400 != 0 {
		era--
	}
	yoe := y - era*400
	mp := (m + 9) % 12
	doy := (153*mp+2)/5 + d - 1
	doe := yoe*365 + yoe/4 - yoe/100 + doy
	return era*146097 + doe - 719468
}

// parseDate reads a YYYY-MM-DD date as time.Parse("2006-01-02") accepts
// it; ok == false for anything else.
func parseDate(s []byte) (day int, ok bool) {
	if len(s) != 10 || s[4] != '-' || s[7] != '-' {
		return 0, false
	}
	num := func(b []byte) (int, bool) {
		n := 0
		for _, c := range b {
			if c < '0' || c > '9' {
				return 0, false
			}
			n = n*10 + int(c-'0')
		}
		return n, true
	}
	y, ok1 := num(s[:4])
	m, ok2 := num(s[5:7])
	d, ok3 := num(s[8:])
	if !ok1 || !ok2 || !ok3 || m < 1 || m > 12 || d < 1 {
		return 0, false
	}
	if d > time.Date(y, time.Month(m)+1, 0, 0, 0, 0, 0, time.UTC).Day() {
		return 0, false
	}
	return dayNumber(y, m, d), true
}

// Keys of a stored tenure row, in the order TenureRow writes them.
var (
	keyExpiryDate = []byte(`"expiry_date":`)
	keyDays       = []byte(`,"days_to_expiry":`)
	keyState      = []byte(`,"expiry_state":`)
	keyArea       = []byte(`,"area_ha":`)
	keyCoverage   = []byte(`,"lsd_coverage_pct":`)
	keyNull       = []byte(`null`)
)

// tenureRow passes a stored tenure row through with days_to_expiry and
// expiry_state recomputed on the clock's day (WithExpiry), and,
// with noCoverage, only when its lsd_coverage_pct is null (the lists that
// send none).
func (c expiryClock) tenureRow(noCoverage bool) rawRow {
	return func(parts [][]byte, scratch *[]byte, it kv.Item) ([][]byte, bool) {
		data := it.Data
		x, ok := c.tenureExpiry(data, noCoverage)
		if !ok {
			return parts, false
		}
		buf := *scratch
		start := len(buf)
		buf = append(buf, keyDays...)
		if x.state == `"perpetual"` || x.state == "null" {
			buf = append(buf, keyNull...)
		} else {
			buf = strconv.AppendInt(buf, int64(x.days), 10)
		}
		buf = append(buf, keyState...)
		buf = append(buf, x.state...)
		*scratch = buf
		return append(parts, data[:x.daysAt], buf[start:], data[x.areaAt:]), true
	}
}

// tenureExpiry is what a stored tenure row's expiry is on the clock's
// day, and where the fields tenureRow rewrites are.
type tenureExpiry struct {
	daysAt, areaAt int    // where ,"days_to_expiry": and ,"area_ha": begin
	date           []byte // the expiry date as stored: null or "YYYY-MM-DD"
	state          string // the expiry state as JSON: "expired", ..., or null
	days           int    // days to expiry, when the state is dated
}

// tenureExpiry reads a stored tenure row, ok == false when it is laid
// out otherwise than TenureRow writes it, or holds an escape (the row is
// then decoded).
func (c expiryClock) tenureExpiry(data []byte, noCoverage bool) (x tenureExpiry, ok bool) {
	if escaped(data) {
		return x, false
	}
	// The keys are found in the order the row writes them, each searched
	// for from the end of the one before: expiry_date once (inside a JSON
	// string a quote is escaped, so `"expiry_date":` can only be the key,
	// and only the row itself has these keys: holder and points do not),
	// then days_to_expiry right after the date's value, and the others in
	// the few bytes that follow. The four searches of the whole row this
	// replaces were 13% of an operator's dispositions page.
	i := bytes.Index(data, keyExpiryDate)
	if i < 0 {
		return x, false
	}
	j := i + len(keyExpiryDate)
	switch {
	case bytes.HasPrefix(data[j:], keyNull):
		j += len(keyNull)
	case j+12 <= len(data) && data[j] == '"':
		j += 12
	default:
		return x, false
	}
	if !bytes.HasPrefix(data[j:], keyDays) {
		return x, false
	}
	k := after(data, j+len(keyDays), keyState)
	m := after(data, k+len(keyState), keyArea)
	if k < 0 || m < 0 {
		return x, false
	}
	if noCoverage {
		n := after(data, m+len(keyArea), keyCoverage)
		if n < 0 || !bytes.HasPrefix(data[n+len(keyCoverage):], keyNull) {
			return x, false
		}
	}
	x.daysAt, x.areaAt = j, m
	x.date = data[i+len(keyExpiryDate) : j]
	state := data[k+len(keyState) : m]
	switch {
	case string(state) == `"perpetual"`:
		x.state = `"perpetual"`
	case bytes.Equal(x.date, keyNull):
		x.state = "null"
	default:
		date := x.date
		if len(date) != 12 || date[0] != '"' || date[11] != '"' {
			return x, false
		}
		exp, ok := parseDate(date[1:11])
		// Expiry counts days through a time.Duration, which saturates
		// past 292 years: leave such dates to it.
		if !ok || exp-c.today > 100_000 || c.today-exp > 100_000 {
			return x, false
		}
		x.days = exp - c.today
		switch {
		case x.days < 0:
			x.state = `"expired"`
		case x.days == 0:
			x.state = `"expires_today"`
		case exp <= c.soon:
			x.state = `"expiring_soon"`
		default:
			x.state = `"active"`
		}
	}
	return x, true
}

// urgencyKey is a tenure row's place in ByUrgency.
type urgencyKey struct {
	urgency int
	expiry  string // ExpiryKey
	id      string
}

func (a urgencyKey) cmp(b urgencyKey) int {
	if c := cmp.Compare(a.urgency, b.urgency); c != 0 {
		return c
	}
	if c := cmp.Compare(a.expiry, b.expiry); c != 0 {
		return c
	}
	return cmp.Compare(a.id, b.id)
}

// wellStatusKey is a well row's place in the wells list's status sort.
type wellStatusKey struct {
	rank int // Bucket.Rank
	id   string
}

func (a wellStatusKey) cmp(b wellStatusKey) int {
	if c := cmp.Compare(a.rank, b.rank); c != 0 {
		return c
	}
	return cmp.Compare(a.id, b.id)
}

// keyStatus is a stored row's status key: a well row's has one, at its
// top level (its operator and location have none; licence_status_raw is
// another key).
var keyStatus = []byte(`,"status":"`)

// wellStatusOf is a stored well row's status key, without decoding it:
// ok == false when its id or status is not a plain string.
func wellStatusOf(data []byte) (wellStatusKey, bool) {
	id, ok := plainAfter(data, keyID, 0)
	if !ok {
		return wellStatusKey{}, false
	}
	i := bytes.Index(data, keyStatus)
	if i < 0 {
		return wellStatusKey{}, false
	}
	status, ok := plainAfter(data, keyStatus, i)
	if !ok {
		return wellStatusKey{}, false
	}
	return wellStatusKey{rank: Bucket(status).Rank(), id: id}, true
}

// plainAfter is the string value whose key (ending in its opening
// quote) is at data[at:], when it holds no escape.
func plainAfter(data, key []byte, at int) (string, bool) {
	if !bytes.HasPrefix(data[at:], key) {
		return "", false
	}
	v := data[at+len(key):]
	n := bytes.IndexAny(v, `"\`)
	if n < 0 || v[n] != '"' {
		return "", false
	}
	return string(v[:n]), true
}

// keyID is how a stored row begins: its id, the first field.
var keyID = []byte(`{"id":"`)

// urgencyOf is a stored tenure row's urgency key on the clock's day,
// without decoding it: ok == false as for tenureExpiry, or when its id is
// not a plain string.
func (c expiryClock) urgencyOf(data []byte) (urgencyKey, bool) {
	x, ok := c.tenureExpiry(data, false)
	id, idOK := plainAfter(data, keyID, 0)
	if !ok || !idOK {
		return urgencyKey{}, false
	}
	k := urgencyKey{urgency: 3, expiry: noExpiry, id: id}
	if !bytes.Equal(x.date, keyNull) {
		k.expiry = string(x.date[1:11])
	}
	switch x.state {
	case `"expires_today"`, `"expiring_soon"`:
		k.urgency = 0
	case `"active"`:
		k.urgency = 1
	case `"expired"`:
		k.urgency = 2
	}
	return k, true
}

// after returns the index of the first key in data at or after from, -1
// when there is none (or from is -1).
func after(data []byte, from int, key []byte) int {
	if from < 0 || from > len(data) {
		return -1
	}
	n := bytes.Index(data[from:], key)
	if n < 0 {
		return -1
	}
	return from + n
}

// RawPage is the rows of a page as the response writes them: set when the
// page passed stored rows through (Passed).
type RawPage struct {
	parts   [][]byte // the pieces of the rows (rawRow)
	ends    []int    // the end of each row in parts
	size    int      // of the parts
	scratch []byte   // what the rows rewrote, the rows encoded
	ok      bool
}

// appendRow adds a row to the page: its stored JSON through raw, or the
// decoded row encoded as a response encodes it.
func (p *RawPage) appendRow(raw rawRow, it kv.Item, decode func() (any, error)) error {
	n := len(p.parts)
	if parts, ok := raw(p.parts, &p.scratch, it); ok {
		for _, b := range parts[n:] {
			p.size += len(b)
		}
		p.parts, p.ends = parts, append(p.ends, len(parts))
		return nil
	}
	v, err := decode()
	if err != nil {
		return err
	}
	row, err := api.AppendJSON(nil, v)
	if err != nil {
		return err
	}
	p.parts, p.ends, p.size = append(p.parts, row), append(p.ends, len(p.parts)+1), p.size+len(row)
	return nil
}

// Passed reports whether the page passed stored rows through: its rows
// are then here, not in Page.Rows.
func (p RawPage) Passed() bool { return p.ok }

// Len is the size of the rows written as a JSON array's elements.
func (p RawPage) Len() int { return p.size + len(p.ends) }

// AppendRows appends the rows to b, separated by commas.
func (p RawPage) AppendRows(b []byte) []byte {
	from := 0
	for n, end := range p.ends {
		if n > 0 {
			b = append(b, ',')
		}
		for _, part := range p.parts[from:end] {
			b = append(b, part...)
		}
		from = end
	}
	return b
}

// Keys of the fields a stored well row has for the operator views only
// (WellRow.LSD, WellRow.StatusDate: its last fields, omitted when empty).
var (
	keyWellLSD        = []byte(`,"lsd":`)
	keyWellStatusDate = []byte(`,"status_date":`)
	closeObject       = []byte(`}`)
)

// reportWellRow passes a stored well row through without its lsd and
// status_date, as a well row is answered. Inside a JSON string a quote
// is escaped, so the keys can only be the row's own (no nested object of
// a well row has them); each is cut only when its value, a string
// without escapes, runs to what follows it. A row laid out otherwise is
// decoded.
func reportWellRow(parts [][]byte, _ *[]byte, it kv.Item) ([][]byte, bool) {
	data := it.Data
	if escaped(data) || len(data) < 2 || data[len(data)-1] != '}' {
		return parts, false
	}
	row := data[:len(data)-1]
	for _, key := range [][]byte{keyWellStatusDate, keyWellLSD} {
		i := bytes.LastIndex(row, key)
		if i < 0 {
			continue
		}
		v := row[i+len(key):]
		if len(v) < 2 || v[0] != '"' || v[len(v)-1] != '"' || bytes.IndexAny(v[1:len(v)-1], "\"\\") >= 0 {
			return parts, false
		}
		row = row[:i]
	}
	return append(parts, row, closeObject), true
}

// passSorted sorts items by the key key reads from their stored bytes
// (cmp; desc reverses it) and passes n of them from from on through raw
// (decode: a row raw declines), never decoding a row to sort it; ok ==
// false when a key cannot be read. The report's tenure section and the
// parcel lists' default sorts (passedPage) are read so.
func passSorted[K, T any](items []kv.Item, key func([]byte) (K, bool), cmp func(a, b K) int, desc bool, from, n int,
	raw rawRow, decode func(kv.Item) (T, error)) (p RawPage, ok bool, err error) {
	type keyed struct {
		k  K
		it kv.Item
	}
	rows := make([]keyed, len(items))
	for i, it := range items {
		k, ok := key(it.Data)
		if !ok {
			return p, false, nil
		}
		rows[i] = keyed{k, it}
	}
	slices.SortStableFunc(rows, func(a, b keyed) int {
		if desc {
			return cmp(b.k, a.k)
		}
		return cmp(a.k, b.k)
	})
	from = min(from, len(rows))
	for _, r := range rows[from:min(from+n, len(rows))] {
		it := r.it
		if err := p.appendRow(raw, it, func() (any, error) { return decode(it) }); err != nil {
			return p, false, err
		}
	}
	p.ok = true
	return p, true, nil
}
