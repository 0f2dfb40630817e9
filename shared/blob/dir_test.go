package blob_test

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"meridian/shared/blob"
	"meridian/shared/blob/blobtest"
)

func newDir(t *testing.T, objects map[string][]byte) blob.Store {
	d := blob.NewDir(filepath.Join(t.TempDir(), "data")) // created by Put
	blobtest.Fill(t, d, objects)
	return d
}

func TestDirContract(t *testing.T) {
	blobtest.Run(t, newDir)
}

func TestDirPut(t *testing.T) {
	blobtest.RunPut(t, blob.NewDir(t.TempDir()))
}

func TestDirList(t *testing.T) {
	testList(t, blob.NewDir(t.TempDir()))
}

func TestDirListMissingRoot(t *testing.T) {
	got, err := blob.NewDir(filepath.Join(t.TempDir(), "none")).List(t.Context(), "")
	if err != nil || len(got) != 0 {
		t.Errorf("List on a missing root = %q, %v; want nothing", got, err)
	}
}

func TestDirMissingRoot(t *testing.T) {
	d := blob.NewDir(filepath.Join(t.TempDir(), "none"))
	if _, err := d.ReadRange(t.Context(), "a.idx", 0, 10); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("ReadRange under a missing root: error = %v, want fs.ErrNotExist", err)
	}
}

// failingReader returns some bytes, then an error.
type failingReader struct{ sent bool }

func (r *failingReader) Read(p []byte) (int, error) {
	if r.sent {
		return 0, errors.New("disk on fire")
	}
	r.sent = true
	return copy(p, "partial"), nil
}

func TestDirPutIsAtomic(t *testing.T) {
	root := t.TempDir()
	d := blob.NewDir(root)
	blobtest.Fill(t, d, map[string][]byte{"grid/ab.idx": []byte("old")})
	if err := d.Put(t.Context(), "grid/ab.idx", &failingReader{}); err == nil {
		t.Fatal("Put from a failing reader succeeded")
	}
	got, err := d.ReadRange(t.Context(), "grid/ab.idx", 0, 100)
	if err != nil || string(got) != "old" {
		t.Errorf("after a failed Put, ReadRange = %q, %v; want the old content", got, err)
	}
	entries, err := os.ReadDir(filepath.Join(root, "grid"))
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 {
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Errorf("after a failed Put the directory holds %q, want only ab.idx", names)
	}
}

func TestDirListSkipsTemporaryFiles(t *testing.T) {
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, ".blob-tmp-0123"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	d := blob.NewDir(root)
	blobtest.Fill(t, d, map[string][]byte{"a": {1}})
	got, err := d.List(t.Context(), "")
	if err != nil || strings.Join(got, ",") != "a" {
		t.Errorf("List = %q, %v; want [a]", got, err)
	}
}

func TestDirConfinedToRoot(t *testing.T) {
	outside := t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "secret"), []byte("secret"), 0o644); err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "inside"), []byte("inside"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(outside, "secret"), filepath.Join(root, "escape")); err != nil {
		t.Skipf("no symlinks here: %v", err)
	}
	if err := os.Symlink("inside", filepath.Join(root, "alias")); err != nil {
		t.Fatal(err)
	}
	d := blob.NewDir(root)
	if got, err := d.ReadRange(t.Context(), "escape", 0, 100); err == nil {
		t.Errorf("ReadRange through a symlink out of the root = %q, want an error", got)
	}
	if got, err := d.ReadRange(t.Context(), "alias", 0, 100); err != nil || string(got) != "inside" {
		t.Errorf("ReadRange through a symlink inside the root = %q, %v; want %q", got, err, "inside")
	}
	rel, err := filepath.Rel(root, filepath.Join(outside, "secret"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := d.ReadRange(t.Context(), filepath.ToSlash(rel), 0, 100); !errors.Is(err, fs.ErrInvalid) {
		t.Errorf("ReadRange(%q) error = %v, want fs.ErrInvalid", rel, err)
	}
}

// TestDirSeesReplacedFile checks that Dir keeps no stale file open.
func TestDirSeesReplacedFile(t *testing.T) {
	root := t.TempDir()
	d := blob.NewDir(root)
	blobtest.Fill(t, d, map[string][]byte{"a": []byte("one")})
	if _, err := d.ReadRange(t.Context(), "a", 0, 10); err != nil {
		t.Fatal(err)
	}
	tmp := filepath.Join(root, "new")
	if err := os.WriteFile(tmp, []byte("two"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, filepath.Join(root, "a")); err != nil {
		t.Fatal(err)
	}
	got, err := d.ReadRange(t.Context(), "a", 0, 10)
	if err != nil || string(got) != "two" {
		t.Errorf("ReadRange after replacing the file = %q, %v; want %q", got, err, "two")
	}
}

// TestDirNoFileLeak counts the process's open files around many reads,
// failed ones included.
func TestDirNoFileLeak(t *testing.T) {
	openFiles := func() int {
		entries, err := os.ReadDir("/proc/self/fd")
		if err != nil {
			t.Skipf("cannot count open files: %v", err)
		}
		return len(entries)
	}
	d := blob.NewDir(t.TempDir())
	blobtest.Fill(t, d, map[string][]byte{"dir/a": make([]byte, 100)})
	before := openFiles()
	for range 200 {
		d.ReadRange(t.Context(), "dir/a", 10, 10)
		d.ReadRange(t.Context(), "dir/a", 1000, 10)
		d.ReadRange(t.Context(), "dir", 0, 10)
		d.ReadRange(t.Context(), "dir/a/b", 0, 10)
		d.ReadRange(t.Context(), "missing", 0, 10)
		d.Stat(t.Context(), "dir/a")
	}
	if after := openFiles(); after > before+2 {
		t.Errorf("open files grew from %d to %d over 1,200 calls", before, after)
	}
}
