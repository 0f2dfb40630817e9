package datafetch

import (
	"archive/zip"
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestParseContentRange(t *testing.T) {
	for _, tc := range []struct {
		in          string
		start, size int64
		ok          bool
	}{
		{"bytes 100-199/200", 100, 200, true},
		{"bytes 0-0/1", 0, 1, true},
		{"bytes 5-9/*", 5, -1, true},
		{"bytes 100-199/150", 0, 0, false}, // end past the size
		{"bytes 9-5/20", 0, 0, false},
		{"bytes -5/20", 0, 0, false},
		{"items 0-1/2", 0, 0, false},
		{"", 0, 0, false},
	} {
		start, size, ok := parseContentRange(tc.in)
		if ok != tc.ok || ok && (start != tc.start || size != tc.size) {
			t.Errorf("parseContentRange(%q) = %d, %d, %v; want %d, %d, %v", tc.in, start, size, ok, tc.start, tc.size, tc.ok)
		}
	}
}

func FuzzParseContentRange(f *testing.F) {
	for _, s := range []string{"bytes 100-199/200", "bytes 5-9/*", "bytes 9-5/20", "bytes 0-9223372036854775807/9223372036854775807"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		start, size, ok := parseContentRange(s)
		if ok && (start < 0 || size != -1 && size <= start) {
			t.Errorf("parseContentRange(%q) = %d, %d: accepted an impossible range", s, start, size)
		}
	})
}

// FuzzUnpack: whatever the archive, unpack writes only inside its
// directory and never panics.
func FuzzUnpack(f *testing.F) {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, n := range []string{"a.txt", "dir/b.txt", "../c.txt"} {
		w, _ := zw.Create(n)
		w.Write([]byte(n))
	}
	zw.Close()
	f.Add(buf.Bytes())
	f.Add([]byte("PK\x03\x04"))
	f.Add([]byte("plain text"))
	f.Fuzz(func(t *testing.T, data []byte) {
		root := t.TempDir()
		dir := filepath.Join(root, "out")
		if err := os.Mkdir(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		src := filepath.Join(root, "download.zip")
		if err := os.WriteFile(src, data, 0o644); err != nil {
			t.Fatal(err)
		}
		files, err := unpack(src, "download.zip", dir, 1<<20, 1000)
		if err != nil {
			return
		}
		entries, _ := os.ReadDir(root)
		for _, e := range entries {
			if e.Name() != "out" && e.Name() != "download.zip" {
				t.Fatalf("unpack wrote %s outside its directory", e.Name())
			}
		}
		for _, n := range files {
			if strings.ContainsAny(n, `/\`) {
				t.Fatalf("file %q is not a base name", n)
			}
		}
	})
}
