package archive

import (
	"encoding/binary"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/protomaps/go-pmtiles/pmtiles"
)

// specHeader lays out a header at the byte offsets of the PMTiles v3 spec's
// header table, written out independently of decodeHeader's sequential
// reading.
func specHeader() *[headerLen]byte {
	var b [headerLen]byte
	copy(b[0:7], "PMTiles")
	b[7] = 3
	le := binary.LittleEndian
	for i, v := range []uint64{ // offsets 8, 16, ..., 88
		127, 900, 1027, 300, 1327, 5000, 6327, 1 << 40, 70000, 60000, 50000,
	} {
		le.PutUint64(b[8+8*i:], v)
	}
	b[96], b[97], b[98], b[99] = 1, 2, 1, 1 // clustered, internal and tile compression, tile type
	b[100], b[101] = 3, 14                  // min and max zoom
	for at, v := range map[int]int32{       // bounds, then after the center zoom the center
		102: -1200000000, 106: 490000000, 110: -1100000000, 114: 600000000,
		119: -1140700000, 123: 510500000,
	} {
		le.PutUint32(b[at:], uint32(v))
	}
	b[118] = 9 // center zoom
	return &b
}

func TestDecodeHeader(t *testing.T) {
	t.Parallel()
	want := v3Header{
		rootOff: 127, rootLen: 900,
		metaOff: 1027, metaLen: 300,
		leafOff: 1327, leafLen: 5000,
		dataOff: 6327, dataLen: 1 << 40,
		addressedTiles: 70000, tileEntries: 60000, tileContents: 50000,
		clustered:           true,
		internalCompression: gzipCompression,
		tileCompression:     noCompression,
		tileType:            mvtTile,
		minZoom:             3, maxZoom: 14,
		minLonE7: -1200000000, minLatE7: 490000000,
		maxLonE7: -1100000000, maxLatE7: 600000000,
		centerZoom:  9,
		centerLonE7: -1140700000, centerLatE7: 510500000,
	}
	if diff := cmp.Diff(want, decodeHeader(specHeader()), cmp.AllowUnexported(v3Header{})); diff != "" {
		t.Errorf("decodeHeader (-want +got):\n%s", diff)
	}
}

// FuzzDecodeHeader checks decodeHeader against go-pmtiles, used as an
// oracle in tests only: every field must agree for any 127 bytes.
func FuzzDecodeHeader(f *testing.F) {
	f.Add(specHeader()[:])
	f.Add(make([]byte, headerLen))
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) < headerLen {
			return
		}
		copy(b, "PMTiles\x03")
		got := decodeHeader((*[headerLen]byte)(b))
		p, err := pmtiles.DeserializeHeader(b)
		if err != nil {
			t.Fatal(err)
		}
		want := v3Header{
			rootOff: p.RootOffset, rootLen: p.RootLength,
			metaOff: p.MetadataOffset, metaLen: p.MetadataLength,
			leafOff: p.LeafDirectoryOffset, leafLen: p.LeafDirectoryLength,
			dataOff: p.TileDataOffset, dataLen: p.TileDataLength,
			addressedTiles: p.AddressedTilesCount, tileEntries: p.TileEntriesCount, tileContents: p.TileContentsCount,
			clustered:           p.Clustered,
			internalCompression: compression(p.InternalCompression),
			tileCompression:     compression(p.TileCompression),
			tileType:            tileType(p.TileType),
			minZoom:             p.MinZoom, maxZoom: p.MaxZoom,
			minLonE7: p.MinLonE7, minLatE7: p.MinLatE7,
			maxLonE7: p.MaxLonE7, maxLatE7: p.MaxLatE7,
			centerZoom:  p.CenterZoom,
			centerLonE7: p.CenterLonE7, centerLatE7: p.CenterLatE7,
		}
		if diff := cmp.Diff(want, got, cmp.AllowUnexported(v3Header{})); diff != "" {
			t.Errorf("decodeHeader differs from pmtiles.DeserializeHeader (-pmtiles +ours):\n%s", diff)
		}
	})
}

// TestEnumValues pins the spec's values, which go-pmtiles also uses.
func TestEnumValues(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name      string
		got, want uint8
	}{
		{"unknown compression", uint8(unknownCompression), uint8(pmtiles.UnknownCompression)},
		{"no compression", uint8(noCompression), uint8(pmtiles.NoCompression)},
		{"gzip", uint8(gzipCompression), uint8(pmtiles.Gzip)},
		{"brotli", uint8(brotliCompression), uint8(pmtiles.Brotli)},
		{"zstd", uint8(zstdCompression), uint8(pmtiles.Zstd)},
		{"unknown tile type", uint8(unknownTileType), uint8(pmtiles.UnknownTileType)},
		{"mvt", uint8(mvtTile), uint8(pmtiles.Mvt)},
		{"png", uint8(pngTile), uint8(pmtiles.Png)},
		{"jpeg", uint8(jpegTile), uint8(pmtiles.Jpeg)},
		{"webp", uint8(webpTile), uint8(pmtiles.Webp)},
		{"avif", uint8(avifTile), uint8(pmtiles.Avif)},
		{"mlt", uint8(mltTile), uint8(pmtiles.Mlt)},
	} {
		if tc.got != tc.want {
			t.Errorf("%s = %d, want %d", tc.name, tc.got, tc.want)
		}
	}
}
