package energy

import (
	"fmt"
	"math"
	"strings"
	"unicode"
)

// Keys of the energy dataset in the report store (package kv): one table,
// every read an exact partition key (PK) plus a sort-key (SK) prefix or
// range, items written once per access pattern. The SK order is the list's
// default order, so a page is one Query and the next page starts after the
// last SK (the list's cursor); other sorts and filters stream the partition
// (ACCESS.md). The roll-ups that give the lists their totals are
// in rollups.go.
//
//	access pattern                              PK                       SK
//	wells on an LSD, by status                  LSD#<lsd>                WELL#<rank>#<uwi>
//	pipeline segments crossing an LSD, H2S desc LSD#<lsd>                PIPE#<inverted h2s>#<segment>
//	facilities on an LSD, by status             LSD#<lsd>                FAC#<rank>#<facility id>
//	dispositions over an LSD, soonest expiry    LSD#<lsd>                TEN#<expiry|9999-12-31>#<id>
//	an LSD's 12-month production                LSD#<lsd>                PROD
//	one well's 12-month production              LSD#<lsd>                PRODWELL#<uwi>
//	a quarter's LSD summaries (tile roll-ups)   QS#<quarter>             LSD#<lsd>
//	operator by BA code                         OP#<ba>                  INFO
//	operator by slug or squashed name           OPNAME#<slug|squash>     BA
//	operator's wells, by UWI                    OP#<ba>                  WELL#<uwi>
//	operator's dispositions, by expiry          OP#<ba>                  DISP#<expiry|9999-12-31>#<id>
//	operator's footprint, most wells first      OP#<ba>                  LSD#<inverted total>#<lsd>
//	operators, most orphan wells first          OPERATORS                <inverted orphans>#<ba>
//	disposition detail                          DISP#<id>                INFO
//	pipeline licence detail, its segments       PIPELINE#<licence>       SEG#<line>#<segment>
//	tenure expiring in a window, soonest first  EXPIRING                 <expiry YYYY-MM-DD>#<id>  (SK range today..today+window)
//
// Expiry state and urgency depend on the day of the request, so they are
// never stored in a key: expiry dates are, and the reader splits expired
// from expiring at read time. Perpetual dispositions have no EXPIRING item.
const (
	SKInfo       = "INFO"
	SKProduction = "PROD"
	PKOperators  = "OPERATORS"
	PKExpiring   = "EXPIRING"
	noExpiry     = "9999-12-31"
)

// The partition-key prefixes: what LSDKey and the others begin with.
// Readers that scan a kind of partition (the tile builders) select it by
// its prefix.
const (
	PKLSDPrefix          = "LSD#"
	PKQuarterPrefix      = "QS#"
	PKOperatorPrefix     = "OP#"
	PKOperatorNamePrefix = "OPNAME#"
	PKDispositionPrefix  = "DISP#"
	PKPipelinePrefix     = "PIPELINE#"
)

// LSDKey and the others build partition keys from canonical legal
// locations and identifiers.
func LSDKey(lsd string) string           { return PKLSDPrefix + lsd }
func QuarterKey(quarter string) string   { return PKQuarterPrefix + quarter }
func OperatorKey(ba string) string       { return PKOperatorPrefix + strings.ToUpper(ba) }
func OperatorNameKey(name string) string { return PKOperatorNamePrefix + name }
func DispositionKey(id string) string    { return PKDispositionPrefix + id }
func PipelineKey(licence string) string  { return PKPipelinePrefix + licence }

// The sort-key prefixes of a parcel's (and an operator's) rows by kind,
// what WellSK, PipeSK, FacilitySK and TenureSK begin with: readers select a
// kind with them.
const (
	SKWellPrefix     = "WELL#"
	SKPipePrefix     = "PIPE#"
	SKFacilityPrefix = "FAC#"
	SKTenurePrefix   = "TEN#"
)

// The sort-key prefixes of the other rows: an operator's dispositions
// (OperatorDispositionSK) and LSDs (FootprintSK), a pipeline licence's
// segments (SegmentSK), an LSD's producing wells (ProductionWellSK), a
// quarter's LSDs (QuarterLSDSK) and an operator name's BA codes
// (OperatorNameBASK).
const (
	SKDispositionPrefix    = "DISP#"
	SKFootprintPrefix      = "LSD#"
	SKSegmentPrefix        = "SEG#"
	SKProductionWellPrefix = "PRODWELL#"
	SKQuarterLSDPrefix     = "LSD#"
	SKOperatorBAPrefix     = "BA#"
)

// SegmentSK orders a licence's segments by line number, then segment id.
func SegmentSK(lineNo, segment string) string { return SKSegmentPrefix + lineNo + "#" + segment }

// ProductionWellSK is an LSD's row of one producing well.
func ProductionWellSK(uwi string) string { return SKProductionWellPrefix + uwi }

// QuarterLSDSK is a quarter's row of one of its LSDs.
func QuarterLSDSK(lsd string) string { return SKQuarterLSDPrefix + lsd }

// OperatorNameBASK is an operator name's row of one BA code.
func OperatorNameBASK(ba string) string { return SKOperatorBAPrefix + ba }

// WellSK sorts a parcel's wells by status (orphan first), then UWI.
func WellSK(b Bucket, uwi string) string { return fmt.Sprintf(SKWellPrefix+"%d#%s", b.Rank(), uwi) }

// OperatorWellSK sorts an operator's wells by UWI.
func OperatorWellSK(uwi string) string { return SKWellPrefix + uwi }

// PipeSK sorts segments by H2S, highest first: the safety-first default.
func PipeSK(h2s float64, segment string) string {
	return fmt.Sprintf(SKPipePrefix+"%s#%s", Inverted(h2s, 1000), segment)
}

// FacilitySK sorts facilities by a status rank, then id.
func FacilitySK(rank int, id string) string {
	return fmt.Sprintf(SKFacilityPrefix+"%d#%s", rank, id)
}

// TenureSK sorts a parcel's dispositions by expiry date (YYYY-MM-DD; ""
// for perpetual or undated, which sort last).
func TenureSK(expiry, id string) string { return SKTenurePrefix + dateOrLast(expiry) + "#" + id }

// OperatorDispositionSK sorts an operator's dispositions by expiry.
func OperatorDispositionSK(expiry, id string) string {
	return SKDispositionPrefix + dateOrLast(expiry) + "#" + id
}

// OperatorsSK sorts operators by orphan wells, most first, then BA code.
func OperatorsSK(orphans int, ba string) string {
	return Inverted(float64(orphans), 1) + "#" + strings.ToUpper(ba)
}

// FootprintSK sorts an operator's LSDs by total wells, most first.
func FootprintSK(total int, lsd string) string {
	return SKFootprintPrefix + Inverted(float64(total), 1) + "#" + lsd
}

func dateOrLast(d string) string {
	if d == "" {
		return noExpiry
	}
	return d
}

// Inverted encodes v ≥ 0 (scaled and rounded to an integer) so that
// larger values sort first as strings: 12 digits of 999999999999 - v.
func Inverted(v float64, scale float64) string {
	n := int64(math.Round(math.Max(0, v) * scale))
	const top = 999_999_999_999
	return fmt.Sprintf("%012d", top-min(n, top))
}

// Slug is an operator's kebab-case name: "Cenovus Energy Inc." →
// "cenovus-energy-inc".
func Slug(name string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(name) {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			b.WriteRune(r)
			dash = false
		} else {
			dash = true
		}
	}
	return b.String()
}

// Squash is an operator's name with only letters and digits, lower case:
// "Cenovus Energy Inc." → "cenovusenergyinc"; what a caller who typed the
// name without spaces or punctuation sends.
func Squash(name string) string { return strings.ReplaceAll(Slug(name), "-", "") }

// OperatorSorts are the orders of GET /energy/operators, each with the
// partition that holds the operators in that order (the default, orphan
// wells, is OPERATORS): one copy of the operator rows per order, so that
// no sort streams every operator. Each partition's key order is the
// sort's default direction with the endpoint's ties: most first and BA
// code ascending for the counts, name ascending (case folded) and BA code
// descending for the name.
var OperatorSorts = []string{"orphan", "active", "abandoned", "name", "dispositions"}

// OperatorsKey is the partition of the operators in the order sort
// (OperatorSorts).
func OperatorsKey(sort string) string {
	if sort == "orphan" {
		return PKOperators
	}
	return PKOperators + "#" + strings.ToUpper(sort)
}

// OperatorsSortSK is the sort key of an operator row in the partition of
// sort (OperatorsKey).
func OperatorsSortSK(sort string, r OperatorRow) string {
	n := 0
	switch sort {
	case "orphan":
		n = r.OrphanWells
	case "active":
		n = r.ActiveWells
	case "abandoned":
		n = r.AbandonedWells
	case "dispositions":
		n = r.DispositionsCount
	case "name":
		// Names never hold a byte below 0x02: "\x01" ends the name before
		// any longer name that begins with it, as the comparison of the
		// folded names does.
		return strings.ToLower(r.Name) + "\x01" + descending(r.BACode)
	}
	return OperatorsSK(n, r.BACode)
}

// descending encodes s so that the encodings sort in the reverse order of
// the strings: each byte's complement in hex, then "~", above every hex
// digit, so that a string sorts after the longer strings it begins.
func descending(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		fmt.Fprintf(&b, "%02x", 255-s[i])
	}
	b.WriteByte('~')
	return b.String()
}
