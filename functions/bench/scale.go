package main

import (
	"cmp"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"meridian/shared/ag"
	"meridian/shared/blob"
	"meridian/shared/datadir"
	"meridian/shared/energy"
	"meridian/shared/kv"
	"meridian/shared/kv/boltdir"
	"meridian/shared/lld"
	"meridian/shared/survey/gridindex"
	"meridian/shared/tile"
	"meridian/shared/tile/datalayers"
)

const scaleUsage = `usage: meridian-bench scale [flags]

Runs the whole data path twice, on the demo data and on invented data at the
published size (meridian demo -scale province): generate, ingest the grids,
energy and agriculture, build every data archive and the grid archives of
-grid-archives (ab/sec by default; "all" builds every grid and label layer of
AB, SK and MB), serve, and load reports, lists, tiles and the conversion
endpoints. Every step is a child process of the meridian binary (-meridian),
so its peak resident memory is measured from outside (getrusage of the
child). Prints one
table with both runs side by side; the last line starts with "scale:" and
says whether every process stayed under -max-rss and the whole run under
-max-time.

flags:
`

// scaleCommand is meridian-bench scale (make scale-test).
func scaleCommand(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("scale", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, scaleUsage); fs.PrintDefaults() }
	bin := meridianFlag(fs)
	dir := fs.String("dir", "", "scratch directory (default: a new one under the system's temporary directory, removed at the end)")
	fraction := fs.Float64("fraction", 1, "size of the province run: 1 is the published size, CI runs less")
	seed := fs.Uint64("seed", 1, "seed of the generated data")
	maxRSS := fs.Int64("max-rss", 1536, "bound on every process's peak resident memory, MB")
	duration := fs.Duration("duration", 4*time.Second, "time per load scenario")
	conns := fs.Int("c", 8, "concurrent connections of the load scenarios")
	pmtilesBin := fs.String("pmtiles", "", "the go-pmtiles binary: every tile archive served (energy/og_activity_lsd, ag/ag_summary_qs, ab/sec) is read from pmtiles serve too, side by side, and compared")
	gridArchives := fs.String("grid-archives", "ab/sec", `grid archives built from the ingested official indexes: a comma-separated list of layers, or "all" (every grid and label layer of AB, SK and MB); ab/sec is always built`)
	maxTime := fs.Duration("max-time", 25*time.Minute, "bound on the whole run's wall time")
	which := fs.String("runs", "demo,province", "the runs, in order: demo (the small demo data) and province (-fraction of the published size)")
	prepare := fs.String("prepare", "", "only build each run's data under -dir (kept) and write FILE: the data directory and a sample of the parcels, operators and tiles the load would ask for (JSON, for make bench-aws); nothing is served")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if !(*fraction > 0 && *fraction <= 1) {
		fmt.Fprintf(stderr, "meridian-bench scale: -fraction %v: want a number in (0, 1]\n", *fraction)
		return 2
	}
	grids, err := gridArchiveLayers(*gridArchives)
	if err != nil {
		fmt.Fprintf(stderr, "meridian-bench scale: -grid-archives: %v\n", err)
		return 2
	}
	if _, err := os.Stat(*bin); err != nil {
		fmt.Fprintf(stderr, "meridian-bench scale: -meridian: %v (go build -o .build/meridian ./functions/local)\n", err)
		return 2
	}
	if *prepare != "" && *dir == "" {
		fmt.Fprintln(stderr, "meridian-bench scale: -prepare needs -dir: the data it builds is kept there")
		return 2
	}
	if *dir == "" {
		d, err := os.MkdirTemp("", "meridian-scale-")
		if err != nil {
			fmt.Fprintf(stderr, "meridian-bench scale: %v\n", err)
			return 1
		}
		defer os.RemoveAll(d)
		*dir = d
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	start := time.Now()
	var runs []*scaleRun
	for _, w := range strings.Split(*which, ",") {
		switch w {
		case "demo":
			runs = append(runs, &scaleRun{name: "demo", scale: "demo"})
		case "province":
			runs = append(runs, &scaleRun{name: fmt.Sprintf("province x%g", *fraction), scale: "province", fraction: *fraction})
		default:
			fmt.Fprintf(stderr, "meridian-bench scale: -runs: %q: want demo or province\n", w)
			return 2
		}
	}
	for _, r := range runs {
		r.bin, r.seed, r.dir, r.log = *bin, *seed, filepath.Join(*dir, r.scale), stderr
		r.duration, r.conns, r.pmtiles, r.grids, r.prepare = *duration, *conns, *pmtilesBin, grids, *prepare
		fmt.Fprintf(stderr, "scale-test: %s run in %s\n", r.name, r.dir)
		if err := r.run(ctx); err != nil {
			fmt.Fprintf(stderr, "meridian-bench scale: %s: %v\n", r.name, err)
			printScaleTable(stdout, runs)
			fmt.Fprintf(stdout, "scale: FAILED in the %s run after %s: %v\n", r.name, time.Since(start).Round(time.Second), err)
			return 1
		}
	}
	printScaleTable(stdout, runs)
	last := runs[len(runs)-1]
	peak, step := last.peak()
	elapsed := time.Since(start)
	verdict := "ok"
	switch {
	case peak > *maxRSS<<20:
		verdict = "OVER the memory bound"
	case elapsed > *maxTime:
		verdict = fmt.Sprintf("OVER the time bound of %s", *maxTime)
	}
	errs := 0
	for _, r := range runs {
		for _, m := range r.rows {
			errs += m.errors
		}
	}
	if errs > 0 {
		verdict = fmt.Sprintf("%d requests failed (the first of each scenario is in the log above)", errs)
	}
	fmt.Fprintf(stdout, "scale: %s, %s in %s; peak RSS %d MB (%s) against a bound of %d MB: %s\n",
		last.name, rowsLabel(last), elapsed.Round(time.Second), peak>>20, step, *maxRSS, verdict)
	if verdict != "ok" {
		return 1
	}
	return 0
}

func rowsLabel(r *scaleRun) string {
	var rows int64
	for _, m := range r.rows {
		if strings.HasPrefix(m.step, "generate ") {
			rows += m.rows
		}
	}
	return fmt.Sprintf("%d generated records", rows)
}

// scaleRun is one pass of the data path over one dataset size.
type scaleRun struct {
	name, scale string
	fraction    float64
	seed        uint64
	bin, dir    string
	log         io.Writer
	duration    time.Duration
	conns       int
	pmtiles     string
	grids       []string // grid archives to build, ab/sec first
	prepare     string   // -prepare: write the load sample there instead of serving
	rows        []measure
}

// gridArchiveLayers parses -grid-archives: ab/sec first, then the other
// layers named, or with "all" every survey layer of the provinces whose
// official indexes a run ingests.
func gridArchiveLayers(arg string) ([]string, error) {
	out := []string{"ab/sec"}
	seen := map[string]bool{"ab/sec": true}
	for _, p := range strings.Split(arg, ",") {
		p = strings.TrimSpace(p)
		switch {
		case p == "" || seen[p]:
		case p == "all":
			for _, l := range tile.Layers() {
				if l.Survey() && (l.Region == "ab" || l.Region == "sk" || l.Region == "mb") && !seen[l.Path()] {
					seen[l.Path()] = true
					out = append(out, l.Path())
				}
			}
		default:
			region, name, _ := strings.Cut(p, "/")
			if l, ok := tile.Lookup(region, name); !ok || !l.Survey() {
				return nil, fmt.Errorf("%q is not a grid layer (ab/twp, sk/sec-label, ...)", p)
			}
			seen[p] = true
			out = append(out, p)
		}
	}
	return out, nil
}

// measure is one line of the table: a step of one run.
type measure struct {
	step   string
	rows   int64 // records, tiles or requests
	unit   string
	note   string // what else the step made: bytes, items
	time   time.Duration
	rss    int64   // peak resident bytes of the step's process
	detail bool    // a part of a process's work (an archive of a build), not a process
	rate   float64 // rows per second
	p50    time.Duration
	p99    time.Duration
	errors int
}

func (r *scaleRun) add(m measure) {
	if m.rate == 0 && m.time > 0 {
		m.rate = float64(m.rows) / m.time.Seconds()
	}
	r.rows = append(r.rows, m)
	if m.p50 > 0 {
		fmt.Fprintf(r.log, "scale-test: %s: %s: %.0f %s/s, p50 %s, p99 %s\n", r.name, m.step, m.rate, m.unit, dur(m.p50), dur(m.p99))
		return
	}
	fmt.Fprintf(r.log, "scale-test: %s: %s: %s in %s, %s MB peak\n", r.name, m.step, count(&m), dur(m.time), mb(m.rss))
}

// sideBySide runs n jobs at once and waits for them all. The first to
// fail cancels the others (whose processes are killed) and its error is
// returned.
func (r *scaleRun) sideBySide(ctx context.Context, what string, n int, job func(ctx context.Context, i int) error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		first error
	)
	for i := range n {
		wg.Go(func() {
			if err := job(ctx, i); err != nil {
				mu.Lock()
				if first == nil {
					first = err
					cancel()
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if first != nil {
		return fmt.Errorf("%s: %w", what, first)
	}
	return nil
}

// addGroup adds the rows of lanes that ran side by side, each lane's
// processes one after another, then the group's own row: its wall time
// (the longest lane's: they started together) and, as its peak, the sum of
// the lanes' peaks, which bounds what they held at once. A lane's time is
// the sum of its processes' (detail rows are parts of a process), its peak
// the largest of theirs.
func (r *scaleRun) addGroup(name string, lanes ...[]measure) {
	g := measure{step: name, note: fmt.Sprintf("%d side by side", len(lanes))}
	for _, lane := range lanes {
		var el time.Duration
		var peak int64
		for _, m := range lane {
			r.add(m)
			if !m.detail {
				el += m.time
				peak = max(peak, m.rss)
			}
		}
		g.time = max(g.time, el)
		g.rss += peak
	}
	r.add(g)
}

// hello returns the hello-world baseline's requests per second, 0 before
// it ran.
func (r *scaleRun) hello() float64 {
	for _, m := range r.rows {
		if m.step == helloStep {
			return m.rate
		}
	}
	return 0
}

// helloStep is the table's name of the hello-world baseline.
const helloStep = "hello-world net/http (baseline)"

// peak returns the largest peak RSS of the run's processes and its step.
func (r *scaleRun) peak() (int64, string) {
	var p int64
	var step string
	for _, m := range r.rows {
		if m.rss > p {
			p, step = m.rss, m.step
		}
	}
	return p, step
}

// child runs the meridian binary with args, its output logged under the run's
// directory, and returns its standard output, wall time and peak RSS.
func (r *scaleRun) child(ctx context.Context, logName string, args ...string) (string, time.Duration, int64, error) {
	return r.childEnv(ctx, nil, logName, args...)
}

// childEnv is child with env added to the child's environment.
func (r *scaleRun) childEnv(ctx context.Context, env []string, logName string, args ...string) (string, time.Duration, int64, error) {
	if err := os.MkdirAll(filepath.Join(r.dir, "logs"), 0o755); err != nil {
		return "", 0, 0, err
	}
	logf, err := os.Create(filepath.Join(r.dir, "logs", logName+".log"))
	if err != nil {
		return "", 0, 0, err
	}
	defer logf.Close()
	var out strings.Builder
	cmd := exec.CommandContext(ctx, r.bin, args...)
	if env != nil {
		cmd.Env = append(os.Environ(), env...)
	}
	cmd.Stdout = io.MultiWriter(&out, logf)
	cmd.Stderr = logf
	t0 := time.Now()
	err = cmd.Run()
	el := time.Since(t0)
	rss := maxRSS(cmd.ProcessState)
	if err != nil {
		return out.String(), el, rss, fmt.Errorf("meridian %s: %w (see %s)", strings.Join(args, " "), err, logf.Name())
	}
	return out.String(), el, rss, nil
}

// scaleManifest is what meridian demo writes beside each domain's files
// (SCALE.json): what it generated, for the table and for the grid ingests.
type scaleManifest struct {
	Rows  int64          `json:"rows"`
	Bytes int64          `json:"bytes"`
	Grids []manifestGrid `json:"grids,omitempty"`
	AsOf  string         `json:"as_of,omitempty"`
}

func (r *scaleRun) run(ctx context.Context) error {
	src, data := filepath.Join(r.dir, "src"), filepath.Join(r.dir, "data")
	// The generators are single-threaded and small (under 150 MB each):
	// the three run side by side, and the grid ingests (as small, side by
	// side too) start as soon as the grids are written, while the energy
	// and agriculture data are still being generated.
	domains := []string{"grid", "energy", "ag"}
	manifests := make([]scaleManifest, len(domains))
	first := make([][]measure, len(domains))
	err := r.sideBySide(ctx, "generate", len(domains), func(ctx context.Context, i int) error {
		domain := domains[i]
		args := []string{"demo", "-scale", r.scale, "-seed", strconv.FormatUint(r.seed, 10), "-o", src}
		if r.scale == "province" {
			args = append(args, "-fraction", strconv.FormatFloat(r.fraction, 'g', -1, 64))
		}
		args = append(args, domain)
		_, el, rss, err := r.child(ctx, "generate-"+domain, args...)
		m := measure{step: "generate " + domain, time: el, rss: rss}
		if err == nil {
			manifests[i], err = readManifest(filepath.Join(src, domain))
			m.rows, m.unit, m.note = manifests[i].Rows, "records", megabytes(manifests[i].Bytes)
		}
		first[i] = []measure{m}
		if err != nil || domain != "grid" {
			return err
		}
		ms, err := r.ingestGrids(ctx, src, data, manifests[i].Grids)
		first[i] = append(first[i], ms...)
		return err
	})
	if err != nil {
		return err
	}
	r.addGroup("generate, ingest grids", first...)
	manifest := map[string]scaleManifest{}
	for i, domain := range domains {
		manifest[domain] = manifests[i]
	}

	// Then the report ingests, one at a time: at province size two at
	// once took 1.6 to 2 times as long each (this machine's two cores do
	// not give one job's 1.2-1.4 cores to each of two), and the energy
	// ingest needs its 1 GiB. The grid archives (about 300 MB) are built
	// beside the energy ingest; the two domains' archives side by side at
	// the end, each under its laneMemoryLimits.
	groups, err := r.archiveGroups()
	if err != nil {
		return err
	}
	ingest := func(ctx context.Context, domain string) (measure, error) {
		args := []string{"ingest", domain, "-invented", "-tiles=false", "-data", data}
		if asOf := manifest[domain].AsOf; domain == "energy" && asOf != "" {
			args = append(args, "-now", asOf)
		}
		args = append(args, filepath.Join(src, domain))
		out, el, rss, err := r.child(ctx, "ingest-"+domain, args...)
		m := measure{step: "ingest " + domain, rows: manifest[domain].Rows, unit: "records", note: fmt.Sprintf("%d items", firstInt(out, ` (\d+) items in`)), time: el, rss: rss}
		return m, err
	}
	var second [2][]measure
	err = r.sideBySide(ctx, "energy ingest, grid archives", 2, func(ctx context.Context, i int) error {
		if i == 0 {
			m, err := ingest(ctx, "energy")
			second[0] = []measure{m}
			return err
		}
		ms, err := r.buildArchives(ctx, nil, data, groups["grid"])
		second[1] = ms
		return err
	})
	if err != nil {
		return err
	}
	r.addGroup("energy ingest, grid archives", second[:]...)
	m, err := ingest(ctx, "ag")
	r.add(m)
	if err != nil {
		return err
	}
	var third [2][]measure
	err = r.sideBySide(ctx, "data archives", 2, func(ctx context.Context, i int) error {
		domain := benchDomains[i]
		ms, err := r.buildArchives(ctx, limitEnv(domain), data, groups[domain])
		third[i] = ms
		return err
	})
	if err != nil {
		return err
	}
	r.addGroup("energy and agriculture archives", third[:]...)
	if r.prepare != "" {
		return writeLoadSample(ctx, r.prepare, data)
	}
	return r.serve(ctx, data)
}

// LoadSample is what meridian-bench scale -prepare writes: where the data is and
// what a load over it asks for (the same draws as the served load's).
type LoadSample struct {
	Data      string              `json:"data"`
	LSDs      []string            `json:"lsds"`      // LSDs with energy data
	Quarters  []string            `json:"quarters"`  // quarter sections with agriculture data
	Operators []string            `json:"operators"` // the operators with the most wells
	Tiles     map[string][][3]int `json:"tiles"`     // by layer (ab/sec): z, x, y of tiles the archive holds
	// GridParcels are quarters and LSDs the official grid indexes hold,
	// and GridPoints (lng, lat) points inside their townships: at a
	// reduced fraction the indexes cover part of each province, and a
	// lookup elsewhere is the model's, which reads no index.
	GridParcels []string     `json:"grid_parcels"`
	GridPoints  [][2]float64 `json:"grid_points"`
}

// sampleTileLayers are the archives whose tiles the load reads: an energy
// and an agriculture data layer and the grid's sections.
var sampleTileLayers = []string{"energy/og_activity_lsd", "ag/ag_summary_qs", "ab/sec"}

// writeLoadSample writes the LoadSample of data to path.
func writeLoadSample(ctx context.Context, path, data string) error {
	abs, err := filepath.Abs(data)
	if err != nil {
		return err
	}
	keys, err := sampleKeys(ctx, data, 2000)
	if err != nil {
		return err
	}
	s := LoadSample{Data: abs, LSDs: keys.lsds, Quarters: keys.quarters, Operators: keys.operators, Tiles: map[string][][3]int{}}
	for _, l := range sampleTileLayers {
		p := datadir.TileArchive(datadir.Dir(data).Tiles(), l+".pmtiles")
		if _, err := os.Stat(p); err != nil {
			return fmt.Errorf("load sample: %w", err)
		}
		ts, err := sampleArchive(ctx, p, 2048)
		if err != nil {
			return err
		}
		for _, t := range ts.tiles {
			s.Tiles[ts.layer] = append(s.Tiles[ts.layer], [3]int{int(t.Z), int(t.X), int(t.Y)})
		}
	}
	if s.GridParcels, s.GridPoints, err = sampleGrid(ctx, data, 2000); err != nil {
		return err
	}
	b, err := json.Marshal(s)
	if err != nil {
		return err
	}
	return os.WriteFile(path, b, 0o644)
}

// sampleGrid draws up to n quarters and LSDs of the DLS townships the
// grid indexes of data hold, and n points inside those townships.
func sampleGrid(ctx context.Context, data string, n int) ([]string, [][2]float64, error) {
	dir := filepath.Join(data, "grid")
	files, err := filepath.Glob(filepath.Join(dir, "*.mgix"))
	if err != nil || len(files) == 0 {
		return nil, nil, fmt.Errorf("load sample: no grid indexes in %s (%v)", dir, err)
	}
	rng := rand.New(rand.NewPCG(13, 17))
	var parcels []string
	var points [][2]float64
	for _, f := range files {
		ix, err := gridindex.Open(ctx, blob.NewDir(dir), filepath.Base(f), gridindex.Options{CacheBytes: 1})
		if err != nil {
			return nil, nil, err
		}
		groups, err := ix.GroupKeys(ctx, "", 1<<20)
		if err != nil {
			return nil, nil, err
		}
		rng.Shuffle(len(groups), func(i, j int) { groups[i], groups[j] = groups[j], groups[i] })
		for _, g := range groups[:min(len(groups), 64)] {
			recs, err := ix.GroupByKey(ctx, g)
			if err != nil {
				return nil, nil, err
			}
			for _, r := range recs {
				if r.Location.System != lld.DLS || (r.Location.Unit != lld.QuarterSection && r.Location.Unit != lld.LSD) {
					continue
				}
				parcels = append(parcels, r.Location.String())
				if r.Geometry != nil {
					b := r.Geometry.Bound()
					points = append(points, [2]float64{b.Min[0] + rng.Float64()*(b.Max[0]-b.Min[0]), b.Min[1] + rng.Float64()*(b.Max[1]-b.Min[1])})
				}
			}
		}
	}
	rng.Shuffle(len(parcels), func(i, j int) { parcels[i], parcels[j] = parcels[j], parcels[i] })
	rng.Shuffle(len(points), func(i, j int) { points[i], points[j] = points[j], points[i] })
	if len(parcels) == 0 || len(points) == 0 {
		return nil, nil, fmt.Errorf("load sample: the grid indexes in %s hold no DLS quarters or LSDs", dir)
	}
	return parcels[:min(n, len(parcels))], points[:min(n, len(points))], nil
}

// manifestGrid is a grid meridian demo wrote: its ingest format and files.
type manifestGrid struct {
	Format string   `json:"format"`
	Files  []string `json:"files"`
}

// readManifest reads the SCALE.json meridian demo wrote in dir.
func readManifest(dir string) (scaleManifest, error) {
	var m scaleManifest
	b, err := os.ReadFile(filepath.Join(dir, "SCALE.json"))
	if err != nil {
		return m, err
	}
	if err := json.Unmarshal(b, &m); err != nil {
		return m, fmt.Errorf("%s: %w", filepath.Join(dir, "SCALE.json"), err)
	}
	return m, nil
}

// ingestGrids ingests each grid of grids side by side and returns a row
// per ingest (a detail) and the group's row: the longest ingest's time
// and the sum of their peaks.
func (r *scaleRun) ingestGrids(ctx context.Context, src, data string, grids []manifestGrid) ([]measure, error) {
	ms := make([]measure, len(grids))
	err := r.sideBySide(ctx, "ingest grids", len(grids), func(ctx context.Context, i int) error {
		g := grids[i]
		args := []string{"ingest", "grid", "-format", g.Format, "-data", data}
		for _, f := range g.Files {
			args = append(args, filepath.Join(src, "grid", filepath.FromSlash(f)))
		}
		out, el, rss, err := r.child(ctx, "ingest-grid-"+g.Format, args...)
		ms[i] = measure{step: "ingest grid " + g.Format, rows: firstInt(out, `-> (\d+) records`), unit: "records", note: megabytes(firstInt(out, `groups, (\d+) bytes`)) + " index", time: el, rss: rss, detail: true}
		return err
	})
	g := measure{step: "ingest grids, side by side", note: fmt.Sprintf("%d side by side", len(ms))}
	for _, m := range ms {
		g.time = max(g.time, m.time)
		g.rss += m.rss
	}
	return append(ms, g), err
}

// laneMemoryLimits are the Go soft memory limits (GOMEMLIMIT) of each
// domain's archive build while the two run side by side: the bound is on
// the sum of their peaks. A job alone has jobMemoryLimit (1 GiB). Live at
// province size (heap profiles): energy's archives 120-180 MB; the
// agriculture build, the longer one and the larger, gets the headroom.
var laneMemoryLimits = map[string]int64{"energy": 500 << 20, "ag": 850 << 20}

// limitEnv is the environment that sets domain's lane memory limit.
func limitEnv(domain string) []string {
	return []string{fmt.Sprintf("GOMEMLIMIT=%dMiB", laneMemoryLimits[domain]>>20)}
}

// archiveGroups returns the layers each archive build makes, by domain:
// "grid" (the grid archives: ab/sec, served beside pmtiles serve as every archive is, and the
// others of -grid-archives: the local server draws grid tiles on demand,
// so they are AWS's; one code path, a cost per layer), and each report
// domain's data archives, built in one process as meridian ingest builds
// them: the domain's store is read once for all of them.
func (r *scaleRun) archiveGroups() (map[string][]string, error) {
	groups := map[string][]string{"grid": r.grids}
	for _, region := range benchDomains {
		for _, l := range datalayers.Layers(region) {
			groups[region] = append(groups[region], l.Path())
		}
	}
	for _, d := range []string{"grid", "energy", "ag"} {
		if len(groups[d]) == 0 {
			return nil, fmt.Errorf("no %s archives to build", d)
		}
	}
	return groups, nil
}

// buildArchives builds the archives of layers in one build-tiles process
// and returns a row per archive (with the process's peak) and, when it
// made more than one, the process's own row.
func (r *scaleRun) buildArchives(ctx context.Context, env []string, data string, layers []string) ([]measure, error) {
	region, _, _ := strings.Cut(layers[0], "/")
	if slices.Equal(layers, r.grids) {
		region = "grid"
	}
	out, el, rss, err := r.childEnv(ctx, env, "tiles-"+region, append([]string{"build-tiles", "-q", "-data", data}, layers...)...)
	if err != nil {
		return nil, err
	}
	var ms []measure
	var tiles int64
	for _, line := range strings.Split(out, "\n") {
		f := strings.Split(line, "\t")
		if len(f) != 5 || !strings.HasSuffix(f[2], " tiles") {
			continue // a layer without data in this run, or a note
		}
		n := firstInt(f[2], `(\d+) tiles`)
		d, _ := time.ParseDuration(f[4])
		tiles += n
		ms = append(ms, measure{step: "archive " + f[0], rows: n, unit: "tiles", note: megabytes(firstInt(f[3], `(\d+) bytes`)), time: d, rss: rss, detail: true})
	}
	whole := measure{step: "archives " + region + ", one process", rows: tiles, unit: "tiles", time: el, rss: rss}
	if len(ms) == 1 {
		ms[0].time, ms[0].detail = el, false // the process made one archive: its row is the process's
		return ms, nil
	}
	return append(ms, whole), nil
}

// intRes are firstInt's compiled patterns; steps side by side share them.
var intRes sync.Map // pattern → *regexp.Regexp

// firstInt returns the integer the first group of pattern matches in s, 0
// when it does not match.
func firstInt(s, pattern string) int64 {
	re, ok := intRes.Load(pattern)
	if !ok {
		re, _ = intRes.LoadOrStore(pattern, regexp.MustCompile(pattern))
	}
	m := re.(*regexp.Regexp).FindStringSubmatch(s)
	if m == nil {
		return 0
	}
	n, _ := strconv.ParseInt(m[1], 10, 64)
	return n
}

// serve starts the server on data as a child process, loads it with every
// scenario and records its peak RSS.
func (r *scaleRun) serve(ctx context.Context, data string) error {
	sample, err := sampleKeys(ctx, data, 2000)
	if err != nil {
		return err
	}
	addr, err := freeAddr()
	if err != nil {
		return err
	}
	logf, err := os.Create(filepath.Join(r.dir, "logs", "serve.log"))
	if err != nil {
		return err
	}
	defer logf.Close()
	t0 := time.Now()
	srv, err := startServe(ctx, r.bin, logf, "-addr", addr, "-data", data, "-log-level", "error")
	if err != nil {
		return fmt.Errorf("%w (see %s)", err, logf.Name())
	}
	stopped := false
	defer func() {
		if !stopped {
			srv.stop()
		}
	}()
	base, key := srv.base, srv.key
	pid := srv.cmd.Process.Pid
	r.add(measure{step: "serve: start", time: time.Since(t0), rss: procHWM(pid)})

	scenarios := append(sample.scenarios(), scenarios()...)
	// Every tile archive served is read from this server and from pmtiles
	// serve, one process over the whole tiles directory (its archive names
	// may hold slashes: /energy/og_activity_lsd/{z}/{x}/{y}.mvt), side by
	// side on the same sampled tiles.
	tilesDir := datadir.Dir(data).Tiles()
	var tileLayers []string
	for _, l := range sampleTileLayers {
		if _, err := os.Stat(datadir.TileArchive(tilesDir, l+".pmtiles")); err == nil {
			tileLayers = append(tileLayers, l)
		}
	}
	pmURL := ""
	if r.pmtiles != "" && len(tileLayers) > 0 {
		port, err := freeAddr()
		if err != nil {
			return err
		}
		_, portOnly, _ := net.SplitHostPort(port)
		pm := exec.CommandContext(ctx, r.pmtiles, "serve", tilesDir, "--port", portOnly)
		pm.Stdout, pm.Stderr = logf, logf
		if err := pm.Start(); err != nil {
			return fmt.Errorf("pmtiles serve: %w", err)
		}
		defer func() { pm.Process.Kill(); pm.Wait() }()
		pmURL = "http://127.0.0.1:" + portOnly
		if err := waitHTTP(ctx, pmURL+"/"+tileLayers[0]+".json"); err != nil {
			return fmt.Errorf("pmtiles serve: %w", err)
		}
	}
	for _, l := range tileLayers {
		ts, err := sampleArchive(ctx, datadir.TileArchive(tilesDir, l+".pmtiles"), 2048)
		if err != nil {
			return err
		}
		ts.name = l // pmtiles serve's name of it, under the tiles directory
		for _, s := range ts.scenarios(pmURL) {
			if s.name == "tiles" {
				s.name = "tiles " + ts.layer
			} else { // the same tiles from pmtiles serve
				s.name = "tiles " + ts.layer + pmtilesSuffix
			}
			scenarios = append(scenarios, s)
		}
	}
	hello, stopHello, err := startHello()
	if err != nil {
		return err
	}
	defer stopHello()
	scenarios = append([]scenario{helloScenario(hello)}, scenarios...)
	for _, s := range scenarios {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if strings.HasPrefix(s.name, "tiles ") {
			// Unmeasured first: the tiles are read from this server and
			// then from pmtiles serve, and the second read the archive's
			// pages from the page cache the first had filled (in CI's 1 s
			// runs pmtiles serve came out ahead of us by that alone).
			runScenario(ctx, base, key, s, r.conns, tileWarmup(r.duration), 200000)
		}
		res := runScenario(ctx, base, key, s, r.conns, r.duration, 200000)
		m := measure{step: "GET " + s.name, rows: int64(res.n) * int64(max(1, s.perRequest)), unit: "requests", time: r.duration,
			rate: res.rps * float64(max(1, s.perRequest)), p50: res.p50, p99: res.p99, errors: res.errors}
		if s.perRequest > 1 {
			m.unit = "locations"
		}
		if s.name == helloName {
			m.step = helloStep
		}
		r.add(m)
		if res.errors > 0 {
			fmt.Fprintf(r.log, "scale-test: %s: first error: %s\n", s.name, res.firstErr)
		}
		if layer, ok := strings.CutSuffix(s.name, pmtilesSuffix); ok {
			r.add(againstPMTiles(r.rows, layer))
		}
	}
	hwm := procHWM(pid)
	stopped = true
	if rss := maxRSS(srv.stop()); rss > hwm {
		hwm = rss
	}
	r.add(measure{step: "serve: whole load", time: time.Since(t0), rss: hwm})
	return nil
}

// pmtilesSuffix ends the name of a scenario reading tiles from pmtiles
// serve: "tiles ab/sec from pmtiles serve".
const pmtilesSuffix = " from pmtiles serve"

// againstPMTiles is the row comparing the tiles/s of layer ("tiles ab/sec")
// from this server with those from pmtiles serve, measured just before:
// "1.23x pmtiles serve".
func againstPMTiles(rows []measure, layer string) measure {
	var ours, theirs float64
	for _, m := range rows {
		switch m.step {
		case "GET " + layer:
			ours = m.rate
		case "GET " + layer + pmtilesSuffix:
			theirs = m.rate
		}
	}
	m := measure{step: layer + " against pmtiles serve", note: "-"}
	if ours > 0 && theirs > 0 {
		m.note = fmt.Sprintf("%.2fx pmtiles serve", ours/theirs)
	}
	return m
}

// tileWarmup is how long a tile scenario runs unmeasured before it is
// measured: half the measured time, at most a second (about 7,000 reads
// of 2,048 sampled tiles at this machine's rates: nearly every one).
func tileWarmup(d time.Duration) time.Duration { return min(d/2, time.Second) }

// procHWM reads the peak resident memory of a running process (VmHWM),
// 0 where /proc is not there.
func procHWM(pid int) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return kb << 10
		}
	}
	return 0
}

func freeAddr() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer ln.Close()
	return ln.Addr().String(), nil
}

func waitHTTP(ctx context.Context, u string) error {
	for i := 0; i < 100; i++ {
		resp, err := http.Get(u)
		if err == nil {
			resp.Body.Close()
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
	return fmt.Errorf("%s did not answer", u)
}

// benchDomains are the report domains, each with its own store and data
// archives.
var benchDomains = []string{energy.Dataset, ag.Dataset}

// openServed opens domain's served report version of data read-only.
func openServed(data datadir.Dir, domain string) (*kv.Bolt, bool, error) {
	store, _, ok, err := data.Reports(domain).OpenCurrent(boltdir.ScanRelease)
	return store, ok, err
}

// keySample is a random sample of the parcels and operators that have
// report data: what the report and list scenarios ask for.
type keySample struct {
	lsds, quarters, operators []string
}

// sampleKeys draws up to n LSDs with energy data, n quarters with
// agriculture data and the operators with the most wells (the largest
// lists), from the versions served in data.
func sampleKeys(ctx context.Context, data string, n int) (keySample, error) {
	var s keySample
	draw := func(domain, dataset, pkPrefix string, into *[]string) error {
		store, ok, err := openServed(datadir.Dir(data), domain)
		if err != nil || !ok {
			return fmt.Errorf("%s report store: ok %v, %v", domain, ok, err)
		}
		defer store.Close()
		ds, ok, err := kv.Open(ctx, store, dataset)
		if err != nil || !ok {
			return fmt.Errorf("%s dataset: ok %v, %v", domain, ok, err)
		}
		rng := rand.New(rand.NewPCG(3, 5))
		seen, last := 0, ""
		return ds.ScanKeys(ctx, pkPrefix, func(keys []kv.Key) error {
			for _, k := range keys {
				id := strings.TrimPrefix(k.PK, pkPrefix)
				if id == last { // a partition's items come together (key order)
					continue
				}
				last = id
				seen++ // reservoir sampling: every partition equally likely
				if len(*into) < n {
					*into = append(*into, id)
				} else if j := rng.IntN(seen); j < n {
					(*into)[j] = id
				}
			}
			return nil
		})
	}
	if err := draw("energy", energy.Dataset, energy.LSDKey(""), &s.lsds); err != nil {
		return s, err
	}
	if err := draw("ag", ag.Dataset, ag.QuarterKey(""), &s.quarters); err != nil {
		return s, err
	}
	store, _, err := openServed(datadir.Dir(data), "energy")
	if err != nil {
		return s, err
	}
	defer store.Close()
	ds, _, err := kv.Open(ctx, store, energy.Dataset)
	if err != nil {
		return s, err
	}
	p, err := ds.Query(ctx, kv.Query{PK: energy.PKOperators, Limit: kv.MaxLimit})
	if err != nil {
		return s, err
	}
	type op struct {
		ba    string
		wells int
	}
	var ops []op
	for _, it := range p.Items {
		var row energy.OperatorRow
		if json.Unmarshal(it.Data, &row) == nil {
			ops = append(ops, op{row.BACode, row.ActiveWells + row.AbandonedWells + row.OrphanWells})
		}
	}
	for i := range ops { // the 20 largest: the worst lists
		for j := i + 1; j < len(ops); j++ {
			if ops[j].wells > ops[i].wells {
				ops[i], ops[j] = ops[j], ops[i]
			}
		}
		if i == 19 {
			break
		}
	}
	for _, o := range ops[:min(20, len(ops))] {
		s.operators = append(s.operators, o.ba)
	}
	if len(s.lsds) == 0 || len(s.quarters) == 0 || len(s.operators) == 0 {
		return s, fmt.Errorf("no report data to sample: %d LSDs, %d quarters, %d operators", len(s.lsds), len(s.quarters), len(s.operators))
	}
	return s, nil
}

// scenarios are the report and list requests over the sample.
func (s keySample) scenarios() []scenario {
	get := func(name string, ids []string, path func(id string) string) scenario {
		return scenario{name, 1, func(base string, rng *rand.Rand) (*http.Request, error) {
			return http.NewRequest("GET", base+path(ids[rng.IntN(len(ids))]), nil)
		}}
	}
	q := url.QueryEscape
	return []scenario{
		get("energy report", s.lsds, func(id string) string { return "/energy/report?legal_location=" + q(id) }),
		get("energy wells list", s.lsds, func(id string) string { return "/energy/wells?legal_location=" + q(id) }),
		get("energy tenure list", s.lsds, func(id string) string { return "/energy/tenure?legal_location=" + q(id) }),
		get("ag report", s.quarters, func(id string) string { return "/ag/report?legal_location=" + q(id) }),
		get("operators list", []string{"orphan", "active", "name"}, func(id string) string { return "/energy/operators?sort=" + id }),
		get("largest operators' wells, page 1", s.operators, func(id string) string { return "/energy/operators/" + q(id) + "?view=wells" }),
		get("largest operators' dispositions", s.operators, func(id string) string { return "/energy/operators/" + q(id) + "?view=dispositions" }),
		get("tenure expiring, 10 years", []string{"3650"}, func(id string) string { return "/energy/tenure/expiring?expires_within_days=" + id }),
		get("tenure expiring, 10 years, page 20", []string{"3650"}, func(id string) string {
			return "/energy/tenure/expiring?expires_within_days=" + id + "&page=20&per_page=200"
		}),
	}
}

// printScaleTable prints every run's steps side by side.
func printScaleTable(w io.Writer, runs []*scaleRun) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	header := "step\t"
	for _, r := range runs {
		header += r.name + ": count\ttime\tper s\tx hello\tp50\tp99\tpeak RSS MB\t"
	}
	fmt.Fprintln(tw, header)
	var steps []string
	seen := map[string]bool{}
	for _, r := range runs {
		for _, m := range r.rows {
			if !seen[m.step] {
				seen[m.step] = true
				steps = append(steps, m.step)
			}
		}
	}
	for _, step := range steps {
		line := step + "\t"
		for _, r := range runs {
			var m *measure
			for i := range r.rows {
				if r.rows[i].step == step {
					m = &r.rows[i]
				}
			}
			if m == nil {
				line += "\t\t\t\t\t\t\t"
				continue
			}
			ratio := "-"
			if h := r.hello(); m.p50 > 0 && h > 0 && m.unit == "requests" {
				ratio = fmt.Sprintf("%.2f", m.rate/h)
			}
			line += fmt.Sprintf("%s\t%s\t%s\t%s\t%s\t%s\t%s\t", count(m), dur(m.time), rate(m.rate), ratio, dur(m.p50), dur(m.p99), mb(m.rss))
		}
		fmt.Fprintln(tw, line)
	}
	tw.Flush()
}

func count(m *measure) string {
	if m.rows == 0 && m.unit == "" {
		return cmp.Or(m.note, "-")
	}
	s := fmt.Sprintf("%d %s", m.rows, m.unit)
	if m.note != "" {
		s += " (" + m.note + ")"
	}
	if m.errors > 0 {
		s += fmt.Sprintf(" %d errors", m.errors)
	}
	return s
}

func megabytes(b int64) string { return fmt.Sprintf("%.1f MB", float64(b)/1e6) }

func dur(d time.Duration) string {
	switch {
	case d == 0:
		return "-"
	case d < time.Millisecond:
		return d.Round(time.Microsecond).String()
	case d < time.Second:
		return d.Round(10 * time.Microsecond).String()
	}
	return d.Round(10 * time.Millisecond).String()
}

func rate(r float64) string {
	if r == 0 {
		return "-"
	}
	return strconv.FormatFloat(r, 'f', 0, 64)
}

func mb(b int64) string {
	if b == 0 {
		return "-"
	}
	return strconv.FormatInt(b>>20, 10)
}
