package gridindex

import (
	"github.com/paulmach/orb"

	"meridian/shared/lld"
	"meridian/shared/survey"
)

// Record is one block of an official grid dataset, as a reader of the
// published format produces it and as the index stores it.
type Record struct {
	// Location is the block, canonical: DLS townships, sections, quarter
	// sections, LSDs; Manitoba river and parish lots; Ontario geographic
	// townships, concessions and lots.
	Location lld.Location
	Province survey.Province
	// Geometry is the block's polygon in lng/lat (orb.Polygon with a
	// counter-clockwise outer ring, or orb.MultiPolygon where the block has
	// several parts), or nil when the dataset publishes only a centroid
	// (Manitoba's Original Survey lots).
	Geometry orb.Geometry
	// Centroid is the dataset's official centre point when HasCentroid is
	// set; otherwise the index computes it from Geometry.
	Centroid    orb.Point
	HasCentroid bool
	// AccuracyM is the expected error of the geometry in metres, as the
	// dataset states it or as its reader documents.
	AccuracyM float64
}

// Merge combines two records of the same block, as readers emit when a
// dataset splits one block across files (Manitoba: centroids in one file,
// corners in another): a geometry wins over none, an official centroid over
// none, and the larger accuracy bound is kept.
func Merge(a, b Record) Record {
	if a.Geometry == nil {
		a.Geometry = b.Geometry
	}
	if !a.HasCentroid && b.HasCentroid {
		a.Centroid, a.HasCentroid = b.Centroid, true
	}
	if a.Province == survey.ProvinceNone {
		a.Province = b.Province
	}
	a.AccuracyM = max(a.AccuracyM, b.AccuracyM)
	return a
}
