package geojsonfc

import (
	"bytes"
	"io"
)

// lineCounter passes reads through to the decoder and notes where the
// newlines are, so that a byte offset can be turned into a line number.
// Offsets are asked for in increasing order and newlines before the last
// one asked for are forgotten, so memory is bounded by the decoder's
// read-ahead.
type lineCounter struct {
	r    io.Reader
	off  int64   // bytes read
	nl   []int64 // offsets of the newlines not yet counted
	line int     // line of the last offset asked for
}

func (c *lineCounter) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	b := p[:n]
	for i := 0; ; {
		j := bytes.IndexByte(b[i:], '\n')
		if j < 0 {
			break
		}
		c.nl = append(c.nl, c.off+int64(i+j))
		i += j + 1
	}
	c.off += int64(n)
	return n, err
}

// lineAt returns the 1-based line of the byte at off.
func (c *lineCounter) lineAt(off int64) int {
	k := 0
	for k < len(c.nl) && c.nl[k] < off {
		k++
	}
	if k > 0 {
		c.line += k
		c.nl = c.nl[:copy(c.nl, c.nl[k:])]
	}
	return c.line
}
