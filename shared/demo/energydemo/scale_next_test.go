package energydemo

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"meridian/shared/scale"
)

// WriteScaleNext differs from WriteScale only in this month's well list,
// the well infrastructure, the dispositions and the README (its counts):
// last month's ST37, the volumetrics, the pipelines and the facilities
// are byte for byte the same, and this month's well list is longer by the
// wells licensed.
func TestScaleNextDiffersOnlyWhereItSays(t *testing.T) {
	if testing.Short() {
		t.Skip("generates the province data twice")
	}
	o := scale.Options{Seed: 1, Fraction: 0.002}
	a, b := t.TempDir(), t.TempDir()
	ra, err := WriteScale(context.Background(), a, o)
	if err != nil {
		t.Fatal(err)
	}
	rb, err := WriteScaleNext(context.Background(), b, o)
	if err != nil {
		t.Fatal(err)
	}
	if len(ra.Files) != len(rb.Files) {
		t.Fatalf("%d files, then %d", len(ra.Files), len(rb.Files))
	}
	changed := map[string]bool{}
	for i, f := range ra.Files {
		if rb.Files[i].Name != f.Name {
			t.Fatalf("file %d: %s, then %s", i, f.Name, rb.Files[i].Name)
		}
		x, _ := os.ReadFile(filepath.Join(a, filepath.FromSlash(f.Name)))
		y, _ := os.ReadFile(filepath.Join(b, filepath.FromSlash(f.Name)))
		if !bytes.Equal(x, y) {
			changed[f.Name] = true
		}
	}
	for name := range changed {
		if !(name == "WellList_2026-11.txt" || name == "README.md" || strings.HasPrefix(name, "Well Infrastructure-") || strings.HasPrefix(name, "Crown_Dispositions_")) {
			t.Errorf("%s differs", name)
		}
	}
	for _, name := range []string{"WellList_2026-11.txt", "Well Infrastructure-AB.csv", "Crown_Dispositions_AB.csv"} {
		if !changed[name] {
			t.Errorf("%s is the same", name)
		}
	}
	lines := func(dir string) int {
		b, _ := os.ReadFile(filepath.Join(dir, "WellList_2026-11.txt"))
		return bytes.Count(b, []byte("\n"))
	}
	if la, lb := lines(a), lines(b); lb <= la {
		t.Errorf("this month's ST37: %d wells, then %d: want more", la, lb)
	}
}
