package energyingest

import (
	"fmt"
	"strings"

	"meridian/shared/ingest"
)

// Code is one value of a well status code table: the number, AER's short
// description (the one ST37's 24-column layout and Petrinex print) and the
// long description.
type Code struct {
	Value       int
	Short       string
	Description string
}

// StatusPart names one of the four code tables behind ST37's 10-digit
// WELL-STAT-CODE, FF MM TT SS 00.
type StatusPart uint8

// The parts of a well status code, in the order of its digits.
const (
	Fluid     StatusPart = iota // digits 1-2: what the well produces or injects
	Mode                        // digits 3-4: flowing, pumping, suspended, abandoned ...
	Type                        // digits 5-6: injection, disposal, observation ...
	Structure                   // digits 7-8: dual zone, commingled ...
)

// String returns "fluid", "mode", "type" or "structure".
func (p StatusPart) String() string {
	switch p {
	case Fluid:
		return "fluid"
	case Mode:
		return "mode"
	case Type:
		return "type"
	case Structure:
		return "structure"
	}
	return fmt.Sprintf("StatusPart(%d)", uint8(p))
}

// Codes returns a copy of the part's code table, in value order.
func (p StatusPart) Codes() []Code {
	return append([]Code(nil), p.table()...)
}

// Lookup returns the code with value v.
func (p StatusPart) Lookup(v int) (Code, bool) {
	for _, c := range p.table() {
		if c.Value == v {
			return c, true
		}
	}
	return Code{}, false
}

func (p StatusPart) table() []Code {
	switch p {
	case Fluid:
		return fluidCodes
	case Mode:
		return modeCodes
	case Type:
		return typeCodes
	case Structure:
		return structureCodes
	}
	return nil
}

// WellStatus is ST37's WELL-STAT-CODE split into its parts. Values missing
// from the code tables are kept; Lookup tells whether a table knows them.
type WellStatus struct {
	Code      string // the 10 digits as published: "0002000000"
	Fluid     int    // FF, see Fluid.Lookup: 1 CR-OIL, 2 GAS, 6 WATER ...
	Mode      int    // MM: 1 SUSP, 2 ABD, 10 FLOW, 11 PUMP ...
	Type      int    // TT: 3 INJ, 4 DISP, 12 SAGD ...
	Structure int    // SS: 2 2Z, 5 COMMIN ...
}

// ParseWellStatus splits a 10-digit WELL-STAT-CODE. The last two digits
// are unused and not checked beyond being digits.
func ParseWellStatus(s string) (WellStatus, error) {
	if len(s) != 10 || !ingest.AllDigits(s) {
		return WellStatus{}, fmt.Errorf("%q is not a 10-digit well status code", s)
	}
	n := func(i int) int { return int(s[i]-'0')*10 + int(s[i+1]-'0') }
	return WellStatus{Code: s, Fluid: n(0), Mode: n(2), Type: n(4), Structure: n(6)}, nil
}

// Part returns the value of part p.
func (s WellStatus) Part(p StatusPart) int {
	switch p {
	case Fluid:
		return s.Fluid
	case Mode:
		return s.Mode
	case Type:
		return s.Type
	case Structure:
		return s.Structure
	}
	return 0
}

// Short returns the short description of part p ("GAS", "FLOW"), or the
// two-digit value when the table does not know it.
func (s WellStatus) Short(p StatusPart) string {
	v := s.Part(p)
	if c, ok := p.Lookup(v); ok {
		return c.Short
	}
	return fmt.Sprintf("%02d", v)
}

// The code tables of WELL-STAT-CODE, transcribed from AER's ST37 layout
// document (samples/aer-st37/well_status_codes_*.csv; a test compares them
// when the samples are present).

var fluidCodes = []Code{
	{0, "N/A", "Not Applicable"},
	{1, "CR-OIL", "CRUDE OIL"},
	{2, "GAS", "GAS"},
	{3, "OIL", "OIL"},
	{4, "G-W", "GAS-WATER"},
	{5, "UND", "UNDESIGNATED"},
	{6, "WATER", "WATER"},
	{7, "BRINE", "BRINE"},
	{8, "WASTE", "WASTE"},
	{9, "SOLV", "SOLVENT"},
	{10, "STEAM", "STEAM"},
	{11, "AIR", "AIR"},
	{12, "SYN-CR", "SYNTHETIC CRUDE"},
	{13, "CO2", "CARBON DIOXIDE"},
	{14, "POLYM", "POLYMER"},
	{15, "N2", "NITROGEN"},
	{16, "LPG", "LIQUID PETROLEUM GAS"},
	{17, "CR-BIT", "CRUDE BITUMEN"},
	{18, "COND", "CONDENSATE"},
	{19, "OXYGEN", "OXYGEN"},
	{20, "ACID-G", "ACID GAS"},
	{22, "CBMOT", "COALBED METHANE-COALS&OTH LITH"},
	{23, "CBMCLS", "COALBED METHANE-COALS ONLY"},
	{24, "SHGOT", "SHALE GAS&OTHER SOURCES"},
	{25, "SHG", "SHALE GAS ONLY"},
	{26, "CBMSOT", "CBM&SHALE&OTHER SOURCES"},
	{50, "AN AMM", "ANHYDROUS AMMONIA"},
	{51, "CR O/B", "CRUDE OIL/BIT"},
	{52, "NAPHTH", "NAPHTHA"},
	{53, "PROPNE", "PROPANE"},
	{54, "BUTANE", "BUTANES"},
	{55, "ETHANE", "ETHANE"},
	{56, "ETH +", "ETHANE PLUS"},
	{57, "PENT +", "PENTANES PLUS"},
	{58, "DIESEL", "DIESEL OIL"},
	{59, "ALKH2O", "ALKALINE WATER"},
	{60, "MICLAR", "MICELLAR"},
	{61, "SKIM O", "SKIM OIL"},
	{62, "SK EM", "SKIM EMULSION"},
	{63, "AMMNIT", "AMMONIUM NITRATE"},
	{64, "SRCWTE", "SOURCE WATER"},
	{65, "SAND", "SAND"},
	{66, "ENTGAS", "ENTRAINED GAS"},
	{98, "MISC", "MISCELLANEOUS"},
}

var modeCodes = []Code{
	{0, "N/A", "Not Applicable"},
	{1, "SUSP", "SUSPENDED"},
	{2, "ABD", "ABANDONED"},
	{3, "ABZONE", "ABANDONED ZONE"},
	{4, "ABRENT", "ABANDONED & RE-ENTERED"},
	{5, "CAPPED", "CAPPED"},
	{6, "POT", "POTENTIAL"},
	{7, "DRL&C", "DRILLED AND CASED"},
	{8, "J&A", "JUNKED & ABANDONED"},
	{9, "CLOSED", "CLOSED"},
	{10, "FLOW", "FLOWING"},
	{11, "PUMP", "PUMPING"},
	{12, "GASLFT", "GAS LIFT"},
	{13, "TEST", "TESTING"},
	{14, "ABDWHP", "ABANDONED & WHIPSTOCKED"},
	{15, "D&COMP", "DRILLING AND COMPLETING"},
	{16, "TSTCMP", "TEST COMPLETED"},
	{17, "PRESET", "PRESET"},
}

var typeCodes = []Code{
	{0, "N/A", "Not Applicable"},
	{1, "REPRO.", "REPRODUCER"},
	{2, "STORG", "STORAGE"},
	{3, "INJ", "INJECTION"},
	{4, "DISP", "DISPOSAL"},
	{5, "OBSERV", "OBSERVATION"},
	{6, "TRAING", "TRAINING"},
	{7, "EX.", "EXPERIMENTAL"},
	{8, "FARM", "FARM"},
	{9, "INDUS", "INDUSTRIAL"},
	{10, "CYCL", "CYCLICAL"},
	{11, "SOURCE", "SOURCE"},
	{12, "SAGD", "STEAM ASSIS GRAVITY DRAIN"},
	{14, "CAVERN", "LINKED TO A CAVERN"},
}

var structureCodes = []Code{
	{0, "N/A", "Not Applicable"},
	{2, "2Z", "DUAL ZONE"},
	{3, "3Z", "TRIPLE ZONE"},
	{4, "4Z", "FOUR ZONE"},
	{5, "COMMIN", "COMMINGLED"},
	{6, "DRAIN", "DRAIN"},
}

// petrinexWords are the spellings Petrinex Well Infrastructure prints in
// WellStatusMode and WellStatusType where they differ from AER's short
// descriptions, by code value (docs/real-layouts.md, evidence id
// 23718322573: a loader of the real "Well Infrastructure-AB.CSV" maps
// ABAN, DRL & C, J & A, Tstcmp, D & COMP, STOR ...). Spacing and case
// differences alone ("DRL & C" for DRL&C) need no entry: statusKey
// ignores them.
var petrinexWords = map[StatusPart]map[int]string{
	Mode: {2: "ABAN", 7: "DRL & C", 8: "J & A", 15: "D & COMP", 16: "Tstcmp"},
	Type: {2: "STOR"},
}

// PetrinexWord returns the word Petrinex prints for value v of part p:
// its own spelling where it has one (Mode 2 "ABAN"), else AER's short
// description; false when the table does not know v.
func (p StatusPart) PetrinexWord(v int) (string, bool) {
	if w, ok := petrinexWords[p][v]; ok {
		return w, true
	}
	c, ok := p.Lookup(v)
	return c.Short, ok
}

// statusKey folds a status word for comparison: upper case, no spaces.
func statusKey(s string) string {
	return strings.ToUpper(strings.Join(strings.Fields(s), ""))
}

// LookupWord returns the code of part p that word names: AER's short
// description or long description, or Petrinex's spelling, compared
// without regard to case or spaces ("DRL & C" and "drl&c" are DRL&C,
// "Tstcmp" is TSTCMP, "ABAN" is ABD).
func (p StatusPart) LookupWord(word string) (Code, bool) {
	k := statusKey(word)
	if k == "" {
		return Code{}, false
	}
	for v, w := range petrinexWords[p] {
		if statusKey(w) == k {
			return p.Lookup(v)
		}
	}
	for _, c := range p.table() {
		if statusKey(c.Short) == k || statusKey(c.Description) == k {
			return c, true
		}
	}
	return Code{}, false
}

// Words returns the words LookupWord knows for part p, for messages:
// the short descriptions, then Petrinex's own spellings.
func (p StatusPart) Words() []string {
	var out []string
	for _, c := range p.table() {
		out = append(out, c.Short)
	}
	for _, c := range p.table() {
		if w, ok := petrinexWords[p][c.Value]; ok {
			out = append(out, w)
		}
	}
	return out
}
