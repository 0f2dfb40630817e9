// Package realcorpus holds no code: its tests read the excerpts of real
// published files under testdata/real at the repository root (each with a
// PROVENANCE.md naming the repository, path and commit it came from) with
// the reader Meridian uses for that dataset, and pin what the reader gets:
// values checked by hand in the files, not what the reader happened to
// return. A real file a reader got wrong is fixed in the reader, and its
// test says what failed before.
package realcorpus
