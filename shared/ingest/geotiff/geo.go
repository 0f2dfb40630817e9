package geotiff

import (
	"fmt"
	"math"
	"strings"

	"meridian/shared/ingest/proj"
)

// GeoKeys read from the GeoKeyDirectory.
const (
	keyGTModelType     = 1024
	keyGTRasterType    = 1025
	keyGTCitation      = 1026
	keyGeographicType  = 2048
	keyGeogCitation    = 2049
	keyProjectedCSType = 3072
	keyPCSCitation     = 3073
	userDefined        = 32767
)

// Model types (GTModelType).
const (
	ModelProjected  = 1
	ModelGeographic = 2
)

// Geo is where an image sits: its coordinate reference system and the
// affine transform from pixel to map coordinates.
type Geo struct {
	// ModelType is ModelProjected or ModelGeographic (0 when absent).
	ModelType int
	// EPSG is the ProjectedCSType of a projected model or the
	// GeographicType of a geographic one; 0 when absent or user-defined.
	EPSG int
	// Citation is the GeoKeys' citation (GTCitation, PCSCitation or
	// GeogCitation), to name a system that has no EPSG code.
	Citation string
	// PixelIsPoint is GTRasterType 2; the transform below is already
	// shifted by half a pixel, as GDAL does, so that it maps pixel
	// corners in either case.
	PixelIsPoint bool
	// Transform is GDAL's geotransform: map x = T[0] + col·T[1] + row·T[2],
	// y = T[3] + col·T[4] + row·T[5], for (col, row) a pixel's top-left
	// corner. HasTransform is false when the file has neither
	// ModelTiepoint with ModelPixelScale nor ModelTransformation.
	Transform    [6]float64
	HasTransform bool
}

func (im *Image) readGeo(tags map[uint16]field) (Geo, error) {
	var g Geo
	if f, ok := tags[tagModelTransform]; ok {
		m, ok := im.floats(f)
		if !ok || len(m) != 16 {
			return g, errorf("ModelTransformation: want 16 numbers")
		}
		g.Transform = [6]float64{m[3], m[0], m[1], m[7], m[4], m[5]}
		g.HasTransform = true
	} else if tp, ok := tags[tagModelTiepoint]; ok {
		t, ok1 := im.floats(tp)
		sf, has := tags[tagModelPixelScale]
		if !has {
			return g, errorf("ModelTiepoint without ModelPixelScale")
		}
		s, ok2 := im.floats(sf)
		if !ok1 || !ok2 || len(t) < 6 || len(s) < 2 {
			return g, errorf("ModelTiepoint (%d numbers) or ModelPixelScale (%d): want 6 and 3", len(t), len(s))
		}
		// Pixel (I, J) sits at (X, Y); rows go south.
		g.Transform = [6]float64{t[3] - t[0]*s[0], s[0], 0, t[4] + t[1]*s[1], 0, -s[1]}
		g.HasTransform = true
	}
	for _, v := range g.Transform {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return g, errorf("geotransform %v: not finite", g.Transform)
		}
	}
	f, ok := tags[tagGeoKeyDirectory]
	if !ok {
		return g, nil
	}
	d, ok := im.uints(f)
	if !ok || len(d) < 4 || d[0] != 1 {
		return g, errorf("GeoKeyDirectory: want version 1 and a header of 4 shorts")
	}
	n := int(d[3])
	if len(d) < 4+4*n {
		return g, errorf("GeoKeyDirectory: %d keys announced, %d present", n, (len(d)-4)/4)
	}
	ascii := ""
	if a, ok := tags[tagGeoASCIIParams]; ok {
		ascii = string(a.raw)
	}
	var cites []string
	for i := 0; i < n; i++ {
		k := d[4+4*i : 8+4*i]
		id, loc, count, val := k[0], k[1], k[2], k[3]
		if loc == tagGeoASCIIParams {
			if val+count <= uint64(len(ascii)) && (id == keyGTCitation || id == keyPCSCitation || id == keyGeogCitation) {
				cites = append(cites, strings.TrimRight(ascii[val:val+count], "|\x00 "))
			}
			continue
		}
		if loc != 0 {
			continue // a value in GeoDoubleParams: none that we read
		}
		switch id {
		case keyGTModelType:
			g.ModelType = int(val)
		case keyGTRasterType:
			g.PixelIsPoint = val == 2
		case keyGeographicType:
			if g.ModelType == ModelGeographic && val != userDefined {
				g.EPSG = int(val)
			}
		case keyProjectedCSType:
			if val != userDefined {
				g.EPSG = int(val)
			}
		}
	}
	// GeographicType also appears in projected files (the base system):
	// read it only when the model is geographic, whatever the key order.
	if g.ModelType == ModelGeographic && g.EPSG == 0 {
		for i := 0; i < n; i++ {
			if k := d[4+4*i : 8+4*i]; k[0] == keyGeographicType && k[1] == 0 && k[3] != userDefined {
				g.EPSG = int(k[3])
			}
		}
	}
	g.Citation = strings.Join(cites, "; ")
	if g.PixelIsPoint && g.HasTransform {
		g.Transform[0] -= (g.Transform[1] + g.Transform[2]) / 2
		g.Transform[3] -= (g.Transform[4] + g.Transform[5]) / 2
	}
	return g, nil
}

// Projection returns the image's coordinate reference system as a
// proj.Projection, from its EPSG code.
func (g Geo) Projection() (proj.Projection, error) {
	if g.EPSG == 0 {
		what := "no EPSG code in the GeoKeys"
		if g.Citation != "" {
			what += fmt.Sprintf(" (citation %q)", g.Citation)
		}
		return nil, fmt.Errorf("geotiff: %s: %w", what, proj.ErrUnsupported)
	}
	return proj.FromEPSG(g.EPSG)
}

// Centre returns the map coordinates of the centre of pixel (col, row).
func (g Geo) Centre(col, row int) (x, y float64) {
	return g.Map(float64(col)+0.5, float64(row)+0.5)
}

// Map returns the map coordinates of pixel position (col, row), in pixels
// from the image's top-left corner.
func (g Geo) Map(col, row float64) (x, y float64) {
	t := g.Transform
	return t[0] + col*t[1] + row*t[2], t[3] + col*t[4] + row*t[5]
}

// Pixel returns the pixel position (fractional columns and rows from the
// top-left corner) of map coordinates x, y; ok is false when the
// transform cannot be inverted.
func (g Geo) Pixel(x, y float64) (col, row float64, ok bool) {
	t := g.Transform
	det := t[1]*t[5] - t[2]*t[4]
	if det == 0 || math.IsNaN(det) {
		return 0, 0, false
	}
	dx, dy := x-t[0], y-t[3]
	return (dx*t[5] - dy*t[2]) / det, (dy*t[1] - dx*t[4]) / det, true
}
