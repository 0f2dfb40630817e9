package energyingest_test

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"meridian/shared/energy/energyingest"
	"meridian/shared/ingest"
	"meridian/shared/ingest/ingesttest"
	"meridian/shared/kv"
)

// The publishers' file names sort into their kinds: both BA lists, the
// ST37 shapefiles (recognised, not read by the reports) with their
// companions, NGL volumes.
func TestClassifyPublishedNames(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	names := []string{
		"PRABAIdentifiers.csv", "ST104A_BusinessAssociate_Codes_2017-04-07.csv", "BusinessAssociate_Codes.xlsx",
		"ST37_SH_GCS_NAD83.shp", "ST37_SH_GCS_NAD83.dbf", "ST37_SH_GCS_NAD83.prj", "ST37_SH_GCS_NAD83.shx",
		"ST37_BH_GCS_NAD83.shp", "ST37_BH_GCS_NAD83.dbf", "WellList.txt", "NGL_2024-01.csv",
		"Pipelines_GCS_NAD83.shp", "Pipelines_GCS_NAD83.dbf", "Well Infrastructure-AB.csv",
		"Crown_Dispositions_SK.geojson", "Crown_Dispositions_SK.csv", "BusinessAssociate_Codes.doc", "St37-Listofwellslayout.pdf",
		"SCALE.json",
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
		"BACodes":      {base(f.BACodes), []string{"BusinessAssociate_Codes.xlsx", "PRABAIdentifiers.csv", "ST104A_BusinessAssociate_Codes_2017-04-07.csv"}},
		"Unused":       {base(f.Unused), []string{"Crown_Dispositions_SK.csv", "NGL_2024-01.csv", "SCALE.json", "ST37_BH_GCS_NAD83.shp", "ST37_SH_GCS_NAD83.shp", "St37-Listofwellslayout.pdf"}},
		"Dispositions": {base(f.Dispositions), []string{"Crown_Dispositions_SK.geojson"}},
		"WellLists":    {base(f.WellLists), []string{"WellList.txt"}},
		"Wells":        {base(f.Wells), []string{"Well Infrastructure-AB.csv"}},
		"Pipelines":    {base(f.Pipelines), []string{"Pipelines_GCS_NAD83.shp"}},
		"Unrecognised": {base(f.Unrecognised), []string{"BusinessAssociate_Codes.doc"}},
	} {
		if !slices.Equal(c.got, c.want) {
			t.Errorf("%s = %q, want %q", kind, c.got, c.want)
		}
	}
}

// Zipped downloads sort by their members' names, and the well lists by
// the publisher's name whichever archive holds them.
func TestClassifyZipMembers(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	ingesttest.WriteZip(t, filepath.Join(dir, "ST37-2017-05.zip"), map[string]string{"WellList_2017-05.txt": ""})
	ingesttest.WriteZip(t, filepath.Join(dir, "aer.zip"), map[string]string{"codes/BusinessAssociate_Codes.xlsx": "", "WellList_2017-04.txt": "", "notes.txt": ""})
	folder, err := ingest.OpenFolder(dir, ingest.Limits{TempDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer folder.Close()
	f := energyingest.FilesOf(folder.Paths())
	names := func(ps []string) []string {
		var out []string
		for _, p := range ps {
			out = append(out, filepath.Base(p))
		}
		return out
	}
	for kind, c := range map[string]struct{ got, want []string }{
		"WellLists":    {names(f.WellLists), []string{"aer.zip!WellList_2017-04.txt", "ST37-2017-05.zip!WellList_2017-05.txt"}},
		"BACodes":      {names(f.BACodes), []string{"aer.zip!BusinessAssociate_Codes.xlsx"}},
		"Unrecognised": {names(f.Unrecognised), []string{"aer.zip!notes.txt"}},
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
