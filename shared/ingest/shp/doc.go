// Package shp reads and writes ESRI Shapefiles: the main file (.shp), its
// index (.shx, written only) and the dBASE attribute table (.dbf), after
// the "ESRI Shapefile Technical Description" (July 1998) and the dBASE III
// and IV file structure. The .prj file's WKT is read by package
// meridian/shared/ingest/proj; coordinates come back in the file's own
// units.
//
// Reader streams the .shp and .dbf files together, one record of each at a
// time, so memory stays bounded by the largest record whatever the file
// size. Shapes become orb geometries: Point, MultiPoint, LineString or
// MultiLineString, and Polygon or MultiPolygon with rings grouped by the
// shapefile rule (outer rings clockwise, holes counter-clockwise, each hole
// in the outer ring that contains it) and returned in orb's orientation
// (outer rings counter-clockwise, holes clockwise). Z and M values are
// skipped.
//
// Malformed input is never trusted: every count is checked against the
// bytes that hold it before anything is allocated, and every problem is a
// *FormatError naming the file, the record and what is wrong.
//
// Writer produces files in exactly the official layout, for test fixtures
// and demo data; SetWriter writes a whole set (.shp, .shx, .dbf and the
// .prj and .cpg beside them) to a directory (Dir) or to memory (Files).
package shp
