package energydemo

import (
	"bytes"
	"fmt"
	"math"
	"sort"
	"strings"
	"time"

	"meridian/shared/demo"
	"meridian/shared/energy/energyingest"
	"meridian/shared/lld"
)

// wellRole is what a demo well is: where in its township, its status and
// its production.
type wellRole struct {
	sec, lsd   int
	le         string
	event      int
	status     string
	stat       string // WELL-STAT-CODE
	kind       string // production: "gas", "oil", "water" (disposal/injection), "" none
	from, to   int    // producing months [from, to)
	shutIn     bool   // shut in from month `to` on
	hz         bool
	issueYear  int
	statusYear int
	tag        string // in the name: "HZ", "RE", "DW", "WD"
	op         int    // index into the township's operators; 3 = the defunct licensee
	pooled     bool   // has a producing pool
}

// abRoles are the 15 wells of every Alberta demo township: every licence
// status bucket, horizontal wells (location exceptions 02, 03), a
// re-entry (event 2), a domestic water well (F1), a well licensed but not
// drilled, a disposal well, and an orphan (role 14).
var abRoles = []wellRole{
	{3, 6, "00", 0, "Issued", "0210000000", "gas", 0, 14, false, false, 2014, 2014, "", 0, true},
	{10, 9, "02", 0, "Issued", "0111000000", "oil", 0, 14, false, true, 2019, 2019, "HZ", 1, true},
	{10, 16, "03", 0, "Amended", "0111000000", "oil", 3, 14, false, true, 2025, 2025, "HZ", 1, true},
	{15, 11, "00", 2, "Re-Entered", "0210000000", "gas", 0, 14, false, false, 1998, 2016, "RE", 0, true},
	{22, 7, "00", 0, "Issued", "0210000000", "gas", 0, 8, true, false, 2011, 2011, "", 0, true},
	{27, 1, "00", 0, "Issued", "0000000000", "", 0, 0, false, false, 2026, 2026, "", 2, false},
	{21, 14, "00", 0, "Suspension", "0201000000", "", 0, 0, false, false, 2008, 2021, "", 1, true},
	{16, 4, "00", 0, "Suspension", "0101000000", "", 0, 0, false, false, 2004, 2019, "", 2, true},
	{20, 12, "02", 0, "Suspension", "0007000000", "", 0, 0, false, true, 2013, 2014, "HZ", 0, false},
	{28, 10, "00", 0, "Abandoned", "0102000000", "", 0, 0, false, false, 1988, 2015, "", 2, false},
	{33, 5, "00", 0, "Abandoned", "0203000000", "", 0, 0, false, false, 1979, 2010, "", 1, false},
	{34, 2, "00", 0, "RecCertified", "0002000000", "", 0, 0, false, false, 1962, 2005, "", 0, false},
	{30, 13, "F1", 0, "RecExempt", "0602080000", "", 0, 0, false, false, 1955, 1999, "DW", 2, false},
	{9, 8, "00", 0, "Issued", "0600040000", "water", 0, 14, false, false, 1997, 1997, "WD", 0, false},
	{35, 15, "00", 0, "Suspension", "0201000000", "", 0, 0, false, false, 2001, 2018, "", 3, true},
}

// skRoles are the 10 wells of a Saskatchewan township, mbRoles the first
// 8 of them for Manitoba.
var skRoles = []wellRole{
	{3, 4, "00", 0, "Issued", "0111000000", "oil", 0, 14, false, true, 2018, 2018, "HZ", 0, true},
	{3, 5, "02", 0, "Issued", "0111000000", "oil", 0, 14, false, true, 2020, 2020, "HZ", 1, true},
	{10, 9, "00", 0, "Issued", "0111000000", "oil", 0, 9, true, false, 2009, 2009, "", 0, true},
	{15, 2, "00", 0, "Amended", "0111000000", "oil", 5, 14, false, false, 2025, 2025, "", 1, true},
	{21, 16, "00", 0, "Issued", "0000000000", "", 0, 0, false, false, 2026, 2026, "", 2, false},
	{22, 8, "00", 0, "Suspension", "0101000000", "", 0, 0, false, false, 2006, 2020, "", 0, true},
	{27, 7, "00", 0, "Abandoned", "0102000000", "", 0, 0, false, false, 1985, 2012, "", 1, false},
	{34, 12, "00", 0, "RecCertified", "0002000000", "", 0, 0, false, false, 1960, 2003, "", 2, false},
	{9, 1, "00", 0, "Issued", "0600040000", "water", 0, 14, false, false, 1999, 1999, "WD", 0, false},
	{16, 3, "02", 0, "Issued", "0111000000", "oil", 0, 14, false, true, 2022, 2022, "HZ", 1, true},
}

var mbRoles = skRoles[:8]

// demoWell is one demo well event.
type demoWell struct {
	t          *demoTownship
	role       int
	r          wellRole
	u          energyingest.DLSUWI
	name       string
	licence    string
	status     string // this month
	stat       string
	prevStatus string // last month ("" when licensed this month)
	prevStat   string
	licensee   string // BA
	prevLic    string
	issue      time.Time
	spud       time.Time
	finDrill   time.Time
	statDate   time.Time
	prevDate   time.Time // status date last month
	depth      float64
	tvd        float64
	pool       string
	orphan     bool
	// confidential wells are reported as "***" in the volumetrics;
	// confVolume also withholds their volumes.
	confidential bool
	confVolume   bool
	battery      *demoFacility
	vols         [demoMonths]demoVolume
}

// demoVolume is one well's production in one month.
type demoVolume struct {
	producing bool
	shutIn    bool
	oil, gas  float64
	water     float64
	cond      float64
	hours     float64
}

func (w *demoWell) uwi16() string { return w.u.UWI16() }

func (w *demoWell) loc() lld.Location {
	l, _ := w.u.Location()
	return l
}

func (w *demoWell) operator() demoOperator { return op(w.licensee) }

func (w *demoWorld) addWells(t *demoTownship) {
	roles := abRoles
	switch t.Prov {
	case "SK":
		roles = skRoles
	case "MB":
		roles = mbRoles
	}
	for i, r := range roles {
		rnd := newDemoRand(int(t.Prov[0]), t.index, i)
		// Real identifiers of docs/data-sources.md §0.1 in their townships.
		switch {
		case t.Prov == "AB" && t.index == 7 && i == 10:
			r.sec, r.lsd, r.le = 4, 12, "AA"
		case t.Prov == "AB" && t.index == 6 && i == 0:
			r.sec, r.lsd = 19, 7
		case t.Prov == "AB" && t.index == 4 && i == 3:
			r.sec, r.lsd = 22, 4
		case t.Prov == "AB" && i == 10:
			r.le = []string{"00", "02", "00", "W0", "00", "00", "00", "AA"}[t.index]
		case t.Prov == "AB" && i == 14 && t.index%2 == 1:
			r.status, r.stat, r.statusYear = "Abandoned", "0202000000", 2020
		case t.Prov == "AB" && i == 13 && t.index == 3:
			r.stat, r.tag = "0600030000", "WI" // water injection into the EOR scheme
		case t.Prov == "SK" && t.index == 1 && i == 3:
			r.kind, r.stat = "gas", "0210000000"
		}
		d := &demoWell{t: t, role: i, r: r,
			u: energyingest.DLSUWI{LE: r.le, LSD: r.lsd, Section: r.sec, Township: t.Twp, Range: t.Rge, Meridian: t.Mer, Event: r.event}}
		if r.op == 3 {
			d.licensee = t.defunct
			d.orphan = true
		} else {
			d.licensee = t.Ops[r.op]
		}
		d.prevLic = d.licensee
		if t.previousLicenseeOf == i {
			d.prevLic = t.Ops[2]
		}
		d.status, d.stat = r.status, r.stat
		d.prevStatus, d.prevStat = r.status, r.stat

		// Dates.
		d.issue = demoDate(r.issueYear, time.Month(1+rnd.Intn(12)), 1+rnd.Intn(28))
		switch {
		case i == 2 && t.Prov == "AB":
			d.issue = demoDate(2025, time.August, 1+rnd.Intn(28))
		case r.stat == "0000000000" && t.newLicence:
			d.issue = demoDate(2026, time.November, 2+rnd.Intn(9))
		case r.stat == "0000000000":
			d.issue = demoDate(2026, time.May, 1+rnd.Intn(28))
		case r.from > 0 && r.issueYear == 2025:
			d.issue = demoDate(2025, time.March, 1+rnd.Intn(28))
		}
		if r.stat != "0000000000" {
			d.spud = d.issue.AddDate(0, 0, 15+rnd.Intn(30))
			d.finDrill = d.spud.AddDate(0, 0, 8+rnd.Intn(20))
		}
		d.statDate = d.issue
		if !d.finDrill.IsZero() {
			d.statDate = d.finDrill.AddDate(0, 0, 10+rnd.Intn(30))
		}
		if r.statusYear != r.issueYear {
			d.statDate = demoDate(r.statusYear, time.Month(1+rnd.Intn(12)), 1+rnd.Intn(28))
		}
		d.prevDate = d.statDate
		if t.suspendedThisMonth && i == 4 {
			d.prevStatus, d.prevStat = "Issued", "0210000000"
			d.status, d.stat = "Suspension", "0201000000"
			d.statDate = demoDate(2026, time.November, 5)
		}
		if t.newLicence && r.stat == "0000000000" {
			d.prevStatus = "" // not in last month's list
		}

		d.drillDepths(rnd, t, r.hz)
		if r.pooled {
			d.pool = fmt.Sprintf("%s%03d", t.FieldCode, 1+i%3)
		}
		d.licence = fmt.Sprintf("%07d", map[string]int{"AB": 100000, "SK": 600000, "MB": 1300000}[t.Prov]+
			(d.issue.Year()-1950)*5500+t.index*37+i*3)
		d.name = wellName(d)
		d.confidential = r.kind == "oil" && (t.Prov == "AB" && i == 2 && (t.index == 4 || t.index == 7) || t.Prov == "SK" && t.index == 2 && i == 9)
		d.confVolume = d.confidential && t.index == 7
		if t.Prov == "SK" && t.index == 3 && i == 5 {
			d.orphan = true // SK orphan: Petrinex OrphanWellFlg only
		}
		d.production(rnd)
		w.wells = append(w.wells, d)
	}
}

// wellName writes a name the way operators do: "CHEVRON HZ PINE CK
// 9-10-56-18", at most 36 characters (ST37's width).
func wellName(d *demoWell) string {
	t, r := d.t, d.r
	parts := []string{d.operator().Short}
	if r.tag != "" {
		parts = append(parts, r.tag)
	}
	if t.Prov == "AB" && t.index == 2 && d.role == 7 {
		parts = append(parts, "BÉLANGER") // a Latin-1 letter in the ST37 file
	}
	parts = append(parts, t.FieldAbbrev, fmt.Sprintf("%d-%d-%d-%d", r.lsd, r.sec, t.Twp, t.Rge))
	s := strings.Join(parts, " ")
	if len([]rune(s)) > 36 {
		s = string([]rune(s)[:36])
	}
	return s
}

// production fills the monthly volumes: a decline from an initial rate,
// hours a little under the month's.
func (d *demoWell) production(rnd *demo.Rand) {
	r := d.r
	if r.kind == "" {
		return
	}
	var base, decline float64
	switch {
	case r.kind == "gas" && d.t.Deep:
		base, decline = rnd.Between(600, 1800), rnd.Between(0.012, 0.025)
	case r.kind == "gas":
		base, decline = rnd.Between(150, 500), rnd.Between(0.01, 0.02)
	case r.kind == "oil" && r.hz:
		base, decline = rnd.Between(250, 900), rnd.Between(0.015, 0.03)
	case r.kind == "oil":
		base, decline = rnd.Between(60, 200), rnd.Between(0.005, 0.015)
	case r.kind == "water":
		base, decline = rnd.Between(800, 3000), 0
	}
	if r.from > 0 {
		base, decline = base*1.8, 0.05 // a new well: high rate, steep decline
	}
	gor, wcut, cgr := rnd.Between(0.15, 0.6), rnd.Between(0.3, 1.5), rnd.Between(0.001, 0.01)
	wgr := rnd.Between(0.15, 0.5)
	for m := range demoMonths {
		v := &d.vols[m]
		if m < r.from {
			continue
		}
		if m >= r.to {
			v.shutIn = r.shutIn
			continue
		}
		first := time.Date(2025, time.September+time.Month(m), 1, 0, 0, 0, 0, time.UTC)
		hours := float64(first.AddDate(0, 1, 0).Sub(first).Hours()) - float64(rnd.Intn(49))
		frac := hours / float64(first.AddDate(0, 1, 0).Sub(first).Hours())
		q := base * math.Pow(1-decline, float64(m-r.from)) * rnd.Between(0.9, 1.1) * frac
		v.producing, v.hours = true, hours
		switch r.kind {
		case "gas":
			v.gas, v.water = round1(q), round1(q*wgr)
			if d.t.Deep || d.t.Sour {
				v.cond = round1(q * cgr)
			}
		case "oil":
			v.oil, v.gas, v.water = round1(q), round1(q*gor), round1(q*wcut)
		case "water":
			v.water = round1(q)
		}
	}
}

// st37 renders the ST37 WellList.txt of this month (current) or last
// month: 24 columns, tab-delimited, space-padded, Latin-1, sorted by
// KEY-LIST-OF-WELLS, LF line ends as in the sample.
func (w *demoWorld) st37(current bool) []byte {
	type row struct{ key, line string }
	var rows []row
	for _, d := range w.wells {
		if d.t.Prov != "AB" {
			continue
		}
		if key, line, ok := st37Line(d, current); ok {
			rows = append(rows, row{key, line})
		}
	}
	sort.Slice(rows, func(i, j int) bool { return rows[i].key < rows[j].key })
	var b bytes.Buffer
	for _, r := range rows {
		b.Write(latin1(r.line))
		b.WriteByte('\n')
	}
	return b.Bytes()
}

// st37Line is a well's line of this month's (current) or last month's
// ST37, without its line end, and its KEY-LIST-OF-WELLS; false when the
// well is not in last month's list.
func st37Line(d *demoWell, current bool) (key, line string, ok bool) {
	status, stat, lic, statDate := d.status, d.stat, d.licensee, d.statDate
	if !current {
		if d.prevStatus == "" {
			return "", "", false
		}
		status, stat, lic, statDate = d.prevStatus, d.prevStat, d.prevLic, d.prevDate
	}
	disp, _ := d.u.Display()
	ws, _ := energyingest.ParseWellStatus(stat)
	pool := d.pool
	if pool == "" {
		pool = "0000000"
	}
	fields := []string{
		disp, d.u.STKey(), " ", padRight(d.name, 36), d.t.FieldCode, pool, "    ", "0000000",
		" " + d.licence + " ", padRight(status, 12), ymd(d.issue), lic + "0", "     ", "     ",
		ymd(d.finDrill), fmt.Sprintf(" %07.2f", d.depth), stat, ymd(statDate),
		ws.Short(energyingest.Fluid), ws.Short(energyingest.Mode), ws.Short(energyingest.Type), ws.Short(energyingest.Structure), "", "",
	}
	return d.u.STKey(), strings.Join(fields, "\t"), true
}

// optNum writes v, or "" for 0 (not measured).
func optNum(v float64) string {
	if v == 0 {
		return ""
	}
	return num(v)
}

func ymd(t time.Time) string {
	if t.IsZero() {
		return "00000000"
	}
	return t.Format("20060102")
}

// isoDate is t as YYYY-MM-DD, "" for the zero time, as the Petrinex and
// Crown files write dates.
func isoDate(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.Format("2006-01-02")
}

func padRight(s string, n int) string {
	if k := len([]rune(s)); k < n {
		return s + strings.Repeat(" ", n-k)
	}
	return s
}

// latin1 encodes s as ISO 8859-1 ('?' for what it cannot hold).
func latin1(s string) []byte {
	b := make([]byte, 0, len(s))
	for _, r := range s {
		if r > 0xff {
			r = '?'
		}
		b = append(b, byte(r))
	}
	return b
}

// csvQuoted writes one CSV row with every field double-quoted and CRLF, as
// Petrinex publishes.
func csvQuoted(b *bytes.Buffer, fields ...string) {
	csvFields(b, fields...)
	b.WriteString("\r\n")
}

// csvFields writes fields quoted and separated by commas, without the
// line's end.
func csvFields(b *bytes.Buffer, fields ...string) {
	for i, f := range fields {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteByte('"')
		if strings.IndexByte(f, '"') < 0 {
			b.WriteString(f)
		} else {
			b.WriteString(strings.ReplaceAll(f, `"`, `""`))
		}
		b.WriteByte('"')
	}
}

// wellInfrastructure renders Petrinex Well Infrastructure for a province
// (this month's state), in PetrinexWellColumns order.
func (w *demoWorld) wellInfrastructure(prov string) []byte {
	var b bytes.Buffer
	csvQuoted(&b, energyingest.PetrinexWellColumns()...)
	for _, d := range w.wells {
		if d.t.Prov == prov {
			wellInfraRow(&b, prov, d)
		}
	}
	return b.Bytes()
}

// wellInfraRow writes a well's row of Petrinex Well Infrastructure.
func wellInfraRow(b *bytes.Buffer, prov string, d *demoWell) {
	yn := func(v bool) string {
		if v {
			return "Y"
		}
		return "N"
	}
	ws, _ := energyingest.ParseWellStatus(d.stat)
	l := d.loc()
	conf := "Non-Confidential"
	if d.confidential {
		conf = "Confidential"
	}
	var linked [6]string
	if f := d.battery; f != nil {
		start := f.start
		if d.finDrill.After(start) {
			start = d.finDrill
		}
		linked = [6]string{f.id, f.subType, f.subDesc, isoDate(start), f.operator, op(f.operator).Upper()}
	}
	code := func(p energyingest.StatusPart) string { return fmt.Sprintf("%02d", ws.Part(p)) }
	word := func(p energyingest.StatusPart) string { // as the real file spells it: ABAN, DRL & C, Tstcmp ...
		if w, ok := p.PetrinexWord(ws.Part(p)); ok {
			return w
		}
		return ws.Short(p)
	}
	trajectory := energyingest.Vertical // HorizontalDrill holds a trajectory word, not Y/N
	if d.r.hz {
		trajectory = energyingest.Horizontal
	}
	fields := []string{
		prov + "WI" + d.uwi16(), prov, "WI", d.uwi16(), "", d.u.LE,
		fmt.Sprint(l.LSD), fmt.Sprint(l.Section), fmt.Sprint(l.Township), fmt.Sprint(l.Range), fmt.Sprint(l.Meridian.Number()),
		fmt.Sprint(d.u.Event), d.name, conf, yn(d.confidential), "", "",
		"Well", d.licence, isoDate(d.issue), isoDate(d.statDate), d.status,
		d.t.FieldCode, d.t.Field, "", "", d.pool, "", "",
		word(energyingest.Fluid), word(energyingest.Mode), word(energyingest.Type), word(energyingest.Structure),
		code(energyingest.Fluid), code(energyingest.Mode), code(energyingest.Type), code(energyingest.Structure),
		isoDate(d.statDate), isoDate(d.spud), string(trajectory), isoDate(d.finDrill),
		optNum(d.depth), optNum(d.tvd), "", "",
		d.licensee, d.operator().Upper(), "", "", "", yn(d.orphan),
	}
	fields = append(fields, linked[:]...)
	csvQuoted(b, fields...)
}

// drillDepths draws a drilled well's true vertical depth by province and
// field depth, and its measured depth (a horizontal leg adds 1.2-2.4 km):
// the demo's and the province-size generator's rule.
func (d *demoWell) drillDepths(rnd *demo.Rand, t *demoTownship, hz bool) {
	if d.finDrill.IsZero() {
		return
	}
	lo, hi := 900.0, 1700.0
	switch {
	case t.Prov == "MB":
		lo, hi = 700, 1100
	case t.Prov == "SK":
		lo, hi = 800, 1600
	case t.Deep:
		lo, hi = 2400, 3600
	}
	d.tvd = math.Round(rnd.Between(lo, hi)*10) / 10
	d.depth = d.tvd
	if hz {
		d.depth = math.Round((d.tvd+rnd.Between(1200, 2400))*10) / 10
	}
}
