package datum

import (
	"bytes"
	"compress/flate"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
)

// The compact form is how the package embeds NRCan's grid (canada.go):
// the same nodes as the NTv1 file, each shift rounded to compactUnit
// arc-seconds and stored as the difference from the node east of it (the
// first node of a row: from the first node of the row south of it), as
// zig-zag varints, the whole DEFLATE-compressed. Shifts vary smoothly, so
// the 1.1 MB file becomes a few hundred kilobytes.
//
// Layout before compression: the magic "NTV1C\x00\x01\x00", six float64
// (little-endian) south, north, east, west (degrees, longitude positive
// west), dLat, dLon, two uint32 rows and cols, then rows × cols × 2 varints
// in the NTv1 order (rows south to north, each east to west; latitude
// shift, then longitude shift positive west).
const (
	compactMagic = "NTV1C\x00\x01\x00"
	// compactUnit is the rounding of every shift: 1e-5″ is 0.3 mm, far
	// below the grid's own error (the NTv1 grid reproduces NAD83 to about
	// a metre), and below the 1e-6″ float32 storage of a Grid only by one
	// decimal.
	compactUnit = 1e-5
)

// WriteCompact writes g in the compact form.
func (g *Grid) WriteCompact(w io.Writer) error {
	zw, err := flate.NewWriter(w, flate.BestCompression)
	if err != nil {
		return err
	}
	var head bytes.Buffer
	head.WriteString(compactMagic)
	for _, v := range []float64{g.south, g.north, g.east, g.west, g.dLat, g.dLon} {
		_ = binary.Write(&head, binary.LittleEndian, v)
	}
	_ = binary.Write(&head, binary.LittleEndian, [2]uint32{uint32(g.rows), uint32(g.cols)})
	if _, err := zw.Write(head.Bytes()); err != nil {
		return err
	}
	buf := make([]byte, 0, 2*binary.MaxVarintLen64*g.cols)
	q := func(i int) int64 { return int64(math.Round(float64(g.shifts[i]) / compactUnit)) }
	for r := 0; r < g.rows; r++ {
		buf = buf[:0]
		for c := 0; c < g.cols; c++ {
			i := 2 * (r*g.cols + c)
			prev := i - 2 // the node east of it
			if c == 0 {
				prev = i - 2*g.cols // the row south of it
			}
			for k := range 2 {
				var d int64 = q(i + k)
				if prev >= 0 {
					d -= q(prev + k)
				}
				buf = binary.AppendVarint(buf, d)
			}
		}
		if _, err := zw.Write(buf); err != nil {
			return err
		}
	}
	return zw.Close()
}

// ReadCompact reads a grid in the compact form.
func ReadCompact(r io.Reader) (*Grid, error) {
	zr := flate.NewReader(r)
	defer zr.Close()
	head := make([]byte, len(compactMagic)+6*8+2*4)
	if _, err := io.ReadFull(zr, head); err != nil {
		return nil, fmt.Errorf("datum: compact grid header: %w", err)
	}
	if string(head[:len(compactMagic)]) != compactMagic {
		return nil, errors.New("datum: not a compact NTv1 grid")
	}
	g := &Grid{}
	p := head[len(compactMagic):]
	for _, v := range []*float64{&g.south, &g.north, &g.east, &g.west, &g.dLat, &g.dLon} {
		*v = math.Float64frombits(binary.LittleEndian.Uint64(p))
		p = p[8:]
	}
	g.rows, g.cols = int(binary.LittleEndian.Uint32(p)), int(binary.LittleEndian.Uint32(p[4:]))
	if g.rows < 2 || g.cols < 2 || g.rows*g.cols > maxNodes || !(g.dLat > 0 && g.dLon > 0) {
		return nil, fmt.Errorf("datum: compact grid of %d × %d nodes by %v, %v is not a grid", g.rows, g.cols, g.dLat, g.dLon)
	}
	br := byteReader{r: zr}
	g.shifts = make([]float32, 2*g.rows*g.cols)
	q := make([]int64, len(g.shifts))
	for i := range q {
		d, err := binary.ReadVarint(&br)
		if err != nil {
			return nil, fmt.Errorf("datum: compact grid node %d of %d: %w", i/2+1, g.rows*g.cols, err)
		}
		n := i / 2
		prev := i - 2
		if n%g.cols == 0 {
			prev = i - 2*g.cols
		}
		if prev >= 0 {
			d += q[prev]
		}
		q[i] = d
		g.shifts[i] = float32(float64(d) * compactUnit)
	}
	return g, nil
}

// byteReader reads one byte at a time through a small buffer.
type byteReader struct {
	r    io.Reader
	buf  [4096]byte
	i, n int
}

func (b *byteReader) ReadByte() (byte, error) {
	if b.i == b.n {
		n, err := io.ReadAtLeast(b.r, b.buf[:], 1)
		if n == 0 {
			if err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return 0, err
		}
		b.i, b.n = 0, n
	}
	c := b.buf[b.i]
	b.i++
	return c, nil
}
