// Package convert answers the conversion endpoints: search (legal land
// description to block), reverse (point to legal land descriptions),
// autocomplete and batch, and converts CSV files (meridian convert). It
// reads requests, asks the grid service (package survey/grid, through the
// small Grid interface) and writes GeoJSON FeatureCollections: per
// location a grid feature then a centroid feature, with the properties of
// docs/ARCHITECTURE.md §3, in NAD83 or, on request, NAD27 (Datum).
package convert
