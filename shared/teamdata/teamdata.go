// Package teamdata gives tests the team's shared data: real excerpts of
// public datasets (samples/) and ground-truth points (ground-truth/), kept
// in the shared directory beside the repository and read in place, never
// copied in. When that directory is absent the tests that need it skip.
package teamdata

import (
	"encoding/csv"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/paulmach/orb"
)

// Dir returns the shared directory: $MERIDIAN_SHARED, else "shared" beside
// the repository root (the directory holding go.mod).
func Dir() (string, error) {
	if d := os.Getenv("MERIDIAN_SHARED"); d != "" {
		return d, nil
	}
	wd, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for d := wd; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return filepath.Join(filepath.Dir(d), "shared"), nil
		}
		if filepath.Dir(d) == d {
			return "", errors.New("teamdata: no go.mod above " + wd)
		}
	}
}

// Path returns the path of rel (slash-separated, e.g.
// "samples/aer-st37/WellList_2017-04_excerpt.txt") in the shared
// directory, and skips the test when it is not there.
func Path(t testing.TB, rel string) string {
	t.Helper()
	dir, err := Dir()
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, filepath.FromSlash(rel))
	if _, err := os.Stat(p); errors.Is(err, fs.ErrNotExist) {
		t.Skipf("%s is not in the shared directory %s beside the repository", rel, dir)
	} else if err != nil {
		t.Fatal(err)
	}
	return p
}

// Rows reads a delimited file of the shared directory with every value
// trimmed of fixed-width padding. Quotes are read leniently, as the
// regulators' files need.
func Rows(t testing.TB, rel string, sep rune) [][]string {
	t.Helper()
	f, err := os.Open(Path(t, rel))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r := csv.NewReader(f)
	r.Comma = sep
	r.FieldsPerRecord = -1
	r.LazyQuotes = true
	rows, err := r.ReadAll()
	if err != nil {
		t.Fatalf("%s: %v", rel, err)
	}
	if len(rows) == 0 {
		t.Fatalf("%s is empty", rel)
	}
	for _, row := range rows {
		for i := range row {
			row[i] = strings.TrimSpace(row[i])
		}
	}
	return rows
}

// Column returns the values of the named column of a file whose first row
// is a header.
func Column(t testing.TB, rel string, sep rune, name string) []string {
	t.Helper()
	rows := Rows(t, rel, sep)
	col := -1
	for i, h := range rows[0] {
		if h == name {
			col = i
		}
	}
	if col < 0 {
		t.Fatalf("%s has no column %s (header %q)", rel, name, rows[0])
	}
	vals := make([]string, 0, len(rows)-1)
	for _, r := range rows[1:] {
		if col < len(r) {
			vals = append(vals, r[col])
		}
	}
	return vals
}

// GroundTruthFile is the team's first sample of real points with their
// legal land descriptions (113 rows: AER bottom holes, BCER surfaces,
// Manitoba official centroids).
const GroundTruthFile = "ground-truth/lld-points-sample.csv"

// GroundTruthWellsFile adds 891 real wells (AER bottom holes W4–W6, BC
// Energy Regulator surfaces in DLS and NTS), published 2026-11.
const GroundTruthWellsFile = "ground-truth/lld-points-wells-2026-11.csv"

// GroundTruthFiles are every ground-truth file, oldest first.
var GroundTruthFiles = []string{GroundTruthFile, GroundTruthWellsFile}

// Point is one row of the ground truth.
type Point struct {
	File   string    // the ground-truth file, relative to the shared directory
	Line   int       // line in the file, for messages
	LLD    string    // as the source writes it: 10-22-050-26W4, NE-1-12-12E1, D-080-H/092-G-03
	Pt     orb.Point // lng, lat (NAD83)
	Kind   string    // point_kind: well_bottomhole_in_lsd, well_surface_in_lsd, centroid, ...
	Source string
}

// GroundTruth reads every row of GroundTruthFile.
func GroundTruth(t testing.TB) []Point { return GroundTruthOf(t, GroundTruthFile) }

// AllGroundTruth reads every row of every file of GroundTruthFiles.
func AllGroundTruth(t testing.TB) []Point {
	var pts []Point
	for _, f := range GroundTruthFiles {
		pts = append(pts, GroundTruthOf(t, f)...)
	}
	return pts
}

// GroundTruthOf reads every row of one ground-truth file (header
// lld,lat,lng,point_kind,source).
func GroundTruthOf(t testing.TB, file string) []Point {
	t.Helper()
	rows := Rows(t, file, ',')
	if strings.Join(rows[0], ",") != "lld,lat,lng,point_kind,source" {
		t.Fatalf("%s: unexpected header %q", file, rows[0])
	}
	pts := make([]Point, 0, len(rows)-1)
	for i, r := range rows[1:] {
		if len(r) != 5 {
			t.Fatalf("%s line %d: %d fields, want 5", file, i+2, len(r))
		}
		lat, err1 := strconv.ParseFloat(r[1], 64)
		lng, err2 := strconv.ParseFloat(r[2], 64)
		if err1 != nil || err2 != nil {
			t.Fatalf("%s line %d: bad coordinates %q, %q", file, i+2, r[1], r[2])
		}
		pts = append(pts, Point{File: file, Line: i + 2, LLD: r[0], Pt: orb.Point{lng, lat}, Kind: r[3], Source: r[4]})
	}
	return pts
}
