package changefeed

import (
	"bytes"
	"fmt"
	"io"
	"strings"

	"meridian/shared/energy"
)

// Version is what the changes of a version are stamped with.
type Version struct {
	Version int64
	AsOf    string // YYYY-MM-DD
	Demo    bool
	// Sources names each section's source as meta.sources does
	// (Change.Source); a section it lacks is named by the section.
	Sources map[string]string
}

// Diff merge-joins the snapshot file prev with the snapshot file next,
// both sorted by key, and calls fn with each change, in key order (LSD,
// entity type, entity id, then kind). prevAsOf is prev's as-of date (a
// disposition whose expiry falls after it and on or before v.AsOf
// expired between the two). Memory is two records and a scanner's buffer
// each.
//
// Most entities are the same in both versions: a line of next equal to
// prev's, byte for byte, is the same entity with the same fields, and
// no change but a disposition's expiry by date can come of it, so such
// lines of wells, pipelines and facilities are passed over unparsed.
func Diff(prev, next string, v Version, fn func(energy.Change) error) error {
	ra, err := openState(prev, snapshotFormat)
	if err != nil {
		return err
	}
	defer ra.Close()
	rb, err := openState(next, snapshotFormat)
	if err != nil {
		return err
	}
	defer rb.Close()
	d := differ{v: v, prevAsOf: ra.h.AsOf, fn: fn}
	a, b := &diffSide{r: ra}, &diffSide{r: rb}
	if err := a.advance(); err != nil {
		return err
	}
	if err := b.advance(); err != nil {
		return err
	}
	for !a.done || !b.done {
		if !a.done && !b.done && bytes.Equal(a.line, b.line) && !dispositionLine(a.line) {
			if err = a.advance(); err == nil {
				err = b.advance()
			}
			if err != nil {
				return err
			}
			continue
		}
		if err := a.parse(); err != nil {
			return err
		}
		if err := b.parse(); err != nil {
			return err
		}
		switch {
		case b.done || (!a.done && a.key < b.key):
			err = d.removed(a.rec)
			if err == nil {
				err = a.advance()
			}
		case a.done || b.key < a.key:
			err = d.added(b.rec)
			if err == nil {
				err = b.advance()
			}
		default:
			err = d.changed(a.rec, b.rec)
			if err == nil {
				err = a.advance()
			}
			if err == nil {
				err = b.advance()
			}
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// diffSide is one snapshot of a Diff: its current line (the scanner's
// bytes, valid until the next advance) and, once parsed, its record and
// key.
type diffSide struct {
	r    *reader
	line []byte
	done bool    // no line left
	rec  *Record // nil until parse
	key  string
}

// advance moves to the next line.
func (s *diffSide) advance() error {
	s.rec, s.key = nil, ""
	line, err := s.r.nextBytes()
	if err == nil {
		s.line = line
		return nil
	}
	s.line, s.done = nil, true
	if err != io.EOF {
		return fmt.Errorf("changefeed: read snapshot: %w", err)
	}
	return nil
}

// parse parses the current line, once; nothing at the end.
func (s *diffSide) parse() error {
	if s.done || s.rec != nil {
		return nil
	}
	rec, err := parseLine(string(s.line))
	if err != nil {
		return err
	}
	s.rec, s.key = &rec, rec.key()
	return nil
}

// dispositionLine reports whether a snapshot line is a disposition's: its
// second field, the entity type.
func dispositionLine(line []byte) bool {
	_, rest, _ := bytes.Cut(line, []byte{'\t'})
	typ, _, _ := bytes.Cut(rest, []byte{'\t'})
	return string(typ) == energy.EntityDisposition
}

type differ struct {
	v        Version
	prevAsOf string
	fn       func(energy.Change) error
}

// The kinds of each entity type: new, removed, and the changes of its
// fields.
var (
	addedKind = map[string]energy.ChangeKind{energy.EntityWell: energy.WellLicensed, energy.EntityPipeline: energy.PipelineLicensed,
		energy.EntityFacility: energy.FacilityAdded, energy.EntityDisposition: energy.DispositionIssued}
	removedKind = map[string]energy.ChangeKind{energy.EntityWell: energy.WellRemoved, energy.EntityPipeline: energy.PipelineRemoved,
		energy.EntityFacility: energy.FacilityRemoved, energy.EntityDisposition: energy.DispositionRemoved}
)

func (d *differ) emit(r *Record, kind energy.ChangeKind, before, after map[string]any) error {
	src := d.v.Sources[r.Section]
	if src == "" {
		src = r.Section
	}
	c := energy.Change{
		ID: energy.ChangeID(d.v.Version, r.LSD, kind, r.ID), Kind: kind, LegalLocation: r.LSD, Province: r.Province,
		EntityType: r.Type, EntityID: r.ID, Href: r.Href, Before: before, After: after,
		Version: d.v.Version, AsOf: d.v.AsOf, Source: src, Demo: d.v.Demo,
	}
	return d.fn(c)
}

func (d *differ) added(r *Record) error {
	return d.emit(r, addedKind[r.Type], nil, r.Fields)
}

func (d *differ) removed(r *Record) error {
	kind := removedKind[r.Type]
	if r.Type == energy.EntityDisposition {
		// Gone from the list after its expiry: it expired, which the
		// list says by dropping it.
		if e, _ := r.Fields[FieldExpiryDate].(string); e != "" && e <= d.v.AsOf {
			kind = energy.DispositionExpired
		}
	}
	return d.emit(r, kind, r.Fields, nil)
}

// delta is what changed of an entity: the fields as they were and as they
// are.
type delta struct{ before, after map[string]any }

// diffFields returns the fields among names that differ between a and b;
// nil maps when none does.
func diffFields(a, b *Record, names ...string) delta {
	var d delta
	for _, n := range names {
		if a.Fields[n] != b.Fields[n] {
			if d.before == nil {
				d.before, d.after = map[string]any{}, map[string]any{}
			}
			d.before[n], d.after[n] = a.Fields[n], b.Fields[n]
		}
	}
	return d
}

// partyChanged reports whether a party moved: its BA code changed, or,
// without BA codes, its name.
func partyChanged(a, b *Record, baField, nameField string) bool {
	baA, _ := a.Fields[baField].(string)
	baB, _ := b.Fields[baField].(string)
	if baA != "" || baB != "" {
		return !strings.EqualFold(baA, baB)
	}
	return a.Fields[nameField] != b.Fields[nameField]
}

func (d *differ) changed(a, b *Record) error {
	type change struct {
		kind energy.ChangeKind
		delta
	}
	var out []change
	add := func(kind energy.ChangeKind, d delta) {
		if d.before != nil {
			out = append(out, change{kind, d})
		}
	}
	switch b.Type {
	case energy.EntityWell:
		add(energy.WellStatusChanged, diffFields(a, b, FieldStatus, FieldLicenceStatusRaw))
		if partyChanged(a, b, FieldOperatorBA, FieldOperatorName) {
			add(energy.WellOperatorChanged, diffFields(a, b, FieldOperatorBA, FieldOperatorName))
		}
		if a.Fields[FieldIsOrphan] != true && b.Fields[FieldIsOrphan] == true {
			add(energy.WellOrphaned, diffFields(a, b, FieldIsOrphan))
		}
	case energy.EntityPipeline:
		add(energy.PipelineStatusChanged, diffFields(a, b, FieldStatus))
		if partyChanged(a, b, FieldOperatorBA, FieldOperatorName) {
			add(energy.PipelineLicenseeChanged, diffFields(a, b, FieldOperatorBA, FieldOperatorName))
		}
	case energy.EntityFacility:
		add(energy.FacilityStatusChanged, diffFields(a, b, FieldStatus))
		if partyChanged(a, b, FieldOperatorBA, FieldOperatorName) || partyChanged(a, b, FieldLicenseeBA, FieldLicenseeName) {
			add(energy.FacilityOperatorChanged, diffFields(a, b, FieldOperatorBA, FieldOperatorName, FieldLicenseeBA, FieldLicenseeName))
		}
	case energy.EntityDisposition:
		if partyChanged(a, b, FieldHolderBA, FieldHolderName) {
			add(energy.DispositionTransferred, diffFields(a, b, FieldHolderBA, FieldHolderName))
		}
		sa, _ := a.Fields[FieldStatus].(string)
		sb, _ := b.Fields[FieldStatus].(string)
		expiry, _ := b.Fields[FieldExpiryDate].(string)
		switch {
		case cancelled(sb) && !cancelled(sa):
			add(energy.DispositionCancelled, diffFields(a, b, FieldStatus))
		case sb == "expired" && sa != "expired":
			add(energy.DispositionExpired, diffFields(a, b, FieldStatus))
		case sb != "expired" && !cancelled(sb) && expiry != "" && expiry == a.Fields[FieldExpiryDate] &&
			d.prevAsOf != "" && expiry > d.prevAsOf && expiry <= d.v.AsOf:
			add(energy.DispositionExpired, delta{map[string]any{FieldExpired: false}, map[string]any{FieldExpired: true}})
		}
		add(energy.DispositionExpiryChanged, diffFields(a, b, FieldExpiryDate))
	}
	for _, c := range out {
		if err := d.emit(b, c.kind, c.before, c.after); err != nil {
			return err
		}
	}
	return nil
}

// cancelled reports whether a disposition's status word ends it before
// its term: cancelled, surrendered or terminated.
func cancelled(status string) bool {
	s := strings.ToLower(status)
	return strings.Contains(s, "cancel") || strings.Contains(s, "surrender") || strings.Contains(s, "terminat")
}
