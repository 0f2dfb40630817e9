package geotiff

import (
	"bytes"
	"math/rand/v2"
	"testing"
)

func TestLZWRoundTrip(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(1, 2))
	random := make([]byte, 70000)
	for i := range random {
		random[i] = byte(r.IntN(256))
	}
	runs := make([]byte, 200000)
	for i := range runs {
		runs[i] = byte(i / 1000 % 7)
	}
	few := make([]byte, 50000)
	for i := range few {
		few[i] = []byte{0, 153, 146, 133}[r.IntN(4)]
	}
	for _, tc := range []struct {
		name string
		in   []byte
	}{{"empty", nil}, {"one", []byte{7}}, {"abab", []byte("ababababababababab")}, {"random", random}, {"runs", runs}, {"few classes", few}} {
		t.Run(tc.name, func(t *testing.T) {
			enc := lzwEncode(tc.in)
			out := make([]byte, len(tc.in))
			var d lzwDecoder
			n, err := d.decode(enc, out)
			if err != nil || n != len(tc.in) || !bytes.Equal(out, tc.in) {
				t.Fatalf("decode(encode) = %d bytes, %v; want %d bytes back", n, err, len(tc.in))
			}
		})
	}
}

// TestLZWKnown decodes a stream worked out by hand from TIFF 6.0 §13: the
// bytes 7 7 7 7 are the codes Clear, 7, 258 ("7 7"), 7, EOI, 9 bits each.
func TestLZWKnown(t *testing.T) {
	t.Parallel()
	codes := []int{256, 7, 258, 7, 257}
	var bits uint64
	for _, c := range codes {
		bits = bits<<9 | uint64(c)
	}
	nb := 9 * len(codes)
	bits <<= 48 - nb
	src := []byte{byte(bits >> 40), byte(bits >> 32), byte(bits >> 24), byte(bits >> 16), byte(bits >> 8), byte(bits)}
	out := make([]byte, 4)
	var d lzwDecoder
	n, err := d.decode(src, out)
	if err != nil || n != 4 || !bytes.Equal(out, []byte{7, 7, 7, 7}) {
		t.Fatalf("decode = %v (%d bytes), %v; want 7 7 7 7", out, n, err)
	}
	if _, err := d.decode([]byte{0x80, 0x7f, 0xff}, make([]byte, 8)); err == nil {
		t.Errorf("decode of a code beyond the table: no error")
	}
}
