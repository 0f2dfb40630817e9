package agingest

import (
	"slices"

	"meridian/shared/lld"
	"meridian/shared/survey"
)

// quarterTable holds a byte for every DLS quarter section a description
// can name (meridians W1 to E2, ranges 1 to 34, townships 1 to 126): 4.9
// million bytes, whatever the input. The ingest keeps in it what it must
// remember of a quarter between phases (its province once placed, whether
// AGRASID rated it), where a map took some 40 bytes a quarter met; a
// quarter outside those bounds (none that lld.Parse reads) goes to a map.
type quarterTable struct {
	b        []byte
	overflow map[uint64]byte
}

const (
	qtRanges    = 34
	qtTownships = 126
	qtSize      = int(lld.E2-lld.W1+1) * qtRanges * qtTownships * 36 * 4
)

// The bits of a quarter's byte.
const (
	qtProvince = 0x07 // 0: not met; 1 + province (survey.ProvinceNone: outside AB, SK, MB or the grid)
	qtLSRS     = 0x08 // rated by AGRASID (SLC LSRS is the fallback of the others)
)

func newQuarterTable() *quarterTable {
	return &quarterTable{b: make([]byte, qtSize), overflow: map[uint64]byte{}}
}

// quarterIndex is l's place in the table; false for a location that is
// not a DLS quarter section within the table's bounds.
func quarterIndex(l lld.Location) (int, bool) {
	if l.System != lld.DLS || l.Unit != lld.QuarterSection || l.Meridian < lld.W1 || l.Meridian > lld.E2 ||
		l.Range < 1 || l.Range > qtRanges || l.Township < 1 || l.Township > qtTownships ||
		l.Section < 1 || l.Section > 36 || !l.Aliquot.IsQuarter() {
		return 0, false
	}
	i := int(l.Meridian - lld.W1)
	i = i*qtRanges + int(l.Range-1)
	i = i*qtTownships + int(l.Township-1)
	i = i*36 + int(l.Section-1)
	return i*4 + int(l.Aliquot-lld.NE), true
}

// quarterAt is the quarter section at index i of the table.
func quarterAt(i int) lld.Location {
	a := lld.Aliquot(i%4) + lld.NE
	i /= 4
	s := uint8(i%36) + 1
	i /= 36
	t := uint8(i%qtTownships) + 1
	i /= qtTownships
	r := uint8(i%qtRanges) + 1
	i /= qtRanges
	return lld.Location{System: lld.DLS, Unit: lld.QuarterSection, Meridian: lld.W1 + lld.Meridian(i), Range: r, Township: t, Section: s, Aliquot: a}
}

func (t *quarterTable) get(l lld.Location) byte {
	if i, ok := quarterIndex(l); ok {
		return t.b[i]
	}
	return t.overflow[qkey(l)]
}

func (t *quarterTable) set(l lld.Location, v byte) {
	if i, ok := quarterIndex(l); ok {
		t.b[i] = v
		return
	}
	t.overflow[qkey(l)] = v
}

// province returns l's province and whether l was met.
func (t *quarterTable) province(l lld.Location) (survey.Province, bool) {
	v := t.get(l) & qtProvince
	if v == 0 {
		return survey.ProvinceNone, false
	}
	return survey.Province(v - 1), true
}

func (t *quarterTable) setProvince(l lld.Location, p survey.Province) {
	t.set(l, t.get(l)&^qtProvince|byte(p+1)&qtProvince)
}

// each calls fn with every quarter met in AB, SK or MB, in the table's
// order (meridian, range, township, section, quarter), then those of the
// overflow map in key order.
func (t *quarterTable) each(fn func(lld.Location, survey.Province) error) error {
	for i, v := range t.b {
		if p := v & qtProvince; p > 1 {
			if err := fn(quarterAt(i), survey.Province(p-1)); err != nil {
				return err
			}
		}
	}
	keys := make([]uint64, 0, len(t.overflow))
	for k, v := range t.overflow {
		if v&qtProvince > 1 {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	for _, k := range keys {
		if err := fn(qloc(k), survey.Province(t.overflow[k]&qtProvince-1)); err != nil {
			return err
		}
	}
	return nil
}

// quarterBits is a bit for every quarter of the table (600 kB): the
// quarters a raster sweep is done with. A quarter out of the table's
// bounds is never done.
type quarterBits []uint64

func newQuarterBits() quarterBits { return make(quarterBits, (qtSize+63)/64) }

func (b quarterBits) has(l lld.Location) bool {
	i, ok := quarterIndex(l)
	return ok && b[i/64]&(1<<(i%64)) != 0
}

func (b quarterBits) add(l lld.Location) {
	if i, ok := quarterIndex(l); ok {
		b[i/64] |= 1 << (i % 64)
	}
}
