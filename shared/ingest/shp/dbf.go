package shp

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"strings"
)

// FieldType is the type letter of a dBASE field.
type FieldType byte

// Field types this package reads; others are refused.
const (
	Character FieldType = 'C' // text, left-justified
	Numeric   FieldType = 'N' // number as text, right-justified
	Float     FieldType = 'F' // number as text, right-justified (dBASE IV)
	Date      FieldType = 'D' // YYYYMMDD
	Logical   FieldType = 'L' // T, F, Y, N or ? (unknown)
	Memo      FieldType = 'M' // block number in a .dbt file, read as text
)

// Field is a dBASE field descriptor.
type Field struct {
	Name     string // at most 10 bytes
	Type     FieldType
	Length   int // width in bytes
	Decimals int // digits after the decimal point, Numeric and Float
}

// Layout of the .dbf file (dBASE III and IV): a 32-byte header, 32-byte
// field descriptors ended by 0x0D, then fixed-length records each starting
// with a deletion flag, and an optional 0x1A end-of-file mark.
const (
	dbfHeaderLen     = 32
	dbfFieldLen      = 32
	dbfFieldEnd      = 0x0D
	dbfEOF           = 0x1A
	dbfLDIDOffset    = 29
	dbfVersion       = 0x03 // dBASE III without memo
	dbfMaxNameLen    = 10
	dbfMaxFieldLen   = 254
	dbfMaxNumericLen = 20
)

// dbfReader reads .dbf records one at a time.
type dbfReader struct {
	r          *bufio.Reader
	numRecords int64
	recLen     int
	fields     []Field
	cp         codePage
	read       int64 // records read
	buf        []byte
}

func newDBFReader(r io.Reader, cpg string) (*dbfReader, error) {
	d := &dbfReader{r: bufio.NewReaderSize(r, 64<<10)}
	var h [dbfHeaderLen]byte
	if _, err := io.ReadFull(d.r, h[:]); err != nil {
		return nil, readError("dbf", 0, "the 32-byte header", err)
	}
	d.numRecords = int64(binary.LittleEndian.Uint32(h[4:8]))
	headerLen := int(binary.LittleEndian.Uint16(h[8:10]))
	d.recLen = int(binary.LittleEndian.Uint16(h[10:12]))
	d.cp = resolveCodePage(cpg, h[dbfLDIDOffset])
	if headerLen < dbfHeaderLen+1 {
		return nil, dbfError(0, "header length %d is shorter than %d", headerLen, dbfHeaderLen+1)
	}
	// Field descriptors until 0x0D, within the header length (a uint16,
	// so at most 64 KiB).
	rest := make([]byte, headerLen-dbfHeaderLen)
	if _, err := io.ReadFull(d.r, rest); err != nil {
		return nil, readError("dbf", 0, fmt.Sprintf("the %d-byte header", headerLen), err)
	}
	end := -1
	for off := 0; off < len(rest); off += dbfFieldLen {
		if rest[off] == dbfFieldEnd {
			end = off
			break
		}
		if off+dbfFieldLen > len(rest) {
			break
		}
		f, err := d.parseField(rest[off:off+dbfFieldLen], len(d.fields))
		if err != nil {
			return nil, err
		}
		d.fields = append(d.fields, f)
	}
	if end < 0 {
		return nil, dbfError(0, "no field terminator 0x0D within the %d-byte header", headerLen)
	}
	total := 1
	for _, f := range d.fields {
		total += f.Length
	}
	if total != d.recLen {
		return nil, dbfError(0, "record length %d disagrees with the fields, which take %d bytes with the deletion flag", d.recLen, total)
	}
	d.buf = make([]byte, d.recLen)
	return d, nil
}

func (d *dbfReader) parseField(b []byte, i int) (Field, error) {
	raw := b[:11]
	if k := bytes.IndexByte(raw, 0); k >= 0 {
		raw = raw[:k]
	}
	name, err := d.cp.decode(bytes.TrimSpace(raw))
	if err != nil {
		return Field{}, dbfError(0, "field %d name: %v", i, err)
	}
	f := Field{Name: name, Type: FieldType(b[11]), Length: int(b[16]), Decimals: int(b[17])}
	if f.Name == "" {
		return f, dbfError(0, "field %d has no name", i)
	}
	switch f.Type {
	case Character, Numeric, Float, Date, Logical, Memo:
	default:
		return f, dbfError(0, "field %q has type %q, not one of C, N, F, D, L, M", f.Name, byte(f.Type))
	}
	if f.Length == 0 {
		return f, dbfError(0, "field %q has length 0", f.Name)
	}
	return f, nil
}

// next reads the next record: its attributes as UTF-8 text and whether it
// is marked deleted. It returns io.EOF after the header's record count.
func (d *dbfReader) next() ([]string, bool, error) {
	if d.read >= d.numRecords {
		return nil, false, io.EOF
	}
	d.read++
	rec := int(d.read)
	if _, err := io.ReadFull(d.r, d.buf); err != nil {
		return nil, false, readError("dbf", rec, fmt.Sprintf("%d bytes (the header promises %d records)", d.recLen, d.numRecords), err)
	}
	var deleted bool
	switch d.buf[0] {
	case ' ':
	case '*':
		deleted = true
	case dbfEOF:
		return nil, false, dbfError(rec, "end-of-file mark, but the header promises %d records", d.numRecords)
	default:
		return nil, false, dbfError(rec, "deletion flag 0x%02X, want ' ' or '*'", d.buf[0])
	}
	attrs := make([]string, len(d.fields))
	off := 1
	for i, f := range d.fields {
		v, err := d.value(f, d.buf[off:off+f.Length])
		if err != nil {
			return nil, false, dbfError(rec, "field %q: %v", f.Name, err)
		}
		attrs[i] = v
		off += f.Length
	}
	return attrs, deleted, nil
}

// value decodes a field value: text with trailing blanks removed, numbers,
// dates and logicals as written without blanks, null markers as "".
func (d *dbfReader) value(f Field, b []byte) (string, error) {
	if f.Type == Character {
		b = bytes.TrimRight(b, " \x00")
	} else {
		b = bytes.Trim(b, " \x00")
	}
	if isNull(f.Type, b) {
		return "", nil
	}
	return d.cp.decode(b)
}

// isNull reports the null markers of dBASE writers: a number of '*'
// (dBASE's overflow, GDAL's null), the date 00000000 (GDAL's null) and the
// logical '?'.
func isNull(t FieldType, b []byte) bool {
	switch t {
	case Numeric, Float:
		return len(b) > 0 && len(bytes.Trim(b, "*")) == 0
	case Date:
		return string(b) == "00000000"
	case Logical:
		return string(b) == "?"
	}
	return false
}

// readError turns an I/O error into a FormatError when the file is short.
func readError(file string, rec int, what string, err error) error {
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return &FormatError{File: file, Record: rec, Msg: "truncated: file ends within " + what}
	}
	if rec == 0 {
		return fmt.Errorf("shp: read .%s header: %w", file, err)
	}
	return fmt.Errorf("shp: read .%s record %d: %w", file, rec, err)
}

// appendDBFField appends a 32-byte field descriptor.
func appendDBFField(b []byte, f Field) []byte {
	var d [dbfFieldLen]byte
	copy(d[:11], f.Name)
	d[11] = byte(f.Type)
	d[16] = byte(f.Length)
	d[17] = byte(f.Decimals)
	return append(b, d[:]...)
}

// checkField validates a field for writing.
func checkField(f Field) error {
	if f.Name == "" || len(f.Name) > dbfMaxNameLen {
		return fmt.Errorf("shp: field name %q must have 1 to %d bytes", f.Name, dbfMaxNameLen)
	}
	for _, r := range f.Name {
		if !(r == '_' || r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9') {
			return fmt.Errorf("shp: field name %q: only ASCII letters, digits and _", f.Name)
		}
	}
	maxLen := dbfMaxFieldLen
	switch f.Type {
	case Character:
	case Numeric, Float:
		maxLen = dbfMaxNumericLen
	case Date:
		if f.Length != 8 {
			return fmt.Errorf("shp: date field %q has length %d, want 8", f.Name, f.Length)
		}
	case Logical:
		if f.Length != 1 {
			return fmt.Errorf("shp: logical field %q has length %d, want 1", f.Name, f.Length)
		}
	default:
		return fmt.Errorf("shp: field %q: cannot write type %q", f.Name, byte(f.Type))
	}
	if f.Length < 1 || f.Length > maxLen {
		return fmt.Errorf("shp: field %q has length %d, want 1 to %d", f.Name, f.Length, maxLen)
	}
	if f.Decimals < 0 || f.Decimals > 0 && (f.Type != Numeric && f.Type != Float || f.Decimals >= f.Length) {
		return fmt.Errorf("shp: field %q has %d decimals", f.Name, f.Decimals)
	}
	return nil
}

// appendValue appends value v of field f, encoded and padded.
func appendValue(b []byte, f Field, v string, enc Encoding) ([]byte, error) {
	switch f.Type {
	case Character:
		s, err := enc.encode(v)
		if err != nil {
			return nil, fmt.Errorf("field %q: %w", f.Name, err)
		}
		if len(s) > f.Length {
			return nil, fmt.Errorf("field %q: %d bytes do not fit in %d", f.Name, len(s), f.Length)
		}
		b = append(b, s...)
		return append(b, bytes.Repeat([]byte{' '}, f.Length-len(s))...), nil
	case Numeric, Float:
		v = strings.TrimSpace(v)
		if !isDBFNumber(v) {
			return nil, fmt.Errorf("field %q: %q is not a number", f.Name, v)
		}
		if len(v) > f.Length {
			return nil, fmt.Errorf("field %q: %q does not fit in %d", f.Name, v, f.Length)
		}
		b = append(b, bytes.Repeat([]byte{' '}, f.Length-len(v))...)
		return append(b, v...), nil
	case Date:
		if v == "" {
			return append(b, "        "...), nil
		}
		if len(v) != 8 || strings.Trim(v, "0123456789") != "" {
			return nil, fmt.Errorf("field %q: date %q is not YYYYMMDD", f.Name, v)
		}
		return append(b, v...), nil
	case Logical:
		switch v {
		case "":
			return append(b, '?'), nil
		case "T", "F", "Y", "N", "t", "f", "y", "n", "?":
			return append(b, v...), nil
		}
		return nil, fmt.Errorf("field %q: logical %q is not one of T, F, Y, N, ?", f.Name, v)
	}
	return nil, fmt.Errorf("field %q: cannot write type %q", f.Name, byte(f.Type))
}

// isDBFNumber reports whether s is empty or a plain decimal number: an
// optional minus sign, digits with at most one point, an optional
// exponent.
func isDBFNumber(s string) bool {
	if s == "" {
		return true
	}
	i := 0
	if s[i] == '-' || s[i] == '+' {
		i++
	}
	digits, point := 0, false
	for ; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= '0' && c <= '9':
			digits++
		case c == '.' && !point:
			point = true
		case (c == 'e' || c == 'E') && digits > 0:
			rest := s[i+1:]
			if rest != "" && (rest[0] == '-' || rest[0] == '+') {
				rest = rest[1:]
			}
			return rest != "" && strings.Trim(rest, "0123456789") == ""
		default:
			return false
		}
	}
	return digits > 0
}
