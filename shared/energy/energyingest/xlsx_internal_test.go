package energyingest

import (
	"strings"
	"testing"
)

func TestCellColumn(t *testing.T) {
	t.Parallel()
	for ref, want := range map[string]int{"A1": 0, "B7": 1, "Z3": 25, "AA1": 26, "XFD1048576": 16383} {
		if got, ok := cellColumn(ref); !ok || got != want || XLSXColumn(got) != strings.TrimRight(ref, "0123456789") {
			t.Errorf("cellColumn(%s) = %d, %v; want %d", ref, got, ok, want)
		}
	}
	for _, bad := range []string{"", "1", "A", "a1", "XFE1", "A1B"} {
		if _, ok := cellColumn(bad); ok {
			t.Errorf("cellColumn(%q) accepted", bad)
		}
	}
}
