// Package changefeed computes the energy change feed (energy.Change) at
// ingest: while an ingest writes a version's rows it tees the fields the
// feed tracks into a snapshot (one record per LSD, entity type and entity
// id), sorted on disk; the changes are a merge-join of the previous
// version's snapshot with the new one, one pass over two sorted files, so
// memory is the sort's budget and a few records whatever the province's
// size. The snapshot and the log of the changes retained
// (energy.ChangeRetentionDays) are the state of the feed, kept in a
// directory of their own (datadir's EnergyChanges) and replaced only once
// the version they describe is published (State).
package changefeed

import (
	"bufio"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"meridian/shared/energy"
	"meridian/shared/kv"
)

// Record is one tracked entity on one LSD in a version: its key (LSD,
// entity type, entity id), where it comes from, and the fields the feed
// compares.
type Record struct {
	LSD      string // canonical LSD
	Type     string // energy.EntityWell, EntityPipeline, EntityFacility, EntityDisposition
	ID       string // UWI, "<licence>/<segment>", facility id, disposition id
	Province string // two letters
	Section  string // the meta.sources section the entity comes from (wells, pipelines, facilities, tenure)
	Href     string // the entity's own endpoint, where it has one
	Fields   map[string]any
}

// The tracked fields, by the names Change.Before and After give them.
const (
	FieldStatus           = "status"
	FieldLicenceStatusRaw = "licence_status_raw"
	FieldOperatorBA       = "operator_ba_code"
	FieldOperatorName     = "operator_name"
	FieldIsOrphan         = "is_orphan"
	FieldLicenseeBA       = "licensee_ba_code"
	FieldLicenseeName     = "licensee_name"
	FieldHolderBA         = "holder_ba_code"
	FieldHolderName       = "holder_name"
	FieldExpiryDate       = "expiry_date"
	FieldIssueDate        = "issue_date"
	// FieldExpired is the field of a disposition_expired change found by
	// date (its expiry fell between the two versions' as-of dates, its
	// status unchanged): false before, true after.
	FieldExpired = "expired"
)

// maxField bounds a tracked string (bytes): a record is a sort key of at
// most kv.MaxSKBytes.
const maxField = 160

func party(p energy.Party) (ba, name string) {
	if p.BACode != nil {
		ba = *p.BACode
	}
	if p.Name != nil {
		name = *p.Name
	}
	return ba, name
}

// WellRecord is the record of a well row on its LSD.
func WellRecord(prov, section string, r energy.WellRow) Record {
	ba, name := party(r.Operator)
	return Record{LSD: r.LSD, Type: energy.EntityWell, ID: r.UWI, Province: prov, Section: section, Fields: map[string]any{
		FieldStatus: string(r.Status), FieldLicenceStatusRaw: r.LicenceStatusRaw, FieldOperatorBA: ba, FieldOperatorName: name, FieldIsOrphan: r.IsOrphan}}
}

// PipelineRecord is the record of a segment's row on one LSD it crosses.
func PipelineRecord(lsd, prov, section string, r energy.PipelineRow) Record {
	ba, name := party(r.Operator)
	return Record{LSD: lsd, Type: energy.EntityPipeline, ID: r.LicenceNumber + "/" + r.SegmentID, Province: prov, Section: section, Href: r.Href,
		Fields: map[string]any{FieldStatus: r.Status, FieldOperatorBA: ba, FieldOperatorName: name}}
}

// FacilityRecord is the record of a facility row on its LSD.
func FacilityRecord(lsd, prov, section string, r energy.FacilityRow) Record {
	ba, name := party(r.Operator)
	lba, lname := party(r.Licensee)
	return Record{LSD: lsd, Type: energy.EntityFacility, ID: r.ID, Province: prov, Section: section, Fields: map[string]any{
		FieldStatus: r.Status, FieldOperatorBA: ba, FieldOperatorName: name, FieldLicenseeBA: lba, FieldLicenseeName: lname}}
}

// DispositionRecord is the record of a disposition's row on one LSD it
// covers; issue is its issue date (the LSD rows leave it out).
func DispositionRecord(lsd, prov, section, issue string, r energy.TenureRow) Record {
	ba, name := party(r.Holder)
	expiry := ""
	if r.ExpiryDate != nil {
		expiry = *r.ExpiryDate
	}
	return Record{LSD: lsd, Type: energy.EntityDisposition, ID: r.ID, Province: prov, Section: section, Href: r.Href, Fields: map[string]any{
		FieldStatus: r.Status, FieldHolderBA: ba, FieldHolderName: name, FieldExpiryDate: expiry, FieldIssueDate: issue}}
}

// clean makes s a field of a snapshot line: no tab, newline, NUL or the
// separators of keys and fields, at most n bytes of valid UTF-8.
func clean(s string, n int) string {
	if strings.ContainsAny(s, "\t\n\r\x00\x01\x1f") {
		s = strings.Map(func(r rune) rune {
			if r == '\t' || r == '\n' || r == '\r' || r == 0 || r == 1 || r == fieldSep {
				return ' '
			}
			return r
		}, s)
	}
	if len(s) > n {
		s = s[:n]
		for len(s) > 0 && !utf8.ValidString(s) {
			s = s[:len(s)-1]
		}
	}
	return strings.ToValidUTF8(s, "?")
}

// key is a record's sort key: LSD, type and id, separated by a byte below
// every character they hold, so that the order of keys is the order of
// (LSD, type, id).
func (r Record) key() string {
	return clean(r.LSD, 64) + "\x01" + r.Type + "\x01" + clean(r.ID, 256)
}

// fieldSep separates a record's fields on its line: name=<type><value>,
// type s (string) or b (bool), in name order.
const fieldSep = '\x1f'

// value is the rest of a record's line: where it comes from, then its
// fields.
func (r Record) value() (string, error) {
	var b strings.Builder
	b.WriteString(clean(r.Province, 8) + "\t" + clean(r.Section, 32) + "\t" + clean(r.Href, 300) + "\t")
	names := make([]string, 0, len(r.Fields))
	for k := range r.Fields {
		names = append(names, k)
	}
	slices.Sort(names)
	for i, k := range names {
		if i > 0 {
			b.WriteByte(fieldSep)
		}
		b.WriteString(k)
		switch v := r.Fields[k].(type) {
		case string:
			b.WriteString("=s")
			b.WriteString(clean(v, maxField))
		case bool:
			b.WriteString("=b")
			b.WriteString(strconv.FormatBool(v))
		default:
			return "", fmt.Errorf("field %s of type %T: want a string or a bool", k, v)
		}
	}
	return b.String(), nil
}

// parseLine reads a line of a snapshot file.
func parseLine(s string) (Record, error) {
	p := strings.SplitN(s, "\t", 7)
	if len(p) != 7 {
		return Record{}, fmt.Errorf("changefeed: snapshot line of %d fields, want 7", len(p))
	}
	r := Record{LSD: p[0], Type: p[1], ID: p[2], Province: p[3], Section: p[4], Href: p[5], Fields: map[string]any{}}
	for f := range strings.SplitSeq(p[6], string(fieldSep)) {
		name, v, ok := strings.Cut(f, "=")
		if !ok || v == "" {
			return Record{}, fmt.Errorf("changefeed: snapshot line of %s %s %s: field %q", p[0], p[1], p[2], f)
		}
		switch v[0] {
		case 's':
			r.Fields[name] = v[1:]
		case 'b':
			r.Fields[name] = v[1:] == "true"
		default:
			return Record{}, fmt.Errorf("changefeed: snapshot line of %s %s %s: field %q", p[0], p[1], p[2], f)
		}
	}
	return r, nil
}

// Header is the first line of a state file: what version it describes.
type Header struct {
	Format  string `json:"format"`
	Version int64  `json:"version"` // the energy version (Change.Version) the file belongs to
	AsOf    string `json:"as_of"`   // that version's as-of date, YYYY-MM-DD
	Demo    bool   `json:"demo,omitempty"`
}

const (
	snapshotFormat = "meridian-energy-snapshot/1"
	logFormat      = "meridian-energy-changes/1"
)

// Snapshot collects a version's records in any order and writes them
// sorted by key into one file. Memory is the sort's budget: the records
// beyond it are spilled in sorted runs to temporary files.
type Snapshot struct {
	s *kv.KeySort
	n int
}

// NewSnapshot returns an empty snapshot that holds at most budget bytes of
// records in memory (kv.DefaultSortBudget when 0).
func NewSnapshot(ctx context.Context, budget int) *Snapshot {
	return &Snapshot{s: kv.NewKeySort(ctx, "", budget)}
}

// Add adds a record; a record of the same key and value added twice is
// kept once, of the same key and another value the first in value order.
func (s *Snapshot) Add(r Record) error {
	v, err := r.value()
	if err != nil {
		return fmt.Errorf("changefeed: record %s %s %s: %w", r.LSD, r.Type, r.ID, err)
	}
	s.n++
	return s.s.Add(r.key(), v)
}

// Len is the number of records added.
func (s *Snapshot) Len() int { return s.n }

// Close releases the snapshot without writing it.
func (s *Snapshot) Close() { s.s.Close() }

// WriteTo writes the records, sorted and one per key, after h to path
// (gzip), and releases the snapshot. It returns the records written.
func (s *Snapshot) WriteTo(path string, h Header) (int, error) {
	h.Format = snapshotFormat
	f, err := os.Create(path)
	if err != nil {
		s.Close()
		return 0, fmt.Errorf("changefeed: %w", err)
	}
	zw, _ := gzip.NewWriterLevel(f, gzip.BestSpeed)
	bw := bufio.NewWriterSize(zw, 64<<10)
	hb, _ := json.Marshal(h)
	bw.Write(hb)
	bw.WriteByte('\n')
	n, last := 0, ""
	err = s.s.Each(func(pk, sk string) error {
		if n > 0 && pk == last {
			return nil // the same entity twice on an LSD: the first
		}
		last = pk
		n++
		bw.WriteString(strings.ReplaceAll(pk, "\x01", "\t"))
		bw.WriteByte('\t')
		bw.WriteString(sk)
		_, err := bw.WriteString("\n")
		return err
	})
	if err == nil {
		err = bw.Flush()
	}
	if err == nil {
		err = zw.Close()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return 0, fmt.Errorf("changefeed: write snapshot %s: %w", path, err)
	}
	return n, nil
}

// reader reads a state file: its header, then its lines.
type reader struct {
	f  *os.File
	zr *gzip.Reader
	sc *bufio.Scanner
	h  Header
}

func openState(path, format string) (*reader, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	zr, err := gzip.NewReader(f)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("changefeed: %s: %w", path, err)
	}
	sc := bufio.NewScanner(zr)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	r := &reader{f: f, zr: zr, sc: sc}
	if !sc.Scan() {
		r.Close()
		return nil, fmt.Errorf("changefeed: %s: no header: %v", path, sc.Err())
	}
	if err := json.Unmarshal(sc.Bytes(), &r.h); err != nil || r.h.Format != format {
		r.Close()
		return nil, fmt.Errorf("changefeed: %s: not a %s file (header %.80q)", path, format, sc.Text())
	}
	return r, nil
}

// next returns the next line; io.EOF at the end.
func (r *reader) next() (string, error) {
	b, err := r.nextBytes()
	return string(b), err
}

// nextBytes is next without a string made: the scanner's bytes, valid
// until the next call.
func (r *reader) nextBytes() ([]byte, error) {
	if r.sc.Scan() {
		return r.sc.Bytes(), nil
	}
	if err := r.sc.Err(); err != nil {
		return nil, err
	}
	return nil, io.EOF
}

func (r *reader) Close() error {
	r.zr.Close()
	return r.f.Close()
}

// ReadSnapshot calls fn with a snapshot file's header and then each of
// its records, in key order.
func ReadSnapshot(path string, fn func(Header, *Record) error) error {
	r, err := openState(path, snapshotFormat)
	if err != nil {
		return err
	}
	defer r.Close()
	if err := fn(r.h, nil); err != nil {
		return err
	}
	for {
		s, err := r.next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("changefeed: %s: %w", path, err)
		}
		rec, err := parseLine(s)
		if err != nil {
			return err
		}
		if err := fn(r.h, &rec); err != nil {
			return err
		}
	}
}
