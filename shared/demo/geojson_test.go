package demo_test

import (
	"bytes"
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/paulmach/orb"
	"github.com/paulmach/orb/geojson"

	"meridian/shared/demo"
)

// A collection reads back through orb with its geometries, its head's
// name and crs, and its properties in the order they were given, one
// feature per line.
func TestFeatureCollection(t *testing.T) {
	var b bytes.Buffer
	c := demo.NewFeatureCollection(&b, "Pipelines_GCS_NAD83", 4269)
	line := orb.LineString{{-114.5, 51.25}, {-114.25, 51.125}}
	multi := orb.MultiPolygon{{{{-110, 50}, {-109, 50}, {-109, 51}, {-110, 50}}}, {{{-108, 50}, {-107, 50}, {-107, 51}, {-108, 50}}}}
	c.Feature(line, demo.Prop{Key: "OBJECTID", Value: json.Number("17")}, demo.Prop{Key: "LIC_LI_NO", Value: "A12345-1"}, demo.Prop{Key: "H2S", Value: nil})
	c.Feature(multi, demo.Prop{Key: "z", Value: 1.5}, demo.Prop{Key: "a", Value: "x"})
	c.Feature(nil, demo.Prop{Key: "none", Value: true})
	if err := c.End(); err != nil {
		t.Fatal(err)
	}
	out := b.String()

	fc, err := geojson.UnmarshalFeatureCollection(b.Bytes())
	if err != nil {
		t.Fatalf("orb does not read it back: %v\n%s", err, out)
	}
	if len(fc.Features) != 3 || c.Len() != 3 {
		t.Fatalf("%d features read, Len %d; want 3", len(fc.Features), c.Len())
	}
	if !orb.Equal(fc.Features[0].Geometry, line) || !orb.Equal(fc.Features[1].Geometry, multi) || fc.Features[2].Geometry != nil {
		t.Errorf("geometries read back: %v, %v, %v", fc.Features[0].Geometry, fc.Features[1].Geometry, fc.Features[2].Geometry)
	}
	if p := fc.Features[0].Properties; p["OBJECTID"] != 17.0 || p["LIC_LI_NO"] != "A12345-1" || p["H2S"] != nil {
		t.Errorf("properties read back: %v", p)
	}
	if fc.ExtraMembers["name"] != "Pipelines_GCS_NAD83" || !strings.Contains(out, `"crs":{"type":"name","properties":{"name":"urn:ogc:def:crs:EPSG::4269"}}`) {
		t.Errorf("head lacks the name or the crs:\n%s", out)
	}
	if !strings.Contains(out, `"properties":{"z":1.5,"a":"x"}`) {
		t.Errorf("properties not in the order given:\n%s", out)
	}
	if lines := strings.Split(strings.TrimSpace(out), "\n"); len(lines) != 5 || !strings.HasPrefix(lines[1], `{"type":"Feature"`) {
		t.Errorf("want the head, one feature per line and the tail; got %d lines:\n%s", len(lines), out)
	}

	var empty bytes.Buffer
	if err := demo.NewFeatureCollection(&empty, "", 0).End(); err != nil {
		t.Fatal(err)
	}
	if fc, err := geojson.UnmarshalFeatureCollection(empty.Bytes()); err != nil || len(fc.Features) != 0 || strings.Contains(empty.String(), "crs") {
		t.Errorf("empty collection %q: %v", empty.String(), err)
	}
}

// A feature that cannot be written (NaN) is left out and End says so.
func TestFeatureCollectionError(t *testing.T) {
	var b bytes.Buffer
	c := demo.NewFeatureCollection(&b, "", 0)
	c.Feature(orb.Point{1, 2}, demo.Prop{Key: "ok", Value: 1})
	c.Feature(orb.Point{1, 2}, demo.Prop{Key: "bad", Value: math.NaN()})
	if err := c.End(); err == nil || !strings.Contains(err.Error(), "bad") || c.Len() != 1 {
		t.Errorf("End = %v with %d features; want an error naming the property and 1 feature", err, c.Len())
	}
	if _, err := geojson.UnmarshalFeatureCollection(b.Bytes()); err != nil {
		t.Errorf("what was written does not parse: %v\n%s", err, b.String())
	}
}

// Round gives the numbers a writer printing that many decimals would have
// read back, and leaves its argument alone.
func TestRound(t *testing.T) {
	p := orb.Polygon{{{-79.123456789, 44.987654321}, {-79.5, 44.25}, {-79.123456789, 44.987654321}}}
	got := demo.Round(p, 6).(orb.Polygon)
	if got[0][0] != (orb.Point{-79.123457, 44.987654}) {
		t.Errorf("Round = %v", got[0][0])
	}
	if p[0][0][0] != -79.123456789 {
		t.Errorf("Round changed its argument: %v", p[0][0])
	}
	if demo.Round(nil, 3) != nil {
		t.Error("Round(nil) is not nil")
	}
}
