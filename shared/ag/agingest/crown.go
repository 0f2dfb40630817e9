package agingest

import (
	"github.com/paulmach/orb"

	"meridian/shared/ingest"
	"meridian/shared/lld"
)

// CrownLand is a quarter section of Saskatchewan agricultural Crown land.
type CrownLand struct {
	Location    lld.Location // the quarter section (W2 or W3)
	LeaseType   string       // "Grazing", "Cultivation", "Hay", ...
	Status      string       // "Leased", "Vacant", ...
	Disposition string       // lease or disposition number; "" when absent
	Geometry    orb.Geometry
}

// Pasture is a Saskatchewan provincial or former federal (PFRA) community
// pasture.
type Pasture struct {
	Name     string
	Program  string // "Saskatchewan Pastures Program", "Former PFRA", ...
	Geometry orb.Geometry
}

// The layouts of the Saskatchewan Crown land readers: both guessed.
var (
	SKCrownLandLayout = ingest.Layout{
		Dataset:   "Saskatchewan agricultural Crown land",
		Publisher: "Saskatchewan Ministry of Agriculture (Lands Branch)",
		Form:      "Meridian's guess: LLD (or LEGAL_LAND, QTR_LLD), LEASE_TYPE (or DISP_TYPE), STATUS, DISP_NO (or LEASE_NO)",
		Verified:  false,
		Evidence:  "no evidence found (docs/real-layouts.md; the Agricultural Crown Land Map Viewer's field list not seen): check the column names of a download, how the quarter is written, and the lease type and status words",
	}
	SKPastureLayout = ingest.Layout{
		Dataset:   "Saskatchewan community pastures",
		Publisher: "Saskatchewan Ministry of Agriculture",
		Form:      "Meridian's guess: PASTURE (or PASTURE_NM, NAME), PROGRAM",
		Verified:  false,
		Evidence:  "no evidence found (docs/real-layouts.md): check the column names of a download and the program values",
	}
)

// ReadCrownLand streams Saskatchewan agricultural Crown land quarter
// sections (shapefile or GeoJSON) to fn. docs/data-sources.md §18 gives
// only the expected attributes (quarter LLD, lease type and status) ⚠;
// the layout read is:
//
//   - LLD (or LEGAL_LAND, QTR_LLD): the quarter, any spelling lld.Parse
//     reads ("NE-12-38-5-W3"), meridian W2 or W3; required
//   - LEASE_TYPE (or DISP_TYPE): required
//   - STATUS: optional
//   - DISP_NO (or LEASE_NO): optional
//
// The layout is SKCrownLandLayout, guessed. Fatal: a quarter that is not
// one in W2 or W3, no lease type, a feature without a polygon. Lease
// types and statuses are kept as given (no list to check them against);
// there are no notices.
func ReadCrownLand(src Source, fn func(CrownLand) error) error {
	t, err := src.Open()
	if err != nil {
		return err
	}
	if !t.Spatial {
		return t.Errorf(t.HeaderAt, "Crown land needs geometry: give the shapefile or GeoJSON, not %s", src.Format)
	}
	return t.Each(func(r *ingest.Row) error {
		t.Recognise(SKCrownLandLayout)
		text := r.Get("LLD", "LEGAL_LAND", "QTR_LLD")
		loc, err := lld.Parse(text)
		if err != nil || loc.System != lld.DLS || loc.Unit != lld.QuarterSection {
			return t.Errorf(r.Line, "LLD %q: want a quarter section such as NE-12-38-5-W3", text)
		}
		if loc.Meridian != lld.W2 && loc.Meridian != lld.W3 {
			return t.Errorf(r.Line, "LLD %q: Saskatchewan Crown land is west of the second or third meridian", text)
		}
		c := CrownLand{
			Location:    loc,
			LeaseType:   r.Get("LEASE_TYPE", "DISP_TYPE"),
			Status:      r.Get("STATUS"),
			Disposition: r.Get("DISP_NO", "LEASE_NO"),
		}
		if c.LeaseType == "" {
			return t.Errorf(r.Line, "%s: no LEASE_TYPE", loc)
		}
		g, why := polygonal(r.Geom)
		if why != "" {
			return t.Errorf(r.Line, "%s: %s", loc, why)
		}
		c.Geometry = g
		return fn(c)
	})
}

// ReadPastures streams Saskatchewan community pasture polygons (shapefile
// or GeoJSON) to fn. Layout (⚠ §18 names only the pasture name): the name
// in PASTURE, PASTURE_NM or NAME (required), the program in PROGRAM
// (optional). The layout is SKPastureLayout, guessed; fatal: no name, a
// feature without a polygon; no notices.
func ReadPastures(src Source, fn func(Pasture) error) error {
	t, err := src.Open()
	if err != nil {
		return err
	}
	if !t.Spatial {
		return t.Errorf(t.HeaderAt, "pastures need geometry: give the shapefile or GeoJSON, not %s", src.Format)
	}
	return t.Each(func(r *ingest.Row) error {
		t.Recognise(SKPastureLayout)
		p := Pasture{Name: r.Get("PASTURE", "PASTURE_NM", "NAME"), Program: r.Get("PROGRAM")}
		if p.Name == "" {
			return t.Errorf(r.Line, "pasture without a name")
		}
		g, why := polygonal(r.Geom)
		if why != "" {
			return t.Errorf(r.Line, "%s: %s", p.Name, why)
		}
		p.Geometry = g
		return fn(p)
	})
}
