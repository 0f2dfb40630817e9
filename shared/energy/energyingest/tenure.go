package energyingest

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/paulmach/orb"

	"meridian/shared/ingest"
	"meridian/shared/lld"
)

// Disposition is a Crown petroleum and natural gas (PNG) or mineral
// disposition: an agreement, lease, licence or permit in Alberta,
// Saskatchewan or Manitoba (docs/data-sources.md §6-§8).
//
// Alberta's agreements are read in the form Alberta Energy and Minerals
// serves them (AlbertaAgreementLayout, ReadAlbertaAgreements). For
// Saskatchewan and Manitoba no real layout has been found: the CSV and
// GeoJSON layouts of DispositionColumns are this package's own
// (DispositionCSVLayout, DispositionGeoJSONLayout, both guessed), a
// converter from each province's download must map onto them, and an
// ingest says so on its first line.
type Disposition struct {
	Number string // agreement / disposition number, as published ("0526110123")
	// Tract is the tract of an Alberta agreement published one feature per
	// tract ("1", "2"); "" in the other forms.
	Tract string
	Kind  string // KindPNG or KindMineral
	// Type is the category: "PNG Lease", "PNG Licence", "Metallic and
	// Industrial Minerals Permit" ...
	Type      string
	Holder    string // designated representative / holder name (no BA code)
	Status    string // "Active", "Continued", ...
	IssueDate time.Time
	// ExpiryDate is the term or expiry date; zero when none is published
	// (Saskatchewan publishes none) or the disposition is Continued.
	ExpiryDate time.Time
	// Continued marks a disposition continued past its term (a "perpetual"
	// lease that holds while it produces): it has no expiry.
	Continued bool
	AreaHa    Amount // hectares
	Province  string // AB, SK or MB
	// Lands is the land description: the DLS townships, sections,
	// quarters or LSDs the disposition covers.
	Lands []lld.Location
	// Geometry is the disposition's orb.Polygon or orb.MultiPolygon in
	// longitude, latitude (GeoJSON variant); nil from the CSV.
	Geometry orb.Geometry
}

// Disposition kinds.
const (
	KindPNG     = "PNG"
	KindMineral = "MINERAL"
)

// ExpiresWithin reports whether d has an expiry date in [asOf, asOf +
// months) and is not continued.
func (d Disposition) ExpiresWithin(asOf time.Time, months int) bool {
	if d.Continued || d.ExpiryDate.IsZero() {
		return false
	}
	return !d.ExpiryDate.Before(asOf) && d.ExpiryDate.Before(asOf.AddDate(0, months, 0))
}

// DispositionCSVLayout and DispositionGeoJSONLayout are this package's own
// disposition layouts (DispositionColumns): no province publishes them.
var (
	DispositionCSVLayout = ingest.Layout{
		Dataset:   "Crown PNG and mineral dispositions (SK, MB; AB converted)",
		Publisher: "Meridian's own interchange layout (no provincial file seen)",
		Form:      "Crown_Dispositions*.csv with the DispositionColumns header",
		Verified:  false,
		Evidence: "no real Saskatchewan (IRIS, GeoAtlas) or Manitoba disposition download has been seen; check that the converter " +
			"wrote DispositionNumber, Kind PNG/MINERAL, the holder's name as the BA register spells it, YYYY-MM-DD dates " +
			"(Saskatchewan is said to publish no expiry date), Continued Y/N, AreaHa in hectares and DLS locations in LandDescription",
	}
	DispositionGeoJSONLayout = ingest.Layout{
		Dataset:   "Crown PNG and mineral dispositions (SK, MB; AB converted)",
		Publisher: "Meridian's own interchange layout (no provincial file seen)",
		Form:      "Crown_Dispositions*.geojson, DispositionColumns as properties, polygons in longitude, latitude",
		Verified:  false,
		Evidence: "no real Saskatchewan or Manitoba disposition download has been seen; check the property names against " +
			"DispositionColumns, that geometries are longitude, latitude (not UTM or 10TM), and the holder names",
	}
)

var dispositionColumns = []column{
	{"DispositionNumber", true}, {"Kind", true}, {"Type", true}, {"Holder", true}, {"Status", true},
	{"IssueDate", true}, {"ExpiryDate", true}, {"Continued", true}, {"AreaHa", true}, {"Province", true},
	{"LandDescription", true},
}

// DispositionColumns returns the columns of the disposition CSV, in order.
// The GeoJSON variant has the same names as feature properties.
//
//	DispositionNumber  text, required
//	Kind               PNG or MINERAL
//	Type               category: PNG Lease, PNG Licence, Metallic and Industrial Minerals Permit ...
//	Holder             holder / designated representative name
//	Status             Active, Continued, ...
//	IssueDate          YYYY-MM-DD
//	ExpiryDate         YYYY-MM-DD, empty when none (SK) or continued
//	Continued          Y or N: continued past its term (perpetual, no expiry)
//	AreaHa             hectares
//	Province           AB, SK or MB
//	LandDescription    DLS locations separated by ";", e.g. "NW-25-24-1-W5;SE-36-24-1-W5;25-2-W5"
func DispositionColumns() []string { return columnNames(dispositionColumns) }

const (
	dNumber = iota
	dKind
	dType
	dHolder
	dStatus
	dIssue
	dExpiry
	dContinued
	dArea
	dProvince
	dLands
)

// ReadDispositionsCSV streams a disposition CSV in the layout of
// DispositionColumns to fn (header row, any column order). A row is
// rejected when its number is empty, Kind or Province is not one of the
// values above, a date, flag or area does not parse, or its land
// description is empty or holds anything but DLS locations. Type, Holder
// and Status are free text, kept as given (no notices). The layout is
// DispositionCSVLayout: guessed.
func ReadDispositionsCSV(r io.Reader, file string, fn func(Disposition) error) error {
	t, err := newCSVTable(r, file, dispositionColumns, csvOptions{})
	if err != nil {
		return err
	}
	for {
		ok, err := t.next()
		if err != nil || !ok {
			return err
		}
		d, err := parseDisposition(func(i int) string { return t.str(i) }, true)
		if err != nil {
			return t.errorf("%v", err)
		}
		if err := fn(d); err != nil {
			return err
		}
	}
}

// ReadDispositionsGeoJSON streams a GeoJSON FeatureCollection of
// dispositions to fn: properties named as in DispositionColumns, geometry
// Polygon or MultiPolygon in longitude, latitude. LandDescription may be
// empty when the feature has a geometry. The values are checked as in
// ReadDispositionsCSV. The layout is DispositionGeoJSONLayout: guessed.
func ReadDispositionsGeoJSON(r io.Reader, file string, fn func(Disposition) error) error {
	return readFeatures(r, file, []string{"Polygon", "MultiPolygon"}, func(f *feature) error {
		for _, c := range dispositionColumns {
			if c.required && !f.has(strings.ToUpper(c.name)) && c.name != "LandDescription" {
				return ingest.Errorf(file, f.line, "feature has no %s property", c.name)
			}
		}
		d, err := parseDisposition(func(i int) string {
			return f.get(strings.ToUpper(dispositionColumns[i].name))
		}, f.geom == nil)
		if err != nil {
			return ingest.Errorf(file, f.line, "%v", err)
		}
		d.Geometry = f.geom
		return fn(d)
	})
}

func parseDisposition(get func(int) string, needLands bool) (Disposition, error) {
	var firstErr error
	fail := func(i int, err error) {
		if firstErr == nil {
			firstErr = fmt.Errorf("%s: %v", dispositionColumns[i].name, err)
		}
	}
	date := func(i int) time.Time {
		s := get(i)
		if s != "" && !(len(s) == 10 && s[4] == '-') {
			fail(i, fmt.Errorf("%q is not a YYYY-MM-DD date", s))
			return time.Time{}
		}
		d, err := parseDate(s)
		if err != nil {
			fail(i, err)
		}
		return d
	}
	d := Disposition{
		Number:     get(dNumber),
		Kind:       strings.ToUpper(get(dKind)),
		Type:       get(dType),
		Holder:     get(dHolder),
		Status:     get(dStatus),
		IssueDate:  date(dIssue),
		ExpiryDate: date(dExpiry),
		Province:   strings.ToUpper(get(dProvince)),
	}
	if d.Number == "" {
		fail(dNumber, errors.New("empty"))
	}
	if d.Kind != KindPNG && d.Kind != KindMineral {
		fail(dKind, fmt.Errorf("%q: want PNG or MINERAL", get(dKind)))
	}
	var err error
	if d.Continued, err = parseFlag(get(dContinued)); err != nil {
		fail(dContinued, err)
	}
	if d.AreaHa, err = parseAmount(get(dArea)); err != nil || d.AreaHa.Value < 0 {
		fail(dArea, fmt.Errorf("%q is not an area in hectares", get(dArea)))
	}
	switch d.Province {
	case "AB", "SK", "MB":
	default:
		fail(dProvince, fmt.Errorf("%q: want AB, SK or MB", get(dProvince)))
	}
	lands := get(dLands)
	for _, part := range strings.Split(lands, ";") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		l, err := lld.Parse(part)
		if err != nil {
			fail(dLands, fmt.Errorf("%q: %v", part, err))
			break
		}
		if l.System != lld.DLS {
			fail(dLands, fmt.Errorf("%q is not a DLS location", part))
			break
		}
		d.Lands = append(d.Lands, l)
	}
	if len(d.Lands) == 0 && needLands {
		fail(dLands, errors.New("no land"))
	}
	if firstErr != nil {
		return Disposition{}, firstErr
	}
	return d, nil
}
