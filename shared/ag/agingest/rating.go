package agingest

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Limitation is a subclass letter of an LSRS rating or a CLI class: what
// limits the land, with a label.
type Limitation struct {
	Code  string // one letter: "M"
	Label string // "Water-holding capacity"; "" for a letter without a label
}

// String returns "M - Water-holding capacity", or the code alone when it
// has no label.
func (l Limitation) String() string {
	if l.Label == "" {
		return l.Code
	}
	return l.Code + " - " + l.Label
}

// lsrsLimitations labels the subclass letters of the Land Suitability
// Rating System for spring-seeded small grains (Agronomic Interpretations
// Working Group 1995, Tech. Bull. 1995-6E), grouped as climate (A, H),
// soil (M, D, F, E, V, N, Y, W) and landscape (T, P, J, K, I). ⚠ The
// letters are from docs/data-sources.md §14, not yet checked against the
// bulletin; letters outside this table are accepted without a label.
var lsrsLimitations = map[byte]string{
	'A': "Moisture deficit",
	'H': "Heat deficit",
	'M': "Water-holding capacity",
	'D': "Soil structure",
	'F': "Organic matter",
	'E': "Erosion",
	'V': "Soil reaction (acidity)",
	'N': "Salinity",
	'Y': "Sodicity",
	'W': "Excess water",
	'T': "Topography",
	'P': "Stoniness",
	'J': "Field pattern",
	'K': "Landscape pattern",
	'I': "Inundation",
}

// cliLimitations labels the subclasses of the Canada Land Inventory soil
// capability for agriculture (docs/data-sources.md §13); other letters are
// refused.
var cliLimitations = map[byte]string{
	'C': "Adverse climate",
	'D': "Undesirable soil structure",
	'E': "Erosion",
	'F': "Low fertility",
	'I': "Inundation",
	'M': "Moisture deficiency",
	'N': "Salinity",
	'P': "Stoniness",
	'R': "Shallow to bedrock",
	'S': "Soil limitations",
	'T': "Adverse topography",
	'W': "Excess water",
	'X': "Minor limitations",
}

// LSRSLimitation returns the LSRS subclass letter c with its label.
func LSRSLimitation(c byte) Limitation {
	return Limitation{Code: string(c), Label: lsrsLimitations[c]}
}

// CLILimitation returns the CLI subclass letter c with its label.
func CLILimitation(c byte) (Limitation, bool) {
	l, ok := cliLimitations[c]
	return Limitation{Code: string(c), Label: l}, ok
}

// RatingComponent is one part of an LSRS rating: a class with its
// limitations and the share of the land it rates.
type RatingComponent struct {
	Class       int // 1 (best) to 7
	Limitations []Limitation
	Tenths      int // share in tenths: 7 in "2A 7:3 4W"; 10 for a lone component
	// Alt is a parenthesised rating written after the component, the
	// "(4M)" of "3H(4M)". ⚠ What AGRASID means by it is not verified; it
	// is kept and not used by Class, Limiter or Score.
	Alt *RatingComponent
}

func (c RatingComponent) String() string {
	var b strings.Builder
	b.WriteString(strconv.Itoa(c.Class))
	for _, l := range c.Limitations {
		b.WriteString(l.Code)
	}
	if c.Alt != nil {
		b.WriteString("(" + c.Alt.String() + ")")
	}
	return b.String()
}

// Rating is a parsed LSRS rating string. The zero Rating is "not rated".
type Rating struct {
	Components []RatingComponent // as written; none when not rated
}

// ParseRating reads an LSRS rating:
//
//	3H          class 3, limited by heat
//	3H(4M)      the same with a parenthesised second rating (see Alt)
//	2A 7:3 4W   7 tenths class 2 (moisture deficit), 3 tenths class 4 (excess water)
//	4TW         class 4, limited by topography and excess water
//
// Classes are 1 to 7, each followed by up to four subclass letters; a
// ratio of tenths (adding up to 10) after the first component shares the
// land among it and the components that follow. Letters are read in
// either case, and blanks before a parenthesis are ignored. An empty
// string, "0" (not rated) and "-" give the zero Rating.
func ParseRating(s string) (Rating, error) {
	in := s
	s = strings.ToUpper(strings.Join(strings.Fields(s), " "))
	s = strings.ReplaceAll(strings.ReplaceAll(s, " (", "("), "( ", "(")
	s = strings.ReplaceAll(s, " )", ")")
	if s == "" || s == "0" || s == "-" {
		return Rating{}, nil
	}
	bad := func(format string, args ...any) (Rating, error) {
		return Rating{}, fmt.Errorf("ag: LSRS rating %q: %s", in, fmt.Sprintf(format, args...))
	}
	toks := strings.Split(s, " ")
	var r Rating
	var ratio []int
	for i, tok := range toks {
		if strings.Contains(tok, ":") {
			if i != 1 || ratio != nil {
				return bad("a ratio of tenths goes after the first component only")
			}
			for _, p := range strings.Split(tok, ":") {
				n, err := strconv.Atoi(p)
				if err != nil || n < 1 || n > 9 {
					return bad("ratio %q: want tenths such as 7:3", tok)
				}
				ratio = append(ratio, n)
			}
			continue
		}
		c, rest, err := ratingComponent(tok)
		if err != nil {
			return bad("%s: %v", tok, err)
		}
		if rest != "" {
			if rest[0] != '(' || rest[len(rest)-1] != ')' {
				return bad("%s: unexpected %q", tok, rest)
			}
			alt, rest2, err := ratingComponent(rest[1 : len(rest)-1])
			if err != nil || rest2 != "" {
				return bad("%s: the parenthesised rating %s is not a class with limitations", tok, rest)
			}
			c.Alt = &alt
		}
		r.Components = append(r.Components, c)
	}
	switch {
	case len(r.Components) == 0:
		return bad("no class")
	case ratio == nil && len(r.Components) > 1:
		return bad("%d components without a ratio of tenths", len(r.Components))
	case ratio == nil:
		r.Components[0].Tenths = 10
		return r, nil
	case len(ratio) != len(r.Components):
		return bad("ratio has %d parts for %d components", len(ratio), len(r.Components))
	}
	sum := 0
	for i, n := range ratio {
		r.Components[i].Tenths = n
		sum += n
	}
	if sum != 10 {
		return bad("ratio adds up to %d tenths, want 10", sum)
	}
	return r, nil
}

// ratingComponent reads a class digit and up to four letters from the
// start of s and returns what follows.
func ratingComponent(s string) (RatingComponent, string, error) {
	if s == "" || s[0] < '1' || s[0] > '7' {
		return RatingComponent{}, "", fmt.Errorf("want a class 1 to 7")
	}
	c := RatingComponent{Class: int(s[0] - '0')}
	i := 1
	for ; i < len(s) && s[i] >= 'A' && s[i] <= 'Z'; i++ {
		c.Limitations = append(c.Limitations, LSRSLimitation(s[i]))
	}
	if len(c.Limitations) > 4 {
		return RatingComponent{}, "", fmt.Errorf("more than four subclass letters")
	}
	return c, s[i:], nil
}

// String returns the rating in canonical form ("2A 7:3 4W", "3H(4M)"), or
// "" when not rated.
func (r Rating) String() string {
	if len(r.Components) == 0 {
		return ""
	}
	parts := []string{r.Components[0].String()}
	if len(r.Components) > 1 {
		t := make([]string, len(r.Components))
		for i, c := range r.Components {
			t[i] = strconv.Itoa(c.Tenths)
		}
		parts = append(parts, strings.Join(t, ":"))
		for _, c := range r.Components[1:] {
			parts = append(parts, c.String())
		}
	}
	return strings.Join(parts, " ")
}

// Rated reports whether r rates the land.
func (r Rating) Rated() bool { return len(r.Components) > 0 }

// Dominant returns the component with the largest share (the first among
// equal shares).
func (r Rating) Dominant() (RatingComponent, bool) {
	best := -1
	for i, c := range r.Components {
		if best < 0 || c.Tenths > r.Components[best].Tenths {
			best = i
		}
	}
	if best < 0 {
		return RatingComponent{}, false
	}
	return r.Components[best], true
}

// Class returns the dominant component's class, 0 when not rated.
func (r Rating) Class() int {
	c, _ := r.Dominant()
	return c.Class
}

// Limiter returns the dominant component's first limitation: the single
// limiter the report shows.
func (r Rating) Limiter() (Limitation, bool) {
	c, ok := r.Dominant()
	if !ok || len(c.Limitations) == 0 {
		return Limitation{}, false
	}
	return c.Limitations[0], true
}

// Score returns the rating's productivity score, 0 to 100 (see
// ClassScore), and false when not rated.
func (r Rating) Score() (int, bool) {
	parts := make([]scorePart, len(r.Components))
	for i, c := range r.Components {
		parts[i] = scorePart{c.Class, c.Tenths}
	}
	d, ok := r.Dominant()
	return blendScore(parts, d.Class, ok)
}

// ScoreRange returns the score band of a capability class (docs/
// data-sources.md §14, Township Canada's mapping): 1 → 90-100,
// 2 → 75-89, 3 → 60-74, 4 → 45-59, 5 → 30-44, 6 → 15-29, 7 → 0-14.
func ScoreRange(class int) (lo, hi int, ok bool) {
	if class < 1 || class > 7 {
		return 0, 0, false
	}
	if class == 1 {
		return 90, 100, true
	}
	lo = 90 - 15*(class-1)
	return lo, lo + 14, true
}

// ClassScore returns the middle of a class's score band: 95, 82, 67, 52,
// 37, 22, 7.
func ClassScore(class int) (int, bool) {
	lo, hi, ok := ScoreRange(class)
	return int(math.Round(float64(lo+hi) / 2)), ok
}

type scorePart struct{ class, tenths int }

// blendScore scores land rated by several components: the average of
// their class scores weighted by their shares, kept inside the band of
// the dominant class, so that the score always agrees with the class the
// report shows ("2A 7:3 4W": 0.7×82 + 0.3×52 = 73, kept at 75, the bottom
// of class 2). This blend is Meridian's choice.
func blendScore(parts []scorePart, dominant int, ok bool) (int, bool) {
	if !ok {
		return 0, false
	}
	lo, hi, ok := ScoreRange(dominant)
	if !ok {
		return 0, false
	}
	sum, w := 0.0, 0
	for _, p := range parts {
		if s, ok := ClassScore(p.class); ok && p.tenths > 0 {
			sum += float64(s * p.tenths)
			w += p.tenths
		}
	}
	if w == 0 {
		return 0, false
	}
	s := int(math.Round(sum / float64(w)))
	return min(max(s, lo), hi), true
}
