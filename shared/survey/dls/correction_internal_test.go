package dls

import (
	"bytes"
	"flag"
	"fmt"
	"go/format"
	"math"
	"os"
	"slices"
	"strings"
	"testing"

	"meridian/shared/lld"
	"meridian/shared/teamdata"
)

var (
	update        = flag.Bool("update", false, "rewrite correction_table.go from the ground truth")
	crossValidate = flag.Bool("cv", false, "run TestCorrectionParameters (a minute or two)")
)

// Parameters of the fit (TestCorrectionTable). They were chosen by
// cross-validation inside the calibration set (TestCorrectionParameters),
// never on the validation townships.
const (
	fitStepM    = 5    // grid of candidate shifts, metres
	fitRangeM   = 400  // candidate shifts span ±fitRangeM each way
	kernelKM    = 64.0 // Gaussian kernel length of the surface
	priorWeight = 1.0  // pseudo-weight of the regional constant
	minWeight   = 0.5  // townships with less kernel weight keep the constant
	// crossLine weighs the wells of townships across a correction line
	// (another governing base line): their range lines were run from
	// another base line, so their errors are not this township's.
	crossLine   = 0.0
	lsdScore    = 1.0 // score of a point inside its LSD ...
	sectionScor = 2.0 // ... and inside its section
)

// fitParams are the tunable parameters of fitCorrection.
type fitParams struct {
	kernelKM, priorWeight, minWeight, crossLine float64
}

var defaultFit = fitParams{kernelKM: kernelKM, priorWeight: priorWeight, minWeight: minWeight, crossLine: crossLine}

// calPoint is a ground-truth LSD point as the fit sees it: its township,
// its offset in metres from the centre of its uncorrected LSD and section,
// and their half sizes.
type calPoint struct {
	p              groundPoint
	mer            lld.Meridian
	r, t           int
	reg            region
	x, y           float64 // township centre, km (local equirectangular)
	dx, dy, hw, hh float64 // LSD
	sx, sy, sw, sh float64 // section
}

// townshipCentreKM returns the uncorrected centre of a township in km and
// its region.
func townshipCentreKM(m *model, mer lld.Meridian, r, t int) (x, y float64, reg region) {
	w, e := m.rangeEdges(mer, r, t)
	lat := (m.south[t] + m.south[t+1]) / 2
	lng := (w + e) / 2
	x = lng * degree * parallelRadius(55*degree) / 1000
	y = lat * degree * meridianRadius(55*degree) / 1000
	return x, y, regionOf(mer, t, lng)
}

// calPoints converts the grouped LSD points of pts for base, an
// uncorrected model; points base does not resolve are left out.
func calPoints(base *model, pts []groundPoint) []calPoint {
	var out []calPoint
	for _, p := range pts {
		if wellGroup(p) == "" {
			continue
		}
		if _, ok := base.resolve(p.loc); !ok {
			continue
		}
		lb, _ := base.bound(p.loc)
		s := p.loc
		s.Unit, s.LSD = lld.Section, 0
		sb, _ := base.bound(s)
		c := calPoint{p: p, mer: p.loc.Meridian, r: int(p.loc.Range), t: int(p.loc.Township)}
		c.x, c.y, c.reg = townshipCentreKM(base, c.mer, c.r, c.t)
		c.dx, c.dy, c.hw, c.hh = offsetM(p.pt[0], p.pt[1], lb.Min[0], lb.Min[1], lb.Max[0], lb.Max[1])
		c.sx, c.sy, c.sw, c.sh = offsetM(p.pt[0], p.pt[1], sb.Min[0], sb.Min[1], sb.Max[0], sb.Max[1])
		out = append(out, c)
	}
	return out
}

// offsetM returns the offset in metres of (lng, lat) from the centre of
// the box and the box's half width and height.
func offsetM(lng, lat, w, s, e, n float64) (dx, dy, hw, hh float64) {
	phi := (s + n) / 2 * degree
	kx, ky := degree*parallelRadius(phi), degree*meridianRadius(phi)
	return (lng - (w+e)/2) * kx, (lat - (s+n)/2) * ky, (e - w) / 2 * kx, (n - s) / 2 * ky
}

// bestShift returns the shift (metres east, north) that maximises the
// weighted number of points inside their LSD (lsdScore) and section
// (sectionScor) when the model moves by it, and the total weight. Among
// the shifts reaching the maximum it returns their mean (the centre of the
// feasible box when it is one box), so points are not left on an edge.
func bestShift(pts []calPoint, weight func(calPoint) float64) (sx, sy, total float64) {
	const n = 2*fitRangeM/fitStepM + 1
	var grid [n + 1][n + 1]float64
	add := func(lo, hi, lo2, hi2, w float64) {
		i0 := max(0, int(math.Ceil((lo+fitRangeM)/fitStepM)))
		i1 := min(n-1, int(math.Floor((hi+fitRangeM)/fitStepM)))
		j0 := max(0, int(math.Ceil((lo2+fitRangeM)/fitStepM)))
		j1 := min(n-1, int(math.Floor((hi2+fitRangeM)/fitStepM)))
		if i0 > i1 || j0 > j1 {
			return
		}
		grid[i0][j0] += w
		grid[i1+1][j0] -= w
		grid[i0][j1+1] -= w
		grid[i1+1][j1+1] += w
	}
	for _, p := range pts {
		w := weight(p)
		if w == 0 {
			continue
		}
		total += w
		add(p.dx-p.hw, p.dx+p.hw, p.dy-p.hh, p.dy+p.hh, lsdScore*w)
		add(p.sx-p.sw, p.sx+p.sw, p.sy-p.sh, p.sy+p.sh, sectionScor*w)
	}
	if total == 0 {
		return 0, 0, 0
	}
	for i := range n {
		for j := range n {
			if i > 0 {
				grid[i][j] += grid[i-1][j]
			}
			if j > 0 {
				grid[i][j] += grid[i][j-1]
			}
			if i > 0 && j > 0 {
				grid[i][j] -= grid[i-1][j-1]
			}
		}
	}
	best, k := math.Inf(-1), 0.0
	for i := range n {
		for j := range n {
			v := grid[i][j]
			switch {
			case v > best+1e-9:
				best, sx, sy, k = v, 0, 0, 0
				fallthrough
			case v >= best-1e-9:
				sx += float64(i*fitStepM - fitRangeM)
				sy += float64(j*fitStepM - fitRangeM)
				k++
			}
		}
	}
	return sx / k, sy / k, total
}

// fitCorrection fits a correction to the calibration points cal on base
// (an uncorrected model): per region the shift that best fits all its
// points, then for every township of the region within reach of the
// points a kernel-weighted shift (weights exp(−(d/kernel)²) by the
// distance between township centres, points of the same region only),
// blended with the regional constant as (W·local + prior·regional) /
// (W + prior), W the kernel weight; townships with W < minWeight keep the
// constant.
func fitCorrection(base *model, cal []calPoint, fp fitParams) *correction {
	c := new(correction)
	for reg := regionABW4; reg < numRegions; reg++ {
		sx, sy, _ := bestShift(cal, func(p calPoint) float64 {
			if p.reg == reg {
				return 1
			}
			return 0
		})
		c.regional[reg] = shift{int16(math.Round(sx)), int16(math.Round(sy))}
	}
	// Townships within reach: those whose centres lie within 3 kernels of
	// a calibration township, in the same meridian.
	reach := 3 * fp.kernelKM
	k := int(math.Ceil(reach/9.0)) + 1
	seen := map[uint32]bool{}
	var keys []uint32
	for _, p := range cal {
		for r := p.r - k; r <= p.r+k; r++ {
			for t := p.t - k; t <= p.t+k; t++ {
				if r < 1 || r > maxRange || t < 1 || t > maxTownship {
					continue
				}
				key := townshipKey(p.mer, r, t)
				if seen[key] {
					continue
				}
				seen[key] = true
				l := lld.Location{System: lld.DLS, Unit: lld.Township, Meridian: p.mer, Range: uint8(r), Township: uint8(t)}
				if _, ok := base.resolve(l); ok {
					keys = append(keys, key)
				}
			}
		}
	}
	slices.Sort(keys)
	for _, key := range keys {
		mer, r, t := lld.Meridian(key>>16), int(key>>8&0xff), int(key&0xff)
		x, y, reg := townshipCentreKM(base, mer, r, t)
		sx, sy, w := bestShift(cal, func(p calPoint) float64 {
			if p.reg != reg {
				return 0
			}
			d := math.Hypot(p.x-x, p.y-y)
			if d > reach {
				return 0
			}
			w := math.Exp(-(d / fp.kernelKM) * (d / fp.kernelKM))
			if governingBaseTownship(p.t) != governingBaseTownship(t) {
				w *= fp.crossLine
			}
			return w
		})
		if w < fp.minWeight {
			continue
		}
		rs := c.regional[reg]
		bx := (w*sx + fp.priorWeight*float64(rs.east)) / (w + fp.priorWeight)
		by := (w*sy + fp.priorWeight*float64(rs.north)) / (w + fp.priorWeight)
		s := shift{int16(math.Round(bx)), int16(math.Round(by))}
		if s == rs {
			continue // the constant already says it
		}
		c.keys = append(c.keys, key)
		c.shifts = append(c.shifts, s)
	}
	return c
}

// splitPoints returns the grouped LSD points of pts by HeldOut: calibration
// and validation.
func splitPoints(pts []groundPoint) (cal, val []groundPoint) {
	for _, p := range pts {
		if wellGroup(p) == "" {
			continue
		}
		if HeldOut(p.loc) {
			val = append(val, p)
		} else {
			cal = append(cal, p)
		}
	}
	return cal, val
}

// minHeldOut is the number of held-out wells below which a region's own
// 95th percentile is not trusted alone: the figure is then at least the
// one of all regions pooled.
const minHeldOut = 40

// accuracyOf returns per region the 95th percentile of the miss distance of
// the points of pts that keep (nil: all) accepts, in metres rounded up (see
// fittedAccuracyM), at least the pooled figure where a region has fewer
// than minHeldOut points; and the counts.
func accuracyOf(m *model, pts []groundPoint, keep func(groundPoint) bool) (p95 [numRegions]float64, n [numRegions]int) {
	var d [numRegions][]float64
	var all []float64
	for _, p := range pts {
		lb, ok := m.bound(p.loc)
		if !ok || (keep != nil && !keep(p)) {
			continue
		}
		w, e := m.rangeEdges(p.loc.Meridian, int(p.loc.Range), int(p.loc.Township))
		reg := regionOf(p.loc.Meridian, int(p.loc.Township), (w+e)/2)
		miss := distanceM(p.pt, lb)
		d[reg] = append(d[reg], miss)
		all = append(all, miss)
	}
	pooled := math.Ceil(percentile(all, 0.95))
	for reg := range d {
		p95[reg] = math.Ceil(percentile(d[reg], 0.95))
		n[reg] = len(d[reg])
		if n[reg] < minHeldOut {
			p95[reg] = max(p95[reg], pooled)
		}
	}
	return p95, n
}

// TestCorrectionTable fits the correction to the calibration townships of
// the ground truth and checks that correction_table.go holds it; with
// -update it rewrites the file:
//
//	go test ./shared/survey/dls -run TestCorrectionTable -update
func TestCorrectionTable(t *testing.T) {
	pts := readAllGroundTruth(t)
	base := newModel(defaultOptions.uncorrected())
	calG, valG := splitPoints(pts)
	c := fitCorrection(base, calPoints(base, calG), defaultFit)
	o := defaultOptions
	o.corr = c
	fit := newModel(o)
	acc, n := accuracyOf(fit, valG, func(p groundPoint) bool {
		_, ok := c.surface(p.loc.Meridian, int(p.loc.Range), int(p.loc.Township))
		return ok
	})
	o.corr = &correction{regional: c.regional}
	accReg, nReg := accuracyOf(newModel(o), valG, nil)
	src := correctionSource(c, acc, n, accReg, nReg, len(calG), len(valG))
	const file = "correction_table.go"
	if *update {
		if err := os.WriteFile(file, src, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, src) {
		t.Errorf("%s is not what the fit gives from the ground truth; run go test ./shared/survey/dls -run TestCorrectionTable -update", file)
	}
	// Townships' blocks move by a shift and extend to a neighbour's edge:
	// at most twice the largest shift, which correctionMargin must cover
	// (Townships searches that much wider).
	largest := 0.0
	for _, s := range append(c.shifts, c.regional[:]...) {
		largest = max(largest, math.Abs(float64(s.east)), math.Abs(float64(s.north)))
	}
	if deg := 2 * largest / (parallelRadius(60*degree) * degree); deg > correctionMargin {
		t.Errorf("largest shift %.0f m: blocks may move %.4f°, more than correctionMargin %v", largest, deg, correctionMargin)
	}
	t.Logf("%d townships with their own shift; regional %v; accuracy %v (n %v), regional-only %v (n %v)", len(c.keys), c.regional, acc, n, accReg, nReg)
}

// correctionSource writes the Go source of correction_table.go.
func correctionSource(c *correction, acc [numRegions]float64, n [numRegions]int, accReg [numRegions]float64, nReg [numRegions]int, nCal, nVal int) []byte {
	var b strings.Builder
	fmt.Fprintf(&b, "// Code generated by go test ./shared/survey/dls -run TestCorrectionTable -update; DO NOT EDIT.\n")
	fmt.Fprintf(&b, "// Fitted from %d calibration points of %s (HeldOut false),\n", nCal, strings.Join(teamdata.GroundTruthFiles, " and "))
	fmt.Fprintf(&b, "// accuracy from the %d held-out points (see correction_internal_test.go).\n\n", nVal)
	fmt.Fprintf(&b, "package dls\n\n")
	fmt.Fprintf(&b, "// fitted is the correction of the package's model: regional constants and\n// %d township shifts (metres east, north).\n", len(c.keys))
	fmt.Fprintf(&b, "var fitted = correction{\n\tregional: [numRegions]shift{\n")
	for reg := regionABW4; reg < numRegions; reg++ {
		fmt.Fprintf(&b, "\t\t%d: {%d, %d}, // %s\n", reg, c.regional[reg].east, c.regional[reg].north, reg)
	}
	fmt.Fprintf(&b, "\t},\n\tkeys: []uint32{")
	for i, k := range c.keys {
		if i%8 == 0 {
			b.WriteString("\n\t\t")
		}
		fmt.Fprintf(&b, "%#x, ", k)
	}
	fmt.Fprintf(&b, "\n\t},\n\tshifts: []shift{")
	for i, s := range c.shifts {
		if i%8 == 0 {
			b.WriteString("\n\t\t")
		}
		fmt.Fprintf(&b, "{%d, %d}, ", s.east, s.north)
	}
	fmt.Fprintf(&b, "\n\t},\n}\n\n")
	fmt.Fprintf(&b, "// surfaceAccuracyM and regionalAccuracyM are, per region, the 95th\n")
	fmt.Fprintf(&b, "// percentile of the miss distance of held-out wells (metres from the well\n")
	fmt.Fprintf(&b, "// to its modelled LSD, 0 inside; rounded up): in townships with a shift of\n")
	fmt.Fprintf(&b, "// their own, and with the regional constants alone (as in townships far\n")
	fmt.Fprintf(&b, "// from calibration wells). A region with fewer than %d held-out wells takes\n", minHeldOut)
	fmt.Fprintf(&b, "// at least the figure of all regions pooled.\n")
	fmt.Fprintf(&b, "var surfaceAccuracyM = [numRegions]float64{\n")
	for reg := regionABW4; reg < numRegions; reg++ {
		fmt.Fprintf(&b, "\t%d: %g, // %s: %d held-out wells\n", reg, acc[reg], reg, n[reg])
	}
	fmt.Fprintf(&b, "}\n\nvar regionalAccuracyM = [numRegions]float64{\n")
	for reg := regionABW4; reg < numRegions; reg++ {
		fmt.Fprintf(&b, "\t%d: %g, // %s: %d held-out wells\n", reg, accReg[reg], reg, nReg[reg])
	}
	fmt.Fprintf(&b, "}\n")
	src, err := format.Source([]byte(b.String()))
	if err != nil {
		panic(err)
	}
	return src
}

// TestCorrectionParameters reports, for a grid of fit parameters, the
// figures of a 3-fold cross-validation inside the calibration set (folds
// by a second hash of the township), the figures the parameters of
// defaultFit were chosen on. It never looks at the validation townships.
func TestCorrectionParameters(t *testing.T) {
	if !*crossValidate {
		t.Skip("cross-validation of the fit parameters: go test ./shared/survey/dls -run TestCorrectionParameters -cv -v")
	}
	pts := readAllGroundTruth(t)
	base := newModel(defaultOptions.uncorrected())
	calG, _ := splitPoints(pts)
	fold := func(p groundPoint) int {
		h := uint32(2166136261)
		for _, c := range []byte(fmt.Sprintf("fold %v-%d-%d", p.loc.Meridian, p.loc.Range, p.loc.Township)) {
			h = (h ^ uint32(c)) * 16777619
		}
		return int(h % 3)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "\n| kernel km | prior | across correction lines | group | n | inside LSD | inside section | p99 section miss |\n|---|---|---|---|---|---|---|---|\n")
	for _, kern := range []float64{16, 32, 64} {
		for _, prior := range []float64{1, 4} {
			for _, cross := range []float64{1, 0.25, 0} {
				fp := fitParams{kernelKM: kern, priorWeight: prior, minWeight: minWeight, crossLine: cross}
				var test []groundPoint
				var folded [3]*model
				for k := range 3 {
					var train []groundPoint
					for _, p := range calG {
						if fold(p) != k {
							train = append(train, p)
						}
					}
					o := defaultOptions
					o.corr = fitCorrection(base, calPoints(base, train), fp)
					folded[k] = newModel(o)
				}
				test = calG
				figs := map[string]*wellFigures{}
				for k := range 3 {
					var part []groundPoint
					for _, p := range test {
						if fold(p) == k {
							part = append(part, p)
						}
					}
					for g, f := range measureWells(folded[k], part) {
						if figs[g] == nil {
							figs[g] = new(wellFigures)
						}
						figs[g].n += f.n
						figs[g].lsdIn += f.lsdIn
						figs[g].sectionIn += f.sectionIn
						figs[g].sectionP99 = max(figs[g].sectionP99, f.sectionP99)
					}
				}
				for _, g := range wellGroups {
					f := figs[g]
					fmt.Fprintf(&b, "| %g | %g | %g | %s | %d | %.1f%% | %.1f%% | %.0f m (worst fold) |\n", kern, prior, cross, g, f.n,
						100*float64(f.lsdIn)/float64(f.n), 100*float64(f.sectionIn)/float64(f.n), f.sectionP99)
				}
			}
		}
	}
	t.Log(b.String())
}

// measureWellsRaw returns, for each grouped point of pts that m resolves,
// its distances in metres to its modelled section and LSD.
func measureWellsRaw(m *model, pts []groundPoint) [][2]float64 {
	var out [][2]float64
	for _, p := range pts {
		if wellGroup(p) == "" {
			continue
		}
		if _, ok := m.resolve(p.loc); !ok {
			continue
		}
		s := p.loc
		s.Unit, s.LSD = lld.Section, 0
		sb, _ := m.bound(s)
		lb, _ := m.bound(p.loc)
		out = append(out, [2]float64{distanceM(p.pt, sb), distanceM(p.pt, lb)})
	}
	return out
}

// TestCorrectionOverlaps measures how far neighbouring corrected townships
// overlap (extend grows a border block to its neighbour, so the overlap of
// two neighbours is the difference of their shifts across their common
// line: east shifts for neighbours in a row, north shifts for neighbours
// in a column) and bounds it: the figures are documented in doc.go.
func TestCorrectionOverlaps(t *testing.T) {
	var d []float64
	for mer := lld.W4; mer <= lld.W6; mer++ {
		for tw := 1; tw <= maxTownship; tw++ {
			for r := 1; r <= 35; r++ {
				s, ok := std.townshipShift(mer, r, tw)
				if !ok {
					continue
				}
				if e, ok := std.townshipShift(mer, r+1, tw); ok {
					d = append(d, math.Abs(float64(s.east-e.east)))
				}
				if n, ok := std.townshipShift(mer, r, tw+1); ok && governingBaseTownship(tw+1) == governingBaseTownship(tw) {
					d = append(d, math.Abs(float64(s.north-n.north)))
				}
			}
		}
	}
	if len(d) < 1000 {
		t.Fatalf("%d neighbour pairs, want the table's thousands", len(d))
	}
	p90, p99, worst := percentile(d, 0.9), percentile(d, 0.99), slices.Max(d)
	t.Logf("%d neighbouring pairs of corrected townships: overlap p90 %.0f m, p99 %.0f m, max %.0f m", len(d), p90, p99, worst)
	if p99 > 60 || worst > 200 {
		t.Errorf("overlaps p99 %.0f m, max %.0f m: the surface is rougher than documented (p99 <= 60 m, max <= 200 m)", p99, worst)
	}
}
