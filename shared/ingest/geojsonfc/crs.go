package geojsonfc

import (
	"errors"
	"strconv"
	"strings"

	"meridian/shared/ingest/proj"
)

// crsProjection returns the projection a legacy crs name gives, or nil for
// longitude and latitude: no name, OGC CRS84, or an EPSG code of NAD83,
// NAD83(CSRS) or WGS 84. Other codes are those of proj.FromEPSG, with the
// old codes of Web Mercator (900913, 102100, 102113, 3785).
func crsProjection(name string) (proj.Projection, error) {
	n := strings.ToUpper(strings.TrimSpace(name))
	if n == "" || strings.HasSuffix(n, "CRS84") {
		return nil, nil
	}
	i := strings.LastIndexByte(n, ':')
	code, err := strconv.Atoi(n[i+1:])
	if i < 0 || !strings.Contains(n[:i], "EPSG") || err != nil {
		return nil, errors.New("want an EPSG code such as EPSG:4326")
	}
	switch code {
	case proj.EPSGNAD83, proj.EPSGWGS84, 4617: // 4617: NAD83(CSRS)
		return nil, nil
	case 900913, 102100, 102113, 3785:
		code = proj.EPSGWebMercator
	}
	return proj.FromEPSG(code)
}
