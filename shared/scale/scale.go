// Package scale holds what the province-size generators have in common:
// the options every generator takes and the account of what it wrote.
//
// The generators (energydemo.WriteScale, agdemo.WriteScale,
// griddemo.WriteScale) write invented data in the publishers' real layouts
// at the sizes the publishers really ship, so that ingest, archive builds
// and the HTTP path can be measured at the size they meet in production
// (make scale-test). They stream: memory stays bounded whatever the size.
package scale

import (
	"fmt"
	"math"
)

// Options choose the size and the randomness of a generated dataset.
type Options struct {
	// Seed makes the output deterministic: the same seed and fraction
	// write the same bytes.
	Seed uint64
	// Fraction scales every count: 1 is the published size (Alberta's for
	// energy, the three prairie provinces' for agriculture and grids);
	// CI runs a small fraction. Must be in (0, 1].
	Fraction float64
}

// Check returns an error when the options are out of range.
func (o Options) Check() error {
	if !(o.Fraction > 0 && o.Fraction <= 1) {
		return fmt.Errorf("scale: fraction %v: want a number in (0, 1]", o.Fraction)
	}
	return nil
}

// N scales a published count by the fraction: at least 1.
func (o Options) N(published int) int {
	return max(1, int(math.Round(float64(published)*o.Fraction)))
}

// File is one file a generator wrote.
type File struct {
	Name  string `json:"name"` // path relative to the output directory, slash-separated
	Rows  int64  `json:"rows"` // records: lines of a CSV, features, shapes
	Bytes int64  `json:"bytes"`
}

// Report is what a generator wrote.
type Report struct {
	Files []File
}

// Rows returns the records of every file.
func (r Report) Rows() (n int64) {
	for _, f := range r.Files {
		n += f.Rows
	}
	return n
}

// Bytes returns the size of every file.
func (r Report) Bytes() (n int64) {
	for _, f := range r.Files {
		n += f.Bytes
	}
	return n
}
