// Package tile is the map side of the service: the catalogue of layers
// (survey grids, their labels, and the agriculture and energy data
// layers), the MVT tiles of grid layers generated from the grid service,
// the build of whole archives (Build, written by tile/archive/writer), and
// the /tiles handler that serves tiles and TileJSON from built PMTiles
// archives (tile/archive) or, for grids, generated on demand and cached.
// Data layers' features come from the report store through
// tile/datalayers.
package tile
