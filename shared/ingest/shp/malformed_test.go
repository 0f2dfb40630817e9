package shp_test

import (
	"encoding/binary"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/paulmach/orb"
	"meridian/shared/ingest/shp"
)

// Byte helpers for damaging files.
func put32BE(b []byte, off int, v int32) { binary.BigEndian.PutUint32(b[off:], uint32(v)) }
func put32LE(b []byte, off int, v int32) { binary.LittleEndian.PutUint32(b[off:], uint32(v)) }
func put16LE(b []byte, off int, v uint16) {
	binary.LittleEndian.PutUint16(b[off:], v)
}
func putF64(b []byte, off int, v float64) {
	binary.LittleEndian.PutUint64(b[off:], math.Float64bits(v))
}

// Base files for TestMalformed.
//
// polygonFile, record 1 (content at byte 108, 212 bytes): type 108,
// box 112, NumParts 144 (2), NumPoints 148 (10), Parts 152 and 156
// (0, 5), points from 160 (16 bytes each: outer ring 0-4, hole 5-9).
// Record 2 is a square at byte 320; the file has 456 bytes.
func polygonFile(t testing.TB) files {
	return build(t, shp.Polygon, oneField, shp.WriterOptions{}, []record{
		{orb.Polygon{sq(0, 0, 10), cw(sq(2, 2, 3))}, []string{"with hole"}},
		{orb.Polygon{sq(20, 0, 10)}, []string{"square"}},
	})
}

// pointFile: records of 20 bytes content at 108 and 136.
func pointFile(t testing.TB) files {
	return build(t, shp.Point, oneField, shp.WriterOptions{Encoding: shp.Windows1252}, []record{
		{orb.Point{1, 2}, []string{"Léon"}},
		{orb.Point{3, 4}, []string{"two"}},
	})
}

// lineFile: one PolyLine of parts (0, 2) and 3 points; Parts at 152, 156.
func lineFile(t testing.TB) files {
	return build(t, shp.PolyLine, oneField, shp.WriterOptions{}, []record{
		{orb.MultiLineString{{{0, 0}, {1, 1}}, {{2, 2}, {3, 3}, {4, 4}}}, []string{"a"}},
	})
}

// multiPointFile: NumPoints at 144.
func multiPointFile(t testing.TB) files {
	return build(t, shp.MultiPoint, oneField, shp.WriterOptions{}, []record{
		{orb.MultiPoint{{0, 0}, {1, 1}}, []string{"a"}},
	})
}

// polygonZFile: one square: 44 + 4 + 80 = 128 bytes of X, Y, then Z range
// and values (56), then M range and values (56): content length 240.
func polygonZFile(t testing.TB) files {
	return build(t, shp.PolygonZ, oneField, shp.WriterOptions{}, []record{
		{orb.Polygon{sq(0, 0, 1)}, []string{"a"}},
	})
}

// dbf offsets of oneField: header 0-31 (count at 4, header length at 8,
// record length at 10, language driver at 29), field descriptor 32-63
// (type at 43, length at 48), terminator at 64, records of 17 bytes from
// 65.
const dbfFirstRecord = 65

// malformedTests damage valid files; each must fail with a FormatError
// naming the file, the record and what is wrong.
var malformedTests = []struct {
	name     string
	base     func(testing.TB) files
	damage   func(f *files)
	cpg      string
	wantFile string
	wantRec  int
	wantMsg  string
}{
	// .shp header.
	{"empty .shp", polygonFile, func(f *files) { f.shp = nil }, "", "shp", 0, "truncated: file ends within the 100-byte header"},
	{"short header", polygonFile, func(f *files) { f.shp = f.shp[:50] }, "", "shp", 0, "truncated"},
	{"file code", polygonFile, func(f *files) { put32BE(f.shp, 0, 9995) }, "", "shp", 0, "file code 9995, want 9994"},
	{"version", polygonFile, func(f *files) { put32LE(f.shp, 28, 1001) }, "", "shp", 0, "version 1001, want 1000"},
	{"MultiPatch", polygonFile, func(f *files) { put32LE(f.shp, 32, 31) }, "", "shp", 0, "shape type MultiPatch is not supported"},
	{"unknown shape type", polygonFile, func(f *files) { put32LE(f.shp, 32, 7) }, "", "shp", 0, "shape type ShapeType(7) is not supported"},
	{"file length under 100", polygonFile, func(f *files) { put32BE(f.shp, 24, 10) }, "", "shp", 0, "file length 10 words is shorter than the 100-byte header"},
	{"negative file length", polygonFile, func(f *files) { put32BE(f.shp, 24, -1) }, "", "shp", 0, "file length -1 words"},

	// Record framing.
	{"record number", polygonFile, func(f *files) { put32BE(f.shp, 100, 5) }, "", "shp", 1, "record number 5, want 1"},
	{"content length past the end", polygonFile, func(f *files) { put32BE(f.shp, 104, 100000) }, "", "shp", 1, "content length 100000 words runs past the file length of 456 bytes"},
	{"huge content length", polygonFile, func(f *files) { put32BE(f.shp, 104, math.MaxInt32-60); put32BE(f.shp, 24, math.MaxInt32) }, "", "shp", 1, "truncated: file ends within the 4294967174-byte content"},
	{"negative content length", polygonFile, func(f *files) { put32BE(f.shp, 104, -4) }, "", "shp", 1, "content length -4 words"},
	{"truncated content", polygonFile, func(f *files) { f.shp = f.shp[:200] }, "", "shp", 1, "truncated: file ends within the 212-byte content, before the 456 bytes its header gives"},
	{"missing record", polygonFile, func(f *files) { f.shp = f.shp[:320] }, "", "shp", 2, "truncated: file ends within the record header"},
	{"no room for a record header", polygonFile, func(f *files) { put32BE(f.shp, 24, 162); f.shp = f.shp[:324] }, "", "shp", 2, "4 bytes left by the file length in the header"},
	{"data after the file length", polygonFile, func(f *files) { f.shp = append(f.shp, 0, 0, 0, 0) }, "", "shp", 0, "data after the file length of 456 bytes"},

	// Record content.
	{"content too short", polygonFile, func(f *files) { put32BE(f.shp, 104, 1) }, "", "shp", 1, "content length 2 bytes is too short for a shape type"},
	{"shape type mismatch", polygonFile, func(f *files) { put32LE(f.shp, 108, 3) }, "", "shp", 1, "shape type PolyLine does not match the file's Polygon"},
	{"Null with content", polygonFile, func(f *files) { put32LE(f.shp, 108, 0) }, "", "shp", 1, "content length 212 bytes for a Null shape, want 4"},
	{"too many parts", polygonFile, func(f *files) { put32LE(f.shp, 144, 1000) }, "", "shp", 1, "1000 parts and 10 points need 4204 bytes, content length is 212"},
	{"too many points", polygonFile, func(f *files) { put32LE(f.shp, 148, math.MaxInt32) }, "", "shp", 1, "2 parts and 2147483647 points need"},
	{"negative points", polygonFile, func(f *files) { put32LE(f.shp, 148, -1) }, "", "shp", 1, "negative count: 2 parts, -1 points"},
	{"fewer points than the content", polygonFile, func(f *files) { put32LE(f.shp, 148, 9) }, "", "shp", 1, "content length 212 bytes disagrees with 2 parts and 9 points (want 196)"},
	{"points without parts", polygonFile, func(f *files) { put32LE(f.shp, 144, 0); put32BE(f.shp, 104, 102) }, "", "shp", 1, "0 parts with 10 points"},
	{"part index out of range", polygonFile, func(f *files) { put32LE(f.shp, 156, 10) }, "", "shp", 1, "part 1 starts at point 10, out of range for 10 points"},
	{"negative part index", polygonFile, func(f *files) { put32LE(f.shp, 156, -3) }, "", "shp", 1, "part 1 starts at point -3, out of range"},
	{"first part not at 0", polygonFile, func(f *files) { put32LE(f.shp, 152, 1) }, "", "shp", 1, "part 0 starts at point 1, want 0"},
	{"parts out of order", polygonFile, func(f *files) { put32LE(f.shp, 156, 0) }, "", "shp", 1, "part 1 starts at point 0, not after part 0 at point 0"},
	{"ring not closed", polygonFile, func(f *files) { putF64(f.shp, 160+4*16, 0.5) }, "", "shp", 1, "ring 0 is not closed"},
	{"ring too short", polygonFile, func(f *files) { put32LE(f.shp, 156, 2) }, "", "shp", 1, "ring 0 has 2 points, a ring needs 4"},
	{"NaN", polygonFile, func(f *files) { putF64(f.shp, 160, math.NaN()) }, "", "shp", 1, "point 0 [NaN 0] is not finite"},
	{"infinite", polygonFile, func(f *files) { putF64(f.shp, 160+8, math.Inf(1)) }, "", "shp", 1, "is not finite"},
	{"flat ring", polygonFile, func(f *files) {
		for i := 5; i < 10; i++ {
			putF64(f.shp, 160+16*i, 2)
			putF64(f.shp, 160+16*i+8, 2)
		}
	}, "", "shp", 1, "ring 1 has no area"},
	{"Point content length", pointFile, func(f *files) { put32BE(f.shp, 104, 14) }, "", "shp", 1, "content length 28 bytes disagrees with a Point (want 20)"},
	{"Point record number", pointFile, func(f *files) { put32BE(f.shp, 128, 1) }, "", "shp", 2, "record number 1, want 2"},
	{"line part of one point", lineFile, func(f *files) { put32LE(f.shp, 156, 1) }, "", "shp", 1, "part 0 has 1 point, a line needs 2"},
	{"MultiPoint count", multiPointFile, func(f *files) { put32LE(f.shp, 144, 1000) }, "", "shp", 1, "1000 points need 16040 bytes, content length is 72"},
	{"MultiPoint negative count", multiPointFile, func(f *files) { put32LE(f.shp, 144, -2) }, "", "shp", 1, "negative number of points -2"},
	{"PolygonZ without Z", polygonZFile, func(f *files) { put32BE(f.shp, 104, 64); put32BE(f.shp, 24, 50+4+64) }, "", "shp", 1, "content length 128 bytes disagrees with 1 parts and 5 points (want 184 or 240)"},

	// .dbf.
	{"empty .dbf", polygonFile, func(f *files) { f.dbf = []byte{} }, "", "dbf", 0, "truncated: file ends within the 32-byte header"},
	{"short .dbf header", polygonFile, func(f *files) { f.dbf = f.dbf[:40] }, "", "dbf", 0, "truncated: file ends within the 65-byte header"},
	{"header length", polygonFile, func(f *files) { put16LE(f.dbf, 8, 20) }, "", "dbf", 0, "header length 20 is shorter than 33"},
	{"no terminator", polygonFile, func(f *files) { f.dbf[64] = ' ' }, "", "dbf", 0, "no field terminator 0x0D within the 65-byte header"},
	{"record length", polygonFile, func(f *files) { put16LE(f.dbf, 10, 99) }, "", "dbf", 0, "record length 99 disagrees with the fields, which take 17 bytes"},
	{"field type", polygonFile, func(f *files) { f.dbf[43] = 'I' }, "", "dbf", 0, `field "NAME" has type 'I'`},
	{"field length 0", polygonFile, func(f *files) { f.dbf[48] = 0 }, "", "dbf", 0, `field "NAME" has length 0`},
	{"field without name", polygonFile, func(f *files) { copy(f.dbf[32:43], make([]byte, 11)) }, "", "dbf", 0, "field 0 has no name"},
	{"fewer .dbf records", polygonFile, func(f *files) { put32LE(f.dbf, 4, 1) }, "", "dbf", 0, "1 records, but the .shp has more"},
	{"more .dbf records", polygonFile, func(f *files) { put32LE(f.dbf, 4, 3) }, "", "dbf", 0, "3 records, but the .shp has 2"},
	{"huge .dbf record count", polygonFile, func(f *files) { put32LE(f.dbf, 4, -1) }, "", "dbf", 0, "4294967295 records, but the .shp has 2"},
	{"truncated .dbf", polygonFile, func(f *files) { f.dbf = f.dbf[:dbfFirstRecord+17+5] }, "", "dbf", 2, "truncated: file ends within 17 bytes (the header promises 2 records)"},
	{"end mark too early", polygonFile, func(f *files) { f.dbf[dbfFirstRecord+17] = 0x1A }, "", "dbf", 2, "end-of-file mark, but the header promises 2 records"},
	{"deletion flag", polygonFile, func(f *files) { f.dbf[dbfFirstRecord] = 'X' }, "", "dbf", 1, "deletion flag 0x58, want ' ' or '*'"},
	{"invalid UTF-8", pointFile, func(*files) {}, "UTF-8", "dbf", 1, `field "NAME": invalid UTF-8`},
	{"unsupported code page", pointFile, func(f *files) { f.dbf[29] = 0x01 }, "", "dbf", 1, `field "NAME": non-ASCII text in the unsupported code page of language driver 0x01`},
	{"unsupported .cpg", pointFile, func(*files) {}, "KOI8-R", "dbf", 1, `unsupported code page of .cpg "KOI8-R"`},
}

func TestMalformed(t *testing.T) {
	t.Parallel()
	for _, tc := range malformedTests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := tc.base(t)
			tc.damage(&f)
			_, _, err := readAll(f.shp, f.dbf, shp.ReaderOptions{CPG: tc.cpg})
			var fe *shp.FormatError
			if !errors.As(err, &fe) {
				t.Fatalf("readAll error = %v, want a *FormatError", err)
			}
			if fe.File != tc.wantFile || fe.Record != tc.wantRec || !strings.Contains(fe.Msg, tc.wantMsg) {
				t.Errorf("readAll error = %q (file %s, record %d); want file %s, record %d, message containing %q",
					err, fe.File, fe.Record, tc.wantFile, tc.wantRec, tc.wantMsg)
			}
		})
	}
}
