package shp

import "fmt"

// ShapeType is the shape type of a shapefile or of one of its records.
type ShapeType int32

// Shape types of the ESRI Shapefile Technical Description, table 1.
const (
	Null        ShapeType = 0
	Point       ShapeType = 1
	PolyLine    ShapeType = 3
	Polygon     ShapeType = 5
	MultiPoint  ShapeType = 8
	PointZ      ShapeType = 11
	PolyLineZ   ShapeType = 13
	PolygonZ    ShapeType = 15
	MultiPointZ ShapeType = 18
	PointM      ShapeType = 21
	PolyLineM   ShapeType = 23
	PolygonM    ShapeType = 25
	MultiPointM ShapeType = 28
	MultiPatch  ShapeType = 31 // not supported
)

var shapeNames = map[ShapeType]string{
	Null: "Null", Point: "Point", PolyLine: "PolyLine", Polygon: "Polygon", MultiPoint: "MultiPoint",
	PointZ: "PointZ", PolyLineZ: "PolyLineZ", PolygonZ: "PolygonZ", MultiPointZ: "MultiPointZ",
	PointM: "PointM", PolyLineM: "PolyLineM", PolygonM: "PolygonM", MultiPointM: "MultiPointM",
	MultiPatch: "MultiPatch",
}

// String returns the specification's name, such as "PolygonZ".
func (t ShapeType) String() string {
	if s, ok := shapeNames[t]; ok {
		return s
	}
	return fmt.Sprintf("ShapeType(%d)", int32(t))
}

// Supported reports whether this package reads and writes t.
func (t ShapeType) Supported() bool {
	_, ok := shapeNames[t]
	return ok && t != MultiPatch
}

// base returns the two-dimensional type of t: Polygon for PolygonZ and
// PolygonM.
func (t ShapeType) base() ShapeType {
	switch t {
	case PointZ, PointM:
		return Point
	case PolyLineZ, PolyLineM:
		return PolyLine
	case PolygonZ, PolygonM:
		return Polygon
	case MultiPointZ, MultiPointM:
		return MultiPoint
	}
	return t
}

// hasZ reports whether t carries Z values (and optionally M values).
func (t ShapeType) hasZ() bool {
	return t == PointZ || t == PolyLineZ || t == PolygonZ || t == MultiPointZ
}

// hasM reports whether t carries M values and no Z values.
func (t ShapeType) hasM() bool {
	return t == PointM || t == PolyLineM || t == PolygonM || t == MultiPointM
}
