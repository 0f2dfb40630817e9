package energyapi_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/google/go-cmp/cmp"

	"meridian/shared/energy/energyingest"
)

var update = flag.Bool("update", false, "rewrite testdata/*.json from the handler")

// fileDay matches a source dated by its file's modification day (the demo
// files are written when the test runs), which the goldens do not hold.
var fileDay = regexp.MustCompile(`"as_of": "\d{4}-\d{2}-\d{2}"`)

// The energy answers over the demo data, whole, against goldens in
// testdata/ (go test -run TestGolden -update rewrites them): a change to
// any field of the report or a list shows up as a diff here, as it does for
// the agriculture report.
func TestGolden(t *testing.T) {
	t.Parallel()
	h := mux(demo(t), energyingest.DemoAsOf())
	for name, target := range map[string]string{
		"report-full":           "/energy/report?legal_location=" + lsd,
		"report-wells-geometry": "/energy/report?legal_location=" + lsd + "&include=wells,geometry",
		"report-summary":        "/energy/report?legal_location=" + lsd + "&include=summary,production",
		"wells":                 "/energy/wells?legal_location=" + lsd,
		"tenure":                "/energy/tenure?legal_location=" + lsd + "&limit=2",
		"operators":             "/energy/operators?limit=3",
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, httptest.NewRequest("GET", target, nil))
			if rec.Code != 200 {
				t.Fatalf("GET %s = %d %s", target, rec.Code, rec.Body)
			}
			var pretty bytes.Buffer
			if err := json.Indent(&pretty, rec.Body.Bytes(), "", "  "); err != nil {
				t.Fatal(err)
			}
			got := fileDay.ReplaceAll(pretty.Bytes(), []byte(`"as_of": "<file day>"`))
			golden := filepath.Join("testdata", name+".json")
			if *update {
				if err := os.MkdirAll("testdata", 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(golden, got, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run with -update)", err)
			}
			if diff := cmp.Diff(string(want), string(got)); diff != "" {
				t.Errorf("GET %s (-want +got):\n%s", target, diff)
			}
		})
	}
}
