package archive

import (
	"bytes"
	"encoding/binary"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/protomaps/go-pmtiles/pmtiles"
)

// testDir is a directory with runs, gaps and leaves:
//
//	tile ID  0   1   2   3   4   5   6 ... 9  10 ... 19  20 ...  99 100 ...
//	         [a] [b  b  b]  -   [c] -      -  [leaf L1     ) [leaf L2 ...
//
// Entry a is one tile, b a run of three, c one tile after a gap; the leaves
// cover everything from their tile ID to the next entry's.
var testDir = []entry{
	{tileID: 0, offset: 0, length: 10, runLength: 1},
	{tileID: 1, offset: 10, length: 20, runLength: 3},
	{tileID: 5, offset: 30, length: 5, runLength: 1},
	{tileID: 10, offset: 0, length: 100, runLength: 0},
	{tileID: 100, offset: 100, length: 50, runLength: 0},
}

func TestFindTile(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		dir  []entry
		id   uint64
		want int // index in dir, -1 for none
	}{
		{"empty directory", nil, 0, -1},
		{"first tile", testDir, 0, 0},
		{"start of a run", testDir, 1, 1},
		{"end of a run", testDir, 3, 1},
		{"just past a run", testDir, 4, -1},
		{"single tile after a gap", testDir, 5, 2},
		{"gap before a leaf", testDir, 9, -1},
		{"first tile of a leaf", testDir, 10, 3},
		{"inside a leaf", testDir, 99, 3},
		{"last leaf covers the rest", testDir, math.MaxUint64, 4},
		{"before the first entry", testDir[2:], 4, -1},
		{"run ending at the largest ID", []entry{{tileID: math.MaxUint64 - 1, runLength: 2}}, math.MaxUint64, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := findTile(tc.dir, tc.id)
			var want entry
			if tc.want >= 0 {
				want = tc.dir[tc.want]
			}
			if ok != (tc.want >= 0) || got != want {
				t.Errorf("findTile(%d) = %+v, %v; want %+v, %v", tc.id, got, ok, want, tc.want >= 0)
			}
		})
	}
}

// FuzzFindTile checks findTile against go-pmtiles' FindTile, used as an
// oracle in tests only, on directories made of fuzzed (delta, run length)
// pairs. IDs stay below 2^62, where FindTile's signed comparison holds.
func FuzzFindTile(f *testing.F) {
	f.Add([]byte{0, 1, 1, 3, 4, 1, 5, 0, 90, 0}, uint64(12))
	f.Add([]byte{7, 0}, uint64(3))
	f.Fuzz(func(t *testing.T, spec []byte, id uint64) {
		id %= 1 << 62
		var dir []entry
		var pdir []pmtiles.EntryV3
		next := uint64(0)
		for i := 0; i+1 < len(spec); i += 2 {
			if i > 0 && spec[i] == 0 {
				continue // IDs ascend strictly, as decodeDirectory makes sure
			}
			next += uint64(spec[i])
			e := entry{tileID: next, offset: uint64(i), length: 1, runLength: uint32(spec[i+1])}
			dir = append(dir, e)
			pdir = append(pdir, pmtiles.EntryV3{TileID: e.tileID, Offset: e.offset, Length: e.length, RunLength: e.runLength})
		}
		got, ok := findTile(dir, id)
		want, wantOK := pmtiles.FindTile(pdir, id)
		if ok != wantOK || got != (entry{want.TileID, want.Offset, want.Length, want.RunLength}) {
			t.Errorf("findTile(%d) = %+v, %v; pmtiles.FindTile = %+v, %v", id, got, ok, want, wantOK)
		}
	})
}

// toPMTiles converts entries for go-pmtiles' serializer.
func toPMTiles(dir []entry) []pmtiles.EntryV3 {
	out := make([]pmtiles.EntryV3, len(dir))
	for i, e := range dir {
		out[i] = pmtiles.EntryV3{TileID: e.tileID, Offset: e.offset, Length: e.length, RunLength: e.runLength}
	}
	return out
}

func TestDecodeDirectory(t *testing.T) {
	t.Parallel()
	large := []entry{{tileID: 1 << 60, offset: 1 << 50, length: math.MaxUint32, runLength: math.MaxUint32}}
	contiguous := []entry{ // offsets follow on: encoded as 0
		{tileID: 3, offset: 7, length: 5, runLength: 1},
		{tileID: 4, offset: 12, length: 6, runLength: 2},
		{tileID: 9, offset: 18, length: 1, runLength: 1},
	}
	for _, tc := range []struct {
		name string
		dir  []entry
	}{
		{"empty", []entry{}},
		{"runs, gaps and leaves", testDir},
		{"contiguous offsets", contiguous},
		{"large values", large},
	} {
		t.Run(tc.name, func(t *testing.T) {
			raw := pmtiles.SerializeEntries(toPMTiles(tc.dir), pmtiles.NoCompression)
			got, err := decodeDirectory(raw)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, tc.dir) {
				t.Errorf("decodeDirectory = %+v, want %+v", got, tc.dir)
			}
		})
	}

	valid := pmtiles.SerializeEntries(toPMTiles(large), pmtiles.NoCompression)
	uvarints := func(vs ...uint64) []byte {
		var b []byte
		for _, v := range vs {
			b = binary.AppendUvarint(b, v)
		}
		return b
	}
	for _, tc := range []struct {
		name string
		raw  []byte
		want string
	}{
		{"nothing", nil, "varint"},
		{"truncated", valid[:len(valid)-1], "varint"},
		{"truncated in the IDs", valid[:6], "varint"},
		{"trailing bytes", append(bytes.Clone(valid), 0), "bytes after the last entry"},
		{"count beyond the bytes", uvarints(1 << 40), "cannot fit"},
		{"repeated tile ID", uvarints(2, 5, 0, 1, 1, 1, 1, 1, 0), "not ascending"},
		{"zero length", uvarints(1, 5, 1, 0, 1), "length 0"},
		{"first offset relative", uvarints(1, 5, 1, 1, 0), "first entry has no offset"},
		{"run length over 32 bits", uvarints(1, 5, 1<<32, 1, 1), "32 bits"},
		{"tile ID overflow", uvarints(2, math.MaxUint64, 1, 1, 1, 1, 1, 1, 1), "overflows"},
		{"overlong varint", append(uvarints(1), bytes.Repeat([]byte{0xff}, 11)...), "varint"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := decodeDirectory(tc.raw)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("decodeDirectory = %+v, %v; want an error containing %q", got, err, tc.want)
			}
		})
	}
}

// FuzzDecodeDirectory feeds arbitrary bytes to decodeDirectory: it must not
// panic, and what it accepts go-pmtiles (an oracle, in tests only) must
// decode to the same entries.
func FuzzDecodeDirectory(f *testing.F) {
	f.Add(pmtiles.SerializeEntries(toPMTiles(testDir), pmtiles.NoCompression))
	f.Add([]byte{1, 5, 1, 1, 0})
	f.Add([]byte{0})
	f.Fuzz(func(t *testing.T, raw []byte) {
		got, err := decodeDirectory(raw)
		if err != nil {
			return
		}
		want := pmtiles.DeserializeEntries(bytes.NewBuffer(raw), pmtiles.NoCompression)
		if len(want) != len(got) {
			t.Fatalf("decodeDirectory gave %d entries, pmtiles.DeserializeEntries %d", len(got), len(want))
		}
		for i, w := range want {
			if e := (entry{w.TileID, w.Offset, w.Length, w.RunLength}); got[i] != e {
				t.Errorf("entry %d = %+v, pmtiles.DeserializeEntries says %+v", i, got[i], e)
			}
		}
	})
}
