// Package boltdir keeps the published versions of a local report store so
// that an ingest can write a new version while a server reads the one it
// serves: each version is its own bbolt file in one directory, and a
// pointer file, CURRENT, names the file served.
//
// bbolt locks a file for its writer and refuses it to everyone else, so one
// shared file cannot be written while it is served. Here the writer (an
// ingest, Dir.Publish) fills a new file nobody reads yet and then replaces
// CURRENT atomically (package atomicfile); readers (Live) open version
// files read-only, notice the new pointer, switch to the new file for the
// requests that start afterwards, and close the old file when the last
// request holding it is done. A failed ingest removes its file and leaves
// CURRENT as it was.
//
// Layout of a directory:
//
//	CURRENT        the served version's file name and a newline
//	v000007.db     the served version
//	v000006.db     the one before, kept for readers that have not switched
//	.lock          held by the one Publish running (flock)
package boltdir

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"meridian/shared/atomicfile"
	"meridian/shared/kv"
)

const (
	pointerFile = "CURRENT"
	lockFile    = ".lock"
	filePrefix  = "v"
	fileSuffix  = ".db"
)

// ErrBusy is wrapped by the error of a Publish while another one runs on
// the same directory (in any process).
var ErrBusy = errors.New("boltdir: another ingest is writing this store")

// Dir is a directory of store versions. The zero value is not usable; use
// New.
type Dir struct{ path string }

// New returns the directory at path; it is created by the first Publish.
func New(path string) Dir { return Dir{path: path} }

// Path returns the directory's path.
func (d Dir) Path() string { return d.path }

// Current returns the file name CURRENT names, or "" when nothing was
// published.
func (d Dir) Current() (string, error) {
	b, err := os.ReadFile(filepath.Join(d.path, pointerFile))
	if errors.Is(err, os.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("boltdir: %w", err)
	}
	name := strings.TrimSpace(string(b))
	if _, ok := seqOf(name); !ok {
		return "", fmt.Errorf("boltdir: %s names %q, not a version file", filepath.Join(d.path, pointerFile), name)
	}
	return name, nil
}

// ScanRelease is how often a handle that reads or writes a whole version
// file (an archive build, an ingest) drops the file's pages from its
// resident set (kv.BoltOptions.ReleaseEvery): its resident memory is then
// what it holds plus what it touches in this interval, not the file.
const ScanRelease = 250 * time.Millisecond

// ServeRelease is how often a server's handle (Live) drops the version
// file's pages from its resident set. A lookup reads a few pages, but each
// fault on a file the page cache holds maps up to 16 of them (the kernel's
// fault-around, which bbolt's random-access advice does not turn off): at
// province size, seconds of random reports left 320 MB of the energy store
// and 440 MB of the agriculture store mapped, both kept, and the server
// peaked at 1,834-1,846 MB against its 1,536 MB bound. Released, a store
// holds what the last interval mapped (its busiest still reaches about
// 340 MB within 250 ms), not everything ever read: the peak was 1,389-1,430
// MB (250 ms and 1 s intervals). Pages released stay in the page cache; the
// next read maps them again for a minor fault.
const ServeRelease = 250 * time.Millisecond

// OpenCurrent opens the served version read-only (a shared lock: servers
// and other readers may hold it too). ok is false when nothing was
// published. release is kv.BoltOptions.ReleaseEvery: ScanRelease for a
// reader that goes through the whole file, 0 for one that serves.
func (d Dir) OpenCurrent(release time.Duration) (store *kv.Bolt, name string, ok bool, err error) {
	name, err = d.Current()
	if err != nil || name == "" {
		return nil, "", false, err
	}
	store, err = kv.OpenBolt(filepath.Join(d.path, name), kv.BoltOptions{ReadOnly: true, Timeout: time.Second, ReleaseEvery: release})
	if err != nil {
		return nil, "", false, err
	}
	return store, name, true, nil
}

// Publish writes the next version and makes it the one served: a new file
// that continues the served version's version numbers (kv.CarryVersions),
// filled by fill, closed (bbolt syncs every commit), then named in CURRENT.
// Only one Publish runs per directory at a time; another fails at once
// with an error wrapping ErrBusy. If fill or any step fails, the new file
// is removed and CURRENT is untouched. Once the new version is named,
// files older than the one it replaced are removed: a server that still
// holds one open keeps reading it (an unlinked file lives until closed).
//
// The new file holds only what fill writes: a report dataset is published
// whole by every ingest, so nothing is copied from the version replaced.
// Disk: the new version while it is written, plus the two kept.
func (d Dir) Publish(ctx context.Context, fill func(context.Context, kv.Store) error) (name string, err error) {
	return d.install(func(path string) error {
		// No reader holds the new file until CURRENT names it, and a
		// crash leaves it unnamed (removed by the next Publish): its
		// commits need no fsync each, one Sync before it is named does.
		store, err := kv.OpenBolt(path, kv.BoltOptions{NoSync: true, ReleaseEvery: ScanRelease})
		if err != nil {
			return err
		}
		err = d.carryVersions(ctx, store)
		if err == nil {
			err = fill(ctx, store)
		}
		if err == nil {
			err = store.Sync()
		}
		return errors.Join(err, store.Close())
	})
}

// Adopt installs a consistent copy of the bbolt store at src as the next
// version, the way Publish installs a new one: how the single reports.db
// of earlier releases becomes a directory's first version.
func (d Dir) Adopt(src string) (name string, err error) {
	from, err := kv.OpenBolt(src, kv.BoltOptions{ReadOnly: true, Timeout: time.Second})
	if err != nil {
		return "", err
	}
	defer from.Close()
	return d.install(from.CopyTo)
}

// install takes the lock, has write create the next version file at the
// path it is given, and names it in CURRENT.
func (d Dir) install(write func(path string) error) (name string, err error) {
	if err := os.MkdirAll(d.path, 0o755); err != nil {
		return "", fmt.Errorf("boltdir: %w", err)
	}
	unlock, err := atomicfile.Lock(filepath.Join(d.path, lockFile))
	if errors.Is(err, atomicfile.ErrLocked) {
		return "", fmt.Errorf("%w (%s)", ErrBusy, d.path)
	}
	if err != nil {
		return "", fmt.Errorf("boltdir: %w", err)
	}
	defer unlock()
	prev, err := d.Current()
	if err != nil {
		return "", err
	}
	seqs, err := d.versions()
	if err != nil {
		return "", err
	}
	next := 1
	if len(seqs) > 0 {
		next = seqs[len(seqs)-1] + 1
	}
	name = fileName(next)
	path := filepath.Join(d.path, name)
	// A file left by a Publish that crashed is not served: start clean.
	if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return "", fmt.Errorf("boltdir: %w", err)
	}
	d.removeSortFiles()
	if err := write(path); err != nil {
		return "", errors.Join(err, removeIfExists(path))
	}
	tmp := filepath.Join(d.path, pointerFile+".tmp")
	if err := os.WriteFile(tmp, []byte(name+"\n"), 0o644); err != nil {
		return "", errors.Join(fmt.Errorf("boltdir: %w", err), removeIfExists(path))
	}
	if err := atomicfile.Rename(tmp, filepath.Join(d.path, pointerFile)); err != nil {
		return "", errors.Join(fmt.Errorf("boltdir: %w", err), removeIfExists(tmp), removeIfExists(path))
	}
	return name, d.prune(name, prev)
}

// carryVersions seeds store with the served version's counters.
func (d Dir) carryVersions(ctx context.Context, store kv.Store) error {
	cur, _, ok, err := d.OpenCurrent(0)
	if err != nil || !ok {
		return err
	}
	defer cur.Close()
	return kv.CarryVersions(ctx, cur, store)
}

// prune removes the version files other than keep and prev (the one just
// replaced), and leftovers of crashed runs.
func (d Dir) prune(keep, prev string) error {
	seqs, err := d.versions()
	if err != nil {
		return err
	}
	var errs []error
	for _, s := range seqs {
		if n := fileName(s); n != keep && n != prev {
			errs = append(errs, removeIfExists(filepath.Join(d.path, n)))
		}
	}
	return errors.Join(errs...)
}

// removeSortFiles removes the temporary files of external sorts
// ("v000001.db.sort-*", kv's boltload.go) that a process killed midway
// left: a Publish's own, or a build's scan of a version. It runs under the
// directory's lock, so no other Publish is writing one; a build that is
// still reading its own keeps it open, which on Unix keeps it readable (a
// removed file lives until closed). Best effort: what cannot be removed
// now is tried again at the next Publish.
func (d Dir) removeSortFiles() {
	left, _ := filepath.Glob(filepath.Join(d.path, filePrefix+"*"+fileSuffix+".sort-*"))
	for _, f := range left {
		os.Remove(f)
	}
}

// versions returns the sequence numbers of the version files, ascending.
func (d Dir) versions() ([]int, error) {
	entries, err := os.ReadDir(d.path)
	if err != nil {
		return nil, fmt.Errorf("boltdir: %w", err)
	}
	var seqs []int
	for _, e := range entries {
		if s, ok := seqOf(e.Name()); ok {
			seqs = append(seqs, s)
		}
	}
	slices.Sort(seqs)
	return seqs, nil
}

func fileName(seq int) string { return fmt.Sprintf("%s%06d%s", filePrefix, seq, fileSuffix) }

func seqOf(name string) (int, bool) {
	digits, ok := strings.CutPrefix(name, filePrefix)
	if !ok {
		return 0, false
	}
	digits, ok = strings.CutSuffix(digits, fileSuffix)
	if !ok || len(digits) < 6 {
		return 0, false
	}
	n, err := strconv.Atoi(digits)
	return n, err == nil && n > 0
}

func removeIfExists(path string) error {
	if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("boltdir: %w", err)
	}
	return nil
}
