// Package golden holds what the API answers over the demo data, as files
// under the repository's top-level testdata/golden, and compares answers
// with them. Each file is checked by every package that gives its answer:
// the report handlers (energyapi, agapi) and the Lambdas that serve them
// through API Gateway (functions/energy, functions/ag), so an edge cannot
// drift from its handler unnoticed. Run the handler's tests with -update
// to rewrite the files after a change that is meant.
package golden

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite the golden answers under testdata/golden")

// fileDay matches a source dated by its file's modification day (the demo
// files are written when the test runs), which the files do not hold.
var fileDay = regexp.MustCompile(`"as_of": "\d{4}-\d{2}-\d{2}"`)

// Dir is the repository's testdata/golden: found from the working
// directory (a test's package directory) up to go.mod.
func Dir() (string, error) {
	wd, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for d := wd; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return filepath.Join(d, "testdata", "golden"), nil
		}
		if filepath.Dir(d) == d {
			return "", errors.New("golden: no go.mod above " + wd)
		}
	}
}

// Normalize indents a JSON answer and replaces file-day dates, as the
// files hold them.
func Normalize(body []byte) ([]byte, error) {
	var pretty bytes.Buffer
	if err := json.Indent(&pretty, body, "", "  "); err != nil {
		return nil, fmt.Errorf("golden: the answer is not JSON: %w", err)
	}
	return fileDay.ReplaceAll(pretty.Bytes(), []byte(`"as_of": "<file day>"`)), nil
}

// Compare checks body, a JSON answer, against the file name
// ("energy/report-full" is testdata/golden/energy/report-full.json), or
// with -update writes it there. The error holds the difference.
func Compare(name string, body []byte) error {
	got, err := Normalize(body)
	if err != nil {
		return err
	}
	dir, err := Dir()
	if err != nil {
		return err
	}
	path := filepath.Join(dir, filepath.FromSlash(name)+".json")
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return err
		}
		return os.WriteFile(path, got, 0o644)
	}
	want, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("%w (run the handler's tests with -update)", err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		return fmt.Errorf("%s (-want +got):\n%s", name, diff)
	}
	return nil
}
