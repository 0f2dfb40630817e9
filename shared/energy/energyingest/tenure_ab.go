package energyingest

import (
	"errors"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"meridian/shared/ingest"
)

// AlbertaAgreementLayout is Alberta's Crown mineral agreements as Alberta
// Energy and Minerals serves them: the GeoView ArcGIS MapServer
// "Mineral_Agreements_Ext_PROD" (gis.energy.gov.ab.ca/arcgis/rest/services/
// Geoview), layer 31 "Petroleum and Natural Gas Agreement" and its sibling
// leaf layers (oil sands, coal, metallic and industrial minerals, brine,
// geothermal, carbon sequestration, pore space), which share the field
// names. The file read is a query of a layer saved as GeoJSON
// (f=geojson): one Polygon or MultiPolygon feature per agreement tract, in
// longitude, latitude.
var AlbertaAgreementLayout = ingest.Layout{
	Dataset:   "Alberta Crown mineral agreements (GeoView Mineral_Agreements_Ext_PROD)",
	Publisher: "Alberta Energy and Minerals",
	Form:      "ArcGIS layer query saved as GeoJSON (layer 31 Petroleum and Natural Gas Agreement and sibling leaf layers)",
	Verified:  true,
	Evidence: "shepherd70/ab-land, a service that reads the live layers: config/sources.ts (read_file id 56360698384: service, layer ids), " +
		"src/lib/schemas.ts (id 56118602216: fields AgreementType, AgreementNumber, Tract, Status, DesRep, DesRepId, Participants, " +
		"TermDate, CurrentExpiryDate, ContinuationDate, CancelDate, ZoneDesc; dates as epoch milliseconds), src/lib/tenure.ts " +
		"(id 56453535397: AgreementType codes, 9999 expiry dates meaning continued); not yet in docs/real-layouts.md. " +
		"Status words and the Participants format were not seen in a real file: new Status words are notices",
}

// Alberta agreement types (the AgreementType codes of the GeoView layers)
// that this package places: PNG codes become KindPNG, the rest
// KindMineral with the type as the mineral category.
var albertaAgreementTypes = map[string]struct {
	kind, name string
}{
	"001": {KindPNG, "PNG Lease (legacy)"},
	"002": {KindPNG, "Natural Gas Lease (legacy)"},
	"003": {KindPNG, "Petroleum Lease (legacy)"},
	"004": {KindPNG, "PNG Lease (Plains)"},
	"005": {KindPNG, "PNG Lease (Northern)"},
	"006": {KindPNG, "PNG Lease (Foothills)"},
	"010": {KindPNG, "PNG Agreement type 010"},
	"041": {KindPNG, "PNG Agreement (Soldier Settlement Board)"},
	"042": {KindPNG, "PNG Other Lease"},
	"053": {KindPNG, "PNG Licence (Plains)"},
	"054": {KindPNG, "PNG Licence (Northern)"},
	"055": {KindPNG, "PNG Licence (Foothills)"},
	"036": {KindMineral, "Natural Gas Storage Agreement"},
	"013": {KindMineral, "Coal Lease"},
	"014": {KindMineral, "Coal Road Allowance Lease"},
	"037": {KindMineral, "Special Mineral Lease"},
	"058": {KindMineral, "Carbon Sequestration Evaluation Agreement"},
	"059": {KindMineral, "Carbon Sequestration Agreement"},
	"060": {KindMineral, "Geothermal Lease"},
	"061": {KindMineral, "Pore Space Lease"},
	"070": {KindMineral, "Oil Sands Permit"},
	"072": {KindMineral, "Oil Sands Lease"},
	"073": {KindMineral, "Oil Sands Lease"},
	"074": {KindMineral, "Oil Sands Lease"},
	"075": {KindMineral, "Oil Sands Lease"},
	"093": {KindMineral, "Metallic and Industrial Minerals Permit"},
	"094": {KindMineral, "Metallic and Industrial Minerals Lease"},
	"096": {KindMineral, "Secondary Mineral Lease"},
	"097": {KindMineral, "Subsurface Reservoir Lease"},
	"098": {KindMineral, "Brine Hosted Lease"},
	"099": {KindMineral, "Brine Hosted Licence"},
}

// albertaStatuses are the Status words this package has seen; others are
// kept as given and reported as notices.
var albertaStatuses = []string{"Active", "Continued"}

// AlbertaAgreementTypes lists the AgreementType codes ReadAlbertaAgreements
// accepts, sorted.
func AlbertaAgreementTypes() []string {
	codes := make([]string, 0, len(albertaAgreementTypes))
	for c := range albertaAgreementTypes {
		codes = append(codes, c)
	}
	slices.Sort(codes)
	return codes
}

// ReadAlbertaAgreements streams the features of an Alberta GeoView
// agreement layer query (AlbertaAgreementLayout) to fn, one Disposition per
// feature (an agreement tract: the same AgreementNumber may come once per
// Tract). Properties are found by name in any case; geometry is a Polygon,
// MultiPolygon or null, in longitude, latitude.
//
// Fatal (the file is rejected, naming line, column and value): a feature
// without AgreementNumber, an AgreementType that is not one of
// AlbertaAgreementTypes, a date that is neither epoch milliseconds nor
// YYYY-MM-DD. Notices (the row is kept): a Status other than Active or
// Continued (kept as given). A CurrentExpiryDate in the year 9999, a
// ContinuationDate or the status Continued make the agreement continued
// (no expiry). The holder is DesRep, or the first of Participants.
// Dispositions from this form carry no land description and no area:
// their place is the geometry.
func ReadAlbertaAgreements(r io.Reader, file string, notices *ingest.Notices, fn func(Disposition) error) error {
	return readFeatures(r, file, []string{"Polygon", "MultiPolygon"}, func(f *feature) error {
		d, err := albertaAgreement(f, file, notices)
		if err != nil {
			return err
		}
		return fn(d)
	})
}

func albertaAgreement(f *feature, file string, notices *ingest.Notices) (Disposition, error) {
	d := Disposition{Province: "AB", Number: f.get("AGREEMENTNUMBER"), Tract: f.get("TRACT"), Status: f.get("STATUS"), Geometry: f.geom,
		AreaHa: Amount{Empty: true}}
	if d.Number == "" {
		return Disposition{}, ingest.BadValue(file, f.line, "AgreementNumber", "", []string{"an agreement number"})
	}
	code := f.get("AGREEMENTTYPE")
	t, ok := albertaAgreementTypes[code]
	if !ok {
		return Disposition{}, ingest.BadValue(file, f.line, "AgreementType", code, AlbertaAgreementTypes())
	}
	d.Kind, d.Type = t.kind, t.name
	d.Holder = f.get("DESREP")
	if d.Holder == "" {
		d.Holder = firstParticipant(f.get("PARTICIPANTS"))
	}
	var err error
	date := func(column string) time.Time {
		v := f.get(strings.ToUpper(column))
		t, e := arcgisDate(v)
		if e != nil && err == nil {
			err = ingest.BadValue(file, f.line, column, v, []string{"epoch milliseconds", "YYYY-MM-DD", "null"})
		}
		return t
	}
	d.IssueDate = date("TermDate")
	expiry := date("CurrentExpiryDate")
	continuation := date("ContinuationDate")
	if err != nil {
		return Disposition{}, err
	}
	switch {
	case d.Status == "":
	case slices.ContainsFunc(albertaStatuses, func(s string) bool { return strings.EqualFold(s, d.Status) }):
	default:
		notices.Add(ingest.Notice{File: file, Line: f.line, Column: "Status", Value: d.Status, Reason: "kept as given"})
	}
	d.Continued = strings.EqualFold(d.Status, "Continued") || !continuation.IsZero() || expiry.Year() == 9999
	if !d.Continued {
		d.ExpiryDate = expiry
	}
	return d, nil
}

// firstParticipant is the first name of a Participants list: names with
// their shares, separated by ";" or "/" (a format not seen in a real file).
func firstParticipant(s string) string {
	if i := strings.IndexAny(s, ";/"); i >= 0 {
		s = s[:i]
	}
	s = strings.TrimSpace(s)
	if i := strings.LastIndexByte(s, ' '); i > 0 && strings.HasSuffix(s, "%") {
		s = strings.TrimSpace(s[:i])
	}
	return s
}

// arcgisDate reads an ArcGIS date: epoch milliseconds (negative before
// 1970, possibly written with a ".0"), or YYYY-MM-DD; "" is no date. The
// day is the UTC day of the instant (the services store local midnight,
// which is the same day in UTC).
func arcgisDate(s string) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	if len(s) == 10 && s[4] == '-' && s[7] == '-' {
		return time.Parse("2006-01-02", s)
	}
	ms, err := strconv.ParseFloat(s, 64)
	if err != nil || ms != math.Trunc(ms) || math.Abs(ms) > 4e14 {
		return time.Time{}, errors.New("not a date")
	}
	t := time.UnixMilli(int64(ms)).UTC()
	return time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC), nil
}

// DispositionLayoutOf says which disposition layout a file is, from its
// name and its first feature or header: AlbertaAgreementLayout for a
// GeoJSON whose features have AgreementNumber, DispositionGeoJSONLayout
// for another GeoJSON, DispositionCSVLayout for a CSV. It reads at most
// the first feature.
func DispositionLayoutOf(r io.Reader, file string) (ingest.Layout, error) {
	if !strings.HasSuffix(strings.ToLower(file), ".geojson") && !strings.HasSuffix(strings.ToLower(file), ".json") {
		return DispositionCSVLayout, nil
	}
	l := DispositionGeoJSONLayout
	errFirst := errors.New("first feature read")
	err := readFeatures(r, file, []string{"Polygon", "MultiPolygon"}, func(f *feature) error {
		if f.has("AGREEMENTNUMBER") {
			l = AlbertaAgreementLayout
		}
		return errFirst
	})
	if err != nil && err != errFirst {
		return ingest.Layout{}, err
	}
	return l, nil
}
