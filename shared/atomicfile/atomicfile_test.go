package atomicfile_test

import (
	"bytes"
	"errors"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"meridian/shared/atomicfile"
)

func TestRename(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "ab.mgix")
	if err := os.WriteFile(path, []byte("old version"), 0o644); err != nil {
		t.Fatal(err)
	}
	tmp := filepath.Join(dir, ".ingest-1.mgix")
	if err := os.WriteFile(tmp, []byte("new version, longer"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := atomicfile.Rename(tmp, path); err != nil {
		t.Fatalf("Rename: %v", err)
	}
	if got, _ := os.ReadFile(path); string(got) != "new version, longer" {
		t.Errorf("after Rename the file holds %q", got)
	}
	if _, err := os.Stat(tmp); !os.IsNotExist(err) {
		t.Errorf("the temporary file is still there: %v", err)
	}
}

// TestRenameFailureLeavesOld simulates failures before the rename: a
// temporary file that cannot be synced (gone; a directory) and a target
// directory that does not exist. The old file must be whole each time.
func TestRenameFailureLeavesOld(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "energy.pmtiles")
	old := []byte("old archive bytes")
	if err := os.WriteFile(path, old, 0o644); err != nil {
		t.Fatal(err)
	}
	sub := filepath.Join(dir, "subdir")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	partial := filepath.Join(dir, ".build-2.pmtiles")
	if err := os.WriteFile(partial, []byte("half"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ name, tmp, path string }{
		{"missing temporary file", filepath.Join(dir, ".build-1.pmtiles"), path},
		{"temporary is a directory", sub, path},
		{"target directory missing", partial, filepath.Join(dir, "nowhere", "energy.pmtiles")},
	} {
		if err := atomicfile.Rename(tc.tmp, tc.path); err == nil {
			t.Errorf("%s: Rename succeeded", tc.name)
		} else if !strings.HasPrefix(err.Error(), "atomicfile: ") {
			t.Errorf("%s: error %q does not name the package", tc.name, err)
		}
		if got, err := os.ReadFile(path); err != nil || !bytes.Equal(got, old) {
			t.Errorf("%s: the old file holds %q, %v; want it untouched", tc.name, got, err)
		}
	}
}

func TestSyncDirMissing(t *testing.T) {
	if err := atomicfile.SyncDir(filepath.Join(t.TempDir(), "missing")); err == nil {
		t.Error("SyncDir of a missing directory succeeded")
	}
}

// TestNoBareRename checks that no code of the module but this package calls
// os.Rename (tests may), so every file installed into a data directory is
// synced before and after its rename. blob.Dir renames through an os.Root,
// which this cannot see; its Put syncs the same way.
func TestNoBareRename(t *testing.T) {
	root := filepath.Join("..", "..")
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if n := d.Name(); n == "testdata" || n == "node_modules" || n == "infra" || (strings.HasPrefix(n, ".") && p != root) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") || filepath.Base(filepath.Dir(p)) == "atomicfile" {
			return nil
		}
		f, err := parser.ParseFile(fset, p, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if sel, ok := n.(*ast.SelectorExpr); ok && sel.Sel.Name == "Rename" {
				if id, ok := sel.X.(*ast.Ident); ok && id.Name == "os" {
					t.Errorf("%s: os.Rename; use atomicfile.Rename", fset.Position(sel.Pos()))
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestRenameDir: a directory and its files are renamed whole; a failure
// (the target exists and is not empty) leaves both as they were.
func TestRenameDir(t *testing.T) {
	base := t.TempDir()
	src, dst := filepath.Join(base, ".new-1"), filepath.Join(base, "v1")
	if err := os.Mkdir(src, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(src, "a.csv"), []byte("a"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := atomicfile.RenameDir(src, dst); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(filepath.Join(dst, "a.csv")); err != nil || string(b) != "a" {
		t.Fatalf("renamed file = %q, %v", b, err)
	}
	if _, err := os.Stat(src); !os.IsNotExist(err) {
		t.Errorf("source still there: %v", err)
	}
	// A second source onto the now non-empty target fails and keeps both.
	if err := os.Mkdir(src, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := atomicfile.RenameDir(src, dst); err == nil {
		t.Errorf("renaming onto a non-empty directory succeeded")
	}
	if _, err := os.Stat(filepath.Join(dst, "a.csv")); err != nil {
		t.Errorf("target lost its file: %v", err)
	}
}

func TestLock(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no flock")
	}
	p := filepath.Join(t.TempDir(), ".lock")
	unlock, err := atomicfile.Lock(p)
	if err != nil {
		t.Fatal(err)
	}
	// flock locks belong to the open file, so a second open in this
	// process contends like another process would.
	if _, err := atomicfile.Lock(p); !errors.Is(err, atomicfile.ErrLocked) {
		t.Fatalf("second Lock while held: %v, want ErrLocked", err)
	}
	unlock()
	unlock2, err := atomicfile.Lock(p)
	if err != nil {
		t.Fatalf("Lock after unlock: %v", err)
	}
	unlock2()
}
