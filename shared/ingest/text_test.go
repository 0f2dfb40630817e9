package ingest_test

import (
	"testing"

	"meridian/shared/ingest"
)

func TestDecodeText(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, in, want string }{
		{"ascii", "Lot 12", "Lot 12"},
		{"utf-8 kept", "Rivière", "Rivière"},
		{"windows-1252", "Rivi\xe8re", "Rivière"},
		{"windows-1252 quote", "\x93A\x94", "\u201cA\u201d"},
		{"empty", "", ""},
	}
	for _, tc := range tests {
		if got := ingest.DecodeText(tc.in); got != tc.want {
			t.Errorf("%s: DecodeText(%q) = %q, want %q", tc.name, tc.in, got, tc.want)
		}
	}
}

func TestParseUint(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want int
		ok   bool
	}{
		{"0", 0, true},
		{"007", 7, true},
		{"123456789", 123456789, true},
		{"1234567890", 0, false}, // more than 9 digits
		{"", 0, false},
		{" 6", 0, false},
		{"-1", 0, false},
		{"+1", 0, false},
		{"1.0", 0, false},
	}
	for _, tc := range tests {
		got, ok := ingest.ParseUint(tc.in)
		if got != tc.want || ok != tc.ok {
			t.Errorf("ParseUint(%q) = %d, %v, want %d, %v", tc.in, got, ok, tc.want, tc.ok)
		}
		if all := ingest.AllDigits(tc.in); tc.ok && !all {
			t.Errorf("AllDigits(%q) = false, want true", tc.in)
		}
	}
}
