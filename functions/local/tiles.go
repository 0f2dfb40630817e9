package main

import (
	"strings"
	"time"

	"meridian/shared/convert"
	"meridian/shared/lld"
	"meridian/shared/tile"
)

// Built archives live in <data>/tiles/<region>/<layer>.pmtiles; the server
// looks for a new or rebuilt one at most every archiveRecheck.
const (
	tilesDir       = "tiles"
	archiveRecheck = 2 * time.Second
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
