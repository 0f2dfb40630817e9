package main

import "time"

// Built archives live in <data>/tiles/<region>/<layer>.pmtiles; the server
// looks for a new or rebuilt one at most every archiveRecheck.
const (
	tilesDir       = "tiles"
	archiveRecheck = 2 * time.Second
)
