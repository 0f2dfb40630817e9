package datum

import (
	"bytes"
	_ "embed"
	"sync"

	"github.com/paulmach/orb"
)

// canadaCompact is NRCan's ntv1_can.dat (40°–84° N, 44°–142° W, 15′
// nodes; public domain, as redistributed by OSGeo proj-datumgrid, sha256
// f27846ec…3745a) in the compact form. TestEmbeddedGrid checks it node by
// node against the file in the team's shared directory and rewrites it
// with -update.
//
//go:embed ntv1_can.compact
var canadaCompact []byte

// Canada returns NRCan's NTv1 grid for Canada, decoded from the embedded
// copy on first use (about 10 ms, 556 KB of memory).
var Canada = sync.OnceValue(func() *Grid {
	g, err := ReadCompact(bytes.NewReader(canadaCompact))
	if err != nil {
		panic("datum: embedded grid: " + err.Error()) // the embedded file is tested
	}
	return g
})

// NAD27ToNAD83 moves a NAD27 longitude, latitude to NAD83 with Canada's
// grid. It returns ErrOutside (and p) outside 40°–84° N, 44°–142° W.
func NAD27ToNAD83(p orb.Point) (orb.Point, error) { return Canada().ToNAD83(p) }

// NAD83ToNAD27 moves a NAD83 longitude, latitude to NAD27 with Canada's
// grid. It returns ErrOutside (and p) outside the grid.
func NAD83ToNAD27(p orb.Point) (orb.Point, error) { return Canada().ToNAD27(p) }
