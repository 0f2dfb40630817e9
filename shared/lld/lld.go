// Package lld parses and formats Canadian legal land descriptions (LLDs):
// Dominion Land Survey townships, sections, half and quarter sections and
// legal subdivisions (LSDs), UWIs, BC National Topographic System units,
// Manitoba river and parish lots, Ontario geographic township lots and
// Federal Permit System (FPS) grid areas, sections and units.
//
// Every accepted spelling maps to one Location, and every Location has one
// canonical string (Location.String): upper case, dash separated, no leading
// zeros, meridians written W5 rather than W5M (FPS keeps Township Canada's
// spaced form, F 48 60-20 N 100-30 W, with two-digit minutes).
// Parse(l.String()) == l for every Location that Parse returns.
package lld

import (
	"strconv"
)

// System is a survey system.
type System uint8

const (
	SystemUnknown System = iota
	DLS                  // Dominion Land Survey: AB, SK, MB, BC Peace River Block
	NTS                  // BC National Topographic System
	RiverLot             // Manitoba river, parish and settlement lots
	GeoTownship          // Ontario geographic townships
	FPS                  // Federal Permit System grids (COGLR): NWT, Nunavut, offshore
)

var systemNames = [...]string{"", "DLS", "NTS", "River Lot", "Geographic Township", "FPS"}

// String returns the name used in API responses ("DLS", "River Lot", ...).
func (s System) String() string {
	if int(s) < len(systemNames) {
		return systemNames[s]
	}
	return ""
}

// Unit is the kind of block a Location names.
type Unit uint8

const (
	UnitUnknown Unit = iota
	// DLS (Township is also the Ontario geographic township).
	Township
	Section
	HalfSection
	QuarterSection
	LSD
	// NTS, largest to smallest.
	Series
	MapArea
	MapSheet
	Block
	NTSUnit
	QuarterUnit
	// Manitoba.
	RiverParishLot
	// Ontario.
	Concession
	Lot
	// FPS (see fps.go): read with the system, as DLS also has a Section and
	// NTS a Unit.
	Grid
	FPSSection
	FPSUnit
)

var unitNames = [...]string{
	"", "Township", "Section", "Half Section", "Quarter Section", "LSD",
	"Series", "Map Area", "Map Sheet", "Block", "Unit", "Quarter Unit",
	"River/Parish Lot", "Concession", "Lot",
	"Grid", "Section", "Unit",
}

// String returns the name used in API responses ("Quarter Section", ...).
func (u Unit) String() string {
	if int(u) < len(unitNames) {
		return unitNames[u]
	}
	return ""
}

// ParseUnit returns the Unit named s, matched case-insensitively against the
// names String returns ("quarter section", "LSD", "Quarter Unit", ...).
func ParseUnit(s string) (Unit, bool) {
	for i := 1; i < len(unitNames); i++ {
		if equalFold(s, unitNames[i]) {
			return Unit(i), true
		}
	}
	return UnitUnknown, false
}

// ParseSystem returns the System named s, case-insensitively. "GTS" is
// accepted for Geographic Township, as older clients send it.
func ParseSystem(s string) (System, bool) {
	for i := 1; i < len(systemNames); i++ {
		if equalFold(s, systemNames[i]) {
			return System(i), true
		}
	}
	if equalFold(s, "GTS") {
		return GeoTownship, true
	}
	return SystemUnknown, false
}

func equalFold(a, b string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := 0; i < len(a); i++ {
		x, y := a[i], b[i]
		if 'A' <= x && x <= 'Z' {
			x += 'a' - 'A'
		}
		if 'A' <= y && y <= 'Z' {
			y += 'a' - 'A'
		}
		if x != y {
			return false
		}
	}
	return true
}

// Meridian is a DLS initial meridian with the direction ranges are counted
// from it: W1 to W6 (ranges west) and E1, E2 (ranges east, Manitoba).
type Meridian uint8

const (
	MeridianNone Meridian = iota
	W1
	W2
	W3
	W4
	W5
	W6
	E1
	E2
)

// String returns "W1" ... "W6", "E1", "E2".
func (m Meridian) String() string {
	switch {
	case m >= W1 && m <= W6:
		return westNames[m-W1]
	case m == E1 || m == E2:
		return eastNames[m-E1]
	}
	return ""
}

// The meridians' names, written once: String is on the path of every
// formatted location.
var (
	westNames = [...]string{"W1", "W2", "W3", "W4", "W5", "W6"}
	eastNames = [...]string{"E1", "E2"}
)

// East reports whether ranges are counted east of the meridian.
func (m Meridian) East() bool { return m == E1 || m == E2 }

// Number is the meridian's number: 1 for W1 and E1, 2 for W2 and E2, ...
func (m Meridian) Number() int {
	if m.East() {
		return int(m - E1 + 1)
	}
	return int(m)
}

// Aliquot is a part of a section: a quarter or a half.
type Aliquot uint8

const (
	AliquotNone Aliquot = iota
	NE
	NW
	SW
	SE
	NorthHalf
	SouthHalf
	EastHalf
	WestHalf
)

var aliquotNames = [...]string{"", "NE", "NW", "SW", "SE", "N", "S", "E", "W"}

// String returns "NE", "NW", "SW", "SE" for quarters and "N", "S", "E", "W"
// for halves.
func (a Aliquot) String() string {
	if int(a) < len(aliquotNames) {
		return aliquotNames[a]
	}
	return ""
}

// IsQuarter reports whether a is one of the four quarters.
func (a Aliquot) IsQuarter() bool { return a >= NE && a <= SE }

// IsHalf reports whether a is one of the four halves.
func (a Aliquot) IsHalf() bool { return a >= NorthHalf && a <= WestHalf }

// QuarterOfLSD returns the quarter section that holds LSD n (1-16):
// SE = 1,2,7,8; SW = 3,4,5,6; NW = 11,12,13,14; NE = 9,10,15,16.
func QuarterOfLSD(n int) Aliquot {
	switch n {
	case 1, 2, 7, 8:
		return SE
	case 3, 4, 5, 6:
		return SW
	case 11, 12, 13, 14:
		return NW
	case 9, 10, 15, 16:
		return NE
	}
	return AliquotNone
}

// Location is one parsed legal land description. Which fields are set
// depends on System and Unit; the others are zero.
type Location struct {
	System System
	Unit   Unit

	// DLS. Township is 1-126, Range 1-34, Section 1-36, LSD 1-16.
	Meridian Meridian
	Range    uint8
	Township uint8
	Section  uint8
	Aliquot  Aliquot // quarter or half for QuarterSection and HalfSection
	LSD      uint8

	// NTS (BC). Series is the 1:1,000,000 number (82, 83, 92, 93, 94, 102,
	// 103, 104, 114), Area the map-area letter A-P, Sheet 1-16, Block A-L,
	// Unit 1-100, Quarter A-D.
	Series  uint8
	Area    byte
	Sheet   uint8
	Block   byte
	UnitNo  uint8
	Quarter byte

	// Manitoba lots and Ontario geographic townships. LotKind is RL, PL,
	// OT, SL or WL (Manitoba); Lot and Concession are upper-case labels
	// ("10", "10A", "BF"); Place is the Manitoba parish or the Ontario
	// township name in title case ("St. Norbert", "Adjala").
	LotKind    string
	Lot        string
	Concession string
	Place      string

	// FPS grid area, section and unit (fps.go).
	FPS FPSRef
}

// String returns the canonical form of l, used as legal_location everywhere:
//
//	Township        24-1-W5
//	Section         25-24-1-W5
//	Half section    N-25-24-1-W5
//	Quarter section NW-25-24-1-W5
//	LSD             10-36-42-3-W5
//	NTS             93 (series), 93-P (map area), 93-P-8 (map sheet),
//	                F/93-P-8 (block), 2-F/93-P-8 (unit), A-2-F/93-P-8 (quarter unit)
//	Manitoba lot    RL-22-St. Norbert
//	Ontario         Adjala Township, Con 1 Adjala, Lot 10 Con 1 Adjala
//	FPS             60-20 N 100-30 W (grid), 48 60-20 N 100-30 W (section),
//	                F 48 60-20 N 100-30 W (unit)
func (l Location) String() string {
	return string(l.AppendText(make([]byte, 0, 24)))
}

// AppendText appends the canonical form of l to b.
func (l Location) AppendText(b []byte) []byte {
	switch l.System {
	case DLS:
		switch l.Unit {
		case LSD:
			b = strconv.AppendUint(b, uint64(l.LSD), 10)
			b = append(b, '-')
		case QuarterSection, HalfSection:
			b = append(b, l.Aliquot.String()...)
			b = append(b, '-')
		}
		if l.Unit != Township {
			b = strconv.AppendUint(b, uint64(l.Section), 10)
			b = append(b, '-')
		}
		b = strconv.AppendUint(b, uint64(l.Township), 10)
		b = append(b, '-')
		b = strconv.AppendUint(b, uint64(l.Range), 10)
		b = append(b, '-')
		b = append(b, l.Meridian.String()...)
	case NTS:
		switch l.Unit {
		case QuarterUnit:
			b = append(b, l.Quarter, '-')
			fallthrough
		case NTSUnit:
			b = strconv.AppendUint(b, uint64(l.UnitNo), 10)
			b = append(b, '-')
			fallthrough
		case Block:
			b = append(b, l.Block, '/')
		}
		b = strconv.AppendUint(b, uint64(l.Series), 10)
		if l.Unit != Series {
			b = append(b, '-', l.Area)
			if l.Unit != MapArea {
				b = append(b, '-')
				b = strconv.AppendUint(b, uint64(l.Sheet), 10)
			}
		}
	case RiverLot:
		b = append(b, l.LotKind...)
		b = append(b, '-')
		b = append(b, l.Lot...)
		b = append(b, '-')
		b = append(b, l.Place...)
	case GeoTownship:
		switch l.Unit {
		case Township:
			b = append(b, l.Place...)
			b = append(b, " Township"...)
			return b
		case Lot:
			b = append(b, "Lot "...)
			b = append(b, l.Lot...)
			b = append(b, ' ')
		}
		b = append(b, "Con "...)
		b = append(b, l.Concession...)
		b = append(b, ' ')
		b = append(b, l.Place...)
	case FPS:
		b = l.FPS.appendText(b, l.Unit)
	}
	return b
}

// Parent returns the location one level up in its system's hierarchy (LSD →
// quarter section → section → township; quarter unit → unit → block → map
// sheet → map area → series; FPS unit → section → grid) and false at the
// top or for lots.
func (l Location) Parent() (Location, bool) {
	p := l
	switch l.Unit {
	case LSD:
		p.Unit, p.Aliquot, p.LSD = QuarterSection, QuarterOfLSD(int(l.LSD)), 0
	case QuarterSection, HalfSection:
		p.Unit, p.Aliquot = Section, AliquotNone
	case Section:
		p.Unit, p.Section = Township, 0
	case QuarterUnit:
		p.Unit, p.Quarter = NTSUnit, 0
	case NTSUnit:
		p.Unit, p.UnitNo = Block, 0
	case Block:
		p.Unit, p.Block = MapSheet, 0
	case MapSheet:
		p.Unit, p.Sheet = MapArea, 0
	case MapArea:
		p.Unit, p.Area = Series, 0
	case Lot:
		if l.System != GeoTownship {
			return Location{}, false
		}
		p.Unit, p.Lot = Concession, ""
	case Concession:
		p.Unit, p.Concession = Township, ""
	case FPSUnit:
		p.Unit, p.FPS.Unit = FPSSection, 0
	case FPSSection:
		p.Unit, p.FPS.Section = Grid, 0
	default:
		return Location{}, false
	}
	return p, true
}
