package writer

import (
	"bytes"
	"math/rand/v2"
	"testing"

	"github.com/protomaps/go-pmtiles/pmtiles"
)

// The writer's own header and directories are byte for byte what
// go-pmtiles, the format's reference implementation, writes for the same
// entries and fields: archives did not change when the writer stopped
// importing it.
func TestFormatMatchesGoPMTiles(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{1, 2, 100, 5000, 16383, 16384, 40000, 250000} {
		es := randomEntries(rng, n)
		root, leaves, nLeaves := directories(es, rootBudget)
		ref := make([]pmtiles.EntryV3, len(es))
		for i, e := range es {
			ref[i] = pmtiles.EntryV3{TileID: e.id, Offset: e.offset, Length: e.length, RunLength: e.run}
		}
		wantRoot, wantLeaves, wantN := pmtiles.BuildDirectories(ref, rootBudget, pmtiles.Gzip)
		if !bytes.Equal(root, wantRoot) || !bytes.Equal(leaves, wantLeaves) || nLeaves != wantN {
			t.Errorf("%d entries: root %d bytes, leaves %d bytes in %d; go-pmtiles: %d, %d in %d",
				n, len(root), len(leaves), nLeaves, len(wantRoot), len(wantLeaves), wantN)
		}
		if len(root) > rootBudget {
			t.Errorf("%d entries: root of %d bytes, over the %d budget", n, len(root), rootBudget)
		}
		if n >= maxRootEntries && nLeaves == 0 {
			t.Errorf("%d entries all in the root", n)
		}
	}
	for range 100 {
		h := header{
			rootOffset: rng.Uint64(), rootLength: rng.Uint64(), metaOffset: rng.Uint64(), metaLength: rng.Uint64(),
			leafOffset: rng.Uint64(), leafLength: rng.Uint64(), dataOffset: rng.Uint64(), dataLength: rng.Uint64(),
			addressedTiles: rng.Uint64(), tileEntries: rng.Uint64(), tileContents: rng.Uint64(),
			clustered: rng.IntN(2) == 1, internalCompression: uint8(rng.IntN(5)), tileCompression: uint8(rng.IntN(5)),
			tileType: uint8(rng.IntN(6)), minZoom: uint8(rng.IntN(32)), maxZoom: uint8(rng.IntN(32)),
			minLonE7: rng.Int32() - 1<<30, minLatE7: rng.Int32() - 1<<30, maxLonE7: rng.Int32(), maxLatE7: rng.Int32(),
			centerZoom: uint8(rng.IntN(32)), centerLonE7: -rng.Int32(), centerLatE7: rng.Int32(),
		}
		want := pmtiles.SerializeHeader(pmtiles.HeaderV3{
			SpecVersion: 3, RootOffset: h.rootOffset, RootLength: h.rootLength, MetadataOffset: h.metaOffset, MetadataLength: h.metaLength,
			LeafDirectoryOffset: h.leafOffset, LeafDirectoryLength: h.leafLength, TileDataOffset: h.dataOffset, TileDataLength: h.dataLength,
			AddressedTilesCount: h.addressedTiles, TileEntriesCount: h.tileEntries, TileContentsCount: h.tileContents,
			Clustered: h.clustered, InternalCompression: pmtiles.Compression(h.internalCompression), TileCompression: pmtiles.Compression(h.tileCompression),
			TileType: pmtiles.TileType(h.tileType), MinZoom: h.minZoom, MaxZoom: h.maxZoom,
			MinLonE7: h.minLonE7, MinLatE7: h.minLatE7, MaxLonE7: h.maxLonE7, MaxLatE7: h.maxLatE7,
			CenterZoom: h.centerZoom, CenterLonE7: h.centerLonE7, CenterLatE7: h.centerLatE7,
		})
		if got := h.marshal(); !bytes.Equal(got, want) {
			t.Fatalf("header %+v:\n got %x\nwant %x", h, got, want)
		}
	}
}

// randomEntries returns n entries as an archive has them: ascending tile
// IDs with gaps, runs of repeated tiles, data mostly following on and
// sometimes shared with an earlier entry.
func randomEntries(rng *rand.Rand, n int) []entry {
	es := make([]entry, n)
	id, off := uint64(rng.IntN(1000)), uint64(0)
	for i := range es {
		e := entry{id: id, offset: off, length: uint32(50 + rng.IntN(60000)), run: 1}
		if rng.IntN(10) == 0 {
			e.run = uint32(2 + rng.IntN(300))
		}
		if i > 0 && rng.IntN(8) == 0 {
			e.offset = es[rng.IntN(i)].offset // identical content stored once
		} else {
			off += uint64(e.length)
		}
		es[i] = e
		id += uint64(e.run) + uint64(rng.IntN(3)*rng.IntN(50))
	}
	return es
}
