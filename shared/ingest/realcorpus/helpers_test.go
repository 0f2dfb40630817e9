package realcorpus

import (
	"path/filepath"
	"testing"

	"meridian/shared/ingest"
)

// realDir is testdata/real at the repository root, seen from this package.
var realDir = filepath.Join("..", "..", "..", "testdata", "real")

// realPath returns the path of a file of the corpus.
func realPath(parts ...string) string {
	return filepath.Join(append([]string{realDir}, parts...)...)
}

// open opens a corpus file as a Source (shapefile with its .dbf, .prj and
// .cpg; CSV; GeoJSON), closed when the test ends.
func open(t *testing.T, parts ...string) *ingest.File {
	t.Helper()
	f, err := ingest.Open(realPath(parts...))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}
