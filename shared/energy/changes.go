package energy

import (
	"fmt"
	"slices"
	"strings"

	"meridian/shared/apierr"
	"meridian/shared/lld"
)

// The change feed: what changed on each LSD between a version of the
// energy dataset and the version it replaced (GET /energy/changes, the
// watches' webhooks). Changes are computed at ingest by comparing the new
// version's rows with the previous version's (package
// energy/changefeed), and every version carries the changes of the
// versions before it within ChangeRetentionDays, so the feed is served
// from the current version like every other list, on bbolt and on
// DynamoDB alike, and a failed ingest changes nothing.
//
//	access pattern                                PK              SK
//	changes in a township, newest first           CHG#<township>  <inverted as-of>#<inverted version>#<lsd>#<kind>#<entity id>
//	the changes this version found (dispatchers)  CHGNEW          <lsd>#<kind>#<entity id>
//
// A section, quarter or LSD is answered from its township's partition,
// keeping the rows whose LSD lies in it: a township holds at most 576
// LSDs, and its changes in a year are few next to a page of another list.
const (
	PKChangesPrefix = "CHG#"
	PKChangesNew    = "CHGNEW"
)

// ChangeRetentionDays is how far back (by as-of date, from the newest
// version's) a version keeps the changes of the versions before it.
const ChangeRetentionDays = 730

// ChangeKind is what changed. The kinds of one entity type share its
// prefix (well_, pipeline_, facility_, disposition_).
type ChangeKind string

const (
	WellLicensed        ChangeKind = "well_licensed"         // a UWI not in the previous version
	WellStatusChanged   ChangeKind = "well_status_changed"   // status (bucket) or licence status word
	WellOperatorChanged ChangeKind = "well_operator_changed" // licensee/operator BA code
	WellOrphaned        ChangeKind = "well_orphaned"         // is_orphan false → true
	WellRemoved         ChangeKind = "well_removed"          // no longer listed

	PipelineLicensed        ChangeKind = "pipeline_licensed"         // a segment not in the previous version
	PipelineStatusChanged   ChangeKind = "pipeline_status_changed"   // segment status
	PipelineLicenseeChanged ChangeKind = "pipeline_licensee_changed" // operator/licensee BA code
	PipelineRemoved         ChangeKind = "pipeline_removed"

	FacilityAdded           ChangeKind = "facility_added"
	FacilityStatusChanged   ChangeKind = "facility_status_changed"
	FacilityOperatorChanged ChangeKind = "facility_operator_changed"
	FacilityRemoved         ChangeKind = "facility_removed"

	DispositionIssued        ChangeKind = "disposition_issued"         // a disposition not in the previous version
	DispositionTransferred   ChangeKind = "disposition_transferred"    // holder BA code (or name, without one)
	DispositionExpiryChanged ChangeKind = "disposition_expiry_changed" // expiry date moved (continued, extended)
	DispositionExpired       ChangeKind = "disposition_expired"        // status became expired, or its expiry fell between the two as-of dates
	DispositionCancelled     ChangeKind = "disposition_cancelled"      // status became cancelled, surrendered or terminated
	DispositionRemoved       ChangeKind = "disposition_removed"        // no longer listed, for no reason the list gives
)

// ChangeKinds lists every kind, in the order the documentation gives them.
var ChangeKinds = []ChangeKind{
	WellLicensed, WellStatusChanged, WellOperatorChanged, WellOrphaned, WellRemoved,
	PipelineLicensed, PipelineStatusChanged, PipelineLicenseeChanged, PipelineRemoved,
	FacilityAdded, FacilityStatusChanged, FacilityOperatorChanged, FacilityRemoved,
	DispositionIssued, DispositionTransferred, DispositionExpiryChanged, DispositionExpired, DispositionCancelled, DispositionRemoved,
}

// ParseChangeKind returns the kind named s.
func ParseChangeKind(s string) (ChangeKind, bool) {
	for _, k := range ChangeKinds {
		if string(k) == s {
			return k, true
		}
	}
	return "", false
}

// Entity types of a change.
const (
	EntityWell        = "well"
	EntityPipeline    = "pipeline"    // a segment: id "<licence>/<segment id>"
	EntityFacility    = "facility"    // the facility id
	EntityDisposition = "disposition" // the disposition number (category:number for minerals)
)

// Change is one change on one LSD: an item of CHG#<township> and of
// CHGNEW, and a row of GET /energy/changes and of a webhook's batch.
// Before and After hold the fields that changed, as they were and as they
// are (Before is null for an entity that is new, After for one removed):
// for a status change {"status": "Active"} → {"status": "Abandoned"}.
type Change struct {
	ID            string         `json:"id"` // stable: ChangeID
	Kind          ChangeKind     `json:"kind"`
	LegalLocation string         `json:"legal_location"` // the LSD
	Province      string         `json:"province"`
	EntityType    string         `json:"entity_type"`
	EntityID      string         `json:"entity_id"`      // UWI, "<licence>/<segment>", facility id, disposition number
	Href          string         `json:"href,omitempty"` // the entity's own endpoint, where one exists
	Before        map[string]any `json:"before"`
	After         map[string]any `json:"after"`
	Version       int64          `json:"version"` // the energy dataset version it was seen in
	AsOf          string         `json:"as_of"`   // YYYY-MM-DD: that version's as-of date
	Source        string         `json:"source"`  // the dataset the entity comes from, as meta.sources names it
	Demo          bool           `json:"demo,omitempty"`
}

// ChangeID is a change's stable id: the same change seen by two
// dispatchers, or delivered twice, has the same id.
func ChangeID(version int64, lsd string, kind ChangeKind, entity string) string {
	return fmt.Sprintf("v%d:%s:%s:%s", version, lsd, kind, entity)
}

// ChangesKey is the partition of the changes of the township of l (any
// DLS location down to the LSD): "CHG#" and the township as lld writes it.
func ChangesKey(l lld.Location) string {
	t := lld.Location{System: lld.DLS, Unit: lld.Township, Meridian: l.Meridian, Range: l.Range, Township: l.Township}
	return PKChangesPrefix + t.String()
}

// ChangeSK orders a township's changes newest first: by as-of date, then
// version, both inverted, then LSD, kind and entity.
func ChangeSK(c Change) string {
	date := strings.ReplaceAll(c.AsOf, "-", "")
	var d float64
	fmt.Sscan(date, &d)
	return Inverted(d, 1) + "#" + Inverted(float64(c.Version), 1) + "#" + c.LegalLocation + "#" + string(c.Kind) + "#" + c.EntityID
}

// ChangeSinceSK is the last SK (inclusive, ascending order) of the
// changes with an as-of date on or after since (YYYY-MM-DD): a query of
// the partition from "" to it answers `since`.
func ChangeSinceSK(since string) string {
	var d float64
	fmt.Sscan(strings.ReplaceAll(since, "-", ""), &d)
	return Inverted(d, 1) + "#~" // "~" sorts after the digits of the inverted version that follows
}

// ChangeNewSK is a change's sort key in CHGNEW.
func ChangeNewSK(c Change) string {
	return c.LegalLocation + "#" + string(c.Kind) + "#" + c.EntityID
}

// ParseChangeKinds reads the kinds a client asks for: change kinds, or
// entity types (well, pipeline, facility, disposition) for all of theirs,
// case-insensitive, without repeats, in the order asked. An unknown name
// is an invalid_parameter error.
func ParseChangeKinds(names []string) ([]ChangeKind, error) {
	var out []ChangeKind
	add := func(k ChangeKind) {
		if !slices.Contains(out, k) {
			out = append(out, k)
		}
	}
	for _, s := range names {
		s = strings.ToLower(strings.TrimSpace(s))
		switch s {
		case "":
			continue
		case EntityWell, EntityPipeline, EntityFacility, EntityDisposition:
			for _, k := range ChangeKinds {
				if strings.HasPrefix(string(k), s+"_") {
					add(k)
				}
			}
			continue
		}
		k, ok := ParseChangeKind(s)
		if !ok {
			return nil, apierr.Invalidf("invalid_parameter", "kinds: '%.40s' is not a change kind: use well, pipeline, facility, disposition or a kind such as well_status_changed", s)
		}
		add(k)
	}
	return out, nil
}
