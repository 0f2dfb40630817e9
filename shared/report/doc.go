// Package report holds what the parcel reports (the agriculture report of
// package ag and the energy report of package energy) share in their
// envelope, so that one parcel reads the same in both: the parcel (area,
// centroid, polygon on request), the rounding of points, the include
// parameter that projects a report onto some of its sections, and meta
// (the sections that could not be provided and the datasets behind the
// others, read once per published version).
//
// It knows neither the report store nor HTTP: each domain reads its own
// items and assembles its own sections, and its HTTP layer only parses the
// request and writes the answer.
package report
