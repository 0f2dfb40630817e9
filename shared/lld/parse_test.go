package lld_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"meridian/shared/apierr"
	"meridian/shared/lld"
	"meridian/shared/teamdata"
)

// Location builders, to keep the tables readable.

func township(twp, rge uint8, m lld.Meridian) lld.Location {
	return lld.Location{System: lld.DLS, Unit: lld.Township, Township: twp, Range: rge, Meridian: m}
}

func section(sec, twp, rge uint8, m lld.Meridian) lld.Location {
	l := township(twp, rge, m)
	l.Unit, l.Section = lld.Section, sec
	return l
}

func quarter(a lld.Aliquot, sec, twp, rge uint8, m lld.Meridian) lld.Location {
	l := section(sec, twp, rge, m)
	l.Unit, l.Aliquot = lld.QuarterSection, a
	return l
}

func half(a lld.Aliquot, sec, twp, rge uint8, m lld.Meridian) lld.Location {
	l := section(sec, twp, rge, m)
	l.Unit, l.Aliquot = lld.HalfSection, a
	return l
}

func lsd(n, sec, twp, rge uint8, m lld.Meridian) lld.Location {
	l := section(sec, twp, rge, m)
	l.Unit, l.LSD = lld.LSD, n
	return l
}

func ntsSeries(s uint8) lld.Location {
	return lld.Location{System: lld.NTS, Unit: lld.Series, Series: s}
}

func ntsArea(s uint8, a byte) lld.Location {
	l := ntsSeries(s)
	l.Unit, l.Area = lld.MapArea, a
	return l
}

func ntsSheet(s uint8, a byte, sh uint8) lld.Location {
	l := ntsArea(s, a)
	l.Unit, l.Sheet = lld.MapSheet, sh
	return l
}

func ntsBlock(b byte, s uint8, a byte, sh uint8) lld.Location {
	l := ntsSheet(s, a, sh)
	l.Unit, l.Block = lld.Block, b
	return l
}

func ntsUnit(u uint8, b byte, s uint8, a byte, sh uint8) lld.Location {
	l := ntsBlock(b, s, a, sh)
	l.Unit, l.UnitNo = lld.NTSUnit, u
	return l
}

func ntsQuarter(q byte, u uint8, b byte, s uint8, a byte, sh uint8) lld.Location {
	l := ntsUnit(u, b, s, a, sh)
	l.Unit, l.Quarter = lld.QuarterUnit, q
	return l
}

func riverLot(kind, lot, place string) lld.Location {
	return lld.Location{System: lld.RiverLot, Unit: lld.RiverParishLot, LotKind: kind, Lot: lot, Place: place}
}

func ontTownship(place string) lld.Location {
	return lld.Location{System: lld.GeoTownship, Unit: lld.Township, Place: place}
}

func ontConcession(con, place string) lld.Location {
	return lld.Location{System: lld.GeoTownship, Unit: lld.Concession, Concession: con, Place: place}
}

func ontLot(lot, con, place string) lld.Location {
	return lld.Location{System: lld.GeoTownship, Unit: lld.Lot, Lot: lot, Concession: con, Place: place}
}

// parseTests are accepted inputs with their Location and canonical string.
// FuzzParse seeds from them.
var parseTests = []struct {
	name  string
	in    string
	want  lld.Location
	canon string
}{
	// DLS quarter sections.
	{"quarter", "NW-25-24-1-W5", quarter(lld.NW, 25, 24, 1, lld.W5), "NW-25-24-1-W5"},
	{"quarter spaces and W5M", "NW 25-24-1 W5M", quarter(lld.NW, 25, 24, 1, lld.W5), "NW-25-24-1-W5"},
	{"quarter padded", "NW-25-024-01-W5", quarter(lld.NW, 25, 24, 1, lld.W5), "NW-25-24-1-W5"},
	{"quarter lower case", "nw 25 24 1 w5", quarter(lld.NW, 25, 24, 1, lld.W5), "NW-25-24-1-W5"},
	{"quarter dots", "SE.1.23.4.W5", quarter(lld.SE, 1, 23, 4, lld.W5), "SE-1-23-4-W5"},
	{"quarter township over 100", "NE 7 102 19 W4", quarter(lld.NE, 7, 102, 19, lld.W4), "NE-7-102-19-W4"},
	{"quarter east of E1 glued", "SW-14-8-2E1", quarter(lld.SW, 14, 8, 2, lld.E1), "SW-14-8-2-E1"},
	{"quarter W1 glued", "NE-11-33-29W1", quarter(lld.NE, 11, 33, 29, lld.W1), "NE-11-33-29-W1"},
	{"quarter padded glued", "NE-36-042-03W5", quarter(lld.NE, 36, 42, 3, lld.W5), "NE-36-42-3-W5"},
	{"quarter E2", "SE-1-1-1-E2", quarter(lld.SE, 1, 1, 1, lld.E2), "SE-1-1-1-E2"},
	{"quarter W6 limits", "SW-36-126-34-W6", quarter(lld.SW, 36, 126, 34, lld.W6), "SW-36-126-34-W6"},
	{"quarter meridian W 5", "NW 25 24 1 W 5", quarter(lld.NW, 25, 24, 1, lld.W5), "NW-25-24-1-W5"},
	{"quarter meridian W5 M", "NW 25 24 1 W5 M", quarter(lld.NW, 25, 24, 1, lld.W5), "NW-25-24-1-W5"},
	{"quarter meridian padded", "NW-25-24-1-W05", quarter(lld.NW, 25, 24, 1, lld.W5), "NW-25-24-1-W5"},
	{"quarter mixed separators", "NW - 25.24 1-W5", quarter(lld.NW, 25, 24, 1, lld.W5), "NW-25-24-1-W5"},
	{"quarter 1/4 labelled", "SW 1/4 Sec 25 Twp 24 Rge 1 W5M", quarter(lld.SW, 25, 24, 1, lld.W5), "SW-25-24-1-W5"},
	{"quarter 1/4 glued", "SW1/4-25-24-1-W5", quarter(lld.SW, 25, 24, 1, lld.W5), "SW-25-24-1-W5"},
	{"quarter labels with dots and commas", "NW Sec. 25, Twp. 24, Rge. 1, W5M", quarter(lld.NW, 25, 24, 1, lld.W5), "NW-25-24-1-W5"},
	{"quarter words", "North West 25-24-1-W5", quarter(lld.NW, 25, 24, 1, lld.W5), "NW-25-24-1-W5"},
	{"quarter N.W.", "N.W. 25-24-1-W5", quarter(lld.NW, 25, 24, 1, lld.W5), "NW-25-24-1-W5"},
	{"quarter one word", "Northeast 25-24-1-W5", quarter(lld.NE, 25, 24, 1, lld.W5), "NE-25-24-1-W5"},
	{"quarter with Quarter word", "NW Quarter Section 25 Township 24 Range 1 W5", quarter(lld.NW, 25, 24, 1, lld.W5), "NW-25-24-1-W5"},
	{"quarter of section", "SW 1/4 of Sec 25 Twp 24 Rge 1 W5M", quarter(lld.SW, 25, 24, 1, lld.W5), "SW-25-24-1-W5"},
	{"quarter Rg Tp", "NW 25 Tp 24 Rg 1 W5", quarter(lld.NW, 25, 24, 1, lld.W5), "NW-25-24-1-W5"},
	{"quarter R label", "NW 25 T24 R1 W5M", quarter(lld.NW, 25, 24, 1, lld.W5), "NW-25-24-1-W5"},
	{"quarter Mer label", "NW Sec 25 Twp 24 Rge 1 Mer 5", quarter(lld.NW, 25, 24, 1, lld.W5), "NW-25-24-1-W5"},
	{"quarter M label", "NW 25 24 1 M5", quarter(lld.NW, 25, 24, 1, lld.W5), "NW-25-24-1-W5"},
	{"quarter Meridian W5", "NW 25 24 1 Meridian W5", quarter(lld.NW, 25, 24, 1, lld.W5), "NW-25-24-1-W5"},
	{"quarter 5th Meridian", "NW 25-24-1 5th Meridian", quarter(lld.NW, 25, 24, 1, lld.W5), "NW-25-24-1-W5"},
	{"quarter 4th Mer", "NE 7 102 19 4th Mer", quarter(lld.NE, 7, 102, 19, lld.W4), "NE-7-102-19-W4"},
	{"quarter W4TH", "NE-7-102-19-W4TH", quarter(lld.NE, 7, 102, 19, lld.W4), "NE-7-102-19-W4"},
	{"quarter 4M", "NE-7-102-19-4M", quarter(lld.NE, 7, 102, 19, lld.W4), "NE-7-102-19-W4"},
	{"quarter land title order", "Meridian 5 Range 1 Township 24 Section 25 Quarter North West", quarter(lld.NW, 25, 24, 1, lld.W5), "NW-25-24-1-W5"},
	{"quarter land title order caps", "MERIDIAN 4 RANGE 23 TOWNSHIP 45 SECTION 12 QUARTER NORTH EAST", quarter(lld.NE, 12, 45, 23, lld.W4), "NE-12-45-23-W4"},
	{"quarter title words east", "Quarter NE Section 1 Township 1 Range 1 East of the 1st Meridian", quarter(lld.NE, 1, 1, 1, lld.E1), "NE-1-1-1-E1"},
	{"quarter ground truth E1", "NE-1-12-12E1", quarter(lld.NE, 1, 12, 12, lld.E1), "NE-1-12-12-E1"},

	// DLS half sections.
	{"half", "N-36-42-3-W5", half(lld.NorthHalf, 36, 42, 3, lld.W5), "N-36-42-3-W5"},
	{"half 1/2", "N 1/2 36-42-3-W5", half(lld.NorthHalf, 36, 42, 3, lld.W5), "N-36-42-3-W5"},
	{"half 1/2 glued", "N1/2-36-42-3-W5", half(lld.NorthHalf, 36, 42, 3, lld.W5), "N-36-42-3-W5"},
	{"half south", "S-36-42-3-W5", half(lld.SouthHalf, 36, 42, 3, lld.W5), "S-36-42-3-W5"},
	{"half east", "E 1/2 36-42-3-W5", half(lld.EastHalf, 36, 42, 3, lld.W5), "E-36-42-3-W5"},
	{"half west", "W-36-42-3-W5", half(lld.WestHalf, 36, 42, 3, lld.W5), "W-36-42-3-W5"},
	{"half east of E1", "E-1-1-1-E1", half(lld.EastHalf, 1, 1, 1, lld.E1), "E-1-1-1-E1"},
	{"half word", "North Half Sec 36 Twp 42 Rge 3 W5M", half(lld.NorthHalf, 36, 42, 3, lld.W5), "N-36-42-3-W5"},
	{"half unicode", "N½-36-42-3-W5", half(lld.NorthHalf, 36, 42, 3, lld.W5), "N-36-42-3-W5"},

	// DLS LSDs.
	{"lsd", "10-36-42-3-W5", lsd(10, 36, 42, 3, lld.W5), "10-36-42-3-W5"},
	{"lsd prefix padded glued", "LSD 06-32-048-07W5", lsd(6, 32, 48, 7, lld.W5), "6-32-48-7-W5"},
	{"lsd padded W5M", "06-32-048-07W5M", lsd(6, 32, 48, 7, lld.W5), "6-32-48-7-W5"},
	{"lsd space before meridian", "LSD 10-33-045-04 W4", lsd(10, 33, 45, 4, lld.W4), "10-33-45-4-W4"},
	{"lsd padded", "01-36-42-03-W5", lsd(1, 36, 42, 3, lld.W5), "1-36-42-3-W5"},
	{"lsd W4M", "LSD 12-03-10-23 W4M", lsd(12, 3, 10, 23, lld.W4), "12-3-10-23-W4"},
	{"lsd Lsd", "Lsd 10-36-42-3-W5", lsd(10, 36, 42, 3, lld.W5), "10-36-42-3-W5"},
	{"lsd glued prefix", "LSD10-36-42-3-W5", lsd(10, 36, 42, 3, lld.W5), "10-36-42-3-W5"},
	{"lsd legal subdivision", "Legal Subdivision 10 Section 36 Township 42 Range 3 W5", lsd(10, 36, 42, 3, lld.W5), "10-36-42-3-W5"},
	{"lsd ground truth W6", "01-02-084-19W6", lsd(1, 2, 84, 19, lld.W6), "1-2-84-19-W6"},
	{"lsd 16", "16-36-126-34-W6", lsd(16, 36, 126, 34, lld.W6), "16-36-126-34-W6"},

	// DLS sections.
	{"section", "25-24-1-W5", section(25, 24, 1, lld.W5), "25-24-1-W5"},
	{"section 36", "36-42-3-W5", section(36, 42, 3, lld.W5), "36-42-3-W5"},
	{"section Sec prefix", "Sec 25-24-1-W5", section(25, 24, 1, lld.W5), "25-24-1-W5"},
	{"section labelled words", "Section 25 Township 24 Range 1 West of the 5th Meridian", section(25, 24, 1, lld.W5), "25-24-1-W5"},
	{"section W of 5", "Sec 25 Twp 24 Rge 1 W of 5", section(25, 24, 1, lld.W5), "25-24-1-W5"},
	{"section S T R labels", "S25 T24 R1 W5", section(25, 24, 1, lld.W5), "25-24-1-W5"},
	{"section Petrinex facility location", "10-063-16W5", section(10, 63, 16, lld.W5), "10-63-16-W5"},

	// DLS townships.
	{"township", "24-1-W5", township(24, 1, lld.W5), "24-1-W5"},
	{"township labels", "Twp 24 Rge 1 W5", township(24, 1, lld.W5), "24-1-W5"},
	{"township T R", "T24 R1 W5M", township(24, 1, lld.W5), "24-1-W5"},
	{"township TWP prefix", "TWP 24-1-W5", township(24, 1, lld.W5), "24-1-W5"},
	{"section Manitoba township lot", "10-54-27W1", section(10, 54, 27, lld.W1), "10-54-27-W1"},
	{"township E2", "Township 3 Range 2 E2", township(3, 2, lld.E2), "3-2-E2"},

	// UWIs give the bottom-hole LSD (DLS) or quarter unit (NTS).
	{"uwi display", "100/06-32-048-07W5/00", lsd(6, 32, 48, 7, lld.W5), "6-32-48-7-W5"},
	{"uwi display short", "00/06-06-001-01W4/0", lsd(6, 6, 1, 1, lld.W4), "6-6-1-1-W4"},
	{"uwi display LE F1", "F1/06-06-001-01W4/0", lsd(6, 6, 1, 1, lld.W4), "6-6-1-1-W4"},
	{"uwi display LE AA", "AA/12-04-062-20W5/0", lsd(12, 4, 62, 20, lld.W5), "12-4-62-20-W5"},
	{"uwi display one digit event", "100/06-36-042-03W5/0", lsd(6, 36, 42, 3, lld.W5), "6-36-42-3-W5"},
	{"uwi display survey and LE F1", "1F1/06-06-001-01W4/00", lsd(6, 6, 1, 1, lld.W4), "6-6-1-1-W4"},
	{"uwi manitoba dotted", "100.16-09-010-09W1.00", lsd(16, 9, 10, 9, lld.W1), "16-9-10-9-W1"},
	{"uwi compact", "100103604203W500", lsd(10, 36, 42, 3, lld.W5), "10-36-42-3-W5"},
	{"uwi compact LE F1", "1F1060600101W400", lsd(6, 6, 1, 1, lld.W4), "6-6-1-1-W4"},
	{"uwi compact 2", "100071901015W400", lsd(7, 19, 10, 15, lld.W4), "7-19-10-15-W4"},
	{"uwi petrinex", "ABWI100042205618W502", lsd(4, 22, 56, 18, lld.W5), "4-22-56-18-W5"},
	{"uwi petrinex SK", "SKWI100042205618W302", lsd(4, 22, 56, 18, lld.W3), "4-22-56-18-W3"},
	{"uwi nts compact", "200D080H092G0300", ntsQuarter('D', 80, 'H', 92, 'G', 3), "D-80-H/92-G-3"},
	{"uwi nts display", "200/D-080-H/092-G-03/00", ntsQuarter('D', 80, 'H', 92, 'G', 3), "D-80-H/92-G-3"},
	{"uwi with comment", "100/06-32-048-07W5/00 (re-entry)", lsd(6, 32, 48, 7, lld.W5), "6-32-48-7-W5"},

	// BC NTS.
	{"nts quarter unit", "A-2-F/93-P-8", ntsQuarter('A', 2, 'F', 93, 'P', 8), "A-2-F/93-P-8"},
	{"nts lower case quarter", "d-96-B/94-A-15", ntsQuarter('D', 96, 'B', 94, 'A', 15), "D-96-B/94-A-15"},
	{"nts padded", "D-080-H/092-G-03", ntsQuarter('D', 80, 'H', 92, 'G', 3), "D-80-H/92-G-3"},
	{"nts padded 2", "A-045-D/094-B-16", ntsQuarter('A', 45, 'D', 94, 'B', 16), "A-45-D/94-B-16"},
	{"nts all lower case", "a-2-f/093-p-08", ntsQuarter('A', 2, 'F', 93, 'P', 8), "A-2-F/93-P-8"},
	{"nts spaces", "A 2 F 93 P 8", ntsQuarter('A', 2, 'F', 93, 'P', 8), "A-2-F/93-P-8"},
	{"nts pad letter", "D-A087-D/094-B-16", ntsQuarter('D', 87, 'D', 94, 'B', 16), "D-87-D/94-B-16"},
	{"nts unit 100 series 114", "C-100-L/114-P-16", ntsQuarter('C', 100, 'L', 114, 'P', 16), "C-100-L/114-P-16"},
	{"nts unit", "2-F/93-P-8", ntsUnit(2, 'F', 93, 'P', 8), "2-F/93-P-8"},
	{"nts block", "F/93-P-8", ntsBlock('F', 93, 'P', 8), "F/93-P-8"},
	{"nts block E", "E/93-P-8", ntsBlock('E', 93, 'P', 8), "E/93-P-8"},
	{"nts map sheet", "93-P-8", ntsSheet(93, 'P', 8), "93-P-8"},
	{"nts map sheet slug", "093P08", ntsSheet(93, 'P', 8), "93-P-8"},
	{"nts map sheet slash", "093P/08", ntsSheet(93, 'P', 8), "93-P-8"},
	{"nts map sheet dashes", "093-P-08", ntsSheet(93, 'P', 8), "93-P-8"},
	{"nts map sheet glued", "93P8", ntsSheet(93, 'P', 8), "93-P-8"},
	{"nts map sheet G14", "093G/14", ntsSheet(93, 'G', 14), "93-G-14"},
	{"nts map sheet E1", "083E/01", ntsSheet(83, 'E', 1), "83-E-1"},
	{"nts map area", "93P", ntsArea(93, 'P'), "93-P"},
	{"nts map area dash", "093-P", ntsArea(93, 'P'), "93-P"},
	{"nts series", "93", ntsSeries(93), "93"},
	{"nts series 102", "102", ntsSeries(102), "102"},
	{"nts with comment", "A-2-F/93-P-8 Fort St. John", ntsQuarter('A', 2, 'F', 93, 'P', 8), "A-2-F/93-P-8"},

	// Manitoba lots.
	{"river lot", "RL-22-St. Norbert", riverLot("RL", "22", "St. Norbert"), "RL-22-St. Norbert"},
	{"river lot spaces St", "RL 22 St Norbert", riverLot("RL", "22", "St. Norbert"), "RL-22-St. Norbert"},
	{"river lot words", "River Lot 52, Parish of St. Andrews", riverLot("RL", "52", "St. Andrews"), "RL-52-St. Andrews"},
	{"parish lot", "PL-R-St. Andrews", riverLot("PL", "R", "St. Andrews"), "PL-R-St. Andrews"},
	{"parish lot words", "Parish Lot R St. Andrews", riverLot("PL", "R", "St. Andrews"), "PL-R-St. Andrews"},
	{"outer two-mile lot", "OT-11A-St. Clements", riverLot("OT", "11A", "St. Clements"), "OT-11A-St. Clements"},
	{"outer two-mile lot words", "Outer Two-Mile Lot 11A, Parish of St. Clements", riverLot("OT", "11A", "St. Clements"), "OT-11A-St. Clements"},
	{"wood lot", "WL-179-Portage La Prairie", riverLot("WL", "179", "Portage La Prairie"), "WL-179-Portage La Prairie"},
	{"wood lot case", "wl 179 PORTAGE LA PRAIRIE", riverLot("WL", "179", "Portage La Prairie"), "WL-179-Portage La Prairie"},
	{"settlement lot", "SL-5-St. Laurent", riverLot("SL", "5", "St. Laurent"), "SL-5-St. Laurent"},
	{"river lot parish code", "RL-103-PA", riverLot("RL", "103", "PA"), "RL-103-PA"},
	{"river lot padded", "RL-0022-St. Norbert", riverLot("RL", "22", "St. Norbert"), "RL-22-St. Norbert"},
	{"parish lot padded", "PL-000R-St. Andrews", riverLot("PL", "R", "St. Andrews"), "PL-R-St. Andrews"},
	{"river lot Ste", "RL-12-Ste Anne", riverLot("RL", "12", "Ste. Anne"), "RL-12-Ste. Anne"},
	{"river lot St. glued", "RL-22-St.Norbert", riverLot("RL", "22", "St. Norbert"), "RL-22-St. Norbert"},
	{"river lot accents", "RL-5-St. François Xavier", riverLot("RL", "5", "St. François Xavier"), "RL-5-St. François Xavier"},
	{"river lot extra spaces", "RL-22-St.   norbert ", riverLot("RL", "22", "St. Norbert"), "RL-22-St. Norbert"},
	{"river lot comment", "RL-22-St. Norbert, Winnipeg", riverLot("RL", "22", "St. Norbert"), "RL-22-St. Norbert"},

	// Ontario geographic townships.
	{"ontario lot", "Lot 10 Con 1 Adjala", ontLot("10", "1", "Adjala"), "Lot 10 Con 1 Adjala"},
	{"ontario lot 2", "Lot 2 Con 4 Osprey", ontLot("2", "4", "Osprey"), "Lot 2 Con 4 Osprey"},
	{"ontario commas", "Lot 5, Con 3, Admaston", ontLot("5", "3", "Admaston"), "Lot 5 Con 3 Admaston"},
	{"ontario words", "Lot 10, Concession 1, Township of Adjala", ontLot("10", "1", "Adjala"), "Lot 10 Con 1 Adjala"},
	{"ontario lot 29", "Lot 29 Con 10 Nipissing", ontLot("29", "10", "Nipissing"), "Lot 29 Con 10 Nipissing"},
	{"ontario roman", "Lot 10 Conc. IV Adjala", ontLot("10", "4", "Adjala"), "Lot 10 Con 4 Adjala"},
	{"ontario roman XXXIX", "Lot 1 Con XXXIX Adjala", ontLot("1", "39", "Adjala"), "Lot 1 Con 39 Adjala"},
	{"ontario not roman", "Lot 1 Con IIII Adjala", ontLot("1", "IIII", "Adjala"), "Lot 1 Con IIII Adjala"},
	{"ontario broken front", "Lot 3 Con BF North Burgess", ontLot("3", "BF", "North Burgess"), "Lot 3 Con BF North Burgess"},
	{"ontario gore", "Lot 3 Con gore Adjala", ontLot("3", "GORE", "Adjala"), "Lot 3 Con GORE Adjala"},
	{"ontario lot letter", "Lot 10a Con 2 South Crosby Township", ontLot("10A", "2", "South Crosby"), "Lot 10A Con 2 South Crosby"},
	{"ontario concession first", "Con 1 Lot 10 Adjala", ontLot("10", "1", "Adjala"), "Lot 10 Con 1 Adjala"},
	{"ontario broken front dotted", "Lot 10 Con B.F. Osprey", ontLot("10", "BF", "Osprey"), "Lot 10 Con BF Osprey"},
	{"ontario broken front spaced", "Lot 10 Con B F Osprey", ontLot("10", "BF", "Osprey"), "Lot 10 Con BF Osprey"},
	{"ontario broken front words", "Lot 10, Concession Broken Front, Osprey", ontLot("10", "BF", "Osprey"), "Lot 10 Con BF Osprey"},
	{"ontario padded", "Lot 010 Con 01 Adjala", ontLot("10", "1", "Adjala"), "Lot 10 Con 1 Adjala"},
	{"ontario concession", "Con 1 Adjala", ontConcession("1", "Adjala"), "Con 1 Adjala"},
	{"ontario concession twp", "Concession 2, Adjala Twp", ontConcession("2", "Adjala"), "Con 2 Adjala"},
	{"ontario township", "Adjala Township", ontTownship("Adjala"), "Adjala Township"},
	{"ontario township of", "Township of Adjala", ontTownship("Adjala"), "Adjala Township"},
	{"ontario twp", "Adjala Twp", ontTownship("Adjala"), "Adjala Township"},
	{"ontario township two words", "north burgess township", ontTownship("North Burgess"), "North Burgess Township"},
	{"ontario geographic township", "Geographic Township of South Crosby", ontTownship("South Crosby"), "South Crosby Township"},
	{"ontario St.", "Lot 4 Con 2 St Vincent", ontLot("4", "2", "St. Vincent"), "Lot 4 Con 2 St. Vincent"},

	// Messy input.
	{"messy comment in parentheses", "LSD 12-03-10-23 W4M (MONARCH COMP STN)", lsd(12, 3, 10, 23, lld.W4), "12-3-10-23-W4"},
	{"messy after comma", "SE-15-48-2-W5, Cochrane, AB", quarter(lld.SE, 15, 48, 2, lld.W5), "SE-15-48-2-W5"},
	{"messy trailing word", "NW-26-89-10-W4 Athabasca", quarter(lld.NW, 26, 89, 10, lld.W4), "NW-26-89-10-W4"},
	{"messy trailing words after W4M", "NW-26-89-10-W4M north of Athabasca", quarter(lld.NW, 26, 89, 10, lld.W4), "NW-26-89-10-W4"},
	{"messy trailing word after dash", "NW-26-89-10-W4-Athabasca", quarter(lld.NW, 26, 89, 10, lld.W4), "NW-26-89-10-W4"},
	{"messy en dashes and nbsp", "\u00a0NW\u201325\u201324\u20131\u2013W5\u00a0", quarter(lld.NW, 25, 24, 1, lld.W5), "NW-25-24-1-W5"},
	{"messy em dash minus", "NW\u201425\u221224-1-W5", quarter(lld.NW, 25, 24, 1, lld.W5), "NW-25-24-1-W5"},
	{"messy smart quotes", "\u201cNW-25-24-1-W5\u201d", quarter(lld.NW, 25, 24, 1, lld.W5), "NW-25-24-1-W5"},
	{"messy plain quotes", `"NW-25-24-1-W5"`, quarter(lld.NW, 25, 24, 1, lld.W5), "NW-25-24-1-W5"},
	{"messy apostrophe", "'10-36-42-3-W5", lsd(10, 36, 42, 3, lld.W5), "10-36-42-3-W5"},
	{"messy tabs and newline", "\tNW 25 24 1 W5\r\n", quarter(lld.NW, 25, 24, 1, lld.W5), "NW-25-24-1-W5"},
	{"messy zero width space", "NW-25\u200b-24-1-W5", quarter(lld.NW, 25, 24, 1, lld.W5), "NW-25-24-1-W5"},
	{"messy narrow nbsp", "NW\u202f25\u202f24\u202f1\u202fW5", quarter(lld.NW, 25, 24, 1, lld.W5), "NW-25-24-1-W5"},
	{"messy full width", "ＮＷ－２５－２４－１－Ｗ５", quarter(lld.NW, 25, 24, 1, lld.W5), "NW-25-24-1-W5"},
	{"messy quarter symbol", "SW¼ 25-24-1-W5", quarter(lld.SW, 25, 24, 1, lld.W5), "SW-25-24-1-W5"},
	{"messy apostrophe in place", "RL-22-St. Mary's", riverLot("RL", "22", "St. Marys"), "RL-22-St. Marys"},
	{"messy river lot smart apostrophe", "RL-22-St. Mary\u2019s", riverLot("RL", "22", "St. Marys"), "RL-22-St. Marys"},
}

func TestParse(t *testing.T) {
	t.Parallel()
	for _, tc := range parseTests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := lld.Parse(tc.in)
			if err != nil {
				t.Fatalf("Parse(%q) error: %v", tc.in, err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Parse(%q) mismatch (-want +got):\n%s", tc.in, diff)
			}
			if s := got.String(); s != tc.canon {
				t.Errorf("Parse(%q).String() = %q, want %q", tc.in, s, tc.canon)
			}
		})
	}
}

// TestRoundTrip checks that the canonical string of every table case parses
// back to the same Location.
func TestRoundTrip(t *testing.T) {
	t.Parallel()
	for _, tc := range parseTests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			canon := tc.want.String()
			got, err := lld.Parse(canon)
			if err != nil {
				t.Fatalf("Parse(%q) error: %v", canon, err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Parse(%q) mismatch (-want +got):\n%s", canon, diff)
			}
		})
	}
}

// parseErrorTests are rejected inputs with a piece of the message, which
// must name the part that is wrong. FuzzParse seeds from them too.
var parseErrorTests = []struct {
	name string
	in   string
	want string
}{
	{"empty", "", "legal location is empty"},
	{"blank", " \u00a0\t", "legal location is empty"},
	{"garbage", "foo", `"foo" is not a legal land description; examples: NW-25-24-1-W5, 10-36-42-3-W5, A-2-F/93-P-8, Lot 10 Con 1 Adjala, RL-22-St. Norbert`},
	{"garbage words", "hello world 5", "is not a legal land description"},
	{"only separators", "-- / --", "is not a legal land description"},
	{"only a comment", "(MONARCH COMP STN)", "is not a legal land description"},
	{"bare number", "25", "is not a legal land description"},
	{"place alone", "Adjala", "is not a legal land description"},
	{"too long", "NW-25-24-1-W5 " + strings.Repeat("x", 300), "too long: at most 256 characters"},
	{"invalid utf-8", "NW-25-24-1-W5\xff", "not valid UTF-8"},

	// DLS ranges.
	{"section 37", "NW-37-1-1-W5", "section 37 is out of range: sections are 1-36"},
	{"section 0", "0-1-1-W5", "section 0 is out of range: sections are 1-36"},
	{"lsd 17", "17-36-42-3-W5", "LSD 17 is out of range: LSDs are 1-16"},
	{"lsd 0", "00-36-42-3-W5", "LSD 0 is out of range: LSDs are 1-16"},
	{"township 0", "NW-25-0-1-W5", "township 0 is out of range: townships are 1-126"},
	{"township 127", "NW-25-127-1-W5", "township 127 is out of range: townships are 1-126"},
	{"township huge", "NW-25-99999999999999999999-1-W5", "township 99999999999999999999 is out of range: townships are 1-126"},
	{"range 35", "NW-25-24-35-W5", "range 35 is out of range: ranges are 1-34"},
	{"range 0", "25-24-000-W5", "range 0 is out of range: ranges are 1-34"},
	{"quarter XX", "XX-25-24-1-W5", `quarter "XX" is not valid: quarters are NE, NW, SE, SW (halves N, S, E, W)`},
	{"meridian W8", "NW-25-24-1-W8", "meridian W8 is not valid: meridians are W1-W6, E1, E2"},
	{"meridian W7", "NW-25-24-1-W7", "meridian W7 is not valid"},
	{"meridian W0", "NW-25-24-1-W0", "meridian W0 is not valid"},
	{"meridian E0", "NW-25-24-1-E0", "meridian E0 is not valid"},
	{"meridian E3", "NW-25-24-1-E3", "meridian E3 is not valid"},
	{"meridian labelled 9", "Sec 25 Twp 24 Rge 1 Mer 9", "meridian 9 is not valid"},
	{"meridian without number", "NE-11-33-29W", `meridian "W" has no number`},
	{"meridian twice", "NW-25-24-1-W5-W5", "gives the meridian twice"},

	// Missing meridian: never guessed.
	{"missing meridian section", "25-24-1-4", "meridian is missing: write it as W4 (e.g. 25-24-1-W4)"},
	{"missing meridian section 2", "33-38-18-2", "meridian is missing: write it as W2 (e.g. 33-38-18-W2)"},
	{"missing meridian quarter", "SW-7-04-26-2", "meridian is missing: write it as W2 (e.g. SW-7-4-26-W2)"},
	{"missing meridian lsd", "10-36-42-3-5", "meridian is missing: write it as W5 (e.g. 10-36-42-3-W5)"},
	{"missing meridian ambiguous", "25-24-1", "meridian is missing: end the description with W1-W6, E1 or E2"},
	{"missing meridian partial", "NW-25-24", "meridian is missing"},
	{"missing meridian labelled", "Sec 25 Twp 24 Rge 1", "meridian is missing"},
	{"missing meridian big last", "10-36-42-13", "meridian is missing: end the description"},

	// DLS structure.
	{"lsd and quarter", "NW-10-36-42-3-W5", "LSD 10 and quarter NW given together: give one or the other (e.g. 10-36-42-3-W5 or NW-36-42-3-W5)"},
	{"incomplete", "24-W5", "is incomplete: township and range come before the meridian"},
	{"quarter without section", "NW 24-1-W5", "quarter NW needs a section"},
	{"lsd without section", "LSD 10 Twp 24 Rge 1 W5", "LSD 10 needs a section"},
	{"too many numbers", "1-2-3-4-5-6-W5", "has too many numbers"},
	{"label without number", "Sec NW 24 1 W5", `"Sec" must be followed by a section number`},
	{"label at end", "24-1-W5 Twp", `"Twp" must be followed by a township number`},
	{"field twice", "Sec 25 Sec 26 Twp 24 Rge 1 W5", "gives the section twice"},
	{"number after meridian", "25-24-1-W5 5", `"5" follows the meridian`},
	{"quarter after meridian", "25-24-1-W5 NW", `"NW" is not expected there`},
	{"glued junk after meridian", "NW-25-24-1-W5X", `"X" is not expected there`},
	{"bad meridian letter", "NW-25-24-1-Q5", `"Q" is not expected there`},
	{"half as quarter", "SE 1/2 25-24-1-W5", "SE 1/2 is not valid"},
	{"quarter as half", "N 1/4 25-24-1-W5", "N 1/4 is not valid"},
	{"fraction alone", "1/4 25-24-1-W5", "1/4 must follow a quarter or half"},
	{"two quarters", "NW SE 25-24-1-W5", `"SE" is not expected there`},
	{"Quarter without which", "Quarter Sec 25 Twp 24 Rge 1 W5", "names a Quarter but not which"},
	{"punctuation", "NW-25-24-1;W5", `";" is not expected there`},

	// NTS ranges.
	{"nts quarter unit E", "E-2-F/93-P-8", `quarter unit "E" is not valid: quarter units are A-D`},
	{"nts unit 101", "A-101-F/93-P-8", "unit 101 is out of range: units are 1-100"},
	{"nts unit 0", "A-000-F/93-P-8", "unit 0 is out of range: units are 1-100"},
	{"nts block M", "A-2-M/93-P-8", `block "M" is not valid: blocks are A-L`},
	{"nts series 95", "A-2-F/95-P-8", "NTS series 95 is not valid: BC series are 82, 83, 92, 93, 94, 102, 103, 104, 114"},
	{"nts series 95 sheet", "95-P-8", "NTS series 95 is not valid"},
	{"nts area Q", "A-2-F/93-Q-8", `map area "Q" is not valid: map areas are A-P`},
	{"nts area Q sheet", "093Q08", `map area "Q" is not valid`},
	{"nts sheet 17", "A-2-F/93-P-17", "map sheet 17 is out of range: sheets are 1-16"},
	{"nts sheet 0", "93-P-0", "map sheet 0 is out of range"},

	// Manitoba lots.
	{"river lot without parish", "RL-22", "parish is missing: write a Manitoba lot as RL-22-St. Norbert"},
	{"river lot only Parish of", "RL-22, Parish of", "parish is missing"},
	{"river lot without lot", "RL", "lot is missing"},
	{"river lot 0", "RL-0-St. Norbert", "lot 0 is out of range"},
	{"river lot long label", "RL-123456789-St. Norbert", `lot "123456789" is not valid`},
	{"river lot parish digits", "RL-22-St. Norbert 2", `parish "St. Norbert 2" is not valid`},
	{"manitoba lot without kind", "Lot 52, Parish of St. Andrews", "does not say which kind of Manitoba lot"},

	// Ontario.
	{"ontario without township", "Lot 10 Con 1", "township is missing"},
	{"ontario without concession", "Lot 10 Adjala", "concession is missing"},
	{"ontario half lot", "Lot 10 1/2 Con 1 Adjala", "lot 10 1/2 is not supported: give the whole lot"},
	{"ontario lot twice", "Lot 10 Lot 11 Con 1 Adjala", "gives the lot twice"},
	{"ontario township word only", "Township", "township name is missing"},
	{"ontario township of nothing", "Township of", "township name is missing"},
	{"ontario bad place", "Lot 10 Con 1 Adj@la", `township "Adj@la" is not valid`},
	{"ontario reserved word", "Township of Lot", `township "Lot" is not valid`},

	// UWIs.
	{"uwi survey 3", "300/06-32-048-07W5/00", "UWI survey system 3 is not supported"},
	{"uwi section", "100/25-24-1-W5/00", "UWI location 25-24-1-W5 is a section"},
	{"uwi survey mismatch", "200/06-32-048-07W5/00", "UWI survey system 2 does not match its DLS location"},
	{"uwi lsd 17", "100/17-32-048-07W5/00", "LSD 17 is out of range"},
	{"uwi compact section 37", "100063704807W500", "section 37 is out of range"},
	{"uwi compact meridian W7", "100063204807W700", "meridian W7 is not valid"},
	{"uwi compact nts block M", "200D080M092G0300", `block "M" is not valid`},
}

func TestParseErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range parseErrorTests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := lld.Parse(tc.in)
			if err == nil {
				t.Fatalf("Parse(%q) = %v, want error containing %q", tc.in, got, tc.want)
			}
			checkError(t, "Parse", tc.in, err, tc.want)
		})
	}
}

func checkError(t *testing.T, fn, in string, err error, want string) {
	t.Helper()
	e := apierr.As(err)
	if e == nil {
		t.Fatalf("%s(%q) error %v (%T), want *apierr.Error", fn, in, err, err)
	}
	if e.Kind != apierr.Invalid || e.Code != lld.ErrorCode {
		t.Errorf("%s(%q) error kind %v code %q, want %v %q", fn, in, e.Kind, e.Code, apierr.Invalid, lld.ErrorCode)
	}
	if !strings.Contains(e.Message, want) {
		t.Errorf("%s(%q) error message %q, want it to contain %q", fn, in, e.Message, want)
	}
}

// TestParseGroundTruth parses every spelling in the team's ground-truth
// sample, as its sources write them.
func TestParseGroundTruth(t *testing.T) {
	t.Parallel()
	for _, in := range teamdata.Column(t, teamdata.GroundTruthFile, ',', "lld") {
		l, err := lld.Parse(in)
		if err != nil {
			t.Errorf("Parse(%q) error: %v", in, err)
			continue
		}
		if l.Unit != lld.LSD && l.Unit != lld.QuarterUnit && l.Unit != lld.QuarterSection {
			t.Errorf("Parse(%q) unit = %v, want LSD, Quarter Unit or Quarter Section", in, l.Unit)
		}
		if back, err := lld.Parse(l.String()); err != nil || back != l {
			t.Errorf("Parse(%q) = %v, %v, want %v", l.String(), back, err, l)
		}
	}
}

func BenchmarkParse(b *testing.B) {
	for _, bc := range []struct{ name, in string }{
		{"Quarter", "NW-25-24-1-W5"},
		{"QuarterSpaces", "nw 25 24 1 w5m"},
		{"LSD", "10-36-42-3-W5"},
		{"LSDPadded", "LSD 06-32-048-07W5"},
		{"Section", "25-24-1-W5"},
		{"Township", "24-1-W5"},
		{"Labelled", "SW 1/4 Sec 25 Twp 24 Rge 1 W5M"},
		{"TrailingComment", "SE-15-48-2-W5, Cochrane, AB"},
		{"Messy", "\u00a0NW\u201325\u201324\u20131\u2013W5"},
		{"UWIDisplay", "100/06-32-048-07W5/00"},
		{"UWICompact", "100103604203W500"},
		{"NTS", "D-080-H/092-G-03"},
		{"NTSSheet", "093P08"},
		{"RiverLot", "RL-22-St. Norbert"},
		{"Ontario", "Lot 10 Con 1 Adjala"},
	} {
		b.Run(bc.name, func(b *testing.B) {
			if _, err := lld.Parse(bc.in); err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				lld.Parse(bc.in)
			}
		})
	}
}
