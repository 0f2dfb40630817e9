package energyingest_test

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"meridian/shared/energy/energyingest"
	"meridian/shared/kv"
)

// The publishers' file names sort into their kinds: both BA lists, the
// ST37 shapefiles (recognised, not read by the reports) with their
// companions, NGL volumes.
func TestClassifyPublishedNames(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	names := []string{
		"PRABAIdentifiers.csv", "ST104A_BusinessAssociate_Codes_2017-04-07.csv",
		"ST37_SH_GCS_NAD83.shp", "ST37_SH_GCS_NAD83.dbf", "ST37_SH_GCS_NAD83.prj", "ST37_SH_GCS_NAD83.shx",
		"ST37_BH_GCS_NAD83.shp", "ST37_BH_GCS_NAD83.dbf", "WellList.txt", "NGL_2024-01.csv",
		"Pipelines_GCS_NAD83.shp", "Pipelines_GCS_NAD83.dbf", "Well Infrastructure-AB.csv",
	}
	for _, n := range names {
		if err := os.WriteFile(filepath.Join(dir, n), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	f, err := energyingest.FilesIn(dir)
	if err != nil {
		t.Fatal(err)
	}
	base := func(ps []string) []string {
		var out []string
		for _, p := range ps {
			out = append(out, filepath.Base(p))
		}
		slices.Sort(out)
		return out
	}
	for kind, c := range map[string]struct{ got, want []string }{
		"BACodes":      {base(f.BACodes), []string{"PRABAIdentifiers.csv", "ST104A_BusinessAssociate_Codes_2017-04-07.csv"}},
		"Unused":       {base(f.Unused), []string{"NGL_2024-01.csv", "ST37_BH_GCS_NAD83.shp", "ST37_SH_GCS_NAD83.shp"}},
		"WellLists":    {base(f.WellLists), []string{"WellList.txt"}},
		"Wells":        {base(f.Wells), []string{"Well Infrastructure-AB.csv"}},
		"Pipelines":    {base(f.Pipelines), []string{"Pipelines_GCS_NAD83.shp"}},
		"Unrecognised": {base(f.Unrecognised), nil},
	} {
		if !slices.Equal(c.got, c.want) {
			t.Errorf("%s = %q, want %q", kind, c.got, c.want)
		}
	}
}

// An ingest whose BA list is Petrinex's PRABAIdentifiers.csv instead of
// ST104A reads the same operators.
func TestIngestPetrinexBAList(t *testing.T) {
	t.Parallel()
	dir := demo(t)
	st104a := filepath.Join(dir, "ST104A_BusinessAssociate_Codes_2026-11.csv")
	var bas []energyingest.BA
	f, err := os.Open(st104a)
	if err != nil {
		t.Fatal(err)
	}
	err = energyingest.ReadBACodes(f, "ST104A.csv", energyingest.ReadOptions{}, func(b energyingest.BA) error { bas = append(bas, b); return nil })
	f.Close()
	if err != nil || len(bas) == 0 {
		t.Fatalf("demo BA list: %d codes, %v", len(bas), err)
	}
	var b strings.Builder
	b.WriteString("\"BACode\",\"BAName\",\"CorpStatus\"\r\n")
	for _, ba := range bas {
		fmt.Fprintf(&b, "%q,%q,\"Active\"\r\n", ba.Code, ba.Name)
	}
	if err := os.Remove(st104a); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "PRABAIdentifiers.csv"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	petrinex, err := ingestDir(t, kv.NewMem(), dir)
	if err != nil {
		t.Fatal(err)
	}
	aer, err := ingestDir(t, kv.NewMem(), demo(t))
	if err != nil {
		t.Fatal(err)
	}
	if petrinex.Read["ba_codes"] != len(bas) || aer.Read["ba_codes"] != len(bas) || petrinex.Items != aer.Items {
		t.Errorf("BA codes read %d (Petrinex list) and %d (ST104A), want %d; items %d and %d, want equal",
			petrinex.Read["ba_codes"], aer.Read["ba_codes"], len(bas), petrinex.Items, aer.Items)
	}
}
