// Package archive writes and reads PMTiles version 3 archives of
// gzip-compressed Mapbox Vector Tiles, the single-file tile format the tiles
// endpoints serve from a local directory or S3.
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
//   - The archive is clustered: the [Writer] takes tiles in ascending
//     PMTiles tile-ID order (zoom by zoom, each zoom along a Hilbert curve),
//     so neighbouring tiles are neighbours in the file and a client panning a
//     map reads nearby bytes.
//   - Identical tiles (ocean, empty land) are stored once; consecutive
//     identical tiles share one directory entry with a run length. Runs never
//     cross a zoom level, which keeps the header's zoom range exact.
//
// The writer streams tile data to a temporary file and keeps only a directory
// entry per tile and a 16-byte hash per distinct content, so building an
// archive takes memory proportional to the tile count, never to the data.
//
// Only this package imports go-pmtiles (its dependency graph is large), and
// it uses only the format primitives: tile IDs, header and metadata
// serialization, directory building. Directories are decoded here, with
// bounds checks, because the archive bytes come from storage we do not
// fully trust.
package archive
