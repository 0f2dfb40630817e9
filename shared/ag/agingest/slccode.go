package agingest

import "strings"

// Code tables of the SLC v3.2 soil name and component tables, after the
// Canadian System of Soil Classification (3rd ed., 1998) and the SLC v3.2
// data dictionary (docs/data-sources.md §12). Every code of the AB/SK/MB
// sample has a label (a test checks it). Codes marked ⚠ in comments are
// from the classification or the data dictionary but not seen in the
// sample; a code in no table has no label and is kept as it is.

// soilOrders labels ORDER3 (and ORDER2).
var soilOrders = map[string]string{
	"BR": "Brunisolic",
	"CH": "Chernozemic",
	"CY": "Cryosolic",
	"GL": "Gleysolic",
	"LU": "Luvisolic",
	"OR": "Organic",
	"PZ": "Podzolic", // ⚠
	"RG": "Regosolic",
	"SZ": "Solonetzic",
	"VE": "Vertisolic",
	"-":  "Non-soil",
}

// greatGroups labels G_GROUP3.
var greatGroups = map[string]string{
	// Chernozemic
	"BC":  "Brown Chernozem",
	"DBC": "Dark Brown Chernozem",
	"BLC": "Black Chernozem",
	"DGC": "Dark Gray Chernozem",
	// Luvisolic
	"GL":  "Gray Luvisol",
	"GBL": "Gray Brown Luvisol", // ⚠
	// Gleysolic
	"HG": "Humic Gleysol",
	"G":  "Gleysol",
	"LG": "Luvic Gleysol",
	// Solonetzic
	"SZ":  "Solonetz",
	"SS":  "Solodized Solonetz",
	"SO":  "Solod",
	"VSZ": "Vertic Solonetz", // ⚠
	// Regosolic
	"R":  "Regosol",
	"HR": "Humic Regosol",
	// Brunisolic
	"EB":  "Eutric Brunisol",
	"DYB": "Dystric Brunisol",
	"MB":  "Melanic Brunisol", // ⚠
	"SB":  "Sombric Brunisol", // ⚠
	// Organic
	"F":  "Fibrisol",
	"M":  "Mesisol",
	"H":  "Humisol",
	"FO": "Folisol", // ⚠
	// Cryosolic
	"OC": "Organic Cryosol",
	"TC": "Turbic Cryosol", // ⚠
	"SC": "Static Cryosol", // ⚠
	// Vertisolic
	"V":  "Vertisol",
	"HV": "Humic Vertisol",
	// Podzolic ⚠
	"HP":  "Humic Podzol",
	"FHP": "Ferro-Humic Podzol",
	"HFP": "Humo-Ferric Podzol",
	"-":   "Non-soil",
}

// subgroupPrefixes labels S_GROUP3, the modifier that precedes the great
// group in a subgroup's name.
var subgroupPrefixes = map[string]string{
	"O":    "Orthic",
	"R":    "Rego",
	"CA":   "Calcareous",
	"E":    "Eluviated",
	"SZ":   "Solonetzic",
	"V":    "Vertic",
	"GL":   "Gleyed",
	"GLR":  "Gleyed Rego",
	"GLCA": "Gleyed Calcareous",
	"GLE":  "Gleyed Eluviated",
	"GLSZ": "Gleyed Solonetzic",
	"GLV":  "Gleyed Vertic", // ⚠
	"GLC":  "Gleysolic",
	"BR":   "Brunisolic",
	"D":    "Dark",
	"GLD":  "Gleyed Dark",
	"GLBR": "Gleyed Brunisolic", // ⚠
	"FE":   "Fera",
	"HU":   "Humic",
	"CU":   "Cumulic",
	"GLCU": "Gleyed Cumulic",
	"TY":   "Typic",
	"ME":   "Mesic",
	"FI":   "Fibric",
	"T":    "Terric",
	"TME":  "Terric Mesic",
	"TFI":  "Terric Fibric",
	"THU":  "Terric Humic",
	"L":    "Limno",  // ⚠
	"HY":   "Hydric", // ⚠
	"DU":   "Duric",  // ⚠
	"PZ":   "Podzolic",
	"-":    "",
}

// solonetzicPrefixes overrides subgroupPrefixes in the Solonetzic order,
// whose subgroups are named by the colour of the Chernozem they sit in:
// B is Brown there, not Brunisolic.
var solonetzicPrefixes = map[string]string{
	"B":    "Brown",
	"DB":   "Dark Brown",
	"BL":   "Black",
	"DG":   "Dark Gray", // ⚠
	"G":    "Gray",
	"A":    "Alkaline", // ⚠
	"GLB":  "Gleyed Brown",
	"GLDB": "Gleyed Dark Brown",
	"GLBL": "Gleyed Black",
	"GLDG": "Gleyed Dark Gray", // ⚠
	"GLG":  "Gleyed Gray",      // ⚠
	"V":    "Vertic",           // ⚠
}

// drainageClasses labels DRAINAGE.
var drainageClasses = map[string]string{
	"VR": "Very rapidly drained",
	"R":  "Rapidly drained",
	"W":  "Well drained",
	"MW": "Moderately well drained",
	"I":  "Imperfectly drained",
	"P":  "Poorly drained",
	"VP": "Very poorly drained",
}

// soilKinds labels KIND. The sample has N (bedrock, ice) besides the M, O
// and U of data-sources.md §12; U marks miscellaneous land types (marsh,
// alluvium, eroded slopes) that are not classified to a series.
var soilKinds = map[string]string{
	"M": "Mineral",
	"O": "Organic",
	"N": "Non-soil",
	"U": "Unclassified",
}

// SlopeClass is a slope gradient class of the SLC component table.
type SlopeClass struct {
	Code  string // A ... H
	Range string // percent gradient, "0-3%"
	Label string
}

// slopeClasses are the SLOPE letters. The percent ranges are ⚠
// unverified (data-sources.md §12 gives them as "commonly"; the sample has
// A to F); G and H continue the Canadian slope classes.
var slopeClasses = map[string]SlopeClass{
	"A": {"A", "0-3%", "Level to nearly level"},
	"B": {"B", "4-9%", "Gently sloping"},
	"C": {"C", "10-15%", "Moderately sloping"},
	"D": {"D", "16-30%", "Strongly sloping"},
	"E": {"E", "31-45%", "Steeply sloping"},
	"F": {"F", "46-70%", "Very steeply sloping"},
	"G": {"G", "71-100%", "Extremely sloping"}, // ⚠
	"H": {"H", ">100%", "Precipitous"},         // ⚠
}

// stoninessClasses labels STONE (⚠ the letters are from data-sources.md,
// the sample has N, S, V and U).
var stoninessClasses = map[string]string{
	"N": "Non-stony",
	"S": "Slightly stony",
	"M": "Moderately stony", // ⚠
	"V": "Very stony",
	"E": "Exceedingly stony", // ⚠
	"U": "Unknown",
}

// surfaceForms labels the letter of LOCSF (local surface form). Codes
// with digits (B07, F13, M14) name a landform model ⚠ whose meaning is not
// documented here; they get the label of their letter only where that
// letter alone is a surface form (M14 is rolling, B07 has no label).
var surfaceForms = map[string]string{
	"U": "Undulating",
	"H": "Hummocky",
	"L": "Level",
	"D": "Dissected",
	"R": "Ridged",
	"M": "Rolling",
	"I": "Inclined",
	"S": "Steep",
	"T": "Terraced",
}

// SoilOrder returns the label of an ORDER3 code ("CH" -> "Chernozemic").
func SoilOrder(code string) (string, bool) { return lookup(soilOrders, code) }

// GreatGroup returns the label of a G_GROUP3 code ("BLC" -> "Black
// Chernozem").
func GreatGroup(code string) (string, bool) { return lookup(greatGroups, code) }

// Drainage returns the label of a DRAINAGE code ("W" -> "Well drained").
func Drainage(code string) (string, bool) { return lookup(drainageClasses, code) }

// SoilKind returns the label of a KIND code ("M" -> "Mineral").
func SoilKind(code string) (string, bool) { return lookup(soilKinds, code) }

// Stoniness returns the label of a STONE code ("S" -> "Slightly stony").
func Stoniness(code string) (string, bool) { return lookup(stoninessClasses, code) }

// SurfaceForm returns the label of a LOCSF code ("H" -> "Hummocky"; see
// surfaceForms for codes with digits).
func SurfaceForm(code string) (string, bool) {
	if l, ok := surfaceForms[code]; ok {
		return l, true
	}
	if len(code) > 1 && code[0] == 'M' {
		return surfaceForms["M"], true
	}
	return "", false
}

// Slope returns the slope class of a SLOPE letter.
func Slope(code string) (SlopeClass, bool) {
	c, ok := slopeClasses[code]
	return c, ok
}

// SubgroupPrefix returns the label of an S_GROUP3 code within a soil
// order: "O" -> "Orthic"; "B" -> "Brown" in the Solonetzic order.
func SubgroupPrefix(order, code string) (string, bool) {
	if order == "SZ" {
		if l, ok := solonetzicPrefixes[code]; ok {
			return l, true
		}
	}
	l, ok := subgroupPrefixes[code]
	return l, ok && l != ""
}

func lookup(m map[string]string, code string) (string, bool) {
	l, ok := m[code]
	return l, ok
}

// Classification is a soil's place in the Canadian System of Soil
// Classification, with labels: what the report's soil.classification
// carries.
type Classification struct {
	OrderCode      string // ORDER3: "CH"
	Order          string // "Chernozemic"
	GreatGroupCode string // G_GROUP3: "BLC"
	GreatGroup     string // "Black Chernozem"
	SubgroupCode   string // S_GROUP3.G_GROUP3: "O.BLC"
	Subgroup       string // "Orthic Black Chernozem"
}

// Classify labels a soil name's ORDER3, G_GROUP3 and S_GROUP3. The
// subgroup is the S_GROUP3 prefix followed by the great group ("O" + "BLC"
// = "Orthic Black Chernozem", "GLR" + "BLC" = "Gleyed Rego Black
// Chernozem", "B" + "SS" = "Brown Solodized Solonetz"). Non-soils ("-")
// and unclassified soils that have an order but no great group get the
// order alone; unknown codes leave their labels empty.
func Classify(n SoilName) Classification {
	c := Classification{OrderCode: n.Order3, GreatGroupCode: n.GreatGroup3}
	c.Order, _ = SoilOrder(n.Order3)
	if n.GreatGroup3 == "" || n.GreatGroup3 == "-" {
		c.GreatGroupCode = ""
		return c
	}
	c.GreatGroup, _ = GreatGroup(n.GreatGroup3)
	if n.Subgroup3 == "" || n.Subgroup3 == "-" {
		return c
	}
	c.SubgroupCode = n.Subgroup3 + "." + n.GreatGroup3
	if p, ok := SubgroupPrefix(n.Order3, n.Subgroup3); ok && c.GreatGroup != "" {
		c.Subgroup = p + " " + c.GreatGroup
	}
	return c
}

// SubgroupName returns the full name of a subgroup code such as "O.BLC"
// ("Orthic Black Chernozem") or "GLR.BLC"; order disambiguates the few
// prefixes whose meaning depends on it (pass "" when unknown).
func SubgroupName(order, code string) (string, bool) {
	pre, gg, ok := strings.Cut(code, ".")
	if !ok {
		return "", false
	}
	if order == "" {
		switch gg {
		case "SZ", "SS", "SO", "VSZ":
			order = "SZ"
		}
	}
	p, ok1 := SubgroupPrefix(order, pre)
	g, ok2 := GreatGroup(gg)
	if !ok1 || !ok2 || gg == "-" {
		return "", false
	}
	return p + " " + g, true
}
