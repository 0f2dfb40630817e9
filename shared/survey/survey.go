// Package survey holds what the grid systems share: provinces and the Block
// a legal land description resolves to. The systems themselves live in
// subpackages: dls (first-principles model), nts (exact math) and, once
// official data is ingested, gridindex.
package survey

import (
	"github.com/paulmach/orb"

	"meridian/shared/lld"
)

// Province is a Canadian province the grid covers.
type Province uint8

const (
	ProvinceNone Province = iota
	AB
	BC
	SK
	MB
	ON
)

var provinceNames = [...]string{"", "Alberta", "British Columbia", "Saskatchewan", "Manitoba", "Ontario"}
var provinceCodes = [...]string{"", "AB", "BC", "SK", "MB", "ON"}

// Name is the full name used in conversion features ("Alberta").
func (p Province) Name() string {
	if int(p) < len(provinceNames) {
		return provinceNames[p]
	}
	return ""
}

// Code is the two-letter code used in reports and lists ("AB").
func (p Province) Code() string {
	if int(p) < len(provinceCodes) {
		return provinceCodes[p]
	}
	return ""
}

func (p Province) String() string { return p.Code() }

// Source of a model-computed geometry.
const SourceModel = "model"

// Block is a located grid block: what a legal land description names.
type Block struct {
	Location lld.Location
	Province Province
	// Geometry is an orb.Polygon (counter-clockwise outer ring, closed,
	// lng/lat), or an orb.MultiPolygon where the block has several parts.
	Geometry orb.Geometry
	Centroid orb.Point
	// AccuracyM is the expected error of Geometry in metres: 0 for exact
	// systems (NTS), the model's bound for computed DLS, the source's for
	// ingested data.
	AccuracyM float64
	// Source is SourceModel or the name of the ingested dataset.
	Source string
}
