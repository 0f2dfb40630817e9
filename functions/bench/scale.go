package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

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
	gridCache := fs.Int64("grid-cache-mib", 512, "the server's -grid-cache-mib and -grid-warm-mib: 512 holds nearly all of the full-size Alberta index (its blocks and directories take about 479 MiB; the cache keeps 480 MiB of 512 for them, and 7,179 of its 7,200 townships warm within it), which search, reverse and batch draw from, and the server reads it into its cache before serving (it is listed first)")
	pmtilesBin := fs.String("pmtiles", "", "the go-pmtiles binary: every tile archive served (energy/og_activity_lsd, ag/ag_summary_qs, ab/sec) is read from pmtiles serve too, side by side, and compared")
	gridArchives := fs.String("grid-archives", "ab/sec", `grid archives built from the ingested official indexes: a comma-separated list of layers, or "all" (every grid and label layer of AB, SK and MB); ab/sec is always built`)
	maxTime := fs.Duration("max-time", 25*time.Minute, "bound on the whole run's wall time")
	which := fs.String("runs", "demo,province", "the runs, in order: demo (the small demo data) and province (-fraction of the published size)")
	prepare := fs.String("prepare", "", "only build each run's data under -dir (kept) and write FILE: the data directory and a sample of the parcels, operators and tiles the load would ask for (JSON, for make bench-aws); nothing is served")
	serveOnly := fs.Bool("serve-only", false, "with -dir: only serve each run's data already built there (by -prepare, or a run whose -dir was kept) and load it; nothing is generated or ingested, so the table has the serving rows only. For measuring a change to the server at full size without the half hour of building. With -prepare: only write the sample of that data")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *serveOnly && *dir == "" {
		fmt.Fprintln(stderr, "meridian-bench scale: -serve-only needs -dir: the data built there before")
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
		r.gridCacheMiB, r.serveOnly = *gridCache, *serveOnly
		fmt.Fprintf(stderr, "scale-test: %s run in %s\n", r.name, r.dir)
		if err := r.run(ctx); err != nil {
			fmt.Fprintf(stderr, "meridian-bench scale: %s: %v\n", r.name, err)
			printScaleTable(stdout, runs)
			fmt.Fprintf(stdout, "scale: FAILED in the %s run after %s: %v\n", r.name, time.Since(start).Round(time.Second), err)
			return 1
		}
	}
	printScaleTable(stdout, runs)
	for _, r := range runs {
		if r.changes != "" {
			fmt.Fprintf(stdout, "%s: %s\n", r.name, r.changes)
		}
	}
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
	name, scale  string
	fraction     float64
	seed         uint64
	bin, dir     string
	log          io.Writer
	duration     time.Duration
	conns        int
	pmtiles      string
	grids        []string // grid archives to build, ab/sec first
	prepare      string   // -prepare: write the load sample there instead of serving
	gridCacheMiB int64    // the server's -grid-cache-mib
	rows         []measure
	changes      string // the change feed's line (the second energy ingest)
	serveOnly    bool   // serve the data built in dir before, build nothing
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
	hello  float64 // hello-world's requests per second just before and after this route (mean); 0: none
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
	srcNext := filepath.Join(r.dir, "src-next")
	if r.serveOnly {
		if _, err := os.Stat(data); err != nil {
			return fmt.Errorf("-serve-only: %w", err)
		}
		if err := os.MkdirAll(filepath.Join(r.dir, "logs"), 0o755); err != nil {
			return err
		}
		if r.prepare != "" {
			return writeLoadSample(ctx, r.prepare, data)
		}
		return r.serve(ctx, data)
	}
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
		if err == nil && domain == "energy" {
			// The next version of the same data, with known differences,
			// for the change feed's second ingest.
			next := append(slices.Clone(args[:len(args)-1]), "-next", "-o", srcNext, "energy")
			_, el, rss, err = r.child(ctx, "generate-energy-next", next...)
			first[i] = append(first[i], measure{step: "generate energy, next version", rows: manifests[i].Rows, unit: "records", time: el, rss: rss})
		}
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
	// beside the energy ingest, the energy archives (under
	// energyArchivesLimit) beside the agriculture ingest.
	groups, err := r.archiveGroups()
	if err != nil {
		return err
	}
	var energyOut string // the first energy ingest's summary
	ingestFrom := func(ctx context.Context, domain, from, step string) (measure, string, error) {
		args := []string{"ingest", domain, "-invented", "-tiles=false", "-data", data}
		if asOf := manifest[domain].AsOf; domain == "energy" && asOf != "" {
			args = append(args, "-now", asOf)
		}
		args = append(args, from)
		out, el, rss, err := r.child(ctx, strings.ReplaceAll(step, " ", "-"), args...)
		m := measure{step: step, rows: manifest[domain].Rows, unit: "records", note: fmt.Sprintf("%d items", firstInt(out, ` (\d+) items in`)), time: el, rss: rss}
		return m, out, err
	}
	ingest := func(ctx context.Context, domain string) (measure, error) {
		m, out, err := ingestFrom(ctx, domain, filepath.Join(src, domain), "ingest "+domain)
		if domain == "energy" {
			energyOut = out
		}
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
	// The next version of the energy data: the change feed compares it
	// with the first (changefeed). Alone, as the first was beside the
	// grid archives: its time is compared with the first's, and the
	// diff's own part is the ingest's "changes:" line.
	firstEnergy := second[0][0]
	m, out, err := ingestFrom(ctx, "energy", filepath.Join(srcNext, "energy"), "ingest energy, next version")
	found := firstInt(out, `changes: (\d+) found`)
	m.note += fmt.Sprintf(", %d changes", found)
	r.add(m)
	if err != nil {
		return err
	}
	r.changes = fmt.Sprintf("changes: %d found in %s (the diff's part of the ingest; the first ingest's snapshot alone: %s), peak RSS %d MB; "+
		"the second energy ingest %s against the first's %s (x%.2f, the first beside the grid archives)",
		found, changeTime(out), changeTime(energyOut), m.rss>>20, dur(m.time), dur(firstEnergy.time), m.time.Seconds()/max(firstEnergy.time.Seconds(), 1e-9))
	fmt.Fprintf(r.log, "scale-test: %s: %s\n", r.name, r.changes)
	// The agriculture ingest beside the energy archives (the energy data
	// is final now), then the agriculture archives alone: their store's
	// load is the longest part of the build and runs on both cores when
	// nothing else does. The two domains' archives side by side, after
	// the agriculture ingest, took 9 to 11 minutes, most of it the
	// agriculture build sharing the machine.
	var third [2][]measure
	err = r.sideBySide(ctx, "agriculture ingest, energy archives", 2, func(ctx context.Context, i int) error {
		if i == 0 {
			m, err := ingest(ctx, "ag")
			third[0] = []measure{m}
			return err
		}
		ms, err := r.buildArchives(ctx, energyArchivesEnv(), data, groups["energy"])
		third[1] = ms
		return err
	})
	if err != nil {
		return err
	}
	r.addGroup("agriculture ingest, energy archives", third[:]...)
	ms, err := r.buildArchives(ctx, nil, data, groups["ag"])
	for _, m := range ms {
		r.add(m)
	}
	if err != nil {
		return err
	}
	if r.prepare != "" {
		return writeLoadSample(ctx, r.prepare, data)
	}
	return r.serve(ctx, data)
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

// energyArchivesLimit is the Go soft memory limit (GOMEMLIMIT) of the
// energy archives' build while it runs beside the agriculture ingest (peak
// about 750 MB under its own 1 GiB, jobMemoryLimit): the bound is on the
// sum of their peaks. Live at province size (heap profiles): energy's
// archives 120-180 MB.
const energyArchivesLimit = 500 << 20

// energyArchivesEnv is the environment that sets energyArchivesLimit.
func energyArchivesEnv() []string {
	return []string{fmt.Sprintf("GOMEMLIMIT=%dMiB", energyArchivesLimit>>20)}
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
// changeTime is the time an energy ingest's "changes:" line gives its
// change feed ("in 1.5s"); "?" when it gives none.
func changeTime(out string) string {
	m := regexp.MustCompile(`(?m)^changes: .* in ([0-9.a-zµ]+)\)?$`).FindStringSubmatch(out)
	if m == nil {
		return "?"
	}
	return m[1]
}

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
