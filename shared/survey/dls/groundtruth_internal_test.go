package dls

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/paulmach/orb"

	"meridian/shared/lld"
)

// groundTruthPath is the team's sample of real LLD ↔ coordinate pairs
// (/work/shared/ground-truth), seen from this package's directory.
const groundTruthPath = "../../../../shared/ground-truth/lld-points-sample.csv"

// groundPoint is one row of the ground-truth sample.
type groundPoint struct {
	raw    string // the lld column as written
	loc    lld.Location
	pt     orb.Point // lng, lat (NAD83)
	kind   string    // point_kind
	source string
}

// readGroundTruth returns the sample's DLS rows, skipping the test when the
// file is not there (it lives beside the repository, not in it).
func readGroundTruth(t *testing.T) []groundPoint {
	t.Helper()
	f, err := os.Open(groundTruthPath)
	if errors.Is(err, fs.ErrNotExist) {
		t.Skipf("ground truth %s not found (it lives in the shared directory beside the repository); skipping calibration", groundTruthPath)
	}
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatalf("read %s: %v", groundTruthPath, err)
	}
	if len(rows) < 2 || strings.Join(rows[0], ",") != "lld,lat,lng,point_kind,source" {
		t.Fatalf("%s: unexpected header %q", groundTruthPath, rows[0])
	}
	var pts []groundPoint
	for i, r := range rows[1:] {
		if strings.Contains(r[0], "/") {
			continue // NTS, tested in package nts
		}
		l, err := parseDLS(r[0])
		if err != nil {
			t.Fatalf("%s line %d: %v", groundTruthPath, i+2, err)
		}
		lat, err1 := strconv.ParseFloat(r[1], 64)
		lng, err2 := strconv.ParseFloat(r[2], 64)
		if err1 != nil || err2 != nil {
			t.Fatalf("%s line %d: bad coordinates %q, %q", groundTruthPath, i+2, r[1], r[2])
		}
		pts = append(pts, groundPoint{raw: r[0], loc: l, pt: orb.Point{lng, lat}, kind: r[3], source: r[4]})
	}
	return pts
}

// parseDLS parses the spellings of the sample: LSDs "10-22-050-26W4" and
// quarters "NE-1-12-12E1", sections "22-50-26W4". It is a test helper, not
// lld.Parse (which is written elsewhere).
func parseDLS(s string) (lld.Location, error) {
	parts := strings.Split(strings.ToUpper(strings.TrimSpace(s)), "-")
	if len(parts) < 3 || len(parts) > 4 {
		return lld.Location{}, fmt.Errorf("parseDLS(%q): want 3 or 4 dash-separated parts", s)
	}
	l := lld.Location{System: lld.DLS, Unit: lld.Section}
	if len(parts) == 4 {
		switch a := parts[0]; a {
		case "NE", "NW", "SW", "SE":
			l.Unit = lld.QuarterSection
			l.Aliquot = map[string]lld.Aliquot{"NE": lld.NE, "NW": lld.NW, "SW": lld.SW, "SE": lld.SE}[a]
		default:
			n, err := strconv.Atoi(a)
			if err != nil || n < 1 || n > 16 {
				return lld.Location{}, fmt.Errorf("parseDLS(%q): bad LSD or quarter %q", s, a)
			}
			l.Unit, l.LSD = lld.LSD, uint8(n)
		}
		parts = parts[1:]
	}
	sec, err1 := strconv.Atoi(parts[0])
	twp, err2 := strconv.Atoi(parts[1])
	rm := parts[2]
	k := strings.IndexAny(rm, "WE")
	if err1 != nil || err2 != nil || k < 1 || k != len(rm)-2 {
		return lld.Location{}, fmt.Errorf("parseDLS(%q): want SEC-TWP-RNGWm", s)
	}
	rng, err3 := strconv.Atoi(rm[:k])
	mer := int(rm[k+1] - '0')
	if err3 != nil || sec < 1 || sec > 36 || twp < 1 || twp > 126 || rng < 1 || rng > 99 || mer < 1 || mer > 6 {
		return lld.Location{}, fmt.Errorf("parseDLS(%q): out of range", s)
	}
	l.Section, l.Township, l.Range = uint8(sec), uint8(twp), uint8(rng)
	l.Meridian = lld.Meridian(mer)
	if rm[k] == 'E' {
		if mer > 2 {
			return lld.Location{}, fmt.Errorf("parseDLS(%q): only E1 and E2 exist", s)
		}
		l.Meridian = lld.E1 + lld.Meridian(mer-1)
	}
	return l, nil
}

// distanceM returns the distance in metres from p to box b (0 inside),
// on the GRS80 ellipsoid with local radii: good to well under a metre at
// these distances.
func distanceM(p orb.Point, b orb.Bound) float64 {
	q := orb.Point{
		math.Max(b.Min[0], math.Min(p[0], b.Max[0])),
		math.Max(b.Min[1], math.Min(p[1], b.Max[1])),
	}
	return pointDistanceM(p, q)
}

// pointDistanceM is the distance in metres between two nearby points.
func pointDistanceM(p, q orb.Point) float64 {
	phi := (p[1] + q[1]) / 2 * degree
	dy := (p[1] - q[1]) * degree * meridianRadius(phi)
	dx := (p[0] - q[0]) * degree * parallelRadius(phi)
	return math.Hypot(dx, dy)
}

func TestParseDLS(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want lld.Location
	}{
		{"10-22-050-26W4", lld.Location{System: lld.DLS, Unit: lld.LSD, Meridian: lld.W4, Range: 26, Township: 50, Section: 22, LSD: 10}},
		{"NE-1-12-12E1", lld.Location{System: lld.DLS, Unit: lld.QuarterSection, Meridian: lld.E1, Range: 12, Township: 12, Section: 1, Aliquot: lld.NE}},
		{"36-42-3W5", lld.Location{System: lld.DLS, Unit: lld.Section, Meridian: lld.W5, Range: 3, Township: 42, Section: 36}},
	}
	for _, tc := range tests {
		got, err := parseDLS(tc.in)
		if err != nil || got != tc.want {
			t.Errorf("parseDLS(%q) = %v, %v, want %v", tc.in, got, err, tc.want)
		}
	}
	for _, bad := range []string{"", "10-22-050", "17-22-050-26W4", "10-22-050-26E4", "XX-1-12-12E1", "1-2-3-4W"} {
		if got, err := parseDLS(bad); err == nil {
			t.Errorf("parseDLS(%q) = %v, want error", bad, got)
		}
	}
}
