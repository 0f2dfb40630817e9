// Package gridindex stores official grid datasets (polygons and centroids of
// townships, sections, quarters, LSDs, river lots, Ontario lots) in one file
// per dataset that a reader queries by byte ranges: a lookup by legal land
// description or by point reads a few small ranges, never the whole file,
// from a local file or from S3.
//
// # File layout (version 2, little-endian)
//
//	offset 0   header, 96 bytes
//	           magic "MRDNGIX2"
//	           u64 metadata offset, u32 metadata length   (JSON, gzip)
//	           u64 root offset,     u32 root length       (gzip)
//	           u64 leaves offset,   u64 leaves length     (directory leaves, each gzip)
//	           u64 pages offset,    u64 pages length      (pages: directory, gzip blocks)
//	           u64 record count, u32 group count
//	           i32 ×4 bounds (min lng, min lat, max lng, max lat) in 1e-7 degrees
//	           u32 reserved
//	           metadata, root, leaves, pages follow in that order
//
// Records are grouped: a DLS township with its sections, quarters and LSDs;
// a Manitoba parish with its lots; an Ontario geographic township with its
// concessions and lots. Each group is one page. Pages are ordered along a
// Hilbert curve of their centres, so neighbours on the ground are neighbours
// in the file.
//
// A page is split into blocks, each compressed on its own: a DLS township
// into block 0, its own record and its 36 sections', and one block a
// section with the section's quarters, halves and LSDs (20 records of the
// township's 757); a parish or an Ontario township is one block. A map of
// sections reads block 0 of each township, a lookup of a quarter one
// section's block. The page starts with its directory, uncompressed: the
// block count, then per block its label (the section number, 0 for the
// township's block), record count, compressed length and box; the blocks
// follow in that order. A lookup inflates and
// scans one block, not the township: on the full-size Alberta index a
// lookup whose block is not cached costs about a tenth of what inflating
// the township's page did (BenchmarkProvinceLookup), for a file about 16%
// larger. Version 1 (one gzip member a page) is refused with a message to
// rebuild the index.
//
// The root lists two kinds of directory leaves, each covering up to 256
// groups: spatial leaves (in page order, with the bounding box of their
// groups) and key leaves (in group-key order, with their first and last
// keys). A spatial leaf gives each page's bounding box, offset and length; a
// key leaf gives each group key's page offset and length.
//
// Opening an index reads the header with the metadata and root (one read
// of the file's first 16 KiB) and the directory leaves, whole when they are
// up to 4 MiB (a second read when they end past the first). A lookup by
// legal land description then reads one page (or only one block, when the
// page's directory is cached); a lookup by point reads the pages whose
// boxes contain the point (usually one) and inflates the blocks whose boxes
// do. Leaves are kept, decoded on first use; directories and decoded blocks
// are cached within Options.CacheBytes, so warm lookups read nothing.
//
// # Records
//
// A block holds its records sorted by key. Each record is its canonical legal
// location, province, flags, centroid and accuracy, and its geometry: rings
// of points in 1e-7 degrees (about a centimetre), delta- and
// zigzag-varint-encoded.
package gridindex
