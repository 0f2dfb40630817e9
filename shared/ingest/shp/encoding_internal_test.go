package shp

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestResolveCodePage(t *testing.T) {
	t.Parallel()
	tests := []struct {
		cpg  string
		ldid byte
		want codePage
	}{
		{"", 0x00, codePage{enc: EncodingAuto}},
		{"", 0x57, codePage{enc: Windows1252}},
		{"", 0x03, codePage{enc: Windows1252}},
		{"", 0x01, codePage{unsupported: "language driver 0x01"}},
		{"UTF-8", 0x57, codePage{enc: UTF8}},
		{"utf8\r\n", 0, codePage{enc: UTF8}},
		{"\uFEFF65001", 0, codePage{enc: UTF8}},
		{"1252", 0, codePage{enc: Windows1252}},
		{"ISO-8859-1", 0, codePage{enc: Windows1252}},
		{"ISO 88591", 0, codePage{enc: Windows1252}},
		{"88591", 0, codePage{enc: Windows1252}},
		{"ANSI 1252", 0, codePage{enc: Windows1252}},
		{"latin1", 0, codePage{enc: Windows1252}},
		{"866", 0x57, codePage{unsupported: `.cpg "866"`}},
		{"  ", 0x57, codePage{enc: Windows1252}},
	}
	for _, tc := range tests {
		if got := resolveCodePage(tc.cpg, tc.ldid); got != tc.want {
			t.Errorf("resolveCodePage(%q, 0x%02X) = %+v, want %+v", tc.cpg, tc.ldid, got, tc.want)
		}
	}
}

func TestDecode(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		cp      codePage
		in      string
		want    string
		wantErr string
	}{
		{"auto keeps UTF-8", codePage{}, "Rivière", "Rivière", ""},
		{"auto falls back to 1252", codePage{}, "Rivi\xe8re \x80", "Rivière €", ""},
		{"1252", codePage{enc: Windows1252}, "\x8c\x9c\x80\x85\xa0\xff", "Œœ€…\u00a0ÿ", ""},
		{"1252 does not read UTF-8", codePage{enc: Windows1252}, "\xc3\xa8", "Ã¨", ""},
		{"UTF-8", codePage{enc: UTF8}, "Île", "Île", ""},
		{"invalid UTF-8", codePage{enc: UTF8}, "\xe8", "", "invalid UTF-8"},
		{"unsupported ASCII", codePage{unsupported: "language driver 0x01"}, "ABC 12", "ABC 12", ""},
		{"unsupported non-ASCII", codePage{unsupported: "language driver 0x01"}, "\x82", "", "unsupported code page of language driver 0x01"},
	}
	for _, tc := range tests {
		got, err := tc.cp.decode([]byte(tc.in))
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("%s: decode(%q) = %q, %v; want error %q", tc.name, tc.in, got, err, tc.wantErr)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("%s: decode(%q) = %q, %v; want %q", tc.name, tc.in, got, err, tc.want)
		}
	}
}

// TestWindows1252RoundTrip encodes and decodes every byte.
func TestWindows1252RoundTrip(t *testing.T) {
	t.Parallel()
	for i := range 256 {
		b := []byte{byte(i)}
		s := DecodeWindows1252(b)
		if !utf8.ValidString(s) {
			t.Fatalf("DecodeWindows1252(0x%02X) = %q, not UTF-8", i, s)
		}
		back, err := Windows1252.encode(s)
		if err != nil || len(back) != 1 || back[0] != byte(i) {
			t.Errorf("encode(decode(0x%02X) = %q) = %x, %v", i, s, back, err)
		}
	}
	if _, err := Windows1252.encode("Ω"); err == nil {
		t.Errorf("encode(Ω) succeeded, want an error")
	}
}
