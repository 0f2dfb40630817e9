package energydemo

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/paulmach/orb"

	"meridian/shared/demo"
	"meridian/shared/energy/energyingest"
	"meridian/shared/lld"
	"meridian/shared/scale"
	"meridian/shared/survey"
	"meridian/shared/survey/dls"
)

// WriteScale writes into dir (created if needed) invented energy data at
// Alberta's published sizes times o.Fraction, in the layouts Generate
// writes and Ingest reads: at fraction 1 about
//
//	AB  600,000 wells (ST37 of this month and last month, Petrinex Well
//	    Infrastructure), 125,000 facilities, 323,000 pipeline segments,
//	    12 months of Petrinex volumetrics (about a million rows a month),
//	    NGL volumes of the producing gas wells, 40,000 Crown dispositions
//	    over about 1.17 million distinct LSDs
//	SK  18,000 wells, 3,750 facilities, 1,200 dispositions (3 % of AB)
//	MB  6,000 wells, 1,250 facilities, 400 dispositions (1 %)
//
// plus the BA codes of 1,188 invented operators and 36 defunct licensees,
// and the Orphan Well Association inventory of the orphan wells (a few
// thousand rows: the one file that is built in memory, as the real one is
// that size). The pipelines are written as GeoJSON only (the ingest reads
// the GeoJSON where both are present; a shapefile at this size would only
// double the disk). The volumetrics cover 2025-11 to 2026-10, the 12
// months the reports use.
//
// Wells are spread over every township of the province that the DLS model
// places in it (meridians W4-W6 for Alberta), weighted towards invented
// fields; facilities, pipelines follow the wells, dispositions are spread
// evenly. The output is a function of o.Seed and o.Fraction alone.
//
// It streams: one township's entities at a time (at most
// scaleMaxTownshipWells wells), one buffered writer per open file
// (scaleFileBuffer bytes, at most 22 files open). Memory is bounded by
// about 8 MB whatever the fraction, plus the orphan inventory (at most
// scaleMaxOrphanRows rows). It checks ctx between townships.
func WriteScale(ctx context.Context, dir string, o scale.Options) (scale.Report, error) {
	if err := o.Check(); err != nil {
		return scale.Report{}, err
	}
	return writeScale(ctx, dir, o, nil)
}

// writeScale is WriteScale calling township, when not nil, after each
// township is written (the heap test measures there).
func writeScale(ctx context.Context, dir string, o scale.Options, township func()) (scale.Report, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return scale.Report{}, fmt.Errorf("energy: scale: %w", err)
	}
	g := &scaleGen{dir: dir, o: o, seed: o.Seed, afterTownship: township}
	err := g.run(ctx)
	if cerr := g.closeAll(); err == nil {
		err = cerr
	}
	if err != nil {
		return scale.Report{}, err
	}
	sort.Slice(g.report.Files, func(i, j int) bool { return g.report.Files[i].Name < g.report.Files[j].Name })
	return g.report, nil
}

// scaleProvince is what WriteScale writes for one province at fraction 1.
type scaleProvince struct {
	code                                       string
	prov                                       survey.Province
	meridians                                  []lld.Meridian
	wells, facilities, pipelines, dispositions int
	fields                                     int // invented fields the wells cluster in
}

var scaleProvinces = []scaleProvince{
	{"AB", survey.AB, []lld.Meridian{lld.W4, lld.W5, lld.W6}, 600_000, 125_000, 323_000, 40_000, 60},
	{"SK", survey.SK, []lld.Meridian{lld.W1, lld.W2, lld.W3}, 18_000, 3_750, 0, 1_200, 20},
	{"MB", survey.MB, []lld.Meridian{lld.W1}, 6_000, 1_250, 0, 400, 6},
}

const (
	// scaleMonths are the volumetrics months: demo months 2..13, 2025-11
	// to 2026-10.
	scaleFirstMonth = 2
	scaleMonths     = 12
	// scaleLayers are the location exceptions a township's wells take,
	// 576 LSDs each: a township holds at most scaleMaxTownshipWells
	// distinct UWIs.
	scaleMaxTownshipWells = 576 * len(scaleLayers)
	scaleMaxOrphanRows    = 6000
	scaleFileBuffer       = 256 << 10
)

var scaleLayers = [...]string{"00", "02", "03", "04", "05", "06", "07", "08", "09", "AA"}

// Role weights per thousand, in the order of abRoles, skRoles, mbRoles:
// about a quarter of the wells produce (AB: 156,000 of 600,000), a third
// are abandoned or reclaimed, 0.6 % are orphans.
var (
	abRoleWeights = []int{90, 80, 10, 20, 30, 20, 80, 80, 40, 150, 140, 180, 44, 30, 6}
	skRoleWeights = []int{180, 150, 80, 40, 30, 150, 150, 120, 30, 70}
	mbRoleWeights = []int{200, 170, 90, 50, 40, 170, 170, 110}
)

// scaleTownship is a township of a province and its share of the wells.
type scaleTownship struct {
	twp, rge int
	mer      lld.Meridian
	field    int // nearest field centre
}

// scaleCells are the LSD cells (row*24 + col, see cell) of a township that
// exist in the DLS model and lie in its province: all 576 but in the
// fractional ranges at a meridian and along a provincial boundary.
func scaleCells(t *demoTownship, prov survey.Province) []int {
	ok := func(c int) bool {
		sec, lsd := cell(c/24, c%24)
		l, _ := energyingest.DLSLocation(lsd, sec, t.Twp, t.Rge, t.Mer)
		if dls.Bound(l) == (orb.Bound{}) {
			return false
		}
		p, in := dls.Province(l)
		return in && p == prov
	}
	all := make([]int, 0, 576)
	if ok(0) && ok(23) && ok(23*24) && ok(575) && ok(12*24+12) {
		for c := range 576 {
			all = append(all, c)
		}
		return all
	}
	for c := range 576 {
		if ok(c) {
			all = append(all, c)
		}
	}
	if len(all) == 0 { // the province holds the township by its centre: not expected
		for c := range 576 {
			all = append(all, c)
		}
	}
	return all
}

// scaleFile is one output file: rows are rendered into buf, one township
// at a time, then copied to the buffered file.
type scaleFile struct {
	name   string
	f      *os.File
	w      *bufio.Writer
	buf    bytes.Buffer
	header int64 // lines before the first row
	lines  int64 // of a CSV or text file
	bytes  int64
	geo    *demo.FeatureCollection // of a GeoJSON file, writing into buf
}

type scaleGen struct {
	dir    string
	o      scale.Options
	seed   uint64
	open   []*scaleFile
	report scale.Report

	orphans       []demoOrphanRow
	pipelineN     int // OBJECTIDs given
	afterTownship func()

	ngl        *scaleFile
	pipelines  *scaleFile
	wellLists  [2]*scaleFile // last month, this month
	wellInfra  *scaleFile
	facilities *scaleFile
	vols       [scaleMonths]*scaleFile
	dispCSV    *scaleFile
	dispGeo    *scaleFile
}

// rand returns the generator of one entity: a function of the seed and the
// entity's coordinates only.
func (g *scaleGen) rand(parts ...int) *demo.Rand {
	r := demo.NewRand(g.seed ^ 0x5ca1e5ca1e)
	r.Next()
	for _, v := range parts {
		r.Fold(uint64(v + 1))
	}
	return r
}

func (g *scaleGen) create(name string) (*scaleFile, error) {
	f, err := os.Create(filepath.Join(g.dir, name))
	if err != nil {
		return nil, fmt.Errorf("energy: scale: %w", err)
	}
	sf := &scaleFile{name: name, f: f, w: bufio.NewWriterSize(f, scaleFileBuffer)}
	g.open = append(g.open, sf)
	return sf, nil
}

// csvFile creates a file whose first line is the quoted header.
func (g *scaleGen) csvFile(name string, columns []string) (*scaleFile, error) {
	sf, err := g.create(name)
	if err != nil {
		return nil, err
	}
	csvQuoted(&sf.buf, columns...)
	sf.header = 1
	return sf, nil
}

// geoFile creates a GeoJSON file in NAD83, as the team's samples are
// written, with the collection's name when not empty.
func (g *scaleGen) geoFile(name, collection string) (*scaleFile, error) {
	sf, err := g.create(name)
	if err != nil {
		return nil, err
	}
	sf.geo = demo.NewFeatureCollection(&sf.buf, collection, 4269)
	return sf, nil
}

// flush copies what was rendered to the file.
func (sf *scaleFile) flush() error {
	if sf.buf.Len() == 0 {
		return nil
	}
	if sf.geo == nil {
		sf.lines += int64(bytes.Count(sf.buf.Bytes(), []byte{'\n'}))
	}
	sf.bytes += int64(sf.buf.Len())
	_, err := sf.w.Write(sf.buf.Bytes())
	sf.buf.Reset()
	if err != nil {
		return fmt.Errorf("energy: scale: write %s: %w", sf.name, err)
	}
	return nil
}

func (g *scaleGen) flushAll() error {
	for _, sf := range g.open {
		if err := sf.flush(); err != nil {
			return err
		}
	}
	return nil
}

// finish ends a file and records it in the report.
func (g *scaleGen) finish(sf *scaleFile) error {
	if sf == nil || sf.f == nil {
		return nil
	}
	var err error
	if sf.geo != nil {
		err = sf.geo.End()
	}
	if ferr := sf.flush(); err == nil {
		err = ferr
	}
	if err == nil {
		err = sf.w.Flush()
	}
	if cerr := sf.f.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("energy: scale: close %s: %w", sf.name, cerr)
	}
	sf.f = nil
	rows := sf.lines - sf.header
	if sf.geo != nil {
		rows = int64(sf.geo.Len())
	}
	g.report.Files = append(g.report.Files, scale.File{Name: sf.name, Rows: rows, Bytes: sf.bytes})
	return err
}

// closeAll finishes the files still open (all of them after an error).
func (g *scaleGen) closeAll() error {
	var first error
	for _, sf := range g.open {
		if err := g.finish(sf); err != nil && first == nil {
			first = err
		}
	}
	g.open = nil
	return first
}

func (g *scaleGen) writeFile(name string, data []byte, rows int64) error {
	if err := os.WriteFile(filepath.Join(g.dir, name), data, 0o644); err != nil {
		return fmt.Errorf("energy: scale: %w", err)
	}
	g.report.Files = append(g.report.Files, scale.File{Name: name, Rows: rows, Bytes: int64(len(data))})
	return nil
}

func (g *scaleGen) run(ctx context.Context) error {
	var err error
	if g.wellLists[0], err = g.create("WellList_2026-10.txt"); err != nil {
		return err
	}
	if g.wellLists[1], err = g.create("WellList_2026-11.txt"); err != nil {
		return err
	}
	if g.ngl, err = g.csvFile("NGL_AB_marketable_gas_volumes.csv", energyingest.NGLColumns()); err != nil {
		return err
	}
	if g.pipelines, err = g.geoFile("Pipelines_GCS_NAD83.geojson", "Pipelines_GCS_NAD83"); err != nil {
		return err
	}
	for _, p := range scaleProvinces {
		if err := g.province(ctx, p); err != nil {
			return err
		}
	}
	for _, sf := range []*scaleFile{g.wellLists[0], g.wellLists[1], g.ngl, g.pipelines} {
		if err := g.finish(sf); err != nil {
			return err
		}
	}
	if err := g.baCodes(); err != nil {
		return err
	}
	xlsx, err := g.orphanInventory()
	if err != nil {
		return err
	}
	if err := g.writeFile(demoOWAFile, xlsx, int64(len(g.orphans))); err != nil {
		return err
	}
	g.open = nil
	return g.writeFile("README.md", g.readme(), 0)
}

// townships lists the province's townships in ST37 key order (township,
// meridian, range) with the field each belongs to and its weight for
// wells, facilities and pipelines.
func (g *scaleGen) townships(p scaleProvince) ([]scaleTownship, []float64) {
	type centre struct{ lng, lat, w float64 }
	var all []scaleTownship
	var centres []orb2
	for t := 1; t <= 126; t++ {
		for _, m := range p.meridians {
			for r := 1; r <= 34; r++ {
				l := lld.Location{System: lld.DLS, Unit: lld.Township, Meridian: m, Range: uint8(r), Township: uint8(t)}
				if pr, ok := dls.Province(l); ok && pr == p.prov {
					all = append(all, scaleTownship{twp: t, rge: r, mer: m})
					centres = append(centres, orb2(dls.Bound(l).Center()))
				}
			}
		}
	}
	// Field centres: townships drawn from the seed; a township's weight
	// falls with its distance to the nearest ones (about 40 km).
	rnd := g.rand(int('F'), int(p.prov))
	fields := make([]centre, p.fields)
	for i := range fields {
		c := centres[rnd.Intn(len(centres))]
		fields[i] = centre{c[0], c[1], rnd.Between(2, 10)}
	}
	weights := make([]float64, len(all))
	sum := 0.0
	for i, c := range centres {
		w, best := 0.3, math.Inf(1)
		for j, f := range fields {
			dx, dy := (c[0]-f.lng)*111*math.Cos(c[1]*math.Pi/180), (c[1]-f.lat)*111
			d2 := dx*dx + dy*dy
			w += f.w * math.Exp(-d2/(40*40))
			if d2 < best {
				best, all[i].field = d2, j
			}
		}
		weights[i] = w
		sum += w
	}
	mean := sum / float64(len(weights))
	for i := range weights {
		weights[i] = math.Min(weights[i], 20*mean)
		// A township the province holds only part of (along the AB–BC
		// divide) has room for wells on that part only: its UWIs are its
		// LSDs in the province times the layers.
		tw := all[i]
		cells := scaleCells(&demoTownship{Twp: tw.twp, Rge: tw.rge, Mer: int(tw.mer - lld.W1 + 1)}, p.prov)
		weights[i] *= float64(len(cells)) / 576
	}
	// At a small fraction the wells and facilities keep the density they
	// have at full size (a few facilities per township) on every n-th
	// township, so that wells still find a battery in theirs.
	keep := min(len(all), max(1, g.o.N(p.facilities)/4))
	used := make([]bool, len(all))
	for i := range keep {
		used[i*len(all)/keep] = true
	}
	for i := range weights {
		if !used[i] {
			weights[i] = 0
		}
	}
	return all, weights
}

type orb2 [2]float64

// cumulative returns the first index of each township when n items are
// spread by weights (len(weights)+1 entries, the last n).
func cumulative(n int, weights []float64) []int32 {
	total := 0.0
	for _, w := range weights {
		total += w
	}
	out := make([]int32, len(weights)+1)
	acc := 0.0
	for i, w := range weights {
		out[i] = int32(math.Round(float64(n) * acc / total))
		acc += w
	}
	out[len(weights)] = int32(n)
	return out
}

// fieldName is the invented name of field i of a province: no real place.
func fieldName(prov string, i int) (name, abbrev, code string) {
	first := strings.ToUpper(scaleFirstWords[i%len(scaleFirstWords)])
	second := strings.ToUpper(scaleSecondWords[(i*7+len(prov))%len(scaleSecondWords)])
	return first + " " + second + " DEMO", first, fmt.Sprintf("%04d", 100*int(prov[0]-'A')+i+1)
}

func (g *scaleGen) province(ctx context.Context, p scaleProvince) error {
	var err error
	code := p.code
	if g.wellInfra, err = g.csvFile("Well Infrastructure-"+code+".csv", energyingest.PetrinexWellColumns()); err != nil {
		return err
	}
	if g.facilities, err = g.csvFile("Facility Infrastructure-"+code+".csv", energyingest.FacilityColumns()); err != nil {
		return err
	}
	for m := range scaleMonths {
		if g.vols[m], err = g.csvFile("Vol_"+demoMonth(scaleFirstMonth+m)+"-"+code+".csv", energyingest.VolumetricColumns()); err != nil {
			return err
		}
	}
	if g.dispCSV, err = g.create("Crown_Dispositions_" + code + ".csv"); err != nil {
		return err
	}
	g.dispCSV.buf.WriteString(strings.Join(energyingest.DispositionColumns(), ",") + "\r\n")
	g.dispCSV.header = 1
	if g.dispGeo, err = g.geoFile("Crown_Dispositions_"+code+".geojson", ""); err != nil {
		return err
	}

	twps, weights := g.townships(p)
	wells := cumulative(g.o.N(p.wells), weights)
	facs := cumulative(g.o.N(p.facilities), weights)
	var pipes []int32
	if p.pipelines > 0 {
		pipes = cumulative(g.o.N(p.pipelines), weights)
	} else {
		pipes = make([]int32, len(twps)+1)
	}
	even := make([]float64, len(twps))
	for i := range even {
		even[i] = 1
	}
	disps := cumulative(g.o.N(p.dispositions), even)
	for k, tw := range twps {
		if err := ctx.Err(); err != nil {
			return err
		}
		t := g.township(p, k, tw)
		nw := int(wells[k+1] - wells[k])
		nf, np := int(facs[k+1]-facs[k]), 0
		if pipes != nil {
			np = int(pipes[k+1] - pipes[k])
		}
		cells := scaleCells(t, p.prov)
		if nw > len(cells)*len(scaleLayers) {
			return fmt.Errorf("energy: scale: %d wells in township %s, more than its %d UWIs", nw, t, len(cells)*len(scaleLayers))
		}
		fs := g.townshipFacilities(t, int(facs[k]), nf, cells)
		ws := g.townshipWells(t, int(wells[k]), nw, fs, cells)
		if err := g.writeTownship(t, ws, fs); err != nil {
			return err
		}
		g.townshipPipelines(t, int(pipes[k]), np, ws, fs, cells)
		g.townshipDispositions(t, int(disps[k]), int(disps[k+1]-disps[k]), cells)
		if err := g.flushAll(); err != nil {
			return err
		}
		if g.afterTownship != nil {
			g.afterTownship()
		}
	}
	for _, sf := range append([]*scaleFile{g.wellInfra, g.facilities, g.dispCSV, g.dispGeo}, g.vols[:]...) {
		if err := g.finish(sf); err != nil {
			return err
		}
	}
	return nil
}

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
		line := func(f *demoFacility, r volRow) { volLine(b, t.Prov, month, sub, f, r) }
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
		dispositionRows(&g.dispCSV.buf, g.dispGeo.geo, d)
	}
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

// baCodes writes the invented operators and defunct licensees in the
// layout of the team's ST104A sample.
func (g *scaleGen) baCodes() error {
	var b bytes.Buffer
	b.WriteString("BA Code,Company Name\r\n")
	var codes []string
	for i := range scaleOperatorCount {
		codes = append(codes, scaleOperatorCode(i))
	}
	for i := range 36 {
		codes = append(codes, scaleDefunctCode(i))
	}
	sort.Strings(codes)
	for _, c := range codes {
		b.WriteString(c + "," + op(c).Name + "\r\n")
	}
	return g.writeFile("ST104A_BusinessAssociate_Codes_2026-11.csv", b.Bytes(), int64(len(codes)))
}

func (g *scaleGen) orphanInventory() ([]byte, error) {
	summary := [][]string{
		{"Orphan Well Association (demo data)"},
		{"Inventory date", "2026-11-01"},
		{"Rows", fmt.Sprint(len(g.orphans))},
	}
	inv := [][]string{
		{"Orphan Well Association"},
		{"Site Specific Inventory - Full Inventory"},
		{"Report generated 2026-11-01 13:41:42 (synthetic demo data)"},
		{},
		{"Site Name", "Licensee", "License Number", "Component Type", "Responsible Department", "Current Project Type"},
	}
	for _, r := range g.orphans {
		inv = append(inv, []string{r.site, r.licensee, r.licence, r.component, r.department, r.project})
	}
	return WriteXLSX([]Sheet{{"Summary", summary}, {energyingest.OWASheet, inv}}, time.Date(2026, 11, 1, 13, 41, 42, 0, time.UTC))
}

func (g *scaleGen) readme() []byte {
	var b strings.Builder
	b.WriteString("# Meridian energy data at province scale (invented)\n\n")
	fmt.Fprintf(&b, "Generated by `meridian demo -scale province` (energydemo.WriteScale), seed %d, fraction %v: the same seed\n", g.o.Seed, g.o.Fraction)
	b.WriteString("and fraction write the same bytes. Formats are the published ones (docs/data-sources.md, docs/real-layouts.md);\n")
	b.WriteString("the content is invented: no file describes a real well, facility, line, volume or disposition. Operators,\n")
	b.WriteString("licensees and holders are invented companies marked (demo) under BA codes Z9.. that the AER does not use;\n")
	b.WriteString("field names are invented (\"... DEMO\"). Sizes at fraction 1 are Alberta's published ones (600,000 wells,\n")
	b.WriteString("125,000 facilities, 323,000 pipeline segments, Crown dispositions over more than a million LSDs); SK and MB\n")
	fmt.Fprintf(&b, "are a few percent of that. As of %s. Files:\n\n", demo.AsOf().Format("2006-01-02"))
	files := append([]scale.File(nil), g.report.Files...)
	sort.Slice(files, func(i, j int) bool { return files[i].Name < files[j].Name })
	for _, f := range files {
		fmt.Fprintf(&b, "- `%s` (%d rows, %d bytes)\n", f.Name, f.Rows, f.Bytes)
	}
	return []byte(b.String())
}
