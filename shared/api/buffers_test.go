package api

import "testing"

// A buffer put back comes back empty with its capacity (when the pool
// keeps it); one grown past Max is not kept.
func TestBuffersBound(t *testing.T) {
	p := Buffers{Max: 1024}
	b := p.Get()
	if len(*b) != 0 {
		t.Fatalf("a new buffer holds %d bytes", len(*b))
	}
	*b = append(*b, make([]byte, 600)...)
	p.Put(b)
	if len(*b) != 0 {
		t.Errorf("a buffer put back holds %d bytes, want 0", len(*b))
	}
	big := new([]byte)
	*big = make([]byte, 2000)
	p.Put(big)
	if len(*big) != 2000 {
		t.Errorf("a buffer past Max was emptied for the pool: len %d", len(*big))
	}
	for range 100 { // the pool may drop what it holds; it never hands out the big one
		if g := p.Get(); cap(*g) > p.Max {
			t.Fatalf("Get gave a buffer of capacity %d, past Max %d", cap(*g), p.Max)
		}
	}
}
