// Package proj converts the projected coordinates of official grid datasets
// to NAD83 longitude and latitude (orb.Point{lng, lat}, degrees) and back.
//
// It knows five kinds of coordinate reference system, from an EPSG code
// (FromEPSG) or from the WKT of a shapefile's .prj file (FromWKT):
//
//   - Geographic NAD83 (EPSG:4269) and WGS 84 (EPSG:4326): the identity.
//   - Web Mercator (EPSG:3857, spherical, radius 6378137 m), as used by
//     Manitoba's datasets.
//   - Transverse Mercator on the GRS 80 or WGS 84 ellipsoid: the UTM zones
//     7 to 22 north (NAD83 / UTM zone N = EPSG:269NN, WGS 84 / UTM zone N =
//     EPSG:326NN) and any other Transverse Mercator given by its WKT
//     parameters (central meridian, scale factor, false easting and
//     northing, latitude of origin).
//   - Albers Equal Area Conic on the GRS 80 or WGS 84 ellipsoid: the
//     British Columbia Albers of the BC Data Catalogue (NAD83 / BC Albers =
//     EPSG:3005, NAD83(CSRS) / BC Albers = EPSG:3153) and any other Albers
//     given by its WKT parameters (two standard parallels, latitude and
//     longitude of false origin, false easting and northing).
//   - Lambert Conformal Conic on the GRS 80 or WGS 84 ellipsoid: the
//     Ontario MNR Lambert of Land Information Ontario (NAD83 = EPSG:3161,
//     NAD83(CSRS) = EPSG:3162), the Canada Atlas Lambert (EPSG:3978,
//     3979), the Statistics Canada Lambert (EPSG:3347, 3348) and any other
//     Lambert Conformal Conic given by its WKT parameters (two standard
//     parallels, or one with a scale factor).
//
// The Transverse Mercator uses Krüger's series to sixth order in the third
// flattening n, in the form of Karney (2011); it is accurate to well under a
// millimetre within a zone and thousands of kilometres beyond it (see tm.go).
// The Albers uses Snyder's closed formulas (1987, ch. 14) and recovers the
// latitude from the authalic function q by Newton's method to rounding
// (see albers.go). The Lambert Conformal Conic uses Snyder's closed
// formulas (1987, ch. 15) through the conformal latitude, which it shares
// with the Transverse Mercator (see lcc.go).
//
// No datum transformation is made. NAD83, its CSRS realisations and WGS 84
// agree to within 1 to 2 metres in Canada, which is within this service's
// tolerance, so coordinates in any of them are returned unchanged as NAD83
// longitude and latitude. Other datums (NAD27 among them) are refused.
package proj
