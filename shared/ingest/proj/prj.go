package proj

import (
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// FromWKT returns the projection of a coordinate reference system given as
// WKT, such as the content of a shapefile's .prj file. It reads ESRI WKT,
// OGC WKT 1 and ISO 19162 WKT 2 and recognises:
//
//   - geographic NAD83 or WGS 84 (GEOGCS, GEOGCRS);
//   - Transverse Mercator (PROJECTION["Transverse_Mercator"]) on GRS 1980
//     or WGS 84, by its parameters central_meridian, scale_factor,
//     false_easting, false_northing and latitude_of_origin, in any linear
//     unit; UTM zones 7N–22N come back as their EPSG projection, and a
//     name such as "NAD_1983_UTM_Zone_13N" or "NAD83 / UTM zone 13N" must
//     agree with the parameters;
//   - Albers Equal Area Conic (PROJECTION["Albers_Conic_Equal_Area"],
//     ESRI's "Albers", WKT 2's METHOD["Albers Equal Area"]) on GRS 1980 or
//     WGS 84, by its two standard parallels, latitude and longitude of
//     false origin (latitude_of_center or latitude_of_origin,
//     longitude_of_center or central_meridian) and false easting and
//     northing, in any linear unit; the British Columbia Albers in metres
//     comes back as EPSG:3005 on NAD83 and EPSG:3153 on NAD83(CSRS). All
//     four angles are required: software disagrees on a missing second
//     standard parallel (ArcGIS takes the first, PROJ the equator);
//   - Lambert Conformal Conic (ESRI's PROJECTION["Lambert_Conformal_Conic"],
//     WKT 1's "Lambert_Conformal_Conic_2SP" and "…_1SP", WKT 2's
//     METHOD["Lambert Conic Conformal (2SP)"] and "(1SP)") on GRS 1980 or
//     WGS 84: with two standard parallels, latitude and longitude of false
//     origin and false easting and northing, or with one (the latitude of
//     origin) and a scale factor, in any linear unit; the Ontario MNR,
//     Canada Atlas and Statistics Canada Lambert in metres come back as
//     EPSG:3161, 3978 and 3347 on NAD83 (3162, 3979 and 3348 on
//     NAD83(CSRS));
//   - Web Mercator: "WGS_1984_Web_Mercator_Auxiliary_Sphere"
//     (Mercator_Auxiliary_Sphere), "Popular Visualisation Pseudo Mercator",
//     "WGS 84 / Pseudo-Mercator" and a Mercator on the 6378137 m sphere.
//
// An AUTHORITY["EPSG", code] (or WKT 2 ID) of the root element decides when
// FromEPSG knows the code. Anything else is an ErrUnsupported error that
// names what was found.
func FromWKT(wkt string) (Projection, error) {
	root, err := parseWKT(wkt)
	if err != nil {
		return nil, err
	}
	if code, ok := epsgAuthority(root); ok {
		if p, err := FromEPSG(code); err == nil {
			return p, nil
		}
	}
	switch root.keyword {
	case "GEOGCS", "GEOGCRS", "GEOGRAPHICCRS", "GEODCRS", "GEODETICCRS":
		return geographicFromWKT(root)
	case "PROJCS", "PROJCRS", "PROJECTEDCRS":
		return projectedFromWKT(root)
	}
	return nil, fmt.Errorf("%w: WKT %s[%q]", ErrUnsupported, root.keyword, root.name())
}

// epsgAuthority returns the code of the last AUTHORITY["EPSG", code] or
// ID["EPSG", code] child of n.
func epsgAuthority(n *wktNode) (int, bool) {
	ids := n.children("AUTHORITY", "ID")
	if len(ids) == 0 {
		return 0, false
	}
	id := ids[len(ids)-1]
	if !strings.EqualFold(id.name(), "EPSG") || len(id.args) < 2 {
		return 0, false
	}
	a := id.args[1]
	if a.isNum {
		if a.num != math.Trunc(a.num) || math.Abs(a.num) > 1e9 {
			return 0, false
		}
		return int(a.num), true
	}
	code, err := strconv.Atoi(strings.TrimSpace(a.text))
	return code, err == nil
}

// datumKind is a datum this package accepts.
type datumKind int

const (
	datumNAD83 datumKind = iota + 1
	datumWGS84
)

// geodetic is what FromWKT needs of a geographic CRS.
type geodetic struct {
	name  string // the CRS name as written
	datum datumKind
	plain bool // NAD83 or WGS 84 itself, not a realisation such as CSRS
	csrs  bool // NAD83(CSRS), any of its realisations
	ell   ellipsoid
	// angle is radians per angular unit.
	angle float64
}

func geographicFromWKT(root *wktNode) (Projection, error) {
	g, err := geodeticFromWKT(root)
	if err != nil {
		return nil, err
	}
	if g.ell.invF == 0 {
		return nil, fmt.Errorf("%w: geographic CRS %q on a sphere", ErrUnsupported, g.name)
	}
	if !near(g.angle, deg, 1e-12) {
		return nil, fmt.Errorf("%w: geographic CRS %q in angular unit of %v radians, not degrees", ErrUnsupported, g.name, g.angle)
	}
	switch {
	case g.plain && g.datum == datumNAD83:
		return geographic{name: "NAD83", epsg: EPSGNAD83}, nil
	case g.plain && g.datum == datumWGS84:
		return geographic{name: "WGS 84", epsg: EPSGWGS84}, nil
	}
	name := g.name
	if name == "" {
		name = "geographic CRS"
	}
	return geographic{name: name}, nil
}

// geodeticFromWKT reads the datum, ellipsoid, prime meridian and angular
// unit of a geographic CRS element.
func geodeticFromWKT(n *wktNode) (geodetic, error) {
	g := geodetic{name: n.name(), angle: deg}
	datum := n.child("DATUM", "GEODETICDATUM", "TRF", "ENSEMBLE", "DATUMENSEMBLE")
	if datum == nil {
		return g, fmt.Errorf("%w: geographic CRS %q has no DATUM", ErrUnsupported, g.name)
	}
	dn := normName(datum.name())
	switch {
	case strings.Contains(dn, "1927") || strings.Contains(dn, "nad27"):
		return g, fmt.Errorf("%w: datum %q (NAD27 needs a datum shift)", ErrUnsupported, datum.name())
	case strings.Contains(dn, "northamerican1983") || strings.Contains(dn, "northamericandatum1983") || strings.Contains(dn, "nad83"):
		g.datum = datumNAD83
		g.plain = slices.Contains([]string{"dnorthamerican1983", "northamericandatum1983", "northamerican1983", "nad83"}, dn)
		g.csrs = strings.Contains(dn, "csrs") || strings.Contains(dn, "canadianspatialreferencesystem")
	case strings.Contains(dn, "wgs1984") || strings.Contains(dn, "wgs84") || strings.Contains(dn, "worldgeodeticsystem1984"),
		strings.Contains(dn, "popularvisualisation"): // EPSG:6055, WGS 84 on the Web Mercator sphere
		g.datum = datumWGS84
		g.plain = slices.Contains([]string{"dwgs1984", "wgs1984", "wgs84", "worldgeodeticsystem1984", "worldgeodeticsystem1984ensemble"}, dn)
	default:
		return g, fmt.Errorf("%w: datum %q", ErrUnsupported, datum.name())
	}
	sph := datum.child("SPHEROID", "ELLIPSOID")
	if sph == nil {
		return g, fmt.Errorf("%w: datum %q has no SPHEROID", ErrUnsupported, datum.name())
	}
	a, okA := sph.number(1)
	invF, okF := sph.number(2)
	if !okA || !okF {
		return g, fmt.Errorf("%w: SPHEROID %q needs a semi-major axis and an inverse flattening", ErrUnsupported, sph.name())
	}
	if u := sph.child("LENGTHUNIT", "UNIT"); u != nil {
		if f, ok := u.number(1); ok {
			a *= f
		}
	}
	switch {
	case near(a, 6378137, 1e-9) && invF == 0:
		g.ell = ellipsoid{name: sph.name(), a: a}
	case near(a, grs80.a, 1e-9) && near(invF, grs80.invF, 1e-9):
		g.ell = grs80
	case near(a, wgs84.a, 1e-9) && near(invF, wgs84.invF, 1e-9):
		g.ell = wgs84
	default:
		return g, fmt.Errorf("%w: spheroid %q (a = %v, 1/f = %v) is neither GRS 1980 nor WGS 84", ErrUnsupported, sph.name(), a, invF)
	}
	if pm := n.child("PRIMEM", "PRIMEMERIDIAN"); pm != nil {
		if v, ok := pm.number(1); !ok || v != 0 {
			return g, fmt.Errorf("%w: prime meridian %q is not Greenwich", ErrUnsupported, pm.name())
		}
	}
	if u := n.child("UNIT", "ANGLEUNIT"); u != nil {
		f, ok := u.number(1)
		if !ok || !(f > 0) || math.IsInf(f, 0) {
			return g, fmt.Errorf("%w: angular unit %q has no valid factor", ErrUnsupported, u.name())
		}
		g.angle = f
	}
	return g, nil
}

// tmParam names the projection parameters FromWKT reads.
type tmParam int

const (
	paramLon0 tmParam = iota
	paramLat0
	paramK0
	paramFE
	paramFN
	paramStdParallel
	paramStdParallel2
	paramAuxSphere
	numParams
)

// paramNames maps normalised parameter names (ESRI, OGC WKT 1 and EPSG /
// WKT 2 spellings) to parameters.
var paramNames = map[string]tmParam{
	"centralmeridian":                paramLon0,
	"longitudeofnaturalorigin":       paramLon0,
	"longitudeoforigin":              paramLon0,
	"longitudeofcenter":              paramLon0,
	"longitudeoffalseorigin":         paramLon0,
	"latitudeoforigin":               paramLat0,
	"latitudeofnaturalorigin":        paramLat0,
	"latitudeofcenter":               paramLat0,
	"latitudeoffalseorigin":          paramLat0,
	"scalefactor":                    paramK0,
	"scalefactoratnaturalorigin":     paramK0,
	"falseeasting":                   paramFE,
	"eastingatfalseorigin":           paramFE,
	"falsenorthing":                  paramFN,
	"northingatfalseorigin":          paramFN,
	"standardparallel1":              paramStdParallel,
	"latitudeof1ststandardparallel":  paramStdParallel,
	"standardparallel2":              paramStdParallel2,
	"latitudeof2ndstandardparallel":  paramStdParallel2,
	"auxiliaryspheretype":            paramAuxSphere,
	"auxiliaryspheretypeparameterid": paramAuxSphere,
}

// projected is what FromWKT reads of a projected CRS.
type projected struct {
	name   string
	method string
	geo    geodetic
	units  float64 // metres per linear unit
	params [numParams]float64
	has    [numParams]bool
}

func projectedFromWKT(root *wktNode) (Projection, error) {
	pr := projected{name: root.name(), units: 1}
	base := root.child("GEOGCS", "BASEGEOGCRS", "BASEGEODCRS")
	if base == nil {
		return nil, fmt.Errorf("%w: PROJCS %q has no GEOGCS", ErrUnsupported, pr.name)
	}
	var err error
	if pr.geo, err = geodeticFromWKT(base); err != nil {
		return nil, fmt.Errorf("%w in PROJCS %q", err, pr.name)
	}
	if u := root.child("UNIT", "LENGTHUNIT"); u != nil {
		pr.units, _ = u.number(1)
	} else if cs := root.children("AXIS"); len(cs) > 0 {
		if u := cs[0].child("LENGTHUNIT", "UNIT"); u != nil {
			pr.units, _ = u.number(1)
		}
	}
	if !(pr.units >= 1e-3 && pr.units <= 1e5) {
		return nil, fmt.Errorf("%w: PROJCS %q has no valid linear unit (%v m)", ErrUnsupported, pr.name, pr.units)
	}
	// WKT 1: PROJECTION and PARAMETER are children of PROJCS; WKT 2: of
	// CONVERSION, with METHOD.
	holder := root
	method := root.child("PROJECTION")
	if conv := root.child("CONVERSION"); conv != nil {
		holder, method = conv, conv.child("METHOD", "PROJECTION")
	}
	if method == nil {
		return nil, fmt.Errorf("%w: PROJCS %q has no PROJECTION", ErrUnsupported, pr.name)
	}
	pr.method = method.name()
	for _, p := range holder.children("PARAMETER") {
		k, ok := paramNames[normName(p.name())]
		if !ok {
			continue
		}
		v, ok := p.number(1)
		if !ok || !finite(v) {
			return nil, fmt.Errorf("%w: PROJCS %q: parameter %q has no valid value", ErrUnsupported, pr.name, p.name())
		}
		// WKT 2 gives each value its own unit; WKT 1 uses the GEOGCS
		// angular unit and the PROJCS linear unit.
		switch k {
		case paramLon0, paramLat0, paramStdParallel, paramStdParallel2:
			f := pr.geo.angle
			if u := p.child("ANGLEUNIT", "UNIT"); u != nil {
				f, _ = u.number(1)
			}
			if !near(f, deg, 1e-12) {
				v = v * f / deg
			}
		case paramFE, paramFN:
			if u := p.child("LENGTHUNIT", "UNIT"); u != nil {
				f, _ := u.number(1)
				v = v * f / pr.units
			}
		}
		pr.params[k], pr.has[k] = v, true
	}
	switch normName(pr.method) {
	case "transversemercator", "gausskruger":
		return pr.transverseMercator()
	case "albersconicequalarea", "albersequalarea", "albers":
		return pr.albers()
	case "lambertconformalconic", "lambertconformalconic2sp", "lambertconicconformal2sp":
		return pr.lambert(false)
	case "lambertconformalconic1sp", "lambertconicconformal1sp":
		return pr.lambert(true)
	case "mercatorauxiliarysphere", "popularvisualisationpseudomercator", "popularvisualizationpseudomercator", "pseudomercator":
		return pr.webMercator()
	case "mercator", "mercator1sp", "mercatorvarianta":
		n := normName(pr.name)
		if pr.geo.ell.invF == 0 || strings.Contains(n, "webmercator") || strings.Contains(n, "pseudomercator") {
			return pr.webMercator()
		}
		return nil, fmt.Errorf("%w: ellipsoidal Mercator %q (only Web Mercator is supported)", ErrUnsupported, pr.name)
	}
	return nil, fmt.Errorf("%w: projection %q in PROJCS %q", ErrUnsupported, pr.method, pr.name)
}

// param returns a parameter or def when it is absent.
func (pr *projected) param(k tmParam, def float64) float64 {
	if pr.has[k] {
		return pr.params[k]
	}
	return def
}

func (pr *projected) webMercator() (Projection, error) {
	if pr.has[paramAuxSphere] && pr.params[paramAuxSphere] != 0 {
		return nil, fmt.Errorf("%w: PROJCS %q: auxiliary sphere type %v (only 0, the semi-major axis, is Web Mercator)",
			ErrUnsupported, pr.name, pr.params[paramAuxSphere])
	}
	lon0, fe, fn := pr.param(paramLon0, 0), pr.param(paramFE, 0), pr.param(paramFN, 0)
	k0, sp := pr.param(paramK0, 1), pr.param(paramStdParallel, 0)
	if lon0 != 0 || fe != 0 || fn != 0 || k0 != 1 || sp != 0 || !near(pr.units, 1, 1e-12) || !near(pr.geo.ell.a, webMercatorRadius, 1e-12) {
		return nil, fmt.Errorf("%w: PROJCS %q: Web Mercator with central meridian %v, false easting %v, false northing %v, scale %v, standard parallel %v, unit %v m is not EPSG:3857",
			ErrUnsupported, pr.name, lon0, fe, fn, k0, sp, pr.units)
	}
	return webMercator{}, nil
}

// utmName matches the zone of a UTM name, normalised by normName:
// "NAD_1983_UTM_Zone_13N", "NAD83 / UTM zone 13N", "WGS 84 / UTM zone 13N".
var utmName = regexp.MustCompile(`utmzone([0-9]{1,2})n$`)

func (pr *projected) transverseMercator() (Projection, error) {
	if pr.geo.ell.invF == 0 {
		return nil, fmt.Errorf("%w: PROJCS %q: Transverse Mercator on a sphere", ErrUnsupported, pr.name)
	}
	zone := 0
	if m := utmName.FindStringSubmatch(normName(pr.name)); m != nil {
		zone, _ = strconv.Atoi(m[1])
		if zone < 1 || zone > 60 {
			return nil, fmt.Errorf("%w: PROJCS %q: no UTM zone %d", ErrUnsupported, pr.name, zone)
		}
	}
	p := tmParams{name: pr.name, ell: pr.geo.ell, units: pr.units}
	if zone != 0 {
		// The name decides the defaults; parameters present must agree.
		p.lon0, p.k0, p.fe = utmCentralMeridian(zone), 0.9996, 500000/pr.units
	}
	var missing []string
	if pr.has[paramLon0] {
		p.lon0 = pr.params[paramLon0]
	} else if zone == 0 {
		missing = append(missing, "central_meridian")
	}
	if pr.has[paramK0] {
		p.k0 = pr.params[paramK0]
	} else if zone == 0 {
		missing = append(missing, "scale_factor")
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("%w: PROJCS %q: Transverse Mercator without %s", ErrUnsupported, pr.name, strings.Join(missing, ", "))
	}
	p.fe = pr.param(paramFE, p.fe)
	p.fn = pr.param(paramFN, 0)
	p.lat0 = pr.param(paramLat0, 0)
	if math.Abs(p.lon0) > 180 || math.Abs(p.lat0) >= 90 || !(p.k0 >= 0.1 && p.k0 <= 10) {
		return nil, fmt.Errorf("%w: PROJCS %q: Transverse Mercator parameters out of range (central meridian %v, latitude of origin %v, scale factor %v)",
			ErrUnsupported, pr.name, p.lon0, p.lat0, p.k0)
	}
	isUTM := func(z int) bool {
		return near(p.lon0, utmCentralMeridian(z), 1e-9) && p.lat0 == 0 && near(p.k0, 0.9996, 1e-12) &&
			near(p.fe*pr.units, 500000, 1e-12) && p.fn == 0
	}
	if zone != 0 && !isUTM(zone) {
		return nil, fmt.Errorf("%w: PROJCS %q names UTM zone %dN but its parameters are central meridian %v, latitude of origin %v, scale factor %v, false easting %v, false northing %v",
			ErrUnsupported, pr.name, zone, p.lon0, p.lat0, p.k0, p.fe, p.fn)
	}
	if z := int(math.Round((p.lon0 + 183) / 6)); z >= MinUTMZone && z <= MaxUTMZone && isUTM(z) && pr.geo.plain && pr.units == 1 {
		if pr.geo.datum == datumNAD83 {
			return utm(z, pr.geo.ell, "NAD83"), nil
		}
		return utm(z, pr.geo.ell, "WGS 84"), nil
	}
	if p.name == "" {
		p.name = fmt.Sprintf("Transverse Mercator (central meridian %v)", p.lon0)
	}
	return newTransverseMercator(p), nil
}

func (pr *projected) albers() (Projection, error) {
	if pr.geo.ell.invF == 0 {
		return nil, fmt.Errorf("%w: PROJCS %q: Albers Equal Area on a sphere", ErrUnsupported, pr.name)
	}
	var missing []string
	for _, m := range []struct {
		k    tmParam
		name string
	}{
		{paramStdParallel, "standard_parallel_1"},
		{paramStdParallel2, "standard_parallel_2"},
		{paramLat0, "latitude_of_center"},
		{paramLon0, "longitude_of_center"},
	} {
		if !pr.has[m.k] {
			missing = append(missing, m.name)
		}
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("%w: PROJCS %q: Albers Equal Area without %s", ErrUnsupported, pr.name, strings.Join(missing, ", "))
	}
	p := albersParams{
		name: pr.name, ell: pr.geo.ell, units: pr.units,
		lat0: pr.params[paramLat0], lon0: pr.params[paramLon0],
		lat1: pr.params[paramStdParallel], lat2: pr.params[paramStdParallel2],
		fe: pr.param(paramFE, 0), fn: pr.param(paramFN, 0),
	}
	bc := bcAlbersParams("", 0)
	isBC := near(p.lat0, bc.lat0, 1e-9) && near(p.lon0, bc.lon0, 1e-9) &&
		(near(p.lat1, bc.lat1, 1e-9) && near(p.lat2, bc.lat2, 1e-9) || near(p.lat1, bc.lat2, 1e-9) && near(p.lat2, bc.lat1, 1e-9)) &&
		near(p.fe*pr.units, bc.fe, 1e-12) && p.fn == 0
	if isBC && pr.units == 1 && pr.geo.ell == grs80 && pr.geo.datum == datumNAD83 {
		switch {
		case pr.geo.plain:
			return FromEPSG(EPSGBCAlbers)
		case pr.geo.csrs:
			return FromEPSG(EPSGBCAlbersCSRS)
		}
	}
	if p.name == "" {
		p.name = fmt.Sprintf("Albers Equal Area (standard parallels %v and %v, central meridian %v)", p.lat1, p.lat2, p.lon0)
	}
	a, err := newAlbers(p)
	if err != nil {
		return nil, err
	}
	return a, nil
}

// lambert reads a Lambert Conformal Conic. oneSP is the method's own word
// for the one-standard-parallel form (WKT 1 "Lambert_Conformal_Conic_1SP",
// WKT 2 "Lambert Conic Conformal (1SP)"); ESRI writes both forms as
// "Lambert_Conformal_Conic", the 1SP one with a single standard parallel
// equal to the latitude of origin and a scale factor.
func (pr *projected) lambert(oneSP bool) (Projection, error) {
	if pr.geo.ell.invF == 0 {
		return nil, fmt.Errorf("%w: PROJCS %q: Lambert Conformal Conic on a sphere", ErrUnsupported, pr.name)
	}
	p := lccParams{
		name: pr.name, ell: pr.geo.ell, units: pr.units,
		fe: pr.param(paramFE, 0), fn: pr.param(paramFN, 0),
	}
	if !oneSP && normName(pr.method) == "lambertconformalconic" && pr.has[paramStdParallel] && !pr.has[paramStdParallel2] {
		// ESRI's 1SP: the standard parallel is the latitude of origin.
		lat0 := pr.param(paramLat0, pr.params[paramStdParallel])
		if !near(lat0, pr.params[paramStdParallel], 1e-12) {
			return nil, fmt.Errorf("%w: PROJCS %q: Lambert Conformal Conic with one standard parallel %v and latitude of origin %v",
				ErrUnsupported, pr.name, pr.params[paramStdParallel], lat0)
		}
		oneSP = true
		pr.params[paramLat0], pr.has[paramLat0] = lat0, true
	}
	required := []struct {
		k    tmParam
		name string
	}{
		{paramStdParallel, "standard_parallel_1"},
		{paramStdParallel2, "standard_parallel_2"},
		{paramLat0, "latitude_of_origin"},
		{paramLon0, "central_meridian"},
	}
	if oneSP {
		required = required[2:]
	}
	var missing []string
	for _, m := range required {
		if !pr.has[m.k] {
			missing = append(missing, m.name)
		}
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("%w: PROJCS %q: Lambert Conformal Conic without %s", ErrUnsupported, pr.name, strings.Join(missing, ", "))
	}
	p.lat0, p.lon0 = pr.params[paramLat0], pr.params[paramLon0]
	if oneSP {
		p.oneSP, p.k0 = true, pr.param(paramK0, 1)
	} else {
		if k0 := pr.param(paramK0, 1); k0 != 1 {
			return nil, fmt.Errorf("%w: PROJCS %q: Lambert Conformal Conic with two standard parallels and scale factor %v",
				ErrUnsupported, pr.name, k0)
		}
		p.lat1, p.lat2 = pr.params[paramStdParallel], pr.params[paramStdParallel2]
		if known, ok := pr.knownLCC(p); ok {
			return known, nil
		}
	}
	if p.name == "" {
		p.name = fmt.Sprintf("Lambert Conformal Conic (standard parallels %v and %v, central meridian %v)", p.lat1, p.lat2, p.lon0)
		if oneSP {
			p.name = fmt.Sprintf("Lambert Conformal Conic (latitude of origin %v, central meridian %v)", p.lat0, p.lon0)
		}
	}
	l, err := newLCC(p)
	if err != nil {
		return nil, err
	}
	return l, nil
}

// knownLCC returns the EPSG projection of canadaLCC that p, in metres on
// NAD83 or NAD83(CSRS), is.
func (pr *projected) knownLCC(p lccParams) (Projection, bool) {
	if pr.units != 1 || pr.geo.ell != grs80 || pr.geo.datum != datumNAD83 || !pr.geo.plain && !pr.geo.csrs {
		return nil, false
	}
	for _, k := range canadaLCC {
		same := near(p.lat0, k.lat0, 1e-9) && near(p.lon0, k.lon0, 1e-9) &&
			(near(p.lat1, k.lat1, 1e-9) && near(p.lat2, k.lat2, 1e-9) || near(p.lat1, k.lat2, 1e-9) && near(p.lat2, k.lat1, 1e-9)) &&
			near(p.fe, k.fe, 1e-12) && near(p.fn, k.fn, 1e-12)
		if !same || pr.geo.csrs != strings.Contains(k.name, "CSRS") {
			continue
		}
		if l, ok, err := canadaLCCFromEPSG(k.epsg); ok && err == nil {
			return l, true
		}
	}
	return nil, false
}

// near reports whether a and b agree to rel relative to the larger of |b|
// and 1.
func near(a, b, rel float64) bool {
	return math.Abs(a-b) <= rel*math.Max(1, math.Abs(b))
}
