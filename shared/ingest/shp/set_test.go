package shp_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/paulmach/orb"

	"meridian/shared/ingest/shp"
)

const testPRJ = `GEOGCS["GCS_North_American_1983"]`

var setRecords = []record{
	{orb.Polygon{sq(0, 0, 2), cw(sq(0.5, 0.5, 1))}, []string{"hole"}},
	{orb.Polygon{sq(5, 5, 1)}, []string{"plain"}},
}

// writeSet writes setRecords through a SetWriter into sink.
func writeSet(t *testing.T, sink shp.Sink, base string, opts shp.SetOptions) {
	t.Helper()
	w, err := shp.NewSetWriter(sink, base, shp.Polygon, oneField, opts)
	if err != nil {
		t.Fatalf("NewSetWriter: %v", err)
	}
	for _, r := range setRecords {
		if err := w.Write(r.geom, r.attrs); err != nil {
			t.Fatalf("Write: %v", err)
		}
	}
	if got := w.Records(); got != len(setRecords) {
		t.Errorf("Records = %d, want %d", got, len(setRecords))
	}
	if err := w.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if err := w.Close(); err == nil {
		t.Error("second Close: no error")
	}
}

// TestSetWriterFiles checks that a set holds the Writer's bytes and the
// .prj and .cpg only when asked for.
func TestSetWriterFiles(t *testing.T) {
	t.Parallel()
	want := build(t, shp.Polygon, oneField, shp.WriterOptions{Encoding: shp.Windows1252}, setRecords)
	for _, tc := range []struct {
		name  string
		opts  shp.SetOptions
		names []string
	}{
		{"bare", shp.SetOptions{}, []string{"a/b.dbf", "a/b.shp", "a/b.shx"}},
		{"prj", shp.SetOptions{PRJ: testPRJ}, []string{"a/b.dbf", "a/b.prj", "a/b.shp", "a/b.shx"}},
		{"prj and cpg", shp.SetOptions{PRJ: testPRJ, CPG: true}, []string{"a/b.cpg", "a/b.dbf", "a/b.prj", "a/b.shp", "a/b.shx"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.opts.Encoding = shp.Windows1252
			got := shp.Files{}
			writeSet(t, got, "a/b", tc.opts)
			var names []string
			for n := range got {
				names = append(names, n)
			}
			slices.Sort(names)
			if !slices.Equal(names, tc.names) {
				t.Fatalf("files %q, want %q", names, tc.names)
			}
			for ext, b := range map[string][]byte{".shp": want.shp, ".shx": want.shx, ".dbf": want.dbf} {
				if !bytes.Equal(got["a/b"+ext], b) {
					t.Errorf("%s differs from the Writer's", ext)
				}
			}
			if tc.opts.PRJ != "" && string(got["a/b.prj"]) != testPRJ {
				t.Errorf(".prj = %q", got["a/b.prj"])
			}
			if tc.opts.CPG && string(got["a/b.cpg"]) != "1252" {
				t.Errorf(".cpg = %q, want 1252", got["a/b.cpg"])
			}
			feats, _, err := readAll(got["a/b.shp"], got["a/b.dbf"], shp.ReaderOptions{})
			if err != nil || len(feats) != len(setRecords) {
				t.Fatalf("read back: %d features, %v", len(feats), err)
			}
			if v, _ := feats[0].Get("NAME"); v != "hole" {
				t.Errorf("record 1 NAME = %q", v)
			}
		})
	}
}

// TestSetWriterDir checks that a Dir sink writes the same bytes as Files,
// creating the directories the name needs.
func TestSetWriterDir(t *testing.T) {
	t.Parallel()
	mem := shp.Files{}
	opts := shp.SetOptions{PRJ: testPRJ, CPG: true}
	writeSet(t, mem, "x/y/set", opts)
	dir := t.TempDir()
	writeSet(t, shp.Dir(dir), "x/y/set", opts)
	entries, err := os.ReadDir(filepath.Join(dir, "x", "y"))
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != len(mem) {
		t.Errorf("%d files on disk, %d in memory", len(entries), len(mem))
	}
	for name, b := range mem {
		disk, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(name)))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(disk, b) {
			t.Errorf("%s: disk and memory differ", name)
		}
	}
	// Writing again over the same files gives the same bytes (truncated).
	writeSet(t, shp.Dir(dir), "x/y/set", opts)
	disk, _ := os.ReadFile(filepath.Join(dir, "x", "y", "set.shp"))
	if !bytes.Equal(disk, mem["x/y/set.shp"]) {
		t.Error("rewritten .shp differs")
	}
}

// TestTableWriter checks that a table on its own is the .dbf of a Null
// set and nothing else.
func TestTableWriter(t *testing.T) {
	t.Parallel()
	rows := []record{{nil, []string{"one"}}, {nil, []string{"two"}}}
	want := build(t, shp.Null, oneField, shp.WriterOptions{}, rows)
	got := shp.Files{}
	w, err := shp.NewTableWriter(got, "t/table.dbf", oneField, shp.WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		if err := w.Write(nil, r.attrs); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || !bytes.Equal(got["t/table.dbf"], want.dbf) {
		t.Errorf("table files %d, .dbf equal %v", len(got), bytes.Equal(got["t/table.dbf"], want.dbf))
	}
}

// failingSink fails to create any name containing fail.
type failingSink struct {
	shp.Files
	fail string
}

func (s failingSink) Create(name string) (shp.SinkFile, error) {
	if strings.Contains(name, s.fail) {
		return nil, errors.New("no room for " + name)
	}
	return s.Files.Create(name)
}

// TestSetWriterErrors checks that a sink's error and a bad field reach
// the caller, and that Abort leaves no .prj.
func TestSetWriterErrors(t *testing.T) {
	t.Parallel()
	for _, ext := range []string{".shp", ".shx", ".dbf"} {
		_, err := shp.NewSetWriter(failingSink{shp.Files{}, ext}, "s", shp.Polygon, oneField, shp.SetOptions{})
		if err == nil || !strings.Contains(err.Error(), "s"+ext) {
			t.Errorf("failing %s: err %v", ext, err)
		}
	}
	sink := failingSink{shp.Files{}, ".prj"}
	w, err := shp.NewSetWriter(sink, "s", shp.Polygon, oneField, shp.SetOptions{PRJ: testPRJ})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err == nil || !strings.Contains(err.Error(), "s.prj") {
		t.Errorf("failing .prj: Close err %v", err)
	}
	if _, err := shp.NewSetWriter(shp.Files{}, "s", shp.Polygon, nil, shp.SetOptions{}); err == nil {
		t.Error("no fields: no error")
	}
	if _, err := shp.NewSetWriter(nil, "s", shp.Polygon, oneField, shp.SetOptions{}); err == nil {
		t.Error("nil sink: no error")
	}
	files := shp.Files{}
	w, err = shp.NewSetWriter(files, "s", shp.Polygon, oneField, shp.SetOptions{PRJ: testPRJ})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(orb.Point{1, 2}, []string{"x"}); err == nil {
		t.Fatal("a point in a polygon set: no error")
	}
	w.Abort()
	if _, ok := files["s.prj"]; ok {
		t.Error("Abort wrote the .prj")
	}
	if err := w.Close(); err == nil {
		t.Error("Close after Abort: no error")
	}
}
