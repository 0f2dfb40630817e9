package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net/http"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	s3types "github.com/aws/aws-sdk-go-v2/service/s3/types"

	"meridian/shared/atomicfile"
	"meridian/shared/datadir"
	"meridian/shared/datafetch"
	"meridian/shared/energy/changefeed"
	"meridian/shared/release"
)

// defaultPrefix is where the job keeps, in the data bucket, the downloads
// of every dataset it fetched: <prefix>downloads/<key>/state.json (the
// ETag, Last-Modified and SHA-256 of each URL, datafetch's pointer) and
// <prefix>downloads/<key>/<version>/<file>. A run starts from them, so
// its conditional GETs answer 304 when nothing changed, and an energy or
// agriculture ingest reads the other datasets of its domain as they were
// last fetched. <prefix>changes/energy/ holds the energy change feed's
// state (package energy/changefeed: the last published version's snapshot
// and the changes retained), pulled into the scratch data directory before
// an energy ingest and pushed back once its version is published.
const defaultPrefix = "refresh/"

// objectStore is what the job asks of S3.
type objectStore interface {
	GetObject(context.Context, *s3.GetObjectInput, ...func(*s3.Options)) (*s3.GetObjectOutput, error)
	PutObject(context.Context, *s3.PutObjectInput, ...func(*s3.Options)) (*s3.PutObjectOutput, error)
	DeleteObject(context.Context, *s3.DeleteObjectInput, ...func(*s3.Options)) (*s3.DeleteObjectOutput, error)
}

// Job refreshes datasets of the manifest (package datafetch): fetch,
// check, ingest into scratch storage, publish. It runs the binaries an
// operator runs by hand (`meridian data fetch`, then `meridian-publish
// -merge`), so the scheduled job and the command line
// take the same path: content-addressed S3 objects before one conditional
// manifest, a conditional DynamoDB counter and pointer per dataset.
//
// What a run holds: the scratch directory is emptied before and after it,
// so the disk used is one run's downloads, unpacked files and ingest
// output (Result.ScratchBytes; bounded by the Lambda's ephemeral storage
// or the task's disk, and a full disk fails the run, changing nothing
// served). The job itself streams objects through io.Copy and holds one
// state file at a time; meridian's memory is that of the ingest
// (Result.PeakRSSKiB).
type Job struct {
	S3       objectStore
	Bucket   string
	Table    string
	Prefix   string
	Scratch  string
	Meridian string // the meridian binary (data fetch)
	Publish  string // the meridian-publish binary
	// Env is added to the environment of meridian's runs (tests: the
	// emulators' credentials and MERIDIAN_FETCH_BASE_URL).
	Env []string
	// PublishFlags are added to `meridian-publish` (tests: endpoints).
	PublishFlags []string
	// FetchBaseURL points the dry run at a test server, as
	// MERIDIAN_FETCH_BASE_URL does for meridian.
	FetchBaseURL string
	// Now, when set, is the day monthly and yearly releases are counted
	// back from (meridian data fetch -now); tests pin it to the demo's.
	Now func() time.Time
	Log *slog.Logger
	Out io.Writer // meridian's output (the function's log)
}

// Request is a run's input: the Lambda's event, the task's REFRESH_DATASETS.
type Request struct {
	// Datasets are manifest keys (meridian data list).
	Datasets []string `json:"datasets"`
	// URL, with exactly one dataset, is that dataset's file as found by
	// hand (a page's date-stamped link, the link an order sends): the
	// way a dataset with a hand step joins the job's downloads.
	URL string `json:"url,omitempty"`
}

// Result says what a run did.
type Result struct {
	Datasets     []string `json:"datasets"`
	Updated      []string `json:"updated"`   // fetched, checked, ingested and published
	Unchanged    []string `json:"unchanged"` // every URL answered 304 (or the same validators)
	Published    bool     `json:"published"`
	ScratchBytes int64    `json:"scratch_bytes"` // the most the scratch directory held, sampled
	PeakRSSKiB   int64    `json:"peak_rss_kib"`  // the largest resident set of meridian and meridian-publish
	Seconds      float64  `json:"seconds"`
}

// Run refreshes req's datasets. Nothing is published unless a download
// changed, passed meridian's -check and ingested; the downloads recorded
// in the bucket move on only once the publish succeeded, so a run that
// fails is repeated in full by the next one.
func (j *Job) Run(ctx context.Context, req Request) (res Result, err error) {
	start := time.Now()
	res.Datasets = req.Datasets
	defer func() { res.Seconds = time.Since(start).Seconds() }()
	entries, err := selectEntries(req)
	if err != nil {
		return res, err
	}
	downloads := filepath.Join(j.Scratch, "downloads")
	if err := os.RemoveAll(j.Scratch); err != nil {
		return res, fmt.Errorf("refresh: clear %s: %w", j.Scratch, err)
	}
	if err := os.MkdirAll(downloads, 0o755); err != nil {
		return res, fmt.Errorf("refresh: %w", err)
	}
	defer os.RemoveAll(j.Scratch)
	stopSampling := j.sampleScratch(&res.ScratchBytes)
	defer stopSampling()

	// The states of the selected datasets and of the others their ingest
	// reads (an energy or agriculture ingest reads its whole domain).
	domain := domainOf(entries)
	prev := map[string]*datafetch.State{}
	for _, e := range domain {
		s, err := j.pullState(ctx, downloads, e.Key)
		if err != nil {
			return res, err
		}
		prev[e.Key] = s
	}
	if req.URL == "" {
		todo, err := j.anythingNew(ctx, downloads, entries, prev)
		if err != nil {
			return res, err
		}
		if !todo {
			for _, e := range entries {
				res.Unchanged = append(res.Unchanged, e.Key)
			}
			j.Log.Info("nothing changed", "datasets", req.Datasets)
			return res, nil
		}
	}
	for _, e := range domain {
		if err := j.pullFiles(ctx, downloads, e.Key, prev[e.Key]); err != nil {
			return res, err
		}
	}
	// A report ingest places parcels on the official grids, as the
	// functions do: the published indexes go where it reads them. Those an
	// ingest of this run did not replace are removed before the publish,
	// which must not name them again (a grid refresh may have replaced one
	// meanwhile).
	var pulled map[string]os.FileInfo
	if slices.ContainsFunc(entries, func(e datafetch.Entry) bool { return e.Ingest.Kind != "grid" }) {
		if pulled, err = j.pullGrids(ctx, filepath.Join(j.Scratch, "grid")); err != nil {
			return res, err
		}
	}

	energyRun := slices.ContainsFunc(entries, func(e datafetch.Entry) bool { return e.Ingest.Kind == "energy" })
	if energyRun {
		if err := j.pullChanges(ctx); err != nil {
			return res, err
		}
	}

	args := []string{"data", "fetch", "-data", j.Scratch, "-dataset", strings.Join(keysOf(entries), ",")}
	if req.URL != "" {
		args = append(args, "-url", req.URL)
	}
	if j.Now != nil {
		args = append(args, "-now", j.Now().Format("2006-01-02"))
	}
	fetchOut, fetchErr := j.meridian(ctx, &res, args...)
	for _, e := range entries {
		s, err := datafetch.ReadState(downloads, e.Key)
		switch {
		case err != nil:
			return res, fmt.Errorf("refresh: %w", err)
		case s != nil && (prev[e.Key] == nil || prev[e.Key].Version != s.Version):
			res.Updated = append(res.Updated, e.Key)
		case saidUnchanged(fetchOut, e.Key):
			res.Unchanged = append(res.Unchanged, e.Key)
		}
	}
	for path, was := range pulled {
		if now, err := os.Stat(path); err == nil && os.SameFile(was, now) {
			if err := os.Remove(path); err != nil {
				return res, fmt.Errorf("refresh: %w", err)
			}
		}
	}
	if len(res.Updated) > 0 {
		pub := append([]string{"-merge", "-data", j.Scratch, "-bucket", j.Bucket, "-table", j.Table}, j.PublishFlags...)
		if _, err := j.run(ctx, &res, j.Publish, pub...); err != nil {
			// The downloads in the bucket stay as they were: the next run
			// fetches, ingests and publishes these again.
			return res, errors.Join(fmt.Errorf("refresh: publish %s: %w", strings.Join(res.Updated, ", "), err), fetchErr)
		}
		res.Published = true
		// The change feed's state first: recorded without the downloads,
		// the next run ingests the same data again and finds no change;
		// the downloads without it, the next run finds this version's
		// changes again (at least once, never lost).
		if energyRun && slices.ContainsFunc(res.Updated, isEnergy) {
			if err := j.pushChanges(ctx); err != nil {
				return res, errors.Join(fmt.Errorf("refresh: energy was published, but its change feed state was not recorded (the next run reports these changes again): %w", err), fetchErr)
			}
		}
		for _, k := range res.Updated {
			if err := j.pushDownload(ctx, downloads, k, prev[k]); err != nil {
				return res, errors.Join(fmt.Errorf("refresh: %s was published, but its download was not recorded (the next run fetches it again): %w", k, err), fetchErr)
			}
		}
	}
	if fetchErr != nil {
		return res, fmt.Errorf("refresh: meridian data fetch: %w: %s", fetchErr, failures(fetchOut))
	}
	return res, nil
}

// selectEntries checks req against the manifest.
func selectEntries(req Request) ([]datafetch.Entry, error) {
	if len(req.Datasets) == 0 {
		return nil, fmt.Errorf("refresh: no datasets; the manifest's are %s", strings.Join(datafetch.Keys(), ", "))
	}
	if req.URL != "" && len(req.Datasets) != 1 {
		return nil, errors.New("refresh: a url needs exactly one dataset")
	}
	var out []datafetch.Entry
	for _, k := range req.Datasets {
		e, ok := datafetch.Lookup(k)
		if !ok {
			return nil, fmt.Errorf("refresh: no dataset %q; the manifest's are %s", k, strings.Join(datafetch.Keys(), ", "))
		}
		if !e.Access.Unattended() && req.URL == "" {
			return nil, fmt.Errorf("refresh: %s needs a hand step (%s: %s): run it with the file's url", k, e.Access, e.Note)
		}
		out = append(out, e)
	}
	return out, nil
}

// domainOf returns entries and every other entry an ingest of theirs
// reads: the energy and agriculture ingests read their whole domain, a
// grid ingest one dataset.
func domainOf(entries []datafetch.Entry) []datafetch.Entry {
	out := slices.Clone(entries)
	for _, e := range datafetch.Manifest() {
		if slices.ContainsFunc(out, func(x datafetch.Entry) bool { return x.Key == e.Key }) || e.Ingest.Kind == "grid" {
			continue
		}
		if slices.ContainsFunc(entries, func(x datafetch.Entry) bool { return x.Ingest == e.Ingest }) {
			out = append(out, e)
		}
	}
	return out
}

func keysOf(entries []datafetch.Entry) []string {
	var out []string
	for _, e := range entries {
		out = append(out, e.Key)
	}
	return out
}

// anythingNew asks each URL of entries, with the recorded validators,
// whether it changed (datafetch's dry run: HEAD, nothing downloaded). Any
// answer other than unchanged, or a set of URLs that differs from the
// recorded one (a month out of the window), calls for a full run.
func (j *Job) anythingNew(ctx context.Context, downloads string, entries []datafetch.Entry, prev map[string]*datafetch.State) (bool, error) {
	f := datafetch.New(datafetch.Options{Dir: downloads, BaseURL: j.FetchBaseURL, Now: j.Now, Client: &http.Client{Timeout: time.Minute}})
	published := map[string]int{}
	for _, p := range f.DryRun(ctx, entries) {
		j.Log.Info("dry run", "dataset", p.Key, "url", p.URL, "action", p.Action, "why", p.Why)
		switch p.Action {
		case "unchanged":
			published[p.Key]++
		case "not published":
		default:
			return true, nil
		}
	}
	for _, e := range entries {
		if prev[e.Key] == nil || len(prev[e.Key].Files) != published[e.Key] {
			return true, nil
		}
	}
	return false, ctx.Err()
}

func (j *Job) key(parts ...string) string {
	return j.Prefix + "downloads/" + path.Join(parts...)
}

// pullState copies a dataset's recorded state.json into downloads; nil
// when the job never fetched it.
func (j *Job) pullState(ctx context.Context, downloads, dataset string) (*datafetch.State, error) {
	ok, err := j.get(ctx, j.key(dataset, "state.json"), filepath.Join(downloads, dataset, "state.json"))
	if err != nil || !ok {
		return nil, err
	}
	s, err := datafetch.ReadState(downloads, dataset)
	if err != nil {
		return nil, fmt.Errorf("refresh: recorded state of %s: %w", dataset, err)
	}
	return s, nil
}

// pullFiles copies the files of a dataset's recorded version into
// downloads, where meridian data fetch reuses them.
func (j *Job) pullFiles(ctx context.Context, downloads, dataset string, s *datafetch.State) error {
	if s == nil {
		return nil
	}
	if err := checkName(s.Version); err != nil {
		return fmt.Errorf("refresh: recorded state of %s: version: %w", dataset, err)
	}
	for _, fs := range s.Files {
		for _, n := range fs.Files {
			if err := checkName(n); err != nil {
				return fmt.Errorf("refresh: recorded state of %s: %w", dataset, err)
			}
			ok, err := j.get(ctx, j.key(dataset, s.Version, n), filepath.Join(downloads, dataset, s.Version, n))
			if err != nil {
				return err
			}
			if !ok {
				return fmt.Errorf("refresh: s3://%s/%s: missing; its state names it", j.Bucket, j.key(dataset, s.Version, n))
			}
		}
	}
	return nil
}

// pushDownload records a dataset's new version in the bucket: its files
// first, state.json (the pointer) last, then the previous version's files
// are deleted.
func (j *Job) pushDownload(ctx context.Context, downloads, dataset string, old *datafetch.State) error {
	s, err := datafetch.ReadState(downloads, dataset)
	if err != nil || s == nil {
		return fmt.Errorf("state of %s: %v", dataset, err)
	}
	keep := map[string]bool{}
	for _, fs := range s.Files {
		for _, n := range fs.Files {
			keep[j.key(dataset, s.Version, n)] = true
			if err := j.put(ctx, j.key(dataset, s.Version, n), filepath.Join(downloads, dataset, s.Version, n)); err != nil {
				return err
			}
		}
	}
	if err := j.put(ctx, j.key(dataset, "state.json"), filepath.Join(downloads, dataset, "state.json")); err != nil {
		return err
	}
	if old == nil {
		return nil
	}
	for _, fs := range old.Files {
		for _, n := range fs.Files {
			if k := j.key(dataset, old.Version, n); !keep[k] {
				if _, err := j.S3.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: aws.String(j.Bucket), Key: aws.String(k)}); err != nil {
					j.Log.Warn("old download left in the bucket", "key", k, "err", err)
				}
			}
		}
	}
	return nil
}

// isEnergy reports whether dataset key is read by the energy ingest.
func isEnergy(key string) bool {
	e, ok := datafetch.Lookup(key)
	return ok && e.Ingest.Kind == "energy"
}

// changesKey is the object of a file of the energy change feed's state.
func (j *Job) changesKey(name string) string { return j.Prefix + "changes/energy/" + name }

// changeFiles are the energy change feed's state files, in the order they
// are pushed (the order changefeed commits them: the log before the
// snapshot).
var changeFiles = []string{changefeed.LogFile, changefeed.SnapshotFile}

// pullChanges copies the energy change feed's state into the scratch data
// directory, where the energy ingest compares its data with it; nothing
// when the job never published energy.
func (j *Job) pullChanges(ctx context.Context) error {
	dir := datadir.Dir(j.Scratch).EnergyChanges()
	for _, name := range changeFiles {
		if _, err := j.get(ctx, j.changesKey(name), filepath.Join(dir, name)); err != nil {
			return err
		}
	}
	return nil
}

// pushChanges records the state the energy ingest left in the scratch
// data directory.
func (j *Job) pushChanges(ctx context.Context) error {
	dir := datadir.Dir(j.Scratch).EnergyChanges()
	for _, name := range changeFiles {
		src := filepath.Join(dir, name)
		if _, err := os.Stat(src); err != nil {
			return fmt.Errorf("refresh: the energy ingest left no %s: %w", name, err)
		}
		if err := j.put(ctx, j.changesKey(name), src); err != nil {
			return err
		}
	}
	return nil
}

// pullGrids copies the grid indexes the bucket's grid manifest names into
// dir, by name, and returns what it wrote.
func (j *Job) pullGrids(ctx context.Context, dir string) (map[string]os.FileInfo, error) {
	tmp := filepath.Join(j.Scratch, ".grid-manifest.json")
	ok, err := j.get(ctx, "grid/"+release.ManifestKey, tmp)
	if err != nil || !ok {
		return nil, err // no manifest: no grids published yet, the models place parcels
	}
	defer os.Remove(tmp)
	if info, err := os.Stat(tmp); err != nil || info.Size() > release.MaxManifestBytes {
		return nil, fmt.Errorf("refresh: grid manifest: over %d bytes or unreadable (%v)", release.MaxManifestBytes, err)
	}
	b, err := os.ReadFile(tmp)
	if err != nil {
		return nil, err
	}
	var m release.Manifest
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("refresh: grid manifest: %w", err)
	}
	if err := m.Validate(); err != nil {
		return nil, fmt.Errorf("refresh: grid manifest: %w", err)
	}
	out := map[string]os.FileInfo{}
	for name, f := range m.Files {
		if err := checkName(name); err != nil {
			return nil, fmt.Errorf("refresh: grid manifest: %w", err)
		}
		path := filepath.Join(dir, name)
		if _, err := j.get(ctx, "grid/"+f.Key, path); err != nil {
			return nil, err
		}
		info, err := os.Stat(path)
		if err != nil {
			return nil, err
		}
		out[path] = info
		j.Log.Info("grid index for the ingest", "name", name, "key", f.Key)
	}
	return out, nil
}

// checkName refuses a file name from a state file that is not a plain name.
func checkName(n string) error {
	if n == "" || n == "." || n == ".." || strings.ContainsAny(n, `/\`) || strings.ContainsRune(n, 0) {
		return fmt.Errorf("file name %q is not a plain name", n)
	}
	return nil
}

// get copies object key to path, synced; false when there is no object.
func (j *Job) get(ctx context.Context, key, dst string) (bool, error) {
	out, err := j.S3.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String(j.Bucket), Key: aws.String(key)})
	var nsk *s3types.NoSuchKey
	if errors.As(err, &nsk) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("refresh: get s3://%s/%s: %w", j.Bucket, key, err)
	}
	defer out.Body.Close()
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return false, err
	}
	f, err := os.CreateTemp(filepath.Dir(dst), ".get-*")
	if err != nil {
		return false, err
	}
	defer os.Remove(f.Name())
	_, err = io.Copy(f, out.Body)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return false, fmt.Errorf("refresh: get s3://%s/%s: %w", j.Bucket, key, err)
	}
	return true, atomicfile.Rename(f.Name(), dst)
}

// put uploads the file at src to key.
func (j *Job) put(ctx context.Context, key, src string) error {
	f, err := os.Open(src)
	if err != nil {
		return err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return err
	}
	_, err = j.S3.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String(j.Bucket), Key: aws.String(key), Body: f, ContentLength: aws.Int64(info.Size())})
	if err != nil {
		return fmt.Errorf("refresh: put s3://%s/%s: %w", j.Bucket, key, err)
	}
	return nil
}

// meridian runs the meridian binary (see run).
func (j *Job) meridian(ctx context.Context, res *Result, args ...string) (string, error) {
	return j.run(ctx, res, j.Meridian, args...)
}

// run runs the program at bin, its output copied to j.Out and returned,
// and records its peak RSS in res.
func (j *Job) run(ctx context.Context, res *Result, bin string, args ...string) (string, error) {
	name := filepath.Base(bin)
	j.Log.Info("run", "cmd", name+" "+strings.Join(args, " "))
	what := name // the program and its subcommand, for errors
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		what += " " + args[0]
	}
	var buf strings.Builder
	w := io.MultiWriter(j.Out, &lockedWriter{w: &buf})
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env = append(os.Environ(), j.Env...)
	cmd.Stdout, cmd.Stderr = w, w
	err := cmd.Run()
	if cmd.ProcessState != nil {
		res.PeakRSSKiB = max(res.PeakRSSKiB, maxRSSKiB(cmd.ProcessState))
	}
	if err != nil {
		return buf.String(), fmt.Errorf("%s: %w", what, err)
	}
	return buf.String(), nil
}

type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// saidUnchanged reports whether meridian data fetch's output has the line
// "<key>: unchanged".
func saidUnchanged(out, key string) bool {
	for _, line := range strings.Split(out, "\n") {
		if strings.TrimSpace(line) == key+": unchanged" {
			return true
		}
	}
	return false
}

// failures picks the FAILED lines out of meridian data fetch's output.
func failures(out string) string {
	var fs []string
	for _, line := range strings.Split(out, "\n") {
		if strings.Contains(line, ": FAILED") {
			fs = append(fs, strings.TrimSpace(line))
		}
	}
	if len(fs) == 0 {
		return "see its output above"
	}
	return strings.Join(fs, "; ")
}

// sampleScratch records in *peak the most the scratch directory holds,
// every 250 ms until the returned function is called.
func (j *Job) sampleScratch(peak *int64) (stop func()) {
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	var mu sync.Mutex
	sample := func() {
		n := dirBytes(j.Scratch)
		mu.Lock()
		*peak = max(*peak, n)
		mu.Unlock()
	}
	go func() {
		defer wg.Done()
		t := time.NewTicker(250 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				sample()
			}
		}
	}()
	return func() {
		sample()
		close(done)
		wg.Wait()
	}
}

// dirBytes adds up the sizes of the regular files under dir (a file
// linked twice counts twice: an upper bound).
func dirBytes(dir string) int64 {
	var n int64
	filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			if info, err := d.Info(); err == nil {
				n += info.Size()
			}
		}
		return nil
	})
	return n
}
