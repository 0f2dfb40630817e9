package energydemo

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"os"
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

// WriteScaleNext writes what WriteScale writes with the same options, as
// the next version of that data: the same files with a few thousand
// differences at fraction 1, drawn from the entities' ids alone (so the
// same for the same options), for measuring the change feed at province
// size. One well in scaleNextStatusEvery (not an orphan, not yet
// abandoned) is abandoned; one township in scaleNextWellEvery gains a
// well licensed this month; one disposition in scaleNextTransferEvery
// moves to another holder. Nothing else differs.
func WriteScaleNext(ctx context.Context, dir string, o scale.Options) (scale.Report, error) {
	if err := o.Check(); err != nil {
		return scale.Report{}, err
	}
	return writeScaleWith(ctx, dir, o, nil, true)
}

// The differences of WriteScaleNext: about 2,000 wells abandoned, 1,000
// wells licensed and 1,100 dispositions transferred at fraction 1.
const (
	scaleNextStatusEvery   = 211
	scaleNextWellEvery     = 4
	scaleNextTransferEvery = 37
)

// writeScale is WriteScale calling township, when not nil, after each
// township is written (the heap test measures there).
func writeScale(ctx context.Context, dir string, o scale.Options, township func()) (scale.Report, error) {
	return writeScaleWith(ctx, dir, o, township, false)
}

func writeScaleWith(ctx context.Context, dir string, o scale.Options, township func(), next bool) (scale.Report, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return scale.Report{}, fmt.Errorf("energy: scale: %w", err)
	}
	g := &scaleGen{dir: dir, o: o, seed: o.Seed, afterTownship: township, next: next}
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

type scaleGen struct {
	dir    string
	o      scale.Options
	seed   uint64
	open   []*scaleFile
	report scale.Report

	orphans       []demoOrphanRow
	pipelineN     int // OBJECTIDs given
	afterTownship func()
	next          bool // WriteScaleNext: the next version's differences

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
		listed := ws
		if g.next {
			listed = g.nextWells(t, k, int(wells[k]), ws, cells)
		}
		if err := g.writeTownship(t, listed, fs); err != nil {
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
