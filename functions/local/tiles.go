package main

import (
	"strings"

	"meridian/shared/convert"
	"meridian/shared/lld"
	"meridian/shared/tile"
)

// gridAttribution names where a survey layer's blocks come from: the model
// everywhere, official data where it is loaded.
func gridAttribution(svc *convert.Service) func(tile.Layer) string {
	return func(l tile.Layer) string {
		var base string
		switch l.System {
		case lld.DLS:
			base = "DLS grid computed from the survey rules (Meridian model)"
		case lld.NTS:
			base = "NTS grid computed exactly (Meridian)"
		case lld.GeoTownship:
			base = "Ontario geographic townships"
		default:
			return l.Title
		}
		if src := svc.Sources(l.System); len(src) > 0 {
			base += "; official data: " + strings.Join(src, ", ")
		}
		return base
	}
}
