package geojsonfc_test

import (
	"strings"
	"testing"
	"testing/iotest"

	"github.com/google/go-cmp/cmp"

	"meridian/shared/ingest/geojsonfc"
)

// TestLines numbers the features of a file whose features span many lines
// and several reads.
func TestLines(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	b.WriteString("{\"type\": \"FeatureCollection\", \"features\": [\n")
	line, want := 2, []int{}
	for i := range 500 {
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString(strings.Repeat("\n", i%3) + "\n{\"type\":\n\"Feature\", \"properties\": {\"n\":\n" + strings.Repeat(" ", i) + "1}}")
		line += i%3 + 1
		want = append(want, line)
		line += 2
	}
	b.WriteString("]}")
	rd := geojsonfc.NewReader(iotest.OneByteReader(strings.NewReader(b.String())), geojsonfc.Options{})
	var got []int
	if err := each(rd, func(f *geojsonfc.Feature) { got = append(got, f.Line) }); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("lines (-want +got):\n%s", d)
	}
}
