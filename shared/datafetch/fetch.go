// Package datafetch downloads the official datasets Meridian ingests, as
// named by its manifest (Manifest), and hands what changed to the ingest.
//
// Per dataset: a conditional GET per URL (If-None-Match with the stored
// ETag, If-Modified-Since with Last-Modified; 304 is "unchanged"), a
// resumed download of a partial file (Range with If-Range; a server that
// ignores Range and answers 200 restarts the file), size checks
// (Content-Length or Content-Range, the manifest's size and SHA-256 where
// the publisher states them) and a SHA-256 recorded per file, then the
// zip archives unpacked (zip-slip, links, entry count, size and ratio
// guarded). The new version is checked and ingested through an Ingester,
// and only then named current. A failure at any step leaves the previous
// download and the served data as they were, and says which dataset, URL
// or file and why.
//
// Memory is bounded whatever the file sizes: downloads and unpacking
// stream through one 64 KiB buffer; an archive's directory (at most
// 100,000 entries) is the largest thing held.
package datafetch

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"meridian/shared/atomicfile"
)

// Ingester checks and ingests a dataset's files; functions/local runs
// `meridian ingest … -check` and `meridian ingest …` through it.
type Ingester interface {
	// Check reads the files as the ingest would and publishes nothing.
	Check(ctx context.Context, target Ingest, in Input) error
	// Ingest publishes them, switching versions as the ingest does.
	Ingest(ctx context.Context, target Ingest, in Input) error
}

// Input is what an ingest reads: every file of the target's datasets in
// one flat directory (hard links to the downloads).
type Input struct {
	Dir   string
	Files []string // absolute paths, sorted
}

// Options configure a Fetcher.
type Options struct {
	Dir    string       // downloads directory (DATA/downloads)
	Client *http.Client // default: http.Client with no overall timeout
	// BaseURL, when set, replaces the scheme and host of every URL (tests
	// point the manifest at a local server with it).
	BaseURL string
	// URLs replaces the URL of a dataset's single source (-url).
	URLs        map[string]string
	Now         func() time.Time
	MaxDownload int64 // bytes per downloaded file; default 64 GiB
	MaxUnpacked int64 // bytes unpacked from one download; default 128 GiB
	MaxRatio    int64 // largest compression ratio of a zip entry over 1 MiB; default 1000
	Attempts    int   // tries per URL (each resumes); default 3
	RetryDelay  time.Duration
	Log         io.Writer // progress lines; nil: quiet
}

// Fetcher downloads manifest entries.
type Fetcher struct{ opts Options }

// New returns a Fetcher with opts' defaults filled in.
func New(opts Options) *Fetcher {
	if opts.Client == nil {
		opts.Client = &http.Client{}
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.MaxDownload <= 0 {
		opts.MaxDownload = 64 << 30
	}
	if opts.MaxUnpacked <= 0 {
		opts.MaxUnpacked = 128 << 30
	}
	if opts.MaxRatio <= 0 {
		opts.MaxRatio = 1000
	}
	if opts.Attempts <= 0 {
		opts.Attempts = 3
	}
	if opts.RetryDelay == 0 {
		opts.RetryDelay = time.Second
	}
	return &Fetcher{opts: opts}
}

func (f *Fetcher) logf(format string, args ...any) {
	if f.opts.Log != nil {
		fmt.Fprintf(f.opts.Log, format+"\n", args...)
	}
}

// resolve applies BaseURL.
func (f *Fetcher) resolve(raw string) string {
	if f.opts.BaseURL == "" {
		return raw
	}
	u, err := url.Parse(raw)
	if err != nil {
		return raw
	}
	b, err := url.Parse(f.opts.BaseURL)
	if err != nil {
		return raw
	}
	u.Scheme, u.Host = b.Scheme, b.Host
	u.Path = strings.TrimSuffix(b.Path, "/") + u.Path
	if u.RawPath != "" {
		u.RawPath = strings.TrimSuffix(b.Path, "/") + u.RawPath
	}
	return u.String()
}

// sources returns e's URLs at the fetcher's now, with -url applied.
func (f *Fetcher) sources(e Entry) []Expanded {
	xs := e.Expand(f.opts.Now())
	if u, ok := f.opts.URLs[e.Key]; ok && len(xs) > 0 {
		xs = xs[:1]
		xs[0].URL = u
		// The link's own file name, which may carry the release date
		// (the OWA inventory's does).
		if n := nameOf(u); filepath.Ext(n) != "" {
			xs[0].Name = n
		}
	}
	return xs
}

// Status is what happened to one dataset.
type Status string

const (
	StatusUnchanged Status = "unchanged" // every URL answered 304 (or the same validators)
	StatusUpdated   Status = "updated"   // downloaded, checked, ingested and now current
	StatusFailed    Status = "failed"    // nothing changed; Err says why
	StatusSkipped   Status = "skipped"   // needs a hand step (account, page); Err says what
)

// Result is the outcome of one dataset.
type Result struct {
	Key    string
	Status Status
	Files  []string // the current version's files
	Bytes  int64    // downloaded in this run
	Err    error
}

// staged is a dataset's new version, built but not yet current.
type staged struct {
	entry Entry
	prev  *State
	next  *State
	dir   string // .new-* directory
	bytes int64
}

// Run fetches entries, then checks and ingests each ingest target with a
// new download, and commits the targets that ingested. all is the whole
// manifest: an ingest of the energy or ag domain reads every dataset of
// the domain downloaded before, not only those fetched now.
func (f *Fetcher) Run(ctx context.Context, entries, all []Entry, ing Ingester) []Result {
	results := map[string]*Result{}
	var order []string
	var stagedList []*staged
	for _, e := range entries {
		order = append(order, e.Key)
		r := &Result{Key: e.Key}
		results[e.Key] = r
		st, err := f.stage(ctx, e)
		switch {
		case err != nil:
			r.Status, r.Err = StatusFailed, err
		case st == nil:
			r.Status = StatusUnchanged
		default:
			r.Bytes = st.bytes
			stagedList = append(stagedList, st)
		}
	}
	// One check and ingest per target.
	targets := map[Ingest][]*staged{}
	var torder []Ingest
	for _, st := range stagedList {
		t := st.entry.Ingest
		if _, ok := targets[t]; !ok {
			torder = append(torder, t)
		}
		targets[t] = append(targets[t], st)
	}
	for _, t := range torder {
		sts := targets[t]
		err := f.ingestTarget(ctx, t, sts, all, ing)
		for _, st := range sts {
			r := results[st.entry.Key]
			if err == nil {
				err2 := f.commit(st)
				if err2 == nil {
					r.Status = StatusUpdated
					continue
				}
				r.Status, r.Err = StatusFailed, &FetchError{Dataset: st.entry.Key, URL: st.dir, Reason: "the ingest succeeded but the download could not be recorded (the next run fetches it again)", Err: err2}
				continue
			}
			os.RemoveAll(st.dir)
			dropPartials(f.opts.Dir, st.entry.Key)
			r.Status, r.Err = StatusFailed, err
		}
	}
	var out []Result
	for _, k := range order {
		r := results[k]
		if r.Status != StatusFailed {
			if s, _ := ReadState(f.opts.Dir, k); s != nil {
				for _, fs := range s.Files {
					r.Files = append(r.Files, fs.Files...)
				}
			}
		}
		out = append(out, *r)
	}
	return out
}

// stage downloads e's URLs and, when any changed, builds the new version
// in a .new-* directory; nil when nothing changed.
func (f *Fetcher) stage(ctx context.Context, e Entry) (*staged, error) {
	prev, err := ReadState(f.opts.Dir, e.Key)
	if err != nil {
		return nil, err
	}
	srcs := f.sources(e)
	type got struct {
		src Expanded
		d   download
	}
	var gots []got
	changed := false
	var bytes int64
	for _, s := range srcs {
		f.logf("%s: GET %s", e.Key, s.URL)
		d, err := f.fetchURL(ctx, e.Key, s, prev.file(s.URL))
		if err != nil {
			reason := "download failed"
			if !e.Access.Unattended() {
				reason += " (" + e.Access.String() + ": " + e.Note + ")"
			}
			return nil, &FetchError{Dataset: e.Key, URL: s.URL, Reason: reason, Err: err}
		}
		if d.outcome == fetched {
			changed = true
			bytes += d.size
		}
		gots = append(gots, got{s, d})
	}
	// A URL dropped from the manifest (a month out of the window) changes
	// the version too.
	if prev != nil && len(prev.Files) != countPublished(gots, func(g got) bool { return g.d.outcome != notPublished }) {
		changed = true
	}
	if !changed {
		return nil, nil
	}
	dir, err := os.MkdirTemp(filepath.Join(f.opts.Dir, e.Key), ".new-")
	if err != nil {
		return nil, err
	}
	next := &State{Version: versionName(f.opts.Now(), gots, func(g got) string { return g.src.URL + " " + g.d.sha256 })}
	fail := func(url, reason string, err error) (*staged, error) {
		os.RemoveAll(dir)
		dropPartials(f.opts.Dir, e.Key)
		return nil, &FetchError{Dataset: e.Key, URL: url, Reason: reason, Err: err}
	}
	var names []string
	for _, g := range gots {
		fs := FileState{URL: g.src.URL, Name: g.src.Name, ETag: g.d.etag, LastModified: g.d.lastMo, Size: g.d.size, SHA256: g.d.sha256, Fetched: f.opts.Now().UTC()}
		switch g.d.outcome {
		case notPublished:
			continue
		case unchanged:
			old := prev.file(g.src.URL)
			fs.Files, fs.Fetched = old.Files, old.Fetched
			for _, n := range old.Files {
				if slices.Contains(names, n) {
					return fail(g.src.URL, "two files named "+n, nil)
				}
				if err := linkOrCopy(filepath.Join(f.opts.Dir, e.Key, prev.Version, n), filepath.Join(dir, n)); err != nil {
					return fail(g.src.URL, "the unchanged file "+n+" of the current version cannot be reused", err)
				}
			}
		case fetched:
			files, err := unpackAfter(g.d.path, g.src.Name, dir, names, f.opts.MaxUnpacked, f.opts.MaxRatio)
			if err != nil {
				return fail(g.src.URL, "unpacking refused", err)
			}
			fs.Files = files
		}
		if err := expectFiles(g.src, fs.Files); err != nil {
			return fail(g.src.URL, "not the expected files", err)
		}
		names = append(names, fs.Files...)
		next.Files = append(next.Files, fs)
	}
	return &staged{entry: e, prev: prev, next: next, dir: dir, bytes: bytes}, nil
}

// versionName is the time of the fetch and a digest of what it holds.
func versionName[T any](now time.Time, xs []T, id func(T) string) string {
	h := sha256.New()
	for _, x := range xs {
		io.WriteString(h, id(x)+"\n")
	}
	return "v" + now.UTC().Format("20060102T150405") + "-" + hex.EncodeToString(h.Sum(nil))[:12]
}

func countPublished[T any](xs []T, keep func(T) bool) int {
	n := 0
	for _, x := range xs {
		if keep(x) {
			n++
		}
	}
	return n
}

// unpackAfter unpacks into dir, refusing names another URL of the dataset
// already placed there.
func unpackAfter(file, name, dir string, taken []string, maxBytes, maxRatio int64) ([]string, error) {
	files, err := unpack(file, name, dir, maxBytes, maxRatio)
	if err != nil {
		return nil, err
	}
	for _, n := range files {
		if slices.Contains(taken, n) {
			return nil, fmt.Errorf("two files named %s", n)
		}
	}
	return files, nil
}

// expectFiles checks that every pattern of src matches a file.
func expectFiles(src Expanded, files []string) error {
	var missing []string
	for _, p := range src.Files {
		ok := false
		for _, n := range files {
			if m, _ := filepath.Match(strings.ToLower(p), strings.ToLower(n)); m {
				ok = true
				break
			}
		}
		if !ok {
			missing = append(missing, p)
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("no file matching %s among %d unpacked (%s)", strings.Join(missing, ", "), len(files), strings.Join(firstN(files, 8), ", "))
	}
	return nil
}

func firstN(s []string, n int) []string {
	if len(s) > n {
		return append(slices.Clone(s[:n]), "…")
	}
	return s
}

// ingestTarget assembles the input of target (new versions of sts, the
// current version of the target's other datasets), checks it, then
// ingests it.
func (f *Fetcher) ingestTarget(ctx context.Context, t Ingest, sts []*staged, all []Entry, ing Ingester) error {
	in, err := os.MkdirTemp(f.opts.Dir, ".ingest-"+t.Kind+"-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(in)
	var files []string
	add := func(key, dir string, names []string) error {
		for _, n := range names {
			dst := filepath.Join(in, n)
			if _, err := os.Lstat(dst); err == nil {
				return &FetchError{Dataset: key, URL: n, Reason: "another dataset of " + t.String() + " has a file of the same name"}
			}
			if err := linkOrCopy(filepath.Join(dir, n), dst); err != nil {
				return err
			}
			files = append(files, dst)
		}
		return nil
	}
	done := map[string]bool{}
	for _, st := range sts {
		done[st.entry.Key] = true
		var names []string
		for _, fs := range st.next.Files {
			names = append(names, fs.Files...)
		}
		if err := add(st.entry.Key, st.dir, names); err != nil {
			return err
		}
	}
	if t.Kind != "grid" { // a grid index is one dataset; a report domain reads them all
		for _, e := range all {
			if e.Ingest != t || done[e.Key] {
				continue
			}
			s, err := ReadState(f.opts.Dir, e.Key)
			if err != nil || s == nil {
				continue
			}
			var names []string
			for _, fs := range s.Files {
				names = append(names, fs.Files...)
			}
			if err := add(e.Key, filepath.Join(f.opts.Dir, e.Key, s.Version), names); err != nil {
				return err
			}
		}
	}
	slices.Sort(files)
	input := Input{Dir: in, Files: files}
	keys := make([]string, 0, len(sts))
	var fetchedURLs []string
	for _, st := range sts {
		keys = append(keys, st.entry.Key)
		for _, fs := range st.next.Files {
			if st.prev.file(fs.URL) == nil || st.prev.file(fs.URL).SHA256 != fs.SHA256 {
				fetchedURLs = append(fetchedURLs, fs.URL)
			}
		}
	}
	who := strings.Join(keys, ", ")
	what := strings.Join(firstN(fetchedURLs, 4), " ")
	f.logf("%s: %s -check over %d files", who, t, len(files))
	if err := ing.Check(ctx, t, input); err != nil {
		return &FetchError{Dataset: who, URL: what, Reason: t.String() + " -check rejected the download (its report is printed above)", Err: err}
	}
	f.logf("%s: %s", who, t)
	if err := ing.Ingest(ctx, t, input); err != nil {
		return &FetchError{Dataset: who, URL: what, Reason: t.String() + " failed; the data served before is unchanged", Err: err}
	}
	return nil
}

// commit makes st's version current: its directory renamed to the
// version's name, state.json replaced, the previous version removed.
func (f *Fetcher) commit(st *staged) error {
	base := filepath.Join(f.opts.Dir, st.entry.Key)
	vdir := filepath.Join(base, st.next.Version)
	if err := syncFiles(st.dir); err != nil {
		return err
	}
	if err := atomicfile.RenameDir(st.dir, vdir); err != nil {
		return err
	}
	if err := writeState(f.opts.Dir, st.entry.Key, st.next); err != nil {
		os.RemoveAll(vdir)
		return err
	}
	// The partial files are complete now: drop them.
	for _, fs := range st.next.Files {
		p := filepath.Join(base, ".partial", safeName(fs.Name))
		os.Remove(p)
		os.Remove(p + ".json")
	}
	if st.prev != nil && st.prev.Version != st.next.Version {
		os.RemoveAll(filepath.Join(base, st.prev.Version))
	}
	return nil
}

// dropPartials removes key's partial downloads once they are complete but
// refused (unpacking, check or ingest): a resume would only fetch them
// again byte for byte. Transfers cut short keep theirs.
func dropPartials(dir, key string) {
	os.RemoveAll(filepath.Join(dir, key, ".partial"))
}

// syncFiles fsyncs every entry of dir (atomicfile.RenameDir syncs dir
// itself when it installs it).
func syncFiles(dir string) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range entries {
		sync := atomicfile.SyncFile
		if e.IsDir() {
			sync = atomicfile.SyncDir
		}
		if err := sync(filepath.Join(dir, e.Name())); err != nil {
			return err
		}
	}
	return nil
}

// Select returns the manifest entries named in keys (all of the
// unattended ones when keys is empty), and the entries left out of a
// default run with why.
func Select(keys []string) (run []Entry, skipped []Result, err error) {
	if len(keys) == 0 {
		for _, e := range Manifest() {
			if e.Access.Unattended() {
				run = append(run, e)
			} else {
				skipped = append(skipped, Result{Key: e.Key, Status: StatusSkipped, Err: errors.New(e.Access.String() + ": " + e.Note)})
			}
		}
		return run, skipped, nil
	}
	for _, k := range keys {
		e, ok := Lookup(k)
		if !ok {
			return nil, nil, fmt.Errorf("datafetch: no dataset %q; the datasets are %s", k, strings.Join(Keys(), ", "))
		}
		run = append(run, e)
	}
	return run, nil, nil
}
