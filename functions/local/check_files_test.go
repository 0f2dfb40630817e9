package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"meridian/shared/ingest/ingesttest"
	"meridian/shared/teamdata"
)

// Real published files, named as their publishers name them, for the
// energy -check: the ST37 excerpt as WellList.txt, the ST104A register (the
// real workbook when it is in testdata/real, else the team's CSV sample),
// Petrinex's NGL volumes (read by no report) and ST103's FieldList.txt,
// which the energy ingest does not read.
type realEnergyFiles struct {
	wells, ba, baName, ngl, fields string
	wellRows                       int
	baRows                         string // "rows:" line of the register
}

func realEnergy(t *testing.T) realEnergyFiles {
	t.Helper()
	r := realEnergyFiles{
		wells:  teamdata.Path(t, "samples/aer-st37/WellList_2017-04_excerpt.txt"),
		ngl:    teamdata.Path(t, "samples/petrinex/NGL_AB_marketable_gas_volumes_excerpt.csv"),
		fields: teamdata.Path(t, "samples/aer-st37/FieldList.txt"),
	}
	b, err := os.ReadFile(r.wells)
	if err != nil {
		t.Fatal(err)
	}
	r.wellRows = bytes.Count(b, []byte("\n")) // one well a line, no header
	const workbook = "../../testdata/real/aer-st104a/BusinessAssociate_Codes.xlsx"
	if _, err := os.Stat(workbook); err == nil {
		r.ba, r.baName = workbook, "BusinessAssociate_Codes.xlsx"
		r.baRows = "rows:     14815 read, 33 skipped (ST104A empty rows 8, ST104A notice and contact rows after the last code 24, ST104A title rows before the header 1)"
	} else {
		t.Logf("the real ST104A workbook is not in testdata/real: the CSV sample stands in")
		r.ba, r.baName = teamdata.Path(t, "samples/aer-ba-codes/ST104A_BusinessAssociate_Codes_2017-04-07_excerpt.csv"), "ST104A_BusinessAssociate_Codes_2017-04-07.csv"
		r.baRows = "rows:     428 read, 33 skipped (ST104A empty rows 8, ST104A notice and contact rows after the last code 24, ST104A title rows before the header 1)"
	}
	return r
}

func copyAs(t *testing.T, src, dst string) {
	t.Helper()
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

func wantOutput(t *testing.T, got string, wants ...string) {
	t.Helper()
	for _, w := range wants {
		if !strings.Contains(got, w) {
			t.Errorf("output lacks %q:\n%s", w, got)
		}
	}
}

// -check lists every file: the ones read with their own rows (the wells
// of WellList.txt, not the operators derived from them), the one read by
// no report, and the one it does not know, which refuses the folder until
// -allow-unknown. The ingest itself refuses it too.
func TestCheckEnergyEveryFile(t *testing.T) {
	t.Parallel()
	r := realEnergy(t)
	in := t.TempDir()
	copyAs(t, r.wells, filepath.Join(in, "WellList.txt"))
	copyAs(t, r.ba, filepath.Join(in, r.baName))
	copyAs(t, r.ngl, filepath.Join(in, "NGL_AB_marketable_gas_volumes.csv"))
	copyAs(t, r.fields, filepath.Join(in, "FieldList.txt"))
	data := t.TempDir()
	var out, errb bytes.Buffer
	if code := run([]string{"ingest", "energy", "-check", "-data", data, in}, nil, &out, &errb); code != 1 {
		t.Fatalf("exit %d with an unknown file, want 1:\n%s%s", code, out.String(), errb.String())
	}
	got := out.String()
	wantOutput(t, got,
		"4 files: 2 read, 1 not read, 1 not recognised; nothing is published",
		"FieldList.txt\n  NOT RECOGNISED: not a file name the energy ingest knows",
		"NGL_AB_marketable_gas_volumes.csv\n  not read: recognised, read by no energy report",
		"WellList.txt\n  layout:   AER ST37 list of wells",
		"the energy ingest reads: WellList*.txt (AER ST37); BusinessAssociate_Codes.xlsx",
		"check: 1 files not recognised",
		"With -allow-unknown:\nwould publish: the energy dataset",
		r.baName+"\n  layout:   AER ST104A business associate codes",
		r.baRows,
		"a title row above the header: skipped (1 rows)",
		"the register's notice and AER's contact rows after the last code: skipped (24 rows)",
	)
	// The file's own rows: its wells, not the wells plus their operators.
	i := strings.Index(got, "WellList.txt\n")
	if want := "rows:     " + itoa(r.wellRows) + " read\n"; i < 0 || !strings.Contains(got[i:], want) || strings.Index(got[i:], want) > 600 {
		t.Errorf("WellList.txt: want %q (its own rows):\n%s", want, got)
	}

	out.Reset()
	if code := run([]string{"ingest", "energy", "-check", "-allow-unknown", "-data", data, in}, nil, &out, &errb); code != 0 {
		t.Fatalf("-allow-unknown: exit %d, want 0:\n%s", code, out.String())
	}
	wantOutput(t, out.String(), "FieldList.txt\n  NOT RECOGNISED", "would publish: the energy dataset")
	if strings.Contains(out.String(), "With -allow-unknown") {
		t.Errorf("-allow-unknown still warns of the refusal:\n%s", out.String())
	}

	// The ingest refuses the folder, reading nothing, unless told.
	out.Reset()
	errb.Reset()
	if code := run([]string{"ingest", "energy", "-tiles=false", "-data", data, in}, nil, &out, &errb); code != 1 {
		t.Fatalf("ingest with an unknown file: exit %d, want 1:\n%s%s", code, out.String(), errb.String())
	}
	wantOutput(t, errb.String(), "not recognised: FieldList.txt", "1 files in", "-allow-unknown")
	if _, err := os.Stat(filepath.Join(data, "reports")); !os.IsNotExist(err) {
		t.Errorf("a refused ingest made the report store (%v)", err)
	}
}

func itoa(n int) string {
	var b []byte
	for ; n > 0 || len(b) == 0; n /= 10 {
		b = append([]byte{byte('0' + n%10)}, b...)
	}
	return string(b)
}

// Downloads as published: ST37.zip holding WellList.txt, and the register
// in a zip inside a zip. Members are read as if they were in the folder and
// named after their archives.
func TestCheckEnergyZips(t *testing.T) {
	t.Parallel()
	r := realEnergy(t)
	in := t.TempDir()
	read := func(p string) string {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	ingesttest.WriteZip(t, filepath.Join(in, "ST37.zip"), map[string]string{"WellList.txt": read(r.wells)})
	inner := ingesttest.ZipMap(t, map[string]string{"data/codes/" + r.baName: read(r.ba)})
	ingesttest.WriteZip(t, filepath.Join(in, "aer-codes.zip"), map[string]string{"aer-codes-inner.zip": string(inner)})
	var out, errb bytes.Buffer
	if code := run([]string{"ingest", "energy", "-check", "-data", t.TempDir(), in}, nil, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s%s", code, out.String(), errb.String())
	}
	wantOutput(t, out.String(),
		"2 files: 2 read, 0 not read, 0 not recognised",
		"ST37.zip!WellList.txt\n  layout:   AER ST37 list of wells",
		"rows:     "+itoa(r.wellRows)+" read\n",
		"aer-codes.zip!aer-codes-inner.zip!"+r.baName+"\n  layout:   AER ST104A business associate codes",
		r.baRows,
		"would publish: the energy dataset",
	)
}
