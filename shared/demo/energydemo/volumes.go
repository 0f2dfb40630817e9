package energydemo

import (
	"bytes"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	"meridian/shared/demo"
	"meridian/shared/energy/energyingest"
	"meridian/shared/lld"
)

// demoFacility is a demo battery, gathering system or injection facility.
type demoFacility struct {
	t        *demoTownship
	typ      string // BT, GS, IF
	id       string // "ABBT0900001"
	id7      string
	name     string
	subType  string
	subDesc  string
	sec, lsd int
	operator string
	status   string // FacilityOperationalStatus
	orphan   bool
	start    time.Time
	licence  string
	wells    []*demoWell // wells reporting to a battery; wells injected into for IF
	water    *demoFacility
	gas      *demoFacility
}

func (f *demoFacility) loc() lld.Location {
	l, _ := energyingest.DLSLocation(f.lsd, f.sec, f.t.Twp, f.t.Rge, f.t.Mer)
	return l
}

// locText is the LSD-SEC-TWP-RGEWM text; with truncate, the LSD is lost as
// in some published ReportingFacilityLocation values.
func (f *demoFacility) locText(truncate bool) string {
	s := fmt.Sprintf("%02d-%02d-%03d-%02dW%d", f.lsd, f.sec, f.t.Twp, f.t.Rge, f.t.Mer)
	if truncate {
		return s[3:]
	}
	return s
}

var subTypeDesc = map[string]string{
	"311": "CRUDE OIL SINGLE-WELL BATTERY",
	"321": "CRUDE OIL MULTIWELL GROUP BATTERY",
	"322": "CRUDE OIL MULTIWELL PRORATION BATTERY",
	"351": "GAS SINGLE WELL BATTERY",
	"361": "GAS MULTIWELL GROUP BATTERY",
	"364": "GAS MULTIWELL PRORATION OUTSIDE SE ALBERTA BATTERY",
	"367": "GAS MULTIWELL PRORATION OUTSIDE SE AB (ISSUED BY AER ONLY)",
	"501": "ENHANCED RECOVERY SCHEME",
	"503": "DISPOSAL",
	"621": "GAS GATHERING SYSTEM",
	"622": "GGS (PIPES ONLY OR COMPRESSOR LT 75KW)",
}

func proration(subType string) bool {
	return subType == "322" || subType == "364" || subType == "367"
}

func (w *demoWorld) newFacility(t *demoTownship, typ, subType string, sec, lsd int, operator, label string) *demoFacility {
	seq := 1
	for _, f := range w.facilities {
		if f.t == t {
			seq++
		}
	}
	rnd := newDemoRand(int(t.Prov[0]), t.index, 100+seq)
	f := &demoFacility{t: t, typ: typ, subType: subType, subDesc: subTypeDesc[subType], sec: sec, lsd: lsd,
		operator: operator, status: "ACTIVE"}
	f.id7 = fmt.Sprintf("09%02d%03d", t.index, seq)
	f.id = t.Prov + typ + f.id7
	f.start = demoDate(1995+rnd.Intn(25), time.Month(1+rnd.Intn(12)), 1)
	f.licence = fmt.Sprintf("F%06d", 40000+t.index*50+seq+map[string]int{"AB": 0, "SK": 1000, "MB": 2000}[t.Prov])
	f.name = strings.TrimSpace(fmt.Sprintf("%s %s %s", titleCase(t.Field), label, f.locText(false)))
	w.facilities = append(w.facilities, f)
	return f
}

func titleCase(s string) string {
	b := []byte(strings.ToLower(s))
	for i := range b {
		if i == 0 || b[i-1] == ' ' || b[i-1] == '-' {
			b[i] = byte(strings.ToUpper(string(b[i]))[0])
		}
	}
	return string(b)
}

func (w *demoWorld) facility(t *demoTownship, typ string) *demoFacility {
	for _, f := range w.facilities {
		if f.t == t && f.typ == typ && !f.orphan {
			return f
		}
	}
	return nil
}

// township returns the demo township of prov with index i.
func (w *demoWorld) township(prov string, i int) *demoTownship {
	for _, t := range w.townships {
		if t.Prov == prov && t.index == i {
			return t
		}
	}
	return nil
}

// addFacilities creates a township's shared facilities; single-well
// batteries come with their wells in linkWells.
func (w *demoWorld) addFacilities(t *demoTownship) {
	i := t.index
	switch t.Prov {
	case "AB":
		w.newFacility(t, "BT", []string{"361", "364", "367", "361", "364", "367", "361", "364"}[i], 14, 3, t.Ops[0], "Gas Battery")
		w.newFacility(t, "BT", []string{"322", "321", "322", "321", "322", "321", "322", "321"}[i], 11, 5, t.Ops[1], "Oil Battery")
		w.newFacility(t, "GS", []string{"621", "622"}[i%2], 23, 1, t.Ops[0], "Gas Gathering")
		switch i {
		case 1, 4, 6:
			w.newFacility(t, "IF", "503", 9, 7, t.Ops[0], "Water Disposal")
		case 3:
			w.newFacility(t, "IF", "501", 9, 7, t.Ops[0], "Waterflood Scheme")
		case 5:
			w.newFacility(t, "IF", "503", 9, 7, "Z9B2", "Mossback Water Disposal")
		}
		// Orphaned facilities (OWA "(Facility)" sites and a "(Multi)"
		// site with the orphan well).
		var of *demoFacility
		switch i {
		case 0:
			of = w.newFacility(t, "BT", "311", 26, 9, t.defunct, "Battery")
			of.status = "SUSPENDED"
		case 3:
			of = w.newFacility(t, "BT", "311", 35, 15, t.defunct, "Battery")
			of.status = "SUSPENDED"
		case 6:
			of = w.newFacility(t, "BT", "311", 29, 6, t.defunct, "Battery")
			of.status = "ABANDONED"
		}
		if of != nil {
			of.orphan = true
		}
	case "SK":
		w.newFacility(t, "BT", "322", 11, 5, t.Ops[0], "Oil Battery")
		if i == 1 {
			w.newFacility(t, "BT", "361", 14, 3, t.Ops[1], "Gas Battery")
			w.newFacility(t, "GS", "621", 23, 1, t.Ops[1], "Gas Gathering")
		}
		if i == 0 || i == 2 {
			w.newFacility(t, "IF", "503", 9, 7, t.Ops[0], "Water Disposal")
		}
	case "MB":
		w.newFacility(t, "BT", "321", 11, 5, t.Ops[0], "Oil Battery")
		if i == 2 {
			w.newFacility(t, "IF", "503", 9, 7, t.Ops[0], "Water Disposal")
		}
	}
}

// linkWells connects wells to batteries (creating single-well batteries),
// batteries to where their water and gas go, and disposal wells to their
// injection facility.
func (w *demoWorld) linkWells() {
	waterTo := map[string][]int{"AB": {1, 1, 4, 3, 4, 5, 6, 5}, "SK": {0, 2, 2, 0}, "MB": {2, 2, 2}}
	for _, d := range w.wells {
		t := d.t
		switch d.r.kind {
		case "gas":
			if t.Prov == "AB" && d.role == 0 && (t.index == 3 || t.index == 6) {
				d.battery = w.newFacility(t, "BT", "351", d.r.sec, d.r.lsd, d.licensee, "Gas Battery")
			} else {
				d.battery = w.gasBattery(t)
			}
		case "oil":
			if t.Prov == "AB" && d.role == 1 && (t.index == 2 || t.index == 5) {
				d.battery = w.newFacility(t, "BT", "311", d.r.sec, d.r.lsd, d.licensee, "Oil Battery")
			} else {
				d.battery = w.oilBattery(t)
			}
		case "water":
			if f := w.facility(t, "IF"); f != nil {
				f.wells = append(f.wells, d)
			}
			continue
		default:
			continue
		}
		d.battery.wells = append(d.battery.wells, d)
	}
	for _, f := range w.facilities {
		if f.typ != "BT" {
			continue
		}
		f.water = w.facility(w.township(f.t.Prov, waterTo[f.t.Prov][f.t.index]), "IF")
		f.gas = w.facility(f.t, "GS")
		if f.t.Prov == "SK" {
			f.gas = w.facility(w.township("SK", 1), "GS")
		}
	}
}

func (w *demoWorld) gasBattery(t *demoTownship) *demoFacility {
	for _, f := range w.facilities {
		if f.t == t && f.typ == "BT" && f.subType[:2] == "36" {
			return f
		}
	}
	return w.oilBattery(t) // SK/MB gas goes to the oil battery where there is no gas battery
}

func (w *demoWorld) oilBattery(t *demoTownship) *demoFacility {
	for _, f := range w.facilities {
		if f.t == t && f.typ == "BT" && (f.subType == "321" || f.subType == "322") {
			return f
		}
	}
	panic("energydemo: no oil battery in " + t.String())
}

// volRow is the varying part of a volumetrics row.
type volRow struct {
	act, prod     string
	well          *demoWell     // other end: a well
	fac           *demoFacility // other end: a facility
	hidden        bool          // other end "***"
	vol, hours    string
	proProd, fact string
}

// volumetrics renders Petrinex Conventional Volumetrics of one province
// and month: batteries (well production, shut-ins, proration factors,
// dispositions, fuel, flare, vent, inventories) and injection facilities
// (receipts, injection).
func (w *demoWorld) volumetrics(prov string, m int) []byte {
	var b bytes.Buffer
	csvQuoted(&b, energyingest.VolumetricColumns()...)
	month := demoMonth(m)
	sub := time.Date(2025, time.October+time.Month(m), 18, 0, 0, 0, 0, time.UTC)
	line := newVolWriter(&b, prov, month, sub).line
	facs := w.provFacilities(prov)
	for _, f := range facs {
		if f.typ != "BT" || f.orphan {
			continue
		}
		batteryVolumes(line, prov, m, f, newDemoRand(int(prov[0]), f.t.index, 500+m, len(f.id7)))
	}
	for _, f := range facs {
		if f.typ != "IF" {
			continue
		}
		total := 0.0
		for _, bt := range w.facilities {
			if bt.water != f || bt.orphan {
				continue
			}
			water := 0.0
			for _, d := range bt.wells {
				water += d.vols[m].water
			}
			if water > 0 {
				line(f, volRow{act: "REC", prod: "WATER", fac: bt, vol: num(round1(water)), hours: "0"})
				total += round1(water)
			}
		}
		for _, d := range f.wells {
			v := d.vols[m]
			inj := total // what the facility received, else the well's own rate
			if inj == 0 {
				inj = v.water
			}
			line(f, volRow{act: "INJ", prod: "WATER", well: d, vol: num(round1(inj)), hours: num(v.hours)})
			total = 0
		}
	}
	return b.Bytes()
}

// volWriter writes the volumetrics rows of one province and month. A
// row starts with its facility's fields (operator, facility, location,
// submission date), the same on every row of the facility that month:
// they are quoted once per facility, not once per row (at province size
// the rows of the twelve months were half of the generator's time).
type volWriter struct {
	b           *bytes.Buffer
	prov, month string
	sub         time.Time
	f           *demoFacility // whose fields prefix holds
	prefix      []byte
}

func newVolWriter(b *bytes.Buffer, prov, month string, sub time.Time) *volWriter {
	return &volWriter{b: b, prov: prov, month: month, sub: sub}
}

// line writes one row of facility f.
func (w *volWriter) line(f *demoFacility, r volRow) {
	if f != w.f {
		o := op(f.operator)
		l := f.loc()
		p := bytes.NewBuffer(w.prefix[:0]) // the last facility's bytes, reused
		csvFields(p, w.month, o.BA, o.Upper(), f.id, w.prov, f.typ, f.id7, f.name, f.subType, f.subDesc,
			f.locText(f.t.index%2 == 1), strconv.Itoa(int(l.LSD)), strconv.Itoa(int(l.Section)), strconv.Itoa(int(l.Township)),
			strconv.Itoa(int(l.Range)), strconv.Itoa(l.Meridian.Number()), w.sub.AddDate(0, 0, f.t.index%3).Format("2006-01-02"))
		w.f, w.prefix = f, p.Bytes()
	}
	ft, ftProv, ftType, ftID := "", "", "", ""
	switch {
	case r.hidden || r.well != nil && r.well.confidential:
		ft, ftID = energyingest.ConfidentialText, energyingest.ConfidentialText
	case r.well != nil:
		u := r.well.uwi16()
		ft, ftProv, ftType, ftID = w.prov+"WI"+u, w.prov, "WI", u
	case r.fac != nil:
		ft, ftProv, ftType, ftID = r.fac.id, w.prov, r.fac.typ, r.fac.id7
	}
	vol, hours := r.vol, r.hours
	if r.well != nil && r.well.confVolume {
		vol, hours = energyingest.ConfidentialText, energyingest.ConfidentialText
	}
	w.b.Write(w.prefix)
	w.b.WriteByte(',')
	csvQuoted(w.b, r.act, r.prod, ft, ftProv, ftType, ftID, vol, "0", hours, "", r.proProd, r.fact, "")
}

// batteryVolumes writes a battery's rows of month m through line: its
// wells' production and shut-ins, proration factors, inventories,
// dispositions, fuel, flare and vent.
func batteryVolumes(line func(*demoFacility, volRow), prov string, m int, f *demoFacility, rnd *demo.Rand) {
	var oil, gas, water, cond float64
	for _, d := range f.wells {
		v := d.vols[m]
		switch {
		case v.producing:
			h := num(v.hours)
			if d.r.kind == "oil" {
				line(f, volRow{act: "PROD", prod: "OIL", well: d, vol: num(v.oil), hours: h})
			}
			line(f, volRow{act: "PROD", prod: "GAS", well: d, vol: num(v.gas), hours: h})
			line(f, volRow{act: "PROD", prod: "WATER", well: d, vol: num(v.water), hours: h})
			if v.cond > 0 {
				line(f, volRow{act: "PROD", prod: "COND", well: d, vol: num(v.cond), hours: h})
			}
			oil, gas, water, cond = oil+v.oil, gas+v.gas, water+v.water, cond+v.cond
		case v.shutIn:
			line(f, volRow{act: "SHUTIN", well: d, vol: "0", hours: "0"})
		}
	}
	// An amendment: a negative correction of an earlier estimate.
	if prov == "AB" && f.t.index == 4 && m == 5 && len(f.wells) > 0 && f.subType[0] == '3' && f.subType[1] == '6' {
		line(f, volRow{act: "PROD", prod: "GAS", well: f.wells[0], vol: "-23.4", hours: "0"})
		gas -= 23.4
	}
	if oil+gas+water == 0 {
		return
	}
	if proration(f.subType) {
		for _, p := range []string{"OIL", "GAS", "WATER"} {
			if p == "OIL" && oil == 0 {
				continue
			}
			line(f, volRow{vol: "0", hours: "0", proProd: p, fact: fmt.Sprintf("%.5f", rnd.Between(0.85, 1.15))})
		}
	}
	fuel := round1(gas * 0.02)
	flare := round1(gas * rnd.Between(0.001, 0.006))
	if oil > 0 {
		open := round1(rnd.Between(20, 80))
		closing := round1(open + rnd.Between(-10, 10))
		line(f, volRow{act: "INVOP", prod: "OIL", vol: num(open), hours: "0"})
		line(f, volRow{act: "DISP", prod: "OIL", hidden: true, vol: num(round1(oil - (closing - open))), hours: "0"})
		line(f, volRow{act: "INVCL", prod: "OIL", vol: num(closing), hours: "0"})
		if prov == "AB" && f.t.index == 2 && m == 9 && f.subType != "311" {
			line(f, volRow{act: "INVADJ", prod: "OIL", vol: "-3.2", hours: "0"})
		}
		line(f, volRow{act: "VENT", prod: "GAS", vol: num(round1(gas * 0.004)), hours: "0"})
	}
	line(f, volRow{act: "FUEL", prod: "GAS", vol: num(fuel), hours: "0"})
	line(f, volRow{act: "FLARE", prod: "GAS", vol: num(flare), hours: "0"})
	if f.gas != nil {
		line(f, volRow{act: "DISP", prod: "GAS", fac: f.gas, vol: num(round1(math.Max(gas-fuel-flare, 0))), hours: "0"})
		if cond > 0 {
			line(f, volRow{act: "DISP", prod: "COND", fac: f.gas, vol: num(round1(cond)), hours: "0"})
		}
	}
	if f.water != nil && water > 0 {
		line(f, volRow{act: "DISP", prod: "WATER", fac: f.water, vol: num(round1(water)), hours: "0"})
	}
}

func (w *demoWorld) provFacilities(prov string) []*demoFacility {
	var out []*demoFacility
	for _, f := range w.facilities {
		if f.t.Prov == prov {
			out = append(out, f)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].id < out[j].id })
	return out
}

// ngl renders NGL and Marketable Gas Volumes for the Alberta gas wells.
func (w *demoWorld) ngl() []byte {
	var b bytes.Buffer
	csvQuoted(&b, energyingest.NGLColumns()...)
	for m := range demoMonths {
		for _, f := range w.provFacilities("AB") {
			for _, d := range f.wells {
				v := d.vols[m]
				if d.r.kind != "gas" || !v.producing {
					continue
				}
				nglRow(&b, f, d, m)
			}
		}
	}
	return b.Bytes()
}

// nglRow writes the NGL and marketable gas row of a producing gas well d
// of battery f in month m.
func nglRow(b *bytes.Buffer, f *demoFacility, d *demoWell, m int) {
	v := d.vols[m]
	o := op(f.operator)
	shrink := 0.88
	if d.t.Sour {
		shrink = 0.8
	}
	residue := round1(v.gas * shrink)
	c := func(k float64) string { return num(round1(v.gas * k)) }
	csvQuoted(b, f.id, f.name, o.BA, o.Upper(), demoMonth(m), "ABWI"+d.uwi16(), d.licence,
		d.t.FieldCode, d.pool, "", num(v.hours), num(v.gas), num(v.oil), num(v.cond), num(v.water),
		num(residue), num(math.Round(residue*37.9)), c(0.002), "0", c(0.01), "0", c(0.006), "0", c(0.004), "0", "0")
}

// facilityInfrastructure renders Petrinex Facility Infrastructure for a
// province in FacilityColumns order.
func (w *demoWorld) facilityInfrastructure(prov string) []byte {
	var b bytes.Buffer
	csvQuoted(&b, energyingest.FacilityColumns()...)
	for _, f := range w.provFacilities(prov) {
		facilityInfraRow(&b, prov, f)
	}
	return b.Bytes()
}

// facilityInfraRow writes a facility's row of Petrinex Facility
// Infrastructure.
func facilityInfraRow(b *bytes.Buffer, prov string, f *demoFacility) {
	o := op(f.operator)
	l := f.loc()
	orphan := "N"
	if f.orphan {
		orphan = "Y"
	}
	statusDate := f.start
	if f.status != "ACTIVE" {
		statusDate = demoDate(2019+f.t.index%4, time.June, 30)
	}
	csvQuoted(b, f.id, prov, f.typ, f.id7, f.name, f.subType, f.subDesc, "N", isoDate(f.start),
		f.locText(false), fmt.Sprint(l.LSD), fmt.Sprint(l.Section), fmt.Sprint(l.Township), fmt.Sprint(l.Range),
		fmt.Sprint(l.Meridian.Number()), "ISSUED", f.status, isoDate(statusDate), "Facility", f.licence, "",
		isoDate(f.start.AddDate(0, -2, 0)), o.BA, o.Upper(), o.BA, o.Upper(), f.start.Format("2006-01"),
		"", "", "", "", "", "", "", "", "", orphan, "", "")
}
