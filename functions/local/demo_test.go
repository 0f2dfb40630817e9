package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestDemoCommandWritesManifests(t *testing.T) {
	dir := t.TempDir()
	var out, errOut bytes.Buffer
	if code := run([]string{"demo", "-o", dir, "grid", "energy"}, nil, &out, &errOut); code != 0 {
		t.Fatalf("meridian demo: exit %d: %s", code, errOut.String())
	}
	for _, domain := range []string{"grid", "energy"} {
		b, err := os.ReadFile(filepath.Join(dir, domain, "SCALE.json"))
		if err != nil {
			t.Fatal(err)
		}
		var m demoManifest
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatal(err)
		}
		if m.Scale != "demo" || m.Rows == 0 || m.Bytes == 0 || len(m.Files) == 0 {
			t.Errorf("%s/SCALE.json = scale %q, %d rows, %d bytes, %d files", domain, m.Scale, m.Rows, m.Bytes, len(m.Files))
		}
		var sum int64
		for _, f := range m.Files {
			st, err := os.Stat(filepath.Join(dir, domain, filepath.FromSlash(f.Name)))
			if err != nil {
				t.Fatal(err)
			}
			if st.Size() != f.Bytes {
				t.Errorf("%s: manifest says %d bytes, the file has %d", f.Name, f.Bytes, st.Size())
			}
			sum += f.Bytes
		}
		if sum != m.Bytes {
			t.Errorf("%s: bytes %d, the files sum to %d", domain, m.Bytes, sum)
		}
		if domain == "grid" && len(m.Grids) != 4 {
			t.Errorf("grid manifest names %d ingests, want ats, mb, sk and on", len(m.Grids))
		}
		if domain == "energy" && m.AsOf == "" {
			t.Error("energy manifest without as_of: the ingest's -now")
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "ag")); err == nil {
		t.Error("ag written though not asked for")
	}
	errOut.Reset()
	if code := run([]string{"demo", "-scale", "province", "-fraction", "0", "-o", dir, "energy"}, nil, &out, &errOut); code != 2 || !strings.Contains(errOut.String(), "fraction") {
		t.Errorf("-fraction 0: exit %d, %q; want 2 and a word on the fraction", code, errOut.String())
	}
	if code := run([]string{"demo", "-o", dir, "wells"}, nil, &out, &errOut); code != 2 {
		t.Errorf("unknown domain: exit %d, want 2", code)
	}
}
