package main

import (
	"flag"

	"meridian/shared/datadir"
)

// dataFlag registers -data on fs: the data directory (package datadir),
// .meridian (or MERIDIAN_DATA) by default.
func dataFlag(fs *flag.FlagSet, usage string) *datadir.Dir {
	d := datadir.Default()
	fs.Var(&d, "data", usage)
	return &d
}
