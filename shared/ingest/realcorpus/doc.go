// Package realcorpus holds no code: its tests read the excerpts of real
// published files under testdata/real at the repository root (each with a
// PROVENANCE.md naming the repository, path and commit it came from) with
// the reader Meridian uses for that dataset, and pin what the reader gets.
//
// A test named TestReal<Dataset>_KnownGap asserts the correct reading of a
// real file that today's reader gets wrong; its comment says what fails and
// with which error. It fails until the reader is fixed.
package realcorpus
