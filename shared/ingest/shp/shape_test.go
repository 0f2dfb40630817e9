package shp_test

import (
	"testing"

	"meridian/shared/ingest/shp"
)

func TestShapeType(t *testing.T) {
	t.Parallel()
	tests := []struct {
		t         shp.ShapeType
		name      string
		supported bool
	}{
		{shp.Null, "Null", true},
		{shp.Point, "Point", true},
		{shp.PolyLine, "PolyLine", true},
		{shp.Polygon, "Polygon", true},
		{shp.MultiPoint, "MultiPoint", true},
		{shp.PointZ, "PointZ", true},
		{shp.PolyLineZ, "PolyLineZ", true},
		{shp.PolygonZ, "PolygonZ", true},
		{shp.MultiPointZ, "MultiPointZ", true},
		{shp.PointM, "PointM", true},
		{shp.PolyLineM, "PolyLineM", true},
		{shp.PolygonM, "PolygonM", true},
		{shp.MultiPointM, "MultiPointM", true},
		{shp.MultiPatch, "MultiPatch", false},
		{shp.ShapeType(2), "ShapeType(2)", false},
		{shp.ShapeType(-1), "ShapeType(-1)", false},
	}
	for _, tc := range tests {
		if got := tc.t.String(); got != tc.name {
			t.Errorf("ShapeType(%d).String() = %q, want %q", int32(tc.t), got, tc.name)
		}
		if got := tc.t.Supported(); got != tc.supported {
			t.Errorf("%v.Supported() = %v, want %v", tc.t, got, tc.supported)
		}
	}
}
