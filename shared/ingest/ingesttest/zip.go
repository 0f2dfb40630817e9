// Package ingesttest builds the files the ingest tests read as a
// publisher ships them: zip archives, nested ones included.
package ingesttest

import (
	"archive/zip"
	"bytes"
	"os"
	"slices"
	"strings"
	"testing"
)

// Member is one file of an archive.
type Member struct{ Name, Body string }

// Zip returns a zip archive of members, in their order (a name may come
// twice, as in a malformed download).
func Zip(t testing.TB, members ...Member) []byte {
	t.Helper()
	var b bytes.Buffer
	zw := zip.NewWriter(&b)
	for _, m := range members {
		w, err := zw.Create(m.Name)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write([]byte(m.Body)); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// ZipMap returns a zip archive of members, body by name, in name order.
func ZipMap(t testing.TB, members map[string]string) []byte {
	t.Helper()
	var ms []Member
	for n, body := range members {
		ms = append(ms, Member{n, body})
	}
	slices.SortFunc(ms, func(a, b Member) int { return strings.Compare(a.Name, b.Name) })
	return Zip(t, ms...)
}

// WriteZip writes ZipMap(t, members) to path.
func WriteZip(t testing.TB, path string, members map[string]string) {
	t.Helper()
	if err := os.WriteFile(path, ZipMap(t, members), 0o644); err != nil {
		t.Fatal(err)
	}
}
