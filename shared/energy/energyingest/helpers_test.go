package energyingest_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"meridian/shared/ingest"
	"meridian/shared/teamdata"
)

// Real samples in the team's shared directory (read in place, never
// copied into the repository).
const (
	st37Sample       = "samples/aer-st37/WellList_2017-04_excerpt.txt"
	baSample         = "samples/aer-ba-codes/ST104A_BusinessAssociate_Codes_2017-04-07_excerpt.csv"
	pipelineSample   = "samples/aer-pipelines/AER_pipeline_segment_61408-2.geojson"
	volumetricSample = "samples/petrinex/Vol_AB_conventional_volumetrics_excerpt.csv"
	nglSample        = "samples/petrinex/NGL_AB_marketable_gas_volumes_excerpt.csv"
	facilitySample   = "samples/petrinex/Facility_Infrastructure_AB_partial_slice.csv"
)

// openSample opens a shared sample, skipping the test when it is absent.
func openSample(t testing.TB, rel string) *os.File {
	t.Helper()
	f, err := os.Open(teamdata.Path(t, rel))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

// sampleSeed returns a shared sample's bytes, or nil when it is absent
// (fuzz seeds must not skip the target).
func sampleSeed(rel string) []byte {
	dir, err := teamdata.Dir()
	if err != nil {
		return nil
	}
	b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(rel)))
	if err != nil {
		return nil
	}
	return b
}

// firstLines returns the first n lines of b.
func firstLines(b []byte, n int) string {
	lines := strings.SplitAfter(string(b), "\n")
	return strings.Join(lines[:min(n, len(lines))], "")
}

// wantIngestError checks that err is an *ingest.Error for file at line
// whose reason contains each of parts.
func wantIngestError(t *testing.T, err error, file string, line int, parts ...string) {
	t.Helper()
	var ie *ingest.Error
	if !errors.As(err, &ie) {
		t.Fatalf("error %v (%T), want an *ingest.Error", err, err)
	}
	if ie.File != file || ie.Line != line {
		t.Errorf("error %q at %s:%d, want %s:%d", ie.Reason, ie.File, ie.Line, file, line)
	}
	for _, p := range parts {
		if !strings.Contains(ie.Reason, p) {
			t.Errorf("reason %q does not mention %q", ie.Reason, p)
		}
	}
}

// checkFuzzError fails unless err is nil or an *ingest.Error with a line
// (minLine is 0 for formats with file-level errors outside any line).
func checkFuzzError(t *testing.T, err error, minLine int) {
	t.Helper()
	if err == nil {
		return
	}
	var ie *ingest.Error
	if !errors.As(err, &ie) {
		t.Fatalf("error %v (%T) is not an *ingest.Error", err, err)
	}
	if ie.Line < minLine || ie.Reason == "" || ie.File == "" {
		t.Fatalf("error %+v: want a file, a line >= %d and a reason", ie, minLine)
	}
}
