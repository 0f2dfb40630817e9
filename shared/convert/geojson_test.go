package convert

import (
	"encoding/json"
	"math"
	"strconv"
	"testing"
	"unicode/utf8"

	"meridian/shared/lld"
)

func TestAppendString(t *testing.T) {
	t.Parallel()
	for _, s := range []string{
		"", "NW-25-24-1-W5", `quote " and \ backslash`, "tab\tnew\nline\r", "\x00\x1f", "Lot 5, Con 3, Admaston",
		"smart ‘quotes’ — dash", "\u2028\u2029", "bad \xff utf8", "RL-22-St. Norbert",
	} {
		b := appendString(nil, s)
		var got string
		if err := json.Unmarshal(b, &got); err != nil {
			t.Fatalf("appendString(%q) = %s: not JSON: %v", s, b, err)
		}
		want := s
		if !utf8.ValidString(s) {
			want = string([]rune(s)) // invalid bytes become U+FFFD, as encoding/json does
		}
		if got != want {
			t.Errorf("appendString(%q) decodes to %q, want %q", s, got, want)
		}
	}
}

func FuzzAppendString(f *testing.F) {
	f.Add("NW-25-24-1-W5")
	f.Add("\"\\\x00\xff\u2028")
	f.Fuzz(func(t *testing.T, s string) {
		b := appendString(nil, s)
		var got string
		if err := json.Unmarshal(b, &got); err != nil {
			t.Fatalf("appendString(%q) = %s: not JSON: %v", s, b, err)
		}
		if utf8.ValidString(s) && got != s {
			t.Fatalf("appendString(%q) decodes to %q", s, got)
		}
	})
}

func TestAppendCoord(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   float64
		want string
	}{
		{-114.01924, "-114.01924"},
		{51.0779321234, "51.077932"},
		{-0.0000001, "0"},
		{55.3375, "55.3375"},
		{-120.26875, "-120.26875"},
	}
	for _, tc := range tests {
		if got := string(appendCoord(nil, tc.in)); got != tc.want {
			t.Errorf("appendCoord(%v) = %s, want %s", tc.in, got, tc.want)
		}
	}
}

// appendCoord agrees with strconv's shortest formatting of the rounded
// value for any coordinate.
func FuzzAppendCoord(f *testing.F) {
	for _, v := range []float64{0, -0.0000004, 0.0000005, -114.01924, 51.077932, 180, -180, 1e-7, 123456.789} {
		f.Add(v)
	}
	f.Fuzz(func(t *testing.T, v float64) {
		if math.IsNaN(v) || math.IsInf(v, 0) || math.Abs(v) > 1e9 {
			return
		}
		r := math.Round(v*1e6) / 1e6
		if r == 0 {
			r = 0
		}
		want := strconv.FormatFloat(r, 'f', -1, 64)
		if got := string(appendCoord(nil, v)); got != want {
			t.Fatalf("appendCoord(%v) = %s, want %s", v, got, want)
		}
	})
}

func BenchmarkAppendCoord(b *testing.B) {
	buf := make([]byte, 0, 64)
	for b.Loop() {
		buf = appendCoord(buf[:0], -114.017374)
	}
}

// appendLocation writes what appendString writes of the location's name,
// in place for the names that need no escaping and escaped for place
// names that do.
func TestAppendLocation(t *testing.T) {
	t.Parallel()
	for _, s := range []string{
		"NW-25-24-1-W5", "6-32-48-7-W5", "24-1-W5", "A-2-F/93-P-8", "Lot 10 Con 1 Adjala", "RL-22-St. Norbert",
	} {
		l, err := lld.Parse(s)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := string(appendLocation([]byte("x"), l)), string(appendString([]byte("x"), l.String())); got != want {
			t.Errorf("appendLocation(%s) = %s, want %s", s, got, want)
		}
	}
	// Place names with characters to escape, and beyond ASCII.
	for _, place := range []string{`O"Brien`, `back\slash`, "Saint-Adolphe ‘é’"} {
		l := lld.Location{System: lld.RiverLot, Unit: lld.Lot, Place: place, Lot: "7"}
		if got, want := string(appendLocation(nil, l)), string(appendString(nil, l.String())); got != want {
			t.Errorf("appendLocation(lot in %q) = %s, want %s", place, got, want)
		}
	}
}

// appendRounded writes what strconv.AppendFloat writes of the rounded
// value, on whole numbers, fractions, negative zero and the edges.
func TestAppendRounded(t *testing.T) {
	t.Parallel()
	for _, v := range []float64{0, 0.4, 0.5, 1, 2.5, 20, 1234.49, math.Copysign(0, -1), -0.3, -7, 1 << 53, 1<<53 - 1, 1e21, math.Inf(1), math.NaN()} {
		if got, want := string(appendRounded(nil, v)), strconv.FormatFloat(math.Round(v), 'f', -1, 64); got != want {
			t.Errorf("appendRounded(%v) = %s, want %s", v, got, want)
		}
	}
}
