package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func TestRunCommands(t *testing.T) {
	t.Parallel()
	var out, errb bytes.Buffer
	if code := run([]string{"nope"}, nil, &out, &errb); code != 2 || !strings.Contains(errb.String(), "unknown command") {
		t.Errorf("unknown command: exit %d, stderr %q", code, errb.String())
	}
	out.Reset()
	if code := run([]string{"help"}, nil, &out, &errb); code != 0 || !strings.Contains(out.String(), "convert") {
		t.Errorf("help: exit %d, %q", code, out.String())
	}
	// publish left this binary for meridian-publish: the old command
	// says where it went, and does nothing.
	errb.Reset()
	if code := run([]string{"publish", "-bucket", "b", "-table", "t"}, nil, &out, &errb); code != 2 || !strings.Contains(errb.String(), "meridian-publish") {
		t.Errorf("publish: exit %d, stderr %q; want 2 and the name of meridian-publish", code, errb.String())
	}
	// So did the measurement harness, for meridian-bench.
	for _, cmd := range []string{"scale-test", "loadtest"} {
		errb.Reset()
		if code := run([]string{cmd, "-duration", "1s"}, nil, &out, &errb); code != 2 || !strings.Contains(errb.String(), "functions/bench") {
			t.Errorf("%s: exit %d, stderr %q; want 2 and where the harness went", cmd, code, errb.String())
		}
	}
	if strings.Contains(out.String(), "scale-test  ") || strings.Contains(out.String(), "loadtest  ") {
		t.Errorf("help still lists the harness:\n%s", out.String())
	}
}

// The local server links no AWS SDK: publishing is meridian-publish's.
// (A first make run compiles what this binary imports.)
func TestNoAWSSDK(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil || !strings.Contains(string(out), "meridian/shared/kv\n") {
		t.Fatalf("go list -deps: %v\n%s", err, out)
	}
	for _, p := range strings.Fields(string(out)) {
		if strings.HasPrefix(p, "github.com/aws/") {
			t.Errorf("meridian imports %s", p)
		}
	}
}

func TestKeysCommand(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	var out, errb bytes.Buffer
	if code := run([]string{"keys", "-data", dir, "add", "-name", "ci", "-products", "search,batch"}, nil, &out, &errb); code != 0 {
		t.Fatalf("keys add: exit %d: %s", code, errb.String())
	}
	if !strings.Contains(out.String(), "mk_") {
		t.Errorf("keys add did not print the key: %q", out.String())
	}
	out.Reset()
	if code := run([]string{"keys", "-data", dir, "list"}, nil, &out, &errb); code != 0 || !strings.Contains(out.String(), "ci") {
		t.Errorf("keys list: exit %d: %q %s", code, out.String(), errb.String())
	}
	if code := run([]string{"keys", "-data", dir, "revoke", "ci"}, nil, &out, &errb); code != 0 {
		t.Errorf("keys revoke: exit %d: %s", code, errb.String())
	}
}

func TestConvertCommand(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	in := filepath.Join(dir, "in.csv")
	os.WriteFile(in, []byte("uwi\n100/06-32-048-07W5/00\nnonsense\nNW-25-24-1-W5\n"), 0o644)
	out := filepath.Join(dir, "out.geojson")
	var stdout, stderr bytes.Buffer
	code := run([]string{"convert", "-in", in, "-out", out, "-format", "geojson"}, nil, &stdout, &stderr)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	if !strings.Contains(stderr.String(), `line 3: "nonsense"`) || !strings.Contains(stderr.String(), "converted 2 of 3 rows (1 failed)") {
		t.Errorf("stderr = %q", stderr.String())
	}
	b, _ := os.ReadFile(out)
	if !bytes.Contains(b, []byte(`"legal_location":"6-32-48-7-W5"`)) || !bytes.Contains(b, []byte(`"legal_location":"NW-25-24-1-W5"`)) {
		t.Errorf("output lacks the converted rows: %s", b)
	}
	// stdin to stdout, CSV, coordinates.
	stdout.Reset()
	stderr.Reset()
	code = run([]string{"convert", "-unit", "Section"}, strings.NewReader("lat,lng\n51.077932,-114.01924\n"), &stdout, &stderr)
	if code != 0 || !strings.Contains(stdout.String(), ",25-24-1-W5,Section,DLS,AB,") {
		t.Errorf("exit %d, stdout %q, stderr %q", code, stdout.String(), stderr.String())
	}
	if code := run([]string{"convert", "-format", "kml"}, nil, &stdout, &stderr); code != 2 {
		t.Errorf("bad format: exit %d", code)
	}
	// FPS: -unit Section is read with -survey-system FPS (DLS also has a
	// Section). The NAD27 centre of section 48 of 60-20 N 100-30 W
	// (fps-grid.md §5) moved ~100 m by NAD83 stays inside it.
	stdout.Reset()
	stderr.Reset()
	code = run([]string{"convert", "-survey-system", "fps", "-unit", "section", "-datum", "NAD27"}, strings.NewReader("lat,lng\n60.2875,-100.6536\n"), &stdout, &stderr)
	if code != 0 || !strings.Contains(stdout.String(), ",48 60-20 N 100-30 W,Section,FPS,") {
		t.Errorf("FPS section: exit %d, stdout %q, stderr %q", code, stdout.String(), stderr.String())
	}
	stderr.Reset()
	if code := run([]string{"convert", "-survey-system", "DLS", "-unit", "Grid"}, strings.NewReader("lat,lng\n60.2875,-100.6536\n"), &stdout, &stderr); code != 2 || !strings.Contains(stderr.String(), "does not belong") {
		t.Errorf("DLS with an FPS unit: exit %d, stderr %q", code, stderr.String())
	}
	// -datum NAD27: the NAD27 centre of A-2-F/93-P-8 (survey-geometry.md
	// §4) in, the same quarter unit and centre out, in NAD27; read as NAD83
	// the point is 90 m east in NAD27 terms, still inside.
	stdout.Reset()
	stderr.Reset()
	code = run([]string{"convert", "-datum", "nad27"}, strings.NewReader("lng,lat\n-120.265625,55.335417\n"), &stdout, &stderr)
	if code != 0 || !strings.Contains(stdout.String(), ",A-2-F/93-P-8,Quarter Unit,NTS,BC,55.335417,-120.265625,NAD27,0,model,") {
		t.Errorf("-datum nad27: exit %d, stdout %q, stderr %q", code, stdout.String(), stderr.String())
	}
	stderr.Reset()
	if code := run([]string{"convert", "-datum", "WGS84"}, strings.NewReader("lng,lat\n-120,55\n"), &stdout, &stderr); code != 2 || !strings.Contains(stderr.String(), "NAD27") {
		t.Errorf("-datum WGS84: exit %d, stderr %q", code, stderr.String())
	}
}
