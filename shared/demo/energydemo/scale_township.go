package energydemo

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"time"

	"github.com/paulmach/orb"

	"meridian/shared/demo"
	"meridian/shared/energy/energyingest"
	"meridian/shared/lld"
	"meridian/shared/survey/dls"
)

// One township of the province-size data: its facilities, wells,
// pipelines and dispositions, drawn cell by cell, and their rows.

// township builds township k of a province as the row writers see it.
func (g *scaleGen) township(p scaleProvince, k int, tw scaleTownship) *demoTownship {
	rnd := g.rand(int('T'), int(p.prov), k)
	field, abbrev, fcode := fieldName(p.code, tw.field)
	fr := g.rand(int('S'), int(p.prov), tw.field)
	t := &demoTownship{Prov: p.code, Twp: tw.twp, Rge: tw.rge, Mer: int(tw.mer - lld.W1 + 1), Field: field, FieldAbbrev: abbrev,
		FieldCode: fcode, FieldCentre: fmt.Sprintf("Demo Field Centre %d", 1+tw.field%12), index: k,
		Deep: tw.mer >= lld.W5, Sour: fr.Intn(4) == 0, previousLicenseeOf: -1}
	// Three operators, the first few hundred codes the busiest.
	for i := range t.Ops {
		u := rnd.Between(0, 1)
		t.Ops[i] = scaleOperatorCode(int(float64(scaleOperatorCount) * u * u * u))
	}
	t.defunct = scaleDefunctCode(rnd.Intn(36))
	return t
}

// cell returns the LSD in row, col (0-23 from the south-west) of a
// township.
func cell(row, col int) (sec, lsd int) {
	return scaleSections[row/4][col/4], scaleLSDs[row%4][col%4]
}

var scaleSections, scaleLSDs = func() (s [6][6]int, l [4][4]int) {
	for n := 1; n <= 36; n++ {
		r, c := dls.SectionCell(n)
		s[r][c] = n
	}
	for n := 1; n <= 16; n++ {
		r, c := dls.LSDCell(n)
		l[r][c] = n
	}
	return s, l
}()

func cellOf(sec, lsd int) (row, col int) {
	sr, sc := dls.SectionCell(sec)
	lr, lc := dls.LSDCell(lsd)
	return sr*4 + lr, sc*4 + lc
}

func (g *scaleGen) townshipFacilities(t *demoTownship, first, n int, cells []int) []*demoFacility {
	out := make([]*demoFacility, 0, n)
	var water, gas *demoFacility
	for q := range n {
		id := first + q
		rnd := g.rand(int('f'), int(t.Prov[0]), id)
		typ, sub, label := "BT", "", ""
		switch id % 8 {
		case 6:
			typ, sub, label = "IF", []string{"503", "503", "501"}[rnd.Intn(3)], "Water Disposal"
		case 7:
			typ, sub, label = "GS", []string{"621", "622"}[rnd.Intn(2)], "Gas Gathering"
		default:
			sub = []string{"321", "322", "361", "364", "367", "311", "351"}[rnd.Intn(7)]
			label = map[byte]string{'2': "Oil Battery", '1': "Oil Battery", '6': "Gas Battery", '5': "Gas Battery"}[sub[1]]
		}
		c := cells[rnd.Intn(len(cells))]
		sec, lsd := cell(c/24, c%24)
		f := &demoFacility{t: t, typ: typ, subType: sub, subDesc: subTypeDesc[sub], sec: sec, lsd: lsd,
			operator: t.Ops[rnd.Intn(3)], status: "ACTIVE"}
		if rnd.Intn(10) == 0 {
			f.status = "SUSPENDED"
		}
		f.id7 = fmt.Sprintf("%07d", id+1)
		f.id = t.Prov + typ + f.id7
		f.start = demoDate(1970+rnd.Intn(55), time.Month(1+rnd.Intn(12)), 1)
		f.licence = fmt.Sprintf("F%07d", id+1+map[string]int{"AB": 0, "SK": 2000000, "MB": 3000000}[t.Prov])
		f.name = fmt.Sprintf("%s %s %s", titleCase(t.Field), label, f.locText(false))
		switch {
		case typ == "IF" && water == nil:
			water = f
		case typ == "GS" && gas == nil:
			gas = f
		}
		out = append(out, f)
	}
	for _, f := range out {
		if f.typ == "BT" {
			f.water, f.gas = water, gas
		}
	}
	return out
}

func pickRole(rnd *demo.Rand, weights []int) int {
	n := rnd.Intn(1000)
	for i, w := range weights {
		if n < w {
			return i
		}
		n -= w
	}
	return len(weights) - 1
}

// townshipWells builds the township's wells, global indices first to
// first+n-1, each at a distinct UWI, linked to the township's batteries.
func (g *scaleGen) townshipWells(t *demoTownship, first, n int, fs []*demoFacility, cells []int) []*demoWell {
	roles, weights := abRoles, abRoleWeights
	switch t.Prov {
	case "SK":
		roles, weights = skRoles, skRoleWeights
	case "MB":
		roles, weights = mbRoles, mbRoleWeights
	}
	var batteries []*demoFacility
	var inject *demoFacility
	for _, f := range fs {
		switch {
		case f.typ == "BT":
			batteries = append(batteries, f)
		case f.typ == "IF" && inject == nil:
			inject = f
		}
	}
	licenceBase := map[string]int{"AB": 100000, "SK": 1000000, "MB": 1300000}[t.Prov]
	nc := max(1, len(cells))
	shift := g.rand(int('L'), int(t.Prov[0]), t.index).Intn(nc)
	out := make([]*demoWell, 0, n)
	for j := range n {
		i := first + j
		rnd := g.rand(int('W'), int(t.Prov[0]), i)
		role := pickRole(rnd, weights)
		r := roles[role]
		// A distinct cell for each of the first nc wells, then the next
		// location exception over them (577 is a prime above nc: the
		// step visits every cell).
		layer := j / nc
		c := cells[(577*(j%nc)+shift+97*layer)%nc]
		r.sec, r.lsd = cell(c/24, c%24)
		d := &demoWell{t: t, role: role, r: r,
			u: energyingest.DLSUWI{LE: scaleLayers[layer], LSD: r.lsd, Section: r.sec, Township: t.Twp, Range: t.Rge, Meridian: t.Mer}}
		if r.op == 3 {
			d.licensee, d.orphan = t.defunct, true
		} else {
			d.licensee = t.Ops[r.op]
		}
		d.prevLic = d.licensee
		if rnd.Intn(100) < 3 { // licence transferred this month
			d.prevLic = t.Ops[(r.op+1)%3]
		}
		d.status, d.stat = r.status, r.stat
		d.prevStatus, d.prevStat = r.status, r.stat
		year := r.issueYear + rnd.Intn(9) - 4
		switch {
		case r.stat == "0000000000" && rnd.Intn(3) == 0:
			d.issue = demoDate(2026, time.November, 2+rnd.Intn(9))
			d.prevStatus = "" // licensed this month
		case r.stat == "0000000000":
			d.issue = demoDate(2026, time.Month(1+rnd.Intn(10)), 1+rnd.Intn(28))
		case r.from > 0:
			d.issue = demoDate(2025, time.March, 1+rnd.Intn(28))
		default:
			d.issue = demoDate(min(year, 2025), time.Month(1+rnd.Intn(12)), 1+rnd.Intn(28))
		}
		if r.stat != "0000000000" {
			d.spud = d.issue.AddDate(0, 0, 15+rnd.Intn(30))
			d.finDrill = d.spud.AddDate(0, 0, 8+rnd.Intn(20))
			d.statDate = d.finDrill.AddDate(0, 0, 10+rnd.Intn(30))
			if r.statusYear != r.issueYear {
				d.statDate = d.finDrill.AddDate(r.statusYear-r.issueYear, rnd.Intn(12), 0)
				if d.statDate.After(demo.AsOf()) {
					d.statDate = demo.AsOf().AddDate(0, -1-rnd.Intn(6), 0)
				}
			}
		} else {
			d.statDate = d.issue
		}
		d.prevDate = d.statDate
		d.drillDepths(rnd, t, r.hz)
		if r.pooled {
			d.pool = fmt.Sprintf("%s%03d", t.FieldCode, 1+rnd.Intn(3))
		}
		d.licence = fmt.Sprintf("%07d", licenceBase+i)
		d.name = wellName(d)
		d.confidential = r.kind == "oil" && rnd.Intn(100) == 0
		d.confVolume = d.confidential && rnd.Intn(3) == 0
		d.production(rnd)
		switch r.kind {
		case "gas", "oil":
			if len(batteries) > 0 {
				d.battery = batteries[j*len(batteries)/n]
				d.battery.wells = append(d.battery.wells, d)
			}
		case "water":
			if inject != nil {
				inject.wells = append(inject.wells, d)
			}
		}
		if d.orphan && t.Prov == "AB" && len(g.orphans) < scaleMaxOrphanRows {
			site := siteLSD(d.u.LSD, d.u.Section, t) + " (1" + d.u.LE + ")"
			g.orphans = append(g.orphans, demoOrphanRow{site, owaLicensee(op(d.licensee)), d.licence, "Well & Access Road",
				"Decommissioning", "Decommissioning"})
		}
		out = append(out, d)
	}
	return out
}

// writeTownship renders the township's wells and facilities into every
// file they appear in.
func (g *scaleGen) writeTownship(t *demoTownship, ws []*demoWell, fs []*demoFacility) error {
	if t.Prov == "AB" {
		type row struct{ key, line string }
		for c, sf := range g.wellLists {
			rows := make([]row, 0, len(ws))
			for _, d := range ws {
				if key, line, ok := st37Line(d, c == 1); ok {
					rows = append(rows, row{key, line})
				}
			}
			sort.Slice(rows, func(i, j int) bool { return rows[i].key < rows[j].key })
			for _, r := range rows {
				sf.buf.Write(latin1(r.line))
				sf.buf.WriteByte('\n')
			}
		}
	}
	for _, d := range ws {
		wellInfraRow(&g.wellInfra.buf, t.Prov, d)
	}
	for _, f := range fs {
		facilityInfraRow(&g.facilities.buf, t.Prov, f)
	}
	for m := range scaleMonths {
		dm := scaleFirstMonth + m
		b := &g.vols[m].buf
		month := demoMonth(dm)
		sub := time.Date(2025, time.October+time.Month(dm), 18, 0, 0, 0, 0, time.UTC)
		line := newVolWriter(b, t.Prov, month, sub).line
		for _, f := range fs {
			if f.typ == "BT" && len(f.wells) > 0 {
				batteryVolumes(line, t.Prov, dm, f, g.rand(int('V'), int(t.Prov[0]), dm, len(f.id7), f.sec, f.lsd, t.index))
			}
		}
		for _, f := range fs {
			if f.typ != "IF" {
				continue
			}
			total := 0.0
			for _, bt := range fs {
				if bt.water != f || bt.typ != "BT" {
					continue
				}
				water := 0.0
				for _, d := range bt.wells {
					water += d.vols[dm].water
				}
				if water > 0 {
					line(f, volRow{act: "REC", prod: "WATER", fac: bt, vol: num(round1(water)), hours: "0"})
					total += round1(water)
				}
			}
			for _, d := range f.wells {
				v := d.vols[dm]
				inj := v.water + total // what the facility received goes down its first well
				total = 0
				line(f, volRow{act: "INJ", prod: "WATER", well: d, vol: num(round1(inj)), hours: num(v.hours)})
			}
		}
		if t.Prov == "AB" {
			for _, f := range fs {
				for _, d := range f.wells {
					if d.r.kind == "gas" && d.vols[dm].producing && f.typ == "BT" {
						nglRow(&g.ngl.buf, f, d, dm)
					}
				}
			}
		}
	}
	return nil
}

// townshipPipelines lays n segments of about a kilometre (real AB
// segments average 1.3 km): from a well towards its battery, at most three
// LSDs away.
func (g *scaleGen) townshipPipelines(t *demoTownship, first, n int, ws []*demoWell, fs []*demoFacility, cells []int) {
	statuses := []string{"Operating", "Operating", "Operating", "Discontinued", "Abandoned", "Removed", "Permitted", "Not Constructed"}
	for j := range n {
		s := first + j
		rnd := g.rand(int('P'), s)
		var fromRow, fromCol int
		var toward *demoFacility
		kind := "gas"
		ba := t.Ops[rnd.Intn(3)]
		if len(ws) > 0 {
			d := ws[j%len(ws)]
			fromRow, fromCol = cellOf(d.u.Section, d.u.LSD)
			toward, kind, ba = d.battery, d.r.kind, d.licensee
		} else {
			c := cells[rnd.Intn(len(cells))]
			fromRow, fromCol = c/24, c%24
			if len(fs) > 0 {
				toward = fs[rnd.Intn(len(fs))]
			}
		}
		dr, dc := rnd.Intn(7)-3, rnd.Intn(7)-3
		if toward != nil {
			tr, tc := cellOf(toward.sec, toward.lsd)
			dr, dc = max(-3, min(3, tr-fromRow)), max(-3, min(3, tc-fromCol))
		}
		if dr == 0 && dc == 0 {
			dc = 1
		}
		toRow, toCol := nearestCell(cells, max(0, min(23, fromRow+dr)), max(0, min(23, fromCol+dc)), fromRow, fromCol)
		fs1, fl1 := cell(fromRow, fromCol)
		fs2, fl2 := cell(toRow, toCol)
		from, _ := energyingest.DLSLocation(fl1, fs1, t.Twp, t.Rge, t.Mer)
		to, _ := energyingest.DLSLocation(fl2, fs2, t.Twp, t.Rge, t.Mer)
		seg := demoSegment{from: from, to: to, fromFac: "Well", toFac: "Pipeline", h2s: "0", status: statuses[rnd.Intn(len(statuses))],
			ba: ba, od: "88.9", wall: "3.2", maop: "8450", material: "Steel", pipeType: "Z245.1",
			issued: demoDate(1960+rnd.Intn(66), time.Month(1+rnd.Intn(12)), 1+rnd.Intn(28)), multi: rnd.Intn(50) == 0}
		if seg.issued.After(demo.AsOf()) {
			seg.issued = demo.AsOf().AddDate(0, -3, 0)
		}
		switch kind {
		case "gas":
			seg.substances = [3]string{"Natural Gas"}
			if t.Sour {
				seg.substances, seg.h2s = [3]string{"Sour Natural Gas"}, num(roundTo(rnd.Between(5, 300), 1))
			}
		case "oil":
			seg.substances, seg.h2s, seg.od, seg.wall, seg.maop = [3]string{"Oil-Well Effluent", "Natural Gas"}, "0.5", "114.3", "4.0", "9930"
		default:
			seg.substances, seg.od, seg.wall, seg.maop, seg.material, seg.pipeType = [3]string{"Salt Water"}, "168.3", "6.4", "5000", "Composite", ""
		}
		g.pipelineN++
		p := newPipeline(g.pipelineN, t.FieldCentre, fmt.Sprint(10000+s/3), s%3+1, seg)
		g.pipelines.geo.Feature(p.geom, pipelineProps(p)...)
	}
}

// townshipDispositions writes n dispositions over the township's sections:
// 85 % over one to four consecutive sections, the rest over a quarter.
func (g *scaleGen) townshipDispositions(t *demoTownship, first, n int, cells []int) {
	tw := fmt.Sprintf("%d-%d-W%d", t.Twp, t.Rge, t.Mer)
	for j := range n {
		id := first + j
		rnd := g.rand(int('D'), int(t.Prov[0]), id)
		d := &demoDisposition{prov: t.Prov, status: "Active", kind: energyingest.KindPNG}
		c := cells[rnd.Intn(len(cells))]
		s, lsd := cell(c/24, c%24)
		if rnd.Intn(100) < 15 {
			d.lands = []string{fmt.Sprintf("%s-%d-%s", energyingest.QuarterOf(uint8(lsd)), s, tw)}
		} else {
			for k := range 1 + rnd.Intn(4) {
				d.lands = append(d.lands, fmt.Sprintf("%d-%s", min(36, s+k), tw))
			}
			d.lands = compactStrings(d.lands)
		}
		d.lands = slices.DeleteFunc(d.lands, func(land string) bool {
			l, err := lld.Parse(land)
			return err != nil || dls.Bound(l) == (orb.Bound{})
		})
		if len(d.lands) == 0 { // the first land holds cell c
			d.lands = []string{fmt.Sprintf("%d-%s", s, tw)}
		}
		d.issue = demoDate(2000+rnd.Intn(26), time.Month(1+rnd.Intn(12)), 1+rnd.Intn(28))
		if d.issue.After(demo.AsOf()) {
			d.issue = demo.AsOf().AddDate(0, -2, 0)
		}
		holder := op(t.Ops[rnd.Intn(3)]).Name
		mineral := rnd.Intn(100) < 20
		if mineral {
			d.kind, holder = energyingest.KindMineral, mineralHolders[rnd.Intn(len(mineralHolders))]
		}
		d.holder = holder
		term := 5 + rnd.Intn(6)
		d.expiry = d.issue.AddDate(term, 0, 0)
		for d.expiry.Before(demo.AsOf()) {
			d.expiry = d.expiry.AddDate(term, 0, 0) // renewed
		}
		yy := d.issue.Year() % 100
		switch t.Prov {
		case "AB":
			switch {
			case mineral:
				d.number, d.typ = fmt.Sprintf("93%02d%06d", yy, id), "Metallic and Industrial Minerals Permit"
			case rnd.Intn(10) < 6:
				d.number, d.typ = fmt.Sprintf("05%02d%06d", yy, id), "PNG Lease"
				if rnd.Intn(6) == 0 {
					d.status, d.continued, d.expiry = "Continued", true, time.Time{}
				}
			default:
				d.number, d.typ = fmt.Sprintf("05%02d%06d", yy, id), "PNG Licence"
			}
		case "SK":
			d.expiry = time.Time{} // the SK layer publishes no expiry
			if mineral {
				d.number, d.typ = fmt.Sprintf("KP%06d", id), "Subsurface Mineral Permit"
			} else {
				d.number, d.typ = fmt.Sprintf("PN%06d", id), "PNG Lease"
			}
		case "MB":
			if mineral {
				d.number, d.typ = fmt.Sprintf("MEL-%06d", id), "Mineral Exploration Licence"
			} else {
				d.number, d.typ = fmt.Sprintf("MB-%06d", id), "PNG Lease"
			}
		}
		if g.next && id%scaleNextTransferEvery == 0 {
			d.holder = op(t.Ops[0]).Name
			if d.holder == holder {
				d.holder = op(t.Ops[1]).Name
			}
		}
		dispositionRows(&g.dispCSV.buf, g.dispGeo.geo, d)
	}
}

// nextWells applies WriteScaleNext's differences to the wells of township
// k, whose first well is first: some abandoned, and in one township of
// scaleNextWellEvery a well licensed this month at the next UWI the
// township's layout gives (no production, no battery, no pipeline). It
// returns the wells to list; ws's draws, and so every other file, are
// untouched.
func (g *scaleGen) nextWells(t *demoTownship, k, first int, ws []*demoWell, cells []int) []*demoWell {
	for j, d := range ws {
		if (first+j)%scaleNextStatusEvery == 0 && !d.orphan && d.status != "Abandoned" {
			d.status, d.stat = "Abandoned", "0102000000"
		}
	}
	n, nc := len(ws), max(1, len(cells))
	if k%scaleNextWellEvery != 0 || n == 0 || n >= nc*len(scaleLayers) {
		return ws
	}
	shift := g.rand(int('L'), int(t.Prov[0]), t.index).Intn(nc) // townshipWells' layout
	layer := n / nc
	c := cells[(577*(n%nc)+shift+97*layer)%nc]
	sec, lsd := cell(c/24, c%24)
	d := &demoWell{t: t, role: 5, r: ws[0].r, licensee: t.Ops[0], prevLic: t.Ops[0],
		u: energyingest.DLSUWI{LE: scaleLayers[layer], LSD: lsd, Section: sec, Township: t.Twp, Range: t.Rge, Meridian: t.Mer}}
	d.r.sec, d.r.lsd, d.r.kind, d.r.hz, d.r.pooled, d.r.op = sec, lsd, "", false, false, 0
	d.status, d.stat = "Issued", "0000000000"
	d.issue = demoDate(2026, time.November, 12)
	d.statDate, d.prevDate = d.issue, d.issue
	licenceBase := map[string]int{"AB": 100000, "SK": 1000000, "MB": 1300000}[t.Prov]
	d.licence = fmt.Sprintf("%07d", 8_000_000+licenceBase+first)
	d.name = wellName(d)
	return append(ws[:n:n], d)
}

// nearestCell returns the cell of cells nearest to row, col other than
// the one at fromRow, fromCol (that one when it is the only cell).
func nearestCell(cells []int, row, col, fromRow, fromCol int) (int, int) {
	best, bestD := fromRow*24+fromCol, math.MaxInt
	for _, c := range cells {
		r, k := c/24, c%24
		if r == fromRow && k == fromCol {
			continue
		}
		if d := abs(r-row) + abs(k-col); d < bestD {
			best, bestD = c, d
			if d == 0 {
				break
			}
		}
	}
	return best / 24, best % 24
}

func abs(v int) int { return max(v, -v) }

func compactStrings(ss []string) []string {
	out := ss[:0]
	for i, s := range ss {
		if i == 0 || s != ss[i-1] {
			out = append(out, s)
		}
	}
	return out
}
