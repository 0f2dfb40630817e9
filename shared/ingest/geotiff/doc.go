// Package geotiff reads single-band GeoTIFF rasters block by block, as AAFC
// publishes the Annual Crop Inventory and Land Use (8-bit class codes at
// 30 m), and writes small ones in the same layout for tests and the demo.
//
// It is pure Go on purpose. GDAL would read more of the format, but
// linking it needs cgo and a shared library in every binary that imports
// the reader; the ingest runs on a workstation or in CI, the Lambdas never
// link this package, and gdal's command-line tools are used only by the
// tests, as an independent oracle of what a pixel holds.
//
// What it reads:
//
//   - classic TIFF and BigTIFF, little- and big-endian;
//   - striped and tiled images, one sample per pixel (PlanarConfiguration
//     is then irrelevant), 8 or 16 bits, unsigned or signed integers;
//   - compression none (1), LZW (5, TIFF's variant with the early code
//     width change, decoded by lzw.go) and Deflate (8 and the old 32946,
//     zlib streams);
//   - predictor 1 (none) and 2 (horizontal differencing);
//   - the GeoTIFF tags ModelPixelScale and ModelTiepoint or
//     ModelTransformation, and the GeoKeyDirectory keys GTModelType,
//     GTRasterType, GeographicType and ProjectedCSType (an EPSG code; a
//     user-defined system is refused with the keys' citation);
//   - GDAL's nodata tag (42113).
//
// Only the first image (IFD) is read: overviews and masks that follow are
// ignored.
//
// Memory: Open keeps the tags and the block offset and byte-count tables
// (16 bytes a block). Image.Rows decodes one row of blocks at a time into
// one buffer of Width × BlockHeight samples, plus one compressed block;
// an image whose block row would exceed Options.MaxBlockRowBytes (256 MiB
// by default) is refused rather than read. A 30 m provincial raster
// 40 000 pixels wide with 256-row tiles needs about 10 MB.
package geotiff
