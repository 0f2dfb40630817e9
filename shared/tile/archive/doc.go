// Package archive reads PMTiles version 3 archives of gzip-compressed Mapbox
// Vector Tiles, the single-file tile format the tiles endpoints serve from a
// local directory or S3. Package archive/writer writes them.
//
// # Why PMTiles v3, and how we use it
//
// One archive holds a whole tileset, and a tile is found with a few byte-range
// reads instead of one object per tile: a 127-byte header and the root
// directory sit in the first 16 KiB, the root points at leaf directories, and
// the leaves point into the tile data. [Open] reads those 16 KiB once; a
// cold [Reader.Tile] then reads at most one leaf and the tile itself, and a
// warm one reads only the tile, because decoded leaves stay in a small LRU.
//
// Our archives always use the same choices, so every reader (ours,
// go-pmtiles' server, MapLibre's pmtiles.js) sees them the same way:
//
//   - Tiles are MVT, stored gzip-compressed exactly as HTTP sends them
//     (Content-Encoding: gzip), so serving a tile never recompresses it.
//   - Directories and the metadata JSON are gzip-compressed too.
//   - The archive is clustered: the writer takes tiles in ascending
//     PMTiles tile-ID order (zoom by zoom, each zoom along a Hilbert curve),
//     so neighbouring tiles are neighbours in the file and a client panning a
//     map reads nearby bytes.
//   - Identical tiles (ocean, empty land) are stored once; consecutive
//     identical tiles share one directory entry with a run length. Runs never
//     cross a zoom level, which keeps the header's zoom range exact.
//
// This package does not import go-pmtiles, whose dependency graph (cloud
// storage SDKs, gRPC, Prometheus: about 800 packages) would triple the size
// of the tiles Lambda. The read path is small and written here: the 127-byte
// header, the varint directories, the binary search for a tile's entry and
// the tile ID (package tile's [tile.ID]). Directories are decoded with bounds
// checks, because the archive bytes come from storage we do not fully trust.
// Only package archive/writer, which the Lambdas do not link, uses
// go-pmtiles, for its directory building and header serialization; the
// tests check our reading against go-pmtiles as an oracle.
package archive
