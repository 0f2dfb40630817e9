package geotiff

// TIFF's LZW (TIFF 6.0 §13): codes of 9 to 12 bits, most significant bit
// first, 256 clears the table and 257 ends the data. Unlike GIF's LZW (and
// Go's compress/lzw), the code width grows one code early: a decoder
// widens when the next free code reaches 511, 1023 or 2047, not 512, 1024,
// 2048. Written here from the specification, to need no dependency.

const (
	lzwClear = 256
	lzwEOI   = 257
	lzwFirst = 258
	lzwMax   = 4096
)

// lzwDecoder holds the string table, reused from block to block.
type lzwDecoder struct {
	prefix [lzwMax]uint16
	suffix [lzwMax]byte
	first  [lzwMax]byte
	length [lzwMax]uint16
}

// decode decompresses src into dst and returns the number of bytes
// written; output beyond len(dst) is an error (a block decodes to its
// size), and so is a code that is not yet in the table.
func (d *lzwDecoder) decode(src, dst []byte) (int, error) {
	for i := 0; i < 256; i++ {
		d.suffix[i], d.first[i], d.length[i] = byte(i), byte(i), 1
	}
	var (
		bits  uint32
		nbits uint
		pos   int
		width uint = 9
		next       = lzwFirst
		prev       = -1
		n     int
	)
	for {
		for nbits < width {
			if pos >= len(src) {
				return n, nil // no end-of-information code: some writers omit it
			}
			bits = bits<<8 | uint32(src[pos])
			pos++
			nbits += 8
		}
		code := int(bits>>(nbits-width)) & (1<<width - 1)
		nbits -= width
		switch {
		case code == lzwClear:
			next, width, prev = lzwFirst, 9, -1
			continue
		case code == lzwEOI:
			return n, nil
		case prev < 0:
			if code > 255 {
				return n, errorf("lzw: code %d after a clear", code)
			}
			if n >= len(dst) {
				return n, errorf("lzw: more than %d bytes", len(dst))
			}
			dst[n] = byte(code)
			n++
			prev = code
			continue
		case code > next || code == next && next >= lzwMax:
			return n, errorf("lzw: code %d not in the table (next %d)", code, next)
		}
		var firstByte byte
		if code < next {
			firstByte = d.first[code]
		} else {
			firstByte = d.first[prev]
		}
		if next < lzwMax {
			d.prefix[next], d.suffix[next] = uint16(prev), firstByte
			d.first[next], d.length[next] = d.first[prev], d.length[prev]+1
			next++
			if next >= 1<<width-1 && width < 12 {
				width++
			}
		}
		l := int(d.length[code])
		if n+l > len(dst) {
			return n, errorf("lzw: more than %d bytes", len(dst))
		}
		c := code
		for i := n + l - 1; i >= n; i-- {
			dst[i] = d.suffix[c]
			c = int(d.prefix[c])
		}
		n += l
		prev = code
	}
}

// lzwEncode compresses src with TIFF's LZW.
func lzwEncode(src []byte) []byte {
	var (
		out   []byte
		bits  uint32
		nbits uint
		width uint = 9
		next       = lzwFirst
	)
	put := func(code int) {
		bits = bits<<width | uint32(code)
		nbits += width
		for nbits >= 8 {
			out = append(out, byte(bits>>(nbits-8)))
			nbits -= 8
		}
	}
	table := make(map[uint32]uint16, lzwMax)
	put(lzwClear)
	if len(src) == 0 {
		put(lzwEOI)
		if nbits > 0 {
			out = append(out, byte(bits<<(8-nbits)))
		}
		return out
	}
	w := int(src[0])
	for _, c := range src[1:] {
		k := uint32(w)<<8 | uint32(c)
		if code, ok := table[k]; ok {
			w = int(code)
			continue
		}
		put(w)
		table[k] = uint16(next)
		next++
		if next == lzwMax-2 {
			put(lzwClear)
			clear(table)
			next, width = lzwFirst, 9
		} else if next >= 1<<width && width < 12 {
			width++
		}
		w = int(c)
	}
	put(w)
	// The decoder adds a table entry on this last code too: widen as it does.
	next++
	if next >= 1<<width && width < 12 {
		width++
	}
	put(lzwEOI)
	if nbits > 0 {
		out = append(out, byte(bits<<(8-nbits)))
	}
	return out
}
