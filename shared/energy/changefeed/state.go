package changefeed

import (
	"bufio"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"meridian/shared/atomicfile"
	"meridian/shared/energy"
	"meridian/shared/kv"
	"meridian/shared/lld"
)

// The state files of a directory: the last published version's snapshot
// and the changes retained, each headed by the version it belongs to.
const (
	SnapshotFile = "snapshot.tsv.gz"
	LogFile      = "changes.jsonl.gz"
	tmpPrefix    = ".tmp-"
)

// State is the change feed's state in a directory: what the previous
// publish left, and the files of the version being published, kept
// beside them under temporary names until Commit renames them over the
// old ones (Abort removes them). Commit follows the publish: if the
// process stops between the two, the next ingest compares its data with
// the version before and finds that version's changes again, under its
// own version (at least once, never lost); the log is renamed before the
// snapshot, and changes in it above the snapshot's version are dropped
// when read, as the next diff finds them again.
type State struct {
	dir     string
	prev    Header
	hasPrev bool
	snapTmp string
	logTmp  string
}

// Stats is what Build wrote.
type Stats struct {
	Version  int64 // the version the changes are stamped with
	Records  int   // records in the new snapshot
	Found    int   // changes this version found (CHGNEW)
	Retained int   // changes of earlier versions kept (CHG# with Found)
	Dropped  int   // changes of earlier versions past the retention
	// Time is Build's: the snapshot's sort written out, the log copied,
	// the diff and the change items handed to the writer.
	Time time.Duration
}

// Open opens the state in dir (created if needed), removing the
// temporary files of a run that did not finish.
func Open(dir string) (*State, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("changefeed: %w", err)
	}
	left, _ := filepath.Glob(filepath.Join(dir, tmpPrefix+"*"))
	for _, f := range left {
		os.Remove(f)
	}
	s := &State{dir: dir}
	err := ReadSnapshot(filepath.Join(dir, SnapshotFile), func(h Header, _ *Record) error {
		s.prev, s.hasPrev = h, true
		return errStop
	})
	if err != nil && !errors.Is(err, errStop) && !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	return s, nil
}

var errStop = errors.New("stop")

// Dir is the state's directory.
func (s *State) Dir() string { return s.dir }

// Previous is the header of the last published snapshot; false when there
// is none (the first publish finds no changes).
func (s *State) Previous() (Header, bool) { return s.prev, s.hasPrev }

// NextVersion is the version the changes of a publish of store version v
// are stamped with: v, or the previous snapshot's version plus one when
// that is higher (the refresh job ingests into an empty directory, whose
// store starts again at 1), so a state's versions only go up.
func (s *State) NextVersion(v int64) int64 {
	if s.hasPrev && v <= s.prev.Version {
		return s.prev.Version + 1
	}
	return v
}

// Build writes snap as the new snapshot, the retained changes and the
// changes between the previous snapshot and snap as the new log (both
// under temporary names until Commit), and writes every change of the
// new log to w as a CHG#<township> item, those found now also as CHGNEW
// items. v.Version is the version of the changes (NextVersion).
func (s *State) Build(w *kv.Writer, snap *Snapshot, v Version) (st Stats, err error) {
	start := time.Now()
	st = Stats{Version: v.Version}
	defer func() { st.Time = time.Since(start) }()
	s.snapTmp = filepath.Join(s.dir, tmpPrefix+SnapshotFile)
	n, err := snap.WriteTo(s.snapTmp, Header{Version: v.Version, AsOf: v.AsOf, Demo: v.Demo})
	if err != nil {
		return st, err
	}
	st.Records = n
	s.logTmp = filepath.Join(s.dir, tmpPrefix+LogFile)
	lw, err := createLog(s.logTmp, Header{Format: logFormat, Version: v.Version, AsOf: v.AsOf, Demo: v.Demo})
	if err != nil {
		return st, err
	}
	defer lw.abort()
	if s.hasPrev {
		cutoff := retentionCutoff(v.AsOf)
		err := readLog(filepath.Join(s.dir, LogFile), func(c energy.Change, raw []byte) error {
			if c.Version > s.prev.Version || c.Version >= v.Version {
				return nil // found again by this diff (a Commit cut short)
			}
			if c.AsOf < cutoff {
				st.Dropped++
				return nil
			}
			st.Retained++
			if err := lw.write(raw); err != nil {
				return err
			}
			return putChange(w, c, false)
		})
		if err != nil {
			return st, err
		}
		err = Diff(filepath.Join(s.dir, SnapshotFile), s.snapTmp, v, func(c energy.Change) error {
			st.Found++
			raw, err := kv.MarshalItem(c)
			if err != nil {
				return err
			}
			if err := lw.write(raw); err != nil {
				return err
			}
			return putChange(w, c, true)
		})
		if err != nil {
			return st, err
		}
	}
	return st, lw.close()
}

// Commit installs the files Build wrote: the log, then the snapshot.
func (s *State) Commit() error {
	if s.snapTmp == "" {
		return nil
	}
	if err := atomicfile.Rename(s.logTmp, filepath.Join(s.dir, LogFile)); err != nil {
		s.Abort()
		return fmt.Errorf("changefeed: %w", err)
	}
	if err := atomicfile.Rename(s.snapTmp, filepath.Join(s.dir, SnapshotFile)); err != nil {
		s.Abort()
		return fmt.Errorf("changefeed: %w", err)
	}
	s.snapTmp, s.logTmp = "", ""
	return nil
}

// Abort removes what Build wrote; the state stays as it was.
func (s *State) Abort() {
	for _, f := range []string{s.snapTmp, s.logTmp} {
		if f != "" {
			os.Remove(f)
		}
	}
	s.snapTmp, s.logTmp = "", ""
}

// retentionCutoff is the first as-of date kept by a version of as-of
// asOf: energy.ChangeRetentionDays before it.
func retentionCutoff(asOf string) string {
	t, err := time.Parse("2006-01-02", asOf)
	if err != nil {
		return ""
	}
	return t.AddDate(0, 0, -energy.ChangeRetentionDays).Format("2006-01-02")
}

// putChange writes c as its township's item and, if new, as a CHGNEW
// item. A change outside the DLS grid (no township) has no CHG# item.
func putChange(w *kv.Writer, c energy.Change, isNew bool) error {
	raw, err := kv.MarshalItem(c)
	if err != nil {
		return err
	}
	if l, err := lld.Parse(c.LegalLocation); err == nil && l.System == lld.DLS {
		if err := w.PutRaw(energy.ChangesKey(l), energy.ChangeSK(c), raw); err != nil {
			return err
		}
	}
	if isNew {
		return w.PutRaw(energy.PKChangesNew, energy.ChangeNewSK(c), raw)
	}
	return nil
}

// logWriter writes a change log: a header line, then a change a line.
type logWriter struct {
	f  *os.File
	zw *gzip.Writer
	bw *bufio.Writer
}

func createLog(path string, h Header) (*logWriter, error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("changefeed: %w", err)
	}
	zw, _ := gzip.NewWriterLevel(f, gzip.BestSpeed)
	l := &logWriter{f: f, zw: zw, bw: bufio.NewWriterSize(zw, 64<<10)}
	hb, _ := json.Marshal(h)
	return l, l.write(hb)
}

func (l *logWriter) write(line []byte) error {
	l.bw.Write(line)
	return l.bw.WriteByte('\n')
}

func (l *logWriter) close() error {
	if l.f == nil {
		return nil
	}
	err := l.bw.Flush()
	if err == nil {
		err = l.zw.Close()
	}
	if cerr := l.f.Close(); err == nil {
		err = cerr
	}
	l.f = nil
	if err != nil {
		return fmt.Errorf("changefeed: write change log: %w", err)
	}
	return nil
}

func (l *logWriter) abort() {
	if l.f != nil {
		l.f.Close()
		l.f = nil
	}
}

// readLog calls fn with each change of a log file and its line; none when
// there is no file.
func readLog(path string, fn func(c energy.Change, raw []byte) error) error {
	r, err := openState(path, logFormat)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	defer r.Close()
	for {
		s, err := r.next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("changefeed: %s: %w", path, err)
		}
		var c energy.Change
		if err := json.Unmarshal([]byte(s), &c); err != nil {
			return fmt.Errorf("changefeed: %s: %.60q: %w", path, s, err)
		}
		if err := fn(c, []byte(s)); err != nil {
			return err
		}
	}
}

// ReadLog calls fn with each change retained in dir's log, oldest
// version first.
func ReadLog(dir string, fn func(energy.Change) error) error {
	return readLog(filepath.Join(dir, LogFile), func(c energy.Change, _ []byte) error { return fn(c) })
}
