package agingest_test

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"meridian/shared/ag/agingest"
	"meridian/shared/ingest"
	"meridian/shared/teamdata"
)

// sample opens a file of the shared samples (skipping the test when the
// shared directory is absent).
func sample(t testing.TB, rel string) agingest.Source {
	t.Helper()
	f, err := agingest.Open(teamdata.Path(t, "samples/"+rel))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f.Source
}

// csvSource is a CSV Source over text.
func csvSource(name, text string) agingest.Source {
	return agingest.Source{Name: name, Format: agingest.CSV, R: strings.NewReader(text)}
}

// geoJSONSource is a GeoJSON Source over text.
func geoJSONSource(name, text string) agingest.Source {
	return agingest.Source{Name: name, Format: agingest.GeoJSON, R: strings.NewReader(text)}
}

// collect reads every record of src with read.
func collect[T any](t testing.TB, read func(agingest.Source, func(T) error) error, src agingest.Source) []T {
	t.Helper()
	var out []T
	if err := read(src, func(v T) error { out = append(out, v); return nil }); err != nil {
		t.Fatalf("%s: %v", src.Name, err)
	}
	return out
}

// wantError checks that err is an *ingest.Error for file at line whose
// reason contains want.
func wantError(t testing.TB, err error, file string, line int, want string) {
	t.Helper()
	var ie *ingest.Error
	if !errors.As(err, &ie) {
		t.Fatalf("error = %v (%T), want an *ingest.Error", err, err)
	}
	if ie.File != file || ie.Line != line || !strings.Contains(ie.Reason, want) {
		t.Errorf("error = %q (file %q line %d), want file %q line %d with %q", err, ie.File, ie.Line, file, line, want)
	}
}

// checkFuzzError fails unless err is nil or an *ingest.Error with a
// reason, naming file.
func checkFuzzError(t *testing.T, err error, file string) {
	t.Helper()
	if err == nil {
		return
	}
	var ie *ingest.Error
	if !errors.As(err, &ie) {
		t.Fatalf("error %v (%T) is not an *ingest.Error", err, err)
	}
	if ie.File != file || ie.Reason == "" || ie.Line < 0 {
		t.Fatalf("error %#v: want file %q, a line and a reason", ie, file)
	}
}

// fuzzSource builds a Source of format k from fuzz input: a is the file
// (the .shp of a shapefile), b the .dbf of a shapefile.
func fuzzSource(name string, k uint8, a, b []byte) agingest.Source {
	switch k % 4 {
	case 0:
		return agingest.Source{Name: name, Format: agingest.CSV, R: bytes.NewReader(a)}
	case 1:
		return agingest.Source{Name: name, Format: agingest.DBF, R: bytes.NewReader(a)}
	case 2:
		return agingest.Source{Name: name, Format: agingest.GeoJSON, R: bytes.NewReader(a)}
	}
	return agingest.Source{Name: name, Format: agingest.Shapefile, R: bytes.NewReader(a), DBF: bytes.NewReader(b)}
}
