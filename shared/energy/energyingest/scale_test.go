package energyingest_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	demodata "meridian/shared/demo"
	"meridian/shared/demo/energydemo"
	"meridian/shared/energy/energyingest"
	"meridian/shared/ingest"
	"meridian/shared/kv"
	"meridian/shared/scale"
	"meridian/shared/survey/grid"
)

// writeScale generates into a temporary directory.
func writeScale(t *testing.T, o scale.Options) (string, scale.Report) {
	t.Helper()
	dir := t.TempDir()
	r, err := energydemo.WriteScale(context.Background(), dir, o)
	if err != nil {
		t.Fatalf("WriteScale(%+v): %v", o, err)
	}
	return dir, r
}

func hashes(t *testing.T, dir string) map[string][32]byte {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][32]byte{}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		out[e.Name()] = sha256.Sum256(b)
	}
	return out
}

func TestWriteScaleDeterministic(t *testing.T) {
	t.Parallel()
	o := scale.Options{Seed: 7, Fraction: 0.001}
	a, ra := writeScale(t, o)
	b, _ := writeScale(t, o)
	c, _ := writeScale(t, scale.Options{Seed: 8, Fraction: 0.001})
	ha, hb, hc := hashes(t, a), hashes(t, b), hashes(t, c)
	if len(ha) != len(ra.Files) {
		t.Errorf("%d files in the directory, %d in the report", len(ha), len(ra.Files))
	}
	for name, h := range ha {
		if hb[name] != h {
			t.Errorf("%s: other bytes from the same seed and fraction", name)
		}
	}
	for _, name := range []string{"WellList_2026-11.txt", "Well Infrastructure-AB.csv", "Vol_2026-10-AB.csv",
		"Pipelines_GCS_NAD83.geojson", "Crown_Dispositions_AB.csv"} {
		if _, ok := ha[name]; !ok {
			t.Errorf("no %s", name)
		} else if hc[name] == ha[name] {
			t.Errorf("%s: the same bytes from seeds 7 and 8", name)
		}
	}
	readme, err := os.ReadFile(filepath.Join(a, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"invented", "meridian demo -scale province", "seed 7", "fraction 0.001", "(demo)"} {
		if !bytes.Contains(readme, []byte(want)) {
			t.Errorf("README.md does not say %q", want)
		}
	}
}

func TestWriteScaleOptions(t *testing.T) {
	t.Parallel()
	for _, f := range []float64{0, -1, 1.5, math.NaN()} {
		if _, err := energydemo.WriteScale(context.Background(), t.TempDir(), scale.Options{Fraction: f}); err == nil {
			t.Errorf("fraction %v: no error", f)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := energydemo.WriteScale(ctx, t.TempDir(), scale.Options{Fraction: 0.001}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v, want context.Canceled", err)
	}
}

// TestWriteScaleIngest: every file is in a layout the readers know, the
// ingest takes them without a notice, and what it reads is the published
// size times the fraction.
func TestWriteScaleIngest(t *testing.T) {
	if testing.Short() {
		t.Skip("generates and ingests 0.2 % of Alberta")
	}
	t.Parallel()
	o := scale.Options{Seed: 1, Fraction: 0.002}
	dir, rep := writeScale(t, o)
	rows := map[string]int64{}
	for _, f := range rep.Files {
		rows[f.Name] = f.Rows
	}
	files, err := energyingest.FilesIn(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(files.Unrecognised) > 0 {
		t.Errorf("unrecognised files: %v", files.Unrecognised)
	}
	layouts, err := energyingest.Layouts(files)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range layouts {
		if l.Layout.Dataset == "" {
			t.Errorf("%s: no layout recognised", filepath.Base(l.Path))
		}
	}
	notices := &ingest.Notices{}
	sum, err := energyingest.Ingest(context.Background(), kv.NewMem(), grid.New(), files,
		energyingest.Options{Now: demodata.AsOf(), Notices: notices})
	if err != nil {
		t.Fatal(err)
	}
	if len(sum.Notices) > 0 {
		t.Errorf("notices:\n%s", strings.Join(sum.Notices, "\n"))
	}
	near := func(what string, got, want int, tol float64) {
		t.Helper()
		if math.Abs(float64(got-want)) > tol*float64(want) {
			t.Errorf("%s: %d, want %d ± %v%%", what, got, want, 100*tol)
		}
	}
	within := func(what string, got, want int) { t.Helper(); near(what, got, want, 0.05) }
	within("ST37 wells", sum.Read["wells_st37"], o.N(600_000))
	within("Petrinex wells", sum.Read["wells_petrinex"], o.N(600_000)+o.N(18_000)+o.N(6_000))
	within("facilities", sum.Read["facilities"], o.N(125_000)+o.N(3_750)+o.N(1_250))
	within("pipeline segments", sum.Read["pipeline_segments"], o.N(323_000))
	within("dispositions", sum.Read["dispositions"], o.N(40_000)+o.N(1_200)+o.N(400))
	// About a million volumetric rows a month at full size (the rows per
	// battery vary with its wells' products).
	near("volumetric rows", sum.Read["volumetric_rows"], 12*o.N(1_030_000), 0.1)
	if n := int64(sum.Read["wells_st37"]); n != rows["WellList_2026-11.txt"] {
		t.Errorf("ingest read %d ST37 wells, the report says %d rows", n, rows["WellList_2026-11.txt"])
	}
	if prev := rows["WellList_2026-10.txt"]; prev >= rows["WellList_2026-11.txt"] || prev == 0 {
		t.Errorf("last month's ST37 has %d wells, this month's %d: want a few fewer", prev, rows["WellList_2026-11.txt"])
	}
	// Wells that the grid does not place are few (the generator uses the
	// model's blocks of each province).
	if n := sum.Skipped["well location outside the grid"]; n > sum.Read["wells_st37"]/100 {
		t.Errorf("%d wells outside the grid", n)
	}
	if n := sum.Read["orphan_sites"]; n == 0 {
		t.Error("no orphan sites")
	}
	t.Logf("read %v, skipped %v, %d items", sum.Read, sum.Skipped, sum.Items)
}

// TestScaleOperatorsAreInvented: the scale data's 1,224 business
// associates are marked (demo), distinct, under codes that are not in the
// real register sample and with names that are none of its companies'.
func TestScaleOperatorsAreInvented(t *testing.T) {
	t.Parallel()
	dir, _ := writeScale(t, scale.Options{Seed: 1, Fraction: 0.001})
	f, err := os.Open(filepath.Join(dir, "ST104A_BusinessAssociate_Codes_2026-11.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	codes, names := map[string]bool{}, map[string]bool{}
	if err := energyingest.ReadBACodes(f, "ba.csv", energyingest.ReadOptions{}, func(b energyingest.BA) error {
		if !strings.HasPrefix(b.Code, "Z9") || !strings.HasSuffix(b.Name, " (demo)") || codes[b.Code] || names[b.Name] {
			t.Errorf("BA %s %q: want a new Z9 code and a new name marked (demo)", b.Code, b.Name)
		}
		codes[b.Code], names[b.Name] = true, true
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if len(codes) < 1200 {
		t.Errorf("%d business associates, want more than 1,200", len(codes))
	}
	real := map[string]string{}
	if err := energyingest.ReadBACodes(openSample(t, baSample), "ST104A.csv", energyingest.ReadOptions{}, func(b energyingest.BA) error {
		real[b.Code] = b.Name
		real[strings.ToLower(b.Name)] = b.Name
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	for c := range codes {
		if r, ok := real[c]; ok {
			t.Errorf("code %s is the real code of %q", c, r)
		}
	}
	for n := range names {
		if r, ok := real[strings.ToLower(strings.TrimSuffix(n, " (demo)"))]; ok {
			t.Errorf("%q is the real %q", n, r)
		}
	}
}
