package nts_test

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/paulmach/orb"

	"meridian/shared/lld"
	"meridian/shared/survey/nts"
)

// groundTruthPath is the team's sample of real LLD ↔ coordinate pairs
// (/work/shared/ground-truth), seen from this package's directory.
const groundTruthPath = "../../../../shared/ground-truth/lld-points-sample.csv"

// TestCalibration: every BC Energy Regulator surface in the sample lies
// strictly inside its exactly computed quarter unit, and Locate finds that
// quarter unit. The sample's DLS points check InBC: Peace River Block
// surfaces are in BC; Alberta bottom holes and Manitoba centroids are not.
func TestCalibration(t *testing.T) {
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

	var n, inside, located int
	inBC := map[string][2]int{} // point_kind → (in BC, total)
	for i, r := range rows[1:] {
		lat, err1 := strconv.ParseFloat(r[1], 64)
		lng, err2 := strconv.ParseFloat(r[2], 64)
		if err1 != nil || err2 != nil {
			t.Fatalf("%s line %d: bad coordinates %q, %q", groundTruthPath, i+2, r[1], r[2])
		}
		pt := orb.Point{lng, lat}
		c := inBC[r[3]]
		c[1]++
		if nts.InBC(pt) {
			c[0]++
		}
		inBC[r[3]] = c
		if !strings.Contains(r[0], "/") {
			continue
		}
		n++
		want, err := parseNTS(r[0])
		if err != nil {
			t.Fatalf("%s line %d: %v", groundTruthPath, i+2, err)
		}
		b := nts.Bound(want)
		if pt[0] > b.Min[0] && pt[0] < b.Max[0] && pt[1] > b.Min[1] && pt[1] < b.Max[1] {
			inside++
		} else {
			t.Errorf("%s (%v) is not strictly inside its quarter unit %v", r[0], pt, b)
		}
		if got, ok := nts.Locate(pt, lld.QuarterUnit); ok && got == want {
			located++
		} else {
			t.Errorf("Locate(%v, QuarterUnit) = %v, %v, want %v", pt, got, ok, want)
		}
		if _, ok := nts.Resolve(want); !ok {
			t.Errorf("Resolve(%v) not ok", want)
		}
	}
	if n == 0 {
		t.Fatal("no NTS points in the sample")
	}
	wantInBC := map[string]bool{
		"well_surface_inside_quarter_unit": true,  // BCER, NTS
		"well_surface_in_lsd":              true,  // BCER, Peace River Block
		"well_bottomhole_in_lsd":           false, // AER, Alberta
		"centroid":                         false, // Manitoba
		"well_location_las":                false, // Alberta
	}
	var tbl strings.Builder
	fmt.Fprintf(&tbl, "\n| BC NTS quarter units | n | inside (strict) | Locate = LLD |\n|---|---|---|---|\n| BCER surfaces | %d | %d (%.0f%%) | %d |\n",
		n, inside, 100*float64(inside)/float64(n), located)
	fmt.Fprintf(&tbl, "\n| point kind | n | InBC |\n|---|---|---|\n")
	for kind, c := range inBC {
		fmt.Fprintf(&tbl, "| %s | %d | %d |\n", kind, c[1], c[0])
		want, known := wantInBC[kind]
		switch {
		case !known:
			t.Errorf("unknown point_kind %q", kind)
		case want && c[0] != c[1]:
			t.Errorf("%s: %d of %d points InBC, want all", kind, c[0], c[1])
		case !want && c[0] != 0:
			t.Errorf("%s: %d of %d points InBC, want none", kind, c[0], c[1])
		}
	}
	t.Log(tbl.String())
}

// parseNTS parses the sample's spelling Q-UUU-B/SSS-L-NN
// ("D-080-H/092-G-03"). It is a test helper, not lld.Parse.
func parseNTS(s string) (lld.Location, error) {
	left, right, ok := strings.Cut(strings.ToUpper(s), "/")
	a, b := strings.Split(left, "-"), strings.Split(right, "-")
	if !ok || len(a) != 3 || len(b) != 3 || len(a[0]) != 1 || len(a[2]) != 1 || len(b[1]) != 1 {
		return lld.Location{}, fmt.Errorf("parseNTS(%q): want Q-UUU-B/SSS-L-NN", s)
	}
	unit, err1 := strconv.Atoi(a[1])
	series, err2 := strconv.Atoi(b[0])
	sheet, err3 := strconv.Atoi(b[2])
	if err1 != nil || err2 != nil || err3 != nil || unit < 1 || unit > 100 || series < 1 || series > 255 || sheet < 1 || sheet > 16 {
		return lld.Location{}, fmt.Errorf("parseNTS(%q): bad number", s)
	}
	return lld.Location{
		System: lld.NTS, Unit: lld.QuarterUnit,
		Quarter: a[0][0], UnitNo: uint8(unit), Block: a[2][0],
		Series: uint8(series), Area: b[1][0], Sheet: uint8(sheet),
	}, nil
}

func TestParseNTS(t *testing.T) {
	t.Parallel()
	got, err := parseNTS("d-080-H/092-G-03")
	if want := quarterUnit('D', 80, 'H', 92, 'G', 3); err != nil || got != want {
		t.Errorf("parseNTS = %v, %v, want %v", got, err, want)
	}
	for _, bad := range []string{"", "D-080-H", "D-080-H/092-G", "DD-080-H/092-G-03", "D-0-H/092-G-03", "D-080-H/092-G-17"} {
		if got, err := parseNTS(bad); err == nil {
			t.Errorf("parseNTS(%q) = %v, want error", bad, got)
		}
	}
}
