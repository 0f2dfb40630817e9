package jsonscan

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// compactAsEncoder reports whether json.Compact leaves valid b as it is.
func compactAsEncoder(b []byte) bool {
	var out bytes.Buffer
	if err := json.Compact(&out, b); err != nil {
		return false
	}
	return bytes.Equal(out.Bytes(), b)
}

func check(t *testing.T, b []byte) {
	t.Helper()
	valid, compact := Scan(b)
	if want := json.Valid(b); valid != want {
		t.Fatalf("Scan(%q): valid %v, json.Valid %v", b, valid, want)
	}
	if valid && compact != compactAsEncoder(b) {
		t.Fatalf("Scan(%q): compact %v, json.Compact leaves it as it is: %v", b, compact, !compact)
	}
}

var seeds = []string{
	``, ` `, `null`, `true`, `false`, `nul`, `nulll`, `0`, `-0`, `01`, `-`, `1.`, `1.5`, `1e5`, `1E+5`, `1e-`, `-1.5e-10`,
	`""`, `"a"`, `"\u00e9"`, `"\u00G0"`, `"\x"`, `"\/\b\f\n\r\t\"\\"`, "\"\x01\"", "\"\xff\xfe\"", `"a`, `"\`,
	`{}`, `{ }`, `{"a":1}`, `{"a" : 1}`, `{"a":1,}`, `{"a":1 ,"b":[1,2,{"c":null}]}`, `{a:1}`, `{"a"}`, `{"a":}`,
	`[]`, `[ ]`, `[1,2]`, `[1,,2]`, `[1 2]`, `[`, `]`, `[1]]`, ` [1] `, "\t{\"a\":\"b c\"}\n", `{"a":"x y"}`,
	`1 2`, `{"a":1}{}`, `"\u2028"`, `{"k":"<&>"}`, `[-]`, `[--1]`, `[+1]`, `[.5]`, `[1.e5]`, `[1e]`, `[tru]`, `[nan]`,
}

func TestScanAgreesWithEncodingJSON(t *testing.T) {
	for _, s := range seeds {
		check(t, []byte(s))
	}
	deep := func(n int) []byte { return []byte(strings.Repeat("[", n) + strings.Repeat("]", n)) }
	check(t, deep(maxDepth))
	check(t, deep(maxDepth+1))
	check(t, []byte(strings.Repeat(`{"a":`, maxDepth)+"1"+strings.Repeat("}", maxDepth)))
	check(t, []byte(strings.Repeat(`{"a":`, maxDepth+1)+"1"+strings.Repeat("}", maxDepth+1)))
}

func FuzzScan(f *testing.F) {
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) { check(t, b) })
}

func BenchmarkScan(b *testing.B) {
	doc := []byte(`{"lsrs":{"class":"3","subclass":"3M","rating":47.5,"limitations":["moisture","structure"],"source":"AAFC LSRS"},"cli":{"class":2,"subclass":"2T","pct":[60,40]}}`)
	b.Run("jsonscan", func(b *testing.B) {
		b.SetBytes(int64(len(doc)))
		for b.Loop() {
			Scan(doc)
		}
	})
	b.Run("json.Valid", func(b *testing.B) {
		b.SetBytes(int64(len(doc)))
		for b.Loop() {
			json.Valid(doc)
		}
	})
}

// TestNumber: the length of the number a slice begins with, as
// encoding/json's grammar reads it, and 0 where none begins.
func TestNumber(t *testing.T) {
	for in, want := range map[string]int{
		"0": 1, "-0": 2, "12": 2, "12,": 2, "1.25}": 4, "-3e+5 ": 5, "2E-3": 4,
		"01": 1, "1.": 0, ".5": 0, "+1": 0, "-": 0, "1e": 0, "": 0, "x": 0,
	} {
		if got := Number([]byte(in)); got != want {
			t.Errorf("Number(%q) = %d, want %d", in, got, want)
		}
	}
}
