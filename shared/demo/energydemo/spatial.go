package energydemo

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/paulmach/orb"
	"github.com/paulmach/orb/geo"

	"meridian/shared/demo"
	"meridian/shared/energy/energyingest"
	"meridian/shared/ingest/shp"
	"meridian/shared/lld"
	"meridian/shared/survey/dls"
)

// pipelineAttributes are the 50 attribute names of the AER pipelines
// product in the published order (the conversion panics at start-up if
// energyingest's list ever has another length).
var pipelineAttributes = [50]string(energyingest.PipelineAttributes())

// demoPipeline is one demo pipeline segment: its 50 attributes as text in
// pipelineAttributes order ("" for null) and its line.
type demoPipeline struct {
	attrs [len(pipelineAttributes)]string
	geom  orb.Geometry
}

func (p *demoPipeline) get(name string) string {
	for i, a := range pipelineAttributes {
		if a == name {
			return p.attrs[i]
		}
	}
	panic("energydemo: no pipeline attribute " + name)
}

func (p *demoPipeline) set(name, v string) {
	for i, a := range pipelineAttributes {
		if a == name {
			p.attrs[i] = v
			return
		}
	}
	panic("energydemo: no pipeline attribute " + name)
}

// center is the model centre of a DLS location, rounded to 1e-7 degrees.
func center(l lld.Location) orb.Point {
	c := dls.Bound(l).Center()
	return orb.Point{roundTo(c[0], 7), roundTo(c[1], 7)}
}

func roundTo(v float64, digits int) float64 {
	f, _ := strconv.ParseFloat(strconv.FormatFloat(v, 'f', digits, 64), 64)
	return f
}

// route draws a line along the survey grid: east-west then north-south.
func route(from, to lld.Location) orb.LineString {
	a, b := center(from), center(to)
	ls := orb.LineString{a}
	if corner := (orb.Point{b[0], a[1]}); corner != a && corner != b {
		ls = append(ls, corner)
	}
	if b != a {
		ls = append(ls, b)
	} else {
		ls = append(ls, orb.Point{b[0] + 0.001, b[1]})
	}
	return ls
}

type demoSegment struct {
	from, to           lld.Location
	fromFac, toFac     string
	substances         [3]string
	h2s                string
	status             string
	ba                 string
	od, wall, maop     string
	material, pipeType string
	issued             time.Time
	multi              bool // drawn as a MultiLineString in two parts
}

// addPipelines lays five segments in each Alberta township (sweet or sour
// gas from wells, oil-well effluent, salt water, a discontinued line of the
// orphan well) and two trunk lines across townships.
func (w *demoWorld) addPipelines() {
	statuses := []string{"Operating", "Discontinued", "Abandoned", "Removed", "Permitted", "Not Constructed", "Operating", "Discontinued"}
	licence := 40000
	for _, t := range w.townships {
		if t.Prov != "AB" {
			continue
		}
		licence += 137
		rnd := newDemoRand(int('P'), t.index)
		wellByRole := map[int]*demoWell{}
		for _, d := range w.wells {
			if d.t == t {
				wellByRole[d.role] = d
			}
		}
		gasBT := wellByRole[3].battery
		oilBT := w.oilBattery(t)
		issued := demoDate(2005+t.index*2, time.Month(1+rnd.Intn(12)), 1+rnd.Intn(28))
		sour := func(lo, hi float64) string { return num(roundTo(rnd.Between(lo, hi), 1)) }
		gas1 := demoSegment{from: wellByRole[0].loc(), to: wellByRole[0].battery.loc(), fromFac: "Well", toFac: "Battery",
			substances: [3]string{"Natural Gas"}, h2s: "0", status: "Operating", ba: t.Ops[0], od: "88.9", wall: "3.2", maop: "8450",
			material: "Steel", pipeType: "Z245.1", issued: issued}
		gas2 := demoSegment{from: wellByRole[3].loc(), to: gasBT.loc(), fromFac: "Well", toFac: "Battery",
			substances: [3]string{"Natural Gas"}, h2s: "0.1", status: "Operating", ba: t.Ops[0], od: "114.3", wall: "4.8", maop: "9930",
			material: "Steel", pipeType: "Z245.1", issued: issued.AddDate(1, 2, 0)}
		if t.Sour {
			gas2.substances, gas2.h2s = [3]string{"Sour Natural Gas", "Condensate"}, sour(20, 300)
			gas1.substances, gas1.h2s = [3]string{"Sour Natural Gas"}, sour(5, 60)
		}
		oil := demoSegment{from: wellByRole[1].loc(), to: oilBT.loc(), fromFac: "Well", toFac: "Battery",
			substances: [3]string{"Oil-Well Effluent", "Natural Gas"}, h2s: "0.5", status: "Operating", ba: t.Ops[1], od: "114.3",
			wall: "4.0", maop: "9930", material: "Steel", pipeType: "Z245.1", issued: issued.AddDate(3, 0, 0)}
		water := demoSegment{from: oilBT.loc(), to: wellByRole[13].loc(), fromFac: "Battery", toFac: "Well",
			substances: [3]string{"Salt Water"}, status: statuses[t.index], ba: t.Ops[1], od: "168.3", wall: "6.4", maop: "5000",
			material: "Composite", issued: issued.AddDate(0, 6, 0)}
		orphan := demoSegment{from: wellByRole[14].loc(), to: gasBT.loc(), fromFac: "Well", toFac: "Battery",
			substances: [3]string{"Natural Gas"}, h2s: "0", status: "Discontinued", ba: t.defunct, od: "60.3", wall: "3.2", maop: "6620",
			material: "Steel", pipeType: "Z245.1", issued: demoDate(2002, time.May, 14)}
		for line, s := range []demoSegment{gas1, gas2, oil, water, orphan} {
			w.addPipeline(t, fmt.Sprint(licence), line+1, s)
		}
	}
	// Trunk lines: Northwind (demo) gas between the two Turner Valley townships (two
	// parts), and a Mossback (demo) condensate and crude line from Kaybob South to
	// Two Creek.
	ab := func(i int) *demoTownship { return w.township("AB", i) }
	w.addPipeline(ab(0), "41999", 1, demoSegment{from: w.facility(ab(0), "GS").loc(), to: w.facility(ab(1), "GS").loc(),
		fromFac: "Pipeline", toFac: "Pipeline", substances: [3]string{"Natural Gas"}, h2s: "0", status: "Operating", ba: "Z9B3",
		od: "323.9", wall: "7.1", maop: "6160", material: "Steel", pipeType: "Z245.1", issued: demoDate(1998, time.July, 2), multi: true})
	w.addPipeline(ab(5), "42001", 1, demoSegment{from: w.facility(ab(5), "IF").loc(), to: w.facility(ab(7), "GS").loc(),
		fromFac: "Pipeline", toFac: "Pipeline", substances: [3]string{"Condensate", "Crude Oil"}, h2s: "1", status: "Operating", ba: "Z9B2",
		od: "114.3", wall: "4", maop: "9930", material: "Steel", pipeType: "Z245.1", issued: demoDate(2019, time.December, 19)})
}

func (w *demoWorld) addPipeline(t *demoTownship, licence string, line int, s demoSegment) {
	w.pipelines = append(w.pipelines, newPipeline(len(w.pipelines)+1, t.FieldCentre, licence, line, s))
}

// newPipeline builds the n-th segment (OBJECTID n) of a licence's line.
func newPipeline(n int, fieldCentre, licence string, line int, s demoSegment) *demoPipeline {
	p := &demoPipeline{}
	ls := route(s.from, s.to)
	p.geom = ls
	if s.multi {
		if len(ls) == 2 {
			ls = orb.LineString{ls[0], orb.Point{roundTo((ls[0][0]+ls[1][0])/2, 7), roundTo((ls[0][1]+ls[1][1])/2, 7)}, ls[1]}
		}
		p.geom = orb.MultiLineString{ls[:2], ls[1:]}
	}
	metres := geo.Length(p.geom)
	o := op(s.ba)
	slash := func(t time.Time) string { return t.Format("2006/01/02") }
	lsdText := func(l lld.Location) string {
		return fmt.Sprintf("%02d-%02d-%03d-%02dW%d", l.LSD, l.Section, l.Township, l.Range, l.Meridian.Number())
	}
	p.set("OBJECTID", fmt.Sprint(n))
	p.set("LICENCE_NO", licence)
	p.set("IS_NEB", "N")
	p.set("LINE_NO", fmt.Sprint(line))
	p.set("LIC_LI_NO", fmt.Sprintf("%s-%d", licence, line))
	p.set("PLLICSEGID", fmt.Sprint(900000+n*7))
	p.set("COMP_NAME", o.Name)
	p.set("BA_CODE", o.BA)
	p.set("PL_SPEC_ID", "1")
	p.set("SEG_LENGTH", strconv.FormatFloat(metres/1000, 'f', 2, 64))
	p.set("SEG_STATUS", s.status)
	p.set("FROM_FAC", s.fromFac)
	p.set("FROM_LOC", lsdText(s.from))
	p.set("TO_FAC", s.toFac)
	p.set("TO_LOC", lsdText(s.to))
	p.set("H2S_CONT", s.h2s)
	if h, err := strconv.ParseFloat(s.h2s, 64); err == nil && h >= 10 {
		p.set("H2S_R_VOLM", strconv.FormatFloat(h*0.0021, 'f', 3, 64)) // a release volume that grows with H2S
	}
	p.set("OUT_DIAMET", s.od)
	p.set("WALL_THICK", s.wall)
	p.set("PIPE_TYPE", s.pipeType)
	if s.material == "Steel" {
		p.set("PIPE_GRADE", "3592")
		p.set("EXT_COAT", []string{"POLYE", "YJ"}[n%2])
		p.set("INT_COAT", "Uncoated")
		p.set("JOINTMETHD", "Welded")
		p.set("STRESSLEVL", []string{"40", "20", "30"}[n%3])
	} else {
		p.set("JOINTMETHD", "Threaded")
	}
	p.set("PIP_MATERL", s.material)
	p.set("PIPE_MAOP", s.maop)
	p.set("BIDIRE_IND", "N")
	p.set("HDD_IND", []string{"N", "Y"}[n%4/3])
	if n%5 == 0 {
		p.set("PIPE_ENVIR", "Creek Crossing")
	}
	p.set("CLASS_LOC", []string{"Class 1", "Class 2"}[n%3/2])
	p.set("FLD_CTR_NM", fieldCentre)
	for i, sub := range s.substances {
		p.set(fmt.Sprintf("SUBSTANCE%d", i+1), sub)
	}
	p.set("ORIG_LICNO", licence)
	p.set("ORIGPSPPID", "1")
	p.set("ORIGLIN_NO", fmt.Sprint(line))
	p.set("LICAPPDATE", slash(s.issued.AddDate(0, 0, -40)))
	p.set("ORG_ISSUED", slash(s.issued))
	p.set("PERMT_APPR", slash(s.issued))
	p.set("PERMT_EXPI", slash(s.issued.AddDate(1, 0, 0)))
	if s.status != "Permitted" && s.status != "Not Constructed" {
		p.set("LAST_OCCYR", fmt.Sprint(s.issued.Year()))
	}
	p.set("GEOM_SRCE", "ROW centre line")
	p.set("SHAPE_LEN", strconv.FormatFloat(metres, 'f', 4, 64))
	return p
}

// pipelinesGeoJSON renders the segments as the team's sample is written:
// a FeatureCollection with the NAD83 crs, OBJECTID a number, every other
// attribute a string or null.
func (w *demoWorld) pipelinesGeoJSON() ([]byte, error) {
	var b bytes.Buffer
	c := demo.NewFeatureCollection(&b, "Pipelines_GCS_NAD83", 4269)
	for _, p := range w.pipelines {
		c.Feature(p.geom, pipelineProps(p)...)
	}
	err := c.End()
	return b.Bytes(), err
}

// pipelineProps are a segment's attributes in the layout's order.
func pipelineProps(p *demoPipeline) []demo.Prop {
	props := make([]demo.Prop, len(pipelineAttributes))
	for j, a := range pipelineAttributes {
		var v any
		switch s := p.attrs[j]; {
		case s == "":
		case a == "OBJECTID":
			v = json.Number(s)
		default:
			v = s
		}
		props[j] = demo.Prop{Key: a, Value: v}
	}
	return props
}

// nad83PRJ is the ESRI WKT of geographic NAD83 (EPSG:4269).
const nad83PRJ = `GEOGCS["GCS_North_American_1983",DATUM["D_North_American_1983",SPHEROID["GRS_1980",6378137.0,298.257222101]],PRIMEM["Greenwich",0.0],UNIT["Degree",0.0174532925199433]]`

// pipelinesShapefile renders the segments as the product's shapefile:
// every attribute a text field except OBJECTID, dates YYYY/MM/DD.
func (w *demoWorld) pipelinesShapefile() ([]File, error) {
	fields := make([]shp.Field, len(pipelineAttributes))
	for i, a := range pipelineAttributes {
		width := 1
		for _, p := range w.pipelines {
			width = max(width, len(p.attrs[i]))
		}
		fields[i] = shp.Field{Name: a, Type: shp.Character, Length: width}
		if a == "OBJECTID" {
			fields[i] = shp.Field{Name: a, Type: shp.Numeric, Length: 10}
		}
	}
	const base = "Pipelines_GCS_NAD83"
	set := shp.Files{}
	wr, err := shp.NewSetWriter(set, base, shp.PolyLine, fields, shp.SetOptions{
		WriterOptions: shp.WriterOptions{Encoding: shp.UTF8}, PRJ: nad83PRJ, CPG: true})
	if err != nil {
		return nil, err
	}
	for _, p := range w.pipelines {
		if err := wr.Write(p.geom, p.attrs[:]); err != nil {
			wr.Abort()
			return nil, err
		}
	}
	if err := wr.Close(); err != nil {
		return nil, err
	}
	var out []File
	for _, ext := range []string{".shp", ".shx", ".dbf", ".prj", ".cpg"} {
		out = append(out, File{base + ext, set[base+ext]})
	}
	return out, nil
}

// demoDisposition is one demo Crown disposition.
type demoDisposition struct {
	number, kind, typ, holder, status string
	issue, expiry                     time.Time
	continued                         bool
	prov                              string
	lands                             []string // canonical LLDs
}

func (d *demoDisposition) locations() []lld.Location {
	out := make([]lld.Location, len(d.lands))
	for i, s := range d.lands {
		l, err := lld.Parse(s)
		if err != nil {
			panic("energydemo: " + err.Error())
		}
		out[i] = l
	}
	return out
}

func (d *demoDisposition) geometry() orb.Geometry {
	var mp orb.MultiPolygon
	for _, l := range d.locations() {
		bd := dls.Bound(l)
		ring := orb.Ring{}
		for _, p := range bd.ToRing() {
			ring = append(ring, orb.Point{roundTo(p[0], 7), roundTo(p[1], 7)})
		}
		mp = append(mp, orb.Polygon{ring})
	}
	if len(mp) == 1 {
		return mp[0]
	}
	return mp
}

func (d *demoDisposition) areaHa() float64 {
	a := 0.0
	switch g := d.geometry().(type) {
	case orb.Polygon:
		a = math.Abs(geo.Area(g))
	case orb.MultiPolygon:
		for _, p := range g {
			a += math.Abs(geo.Area(p))
		}
	}
	return math.Round(a/100) / 100
}

var mineralHolders = []string{"Whisperwood Lithium Corp. (demo)", "Sweetgrass Potash Ltd. (demo)", "Cobblestone Flats Aggregates Inc. (demo)"}

// addDispositions gives every Alberta township four dispositions (a
// continued PNG lease, a PNG licence, an overlapping PNG lease of another
// holder and a metallic and industrial minerals permit), Saskatchewan
// townships a PNG lease and a subsurface mineral permit without expiry
// dates, Manitoba townships a PNG lease and a mineral exploration licence.
func (w *demoWorld) addDispositions() {
	for _, t := range w.townships {
		rnd := newDemoRand(int('D'), int(t.Prov[0]), t.index)
		tw := fmt.Sprintf("%d-%d-W%d", t.Twp, t.Rge, t.Mer)
		sec := func(s int) string { return fmt.Sprintf("%d-%s", s, tw) }
		q := func(quarter string, s int) string { return fmt.Sprintf("%s-%d-%s", quarter, s, tw) }
		day := func(y int) time.Time { return demoDate(y, time.Month(1+rnd.Intn(12)), 1+rnd.Intn(28)) }
		add := func(d *demoDisposition) {
			d.prov = t.Prov
			w.dispositions = append(w.dispositions, d)
		}
		name := func(ba string) string { return op(ba).Name }
		switch t.Prov {
		case "AB":
			i := t.index
			lease := day(2012 + i%3)
			add(&demoDisposition{number: fmt.Sprintf("05%s%04d", lease.Format("0601"), 10+i), kind: energyingest.KindPNG, typ: "PNG Lease",
				holder: name(t.Ops[0]), status: "Continued", issue: lease, continued: true, lands: []string{sec(10), sec(15)}})
			// PNG licences of the even townships expire in 2027, within
			// 24 months of demo.AsOf; the others in 2031.
			licIssue := day(2022)
			expiry := demoDate(2027, time.Month(1+i), 15)
			if i%2 == 1 {
				expiry = licIssue.AddDate(9, 0, 0)
			}
			add(&demoDisposition{number: fmt.Sprintf("05%s%04d", licIssue.Format("0601"), 20+i), kind: energyingest.KindPNG, typ: "PNG Licence",
				holder: name(t.Ops[1]), status: "Active", issue: licIssue, expiry: expiry,
				lands: []string{q("NE", 3), q("NW", 3), q("SE", 14), q("SW", 14)}})
			// A lease of another holder over part of the continued one
			// (deeper rights); 48-7-W5's expires in March 2028.
			l2 := day(2019)
			expiry = demoDate(2029+i%3, l2.Month(), l2.Day())
			if i == 3 {
				expiry = demoDate(2028, time.March, 31)
			}
			add(&demoDisposition{number: fmt.Sprintf("05%s%04d", l2.Format("0601"), 30+i), kind: energyingest.KindPNG, typ: "PNG Lease",
				holder: name(t.Ops[2]), status: "Active", issue: l2, expiry: expiry, lands: []string{sec(10), q("NE", 11)}})
			// Mineral permits: 25-1-W5's expires in January 2027.
			m := day(2023)
			expiry = demoDate(2030, m.Month(), m.Day())
			if i == 1 {
				expiry = demoDate(2027, time.January, 15)
			}
			add(&demoDisposition{number: fmt.Sprintf("93%s%04d", m.Format("0601"), 40+i), kind: energyingest.KindMineral,
				typ: "Metallic and Industrial Minerals Permit", holder: mineralHolders[i%3], status: "Active", issue: m,
				expiry: expiry, lands: []string{tw}})
		case "SK":
			add(&demoDisposition{number: fmt.Sprintf("PN%05d", 310+t.index), kind: energyingest.KindPNG, typ: "PNG Lease",
				holder: name(t.Ops[0]), status: "Active", issue: day(2015), lands: []string{sec(3), sec(10), q("SE", 15)}})
			add(&demoDisposition{number: fmt.Sprintf("KP%03d", 400+t.index), kind: energyingest.KindMineral, typ: "Subsurface Mineral Permit",
				holder: mineralHolders[1], status: "Active", issue: day(2021), lands: []string{tw}})
		case "MB":
			// PNG leases of 5-6-W1 and 14-26-W1 expire in 2027, the
			// exploration licence of 10-9-W1 in 2027 too; the rest later.
			issue := day(2020)
			expiry := demoDate(2027, time.Month(3+t.index), 1)
			if t.index%2 == 1 {
				expiry = issue.AddDate(10, 0, 0)
			}
			add(&demoDisposition{number: fmt.Sprintf("MB-%04d", 700+t.index), kind: energyingest.KindPNG, typ: "PNG Lease",
				holder: name(t.Ops[0]), status: "Active", issue: issue, expiry: expiry,
				lands: []string{sec(3), q("NW", 10), q("NE", 10)}})
			mi := day(2024)
			expiry = mi.AddDate(5, 0, 0)
			if t.index == 1 {
				expiry = demoDate(2027, time.August, 31)
			}
			add(&demoDisposition{number: fmt.Sprintf("MEL-%04d", 800+t.index), kind: energyingest.KindMineral, typ: "Mineral Exploration Licence",
				holder: mineralHolders[t.index%3], status: "Active", issue: mi, expiry: expiry, lands: []string{sec(21), sec(22)}})
		}
	}
}

// dispositionFiles renders a province's dispositions as CSV and GeoJSON in
// the layout of DispositionColumns.
func (w *demoWorld) dispositionFiles(prov string) (csvData, geoData []byte, err error) {
	var c, g bytes.Buffer
	c.WriteString(strings.Join(energyingest.DispositionColumns(), ",") + "\r\n")
	fc := demo.NewFeatureCollection(&g, "", 4269)
	for _, d := range w.dispositions {
		if d.prov == prov {
			dispositionRows(&c, fc, d)
		}
	}
	err = fc.End()
	return c.Bytes(), g.Bytes(), err
}

// dispositionRows writes a disposition's CSV row to c and its feature to
// g: AreaHa a number, every other column a string.
func dispositionRows(c *bytes.Buffer, g *demo.FeatureCollection, d *demoDisposition) {
	cont := "N"
	if d.continued {
		cont = "Y"
	}
	vals := []string{d.number, d.kind, d.typ, d.holder, d.status, isoDate(d.issue), isoDate(d.expiry), cont,
		strconv.FormatFloat(d.areaHa(), 'f', 2, 64), d.prov, strings.Join(d.lands, ";")}
	for i, v := range vals {
		if i > 0 {
			c.WriteByte(',')
		}
		if strings.ContainsAny(v, ",\"") {
			v = `"` + strings.ReplaceAll(v, `"`, `""`) + `"`
		}
		c.WriteString(v)
	}
	c.WriteString("\r\n")
	props := make([]demo.Prop, len(vals))
	for i, name := range energyingest.DispositionColumns() {
		props[i] = demo.Prop{Key: name, Value: vals[i]}
		if name == "AreaHa" {
			props[i].Value = json.Number(vals[i])
		}
	}
	g.Feature(d.geometry(), props...)
}
