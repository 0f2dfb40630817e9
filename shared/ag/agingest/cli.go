package agingest

import (
	"fmt"
	"slices"
	"strings"

	"github.com/paulmach/orb"

	"meridian/shared/ingest"
)

// CLIComponent is one part of a Canada Land Inventory polygon: a soil
// capability class for agriculture and its subclasses (limitations).
type CLIComponent struct {
	Class       string // "1" (no significant limitations) to "7" (no capability), or "O" (organic soils)
	Tenths      int    // share of the polygon in tenths
	Limitations []Limitation
}

// cliClasses describes the CLI classes.
var cliClasses = map[string]string{
	"1": "No significant limitations",
	"2": "Moderate limitations",
	"3": "Moderately severe limitations",
	"4": "Severe limitations",
	"5": "Perennial forage crops only",
	"6": "Native grazing only",
	"7": "No capability for arable culture or permanent pasture",
	"O": "Organic soils (not rated)",
}

// CLIClass returns the description of a CLI class ("3" -> "Moderately
// severe limitations").
func CLIClass(class string) (string, bool) {
	l, ok := cliClasses[class]
	return l, ok
}

// CLIPolygon is a polygon of the CLI soil capability for agriculture,
// with up to six components A to F, A first.
type CLIPolygon struct {
	Components []CLIComponent // none for land the CLI does not rate (water, towns)
	Geometry   orb.Geometry   // nil when read from a DBF or CSV table alone
}

// The layouts ReadCLI reads.
var (
	// CLIServiceLayout is AAFC's cli_agr_cap_250k feature service, as a
	// GeoJSON query or a shapefile export: six components.
	CLIServiceLayout = ingest.Layout{
		Dataset:   "Canada Land Inventory soil capability for agriculture 1:250,000 (cli_agr_cap_250k)",
		Publisher: "AAFC",
		Form:      "six components: CLASS_A…CLASS_F, PERCENT_A…PERCENT_F, SUBCLAS_A1…SUBCLAS_D2",
		Verified:  true,
		Evidence:  "evidence id 61389629629: a client of services.arcgis.com/…/cli_agr_cap_250k/FeatureServer/0 asks for CLASS_A…CLASS_F, PERCENT_A…PERCENT_F, SUBCLAS_A1…SUBCLAS_D2 (docs/real-layouts.md, Agriculture)",
	}
	// CLIReadmeLayout is the three-component layout of the NRCan README
	// (Class_A…Class_C, Percent_A…, Subclas_A1…Subclas_C2).
	CLIReadmeLayout = ingest.Layout{
		Dataset:   "Canada Land Inventory soil capability for agriculture (Level I/II)",
		Publisher: "NRCan / AAFC",
		Form:      "three components: Class_A…Class_C, Percent_A…Percent_C, Subclas_A1…Subclas_C2",
		Verified:  false,
		Evidence:  "from the NRCan README (docs/data-sources.md §13), no file seen: check that Percent_X holds tenths adding up to 10 and that the file has no Class_D…Class_F",
	}
)

// cliComponents are the component letters, A first.
var cliComponents = []string{"A", "B", "C", "D", "E", "F"}

// CLIComponentLetters returns the component letters of the CLI layouts,
// A to F, A first: the suffixes of the CLASS_, PERCENT_ and SUBCLAS_
// fields.
func CLIComponentLetters() []string { return slices.Clone(cliComponents) }

// Primary returns component A.
func (p CLIPolygon) Primary() (CLIComponent, bool) {
	if len(p.Components) == 0 {
		return CLIComponent{}, false
	}
	return p.Components[0], true
}

// Limiter returns component A's first subclass.
func (p CLIPolygon) Limiter() (Limitation, bool) {
	c, ok := p.Primary()
	if !ok || len(c.Limitations) == 0 {
		return Limitation{}, false
	}
	return c.Limitations[0], true
}

// Score returns the polygon's productivity score on the LSRS scale (see
// ScoreRange): the share-weighted class scores of its numbered
// components, kept inside the band of component A's class. Organic (O)
// components do not count; a polygon whose component A is O has no score.
func (p CLIPolygon) Score() (int, bool) {
	a, ok := p.Primary()
	if !ok || a.Class == "O" {
		return 0, false
	}
	parts := make([]scorePart, 0, len(p.Components))
	for _, c := range p.Components {
		if c.Class != "O" {
			parts = append(parts, scorePart{int(c.Class[0] - '0'), c.Tenths})
		}
	}
	return blendScore(parts, int(a.Class[0]-'0'), true)
}

// cliLayouts are the CLI layouts: the service's six components (a file
// with CLASS_D, CLASS_E or CLASS_F), the readme's three.
var cliLayouts = []ingest.Candidate{
	{Layout: CLIServiceLayout, Required: [][]string{{"CLASS_A"}, {"PERCENT_A"}, {"SUBCLAS_A1"}, {"CLASS_D", "CLASS_E", "CLASS_F"}}},
	{Layout: CLIReadmeLayout, Required: [][]string{{"CLASS_A"}, {"PERCENT_A"}, {"SUBCLAS_A1"}}},
}

// ReadCLI streams the CLI soil capability for agriculture (shapefile,
// GeoJSON, or the attribute table as DBF or CSV) to fn, in either layout:
// AAFC's cli_agr_cap_250k service (CLIServiceLayout, six components) or
// the NRCan README's three components (CLIReadmeLayout); the file's
// columns decide which (CLASS_D, CLASS_E or CLASS_F: the service).
// Columns, for each component X = A…F (all but A optional): CLASS_X (1-7
// or O; empty when the component is absent), PERCENT_X (tenths of the
// polygon; PERCENT_A may be empty for a lone component, which then covers
// the whole polygon; 0 or empty for an absent component), SUBCLAS_X1 and
// SUBCLAS_X2 (subclass letters C, D, E, F, I, M, N, P, R, S, T, W, X;
// empty when none; the service has them for A to D only, E and F are read
// when present). The shares of the components present must add up to 10
// tenths.
//
// Fatal (ingest.BadValue or a reason naming the column): a class other
// than 1-7 or O, a subclass letter not in the list, a share outside 1-10,
// shares not adding up to 10, a component with a share or subclasses but
// no class, a component after a missing one. There are no notices: every
// CLI code is in the published legend.
func ReadCLI(src Source, fn func(CLIPolygon) error) error {
	t, err := src.Open()
	if err != nil {
		return err
	}
	if err := t.Need("CLASS_A", "PERCENT_A", "SUBCLAS_A1"); err != nil {
		return err
	}
	chosen := false
	return t.Each(func(r *ingest.Row) error {
		if !chosen {
			if _, err := t.Choose(r, cliLayouts); err != nil {
				return err
			}
			chosen = true
		}
		var p CLIPolygon
		sum, blankA, missing := 0, false, ""
		for i, x := range cliComponents {
			class := strings.ToUpper(r.Get("CLASS_" + x))
			pct := r.Get("PERCENT_" + x)
			subs := []string{r.Get("SUBCLAS_" + x + "1"), r.Get("SUBCLAS_" + x + "2")}
			if class == "" {
				if (pct != "" && !isZero(pct)) || subs[0] != "" || subs[1] != "" {
					return t.Errorf(r.Line, "component %s has a share or subclasses but no Class_%s", x, x)
				}
				if missing == "" {
					missing = x
				}
				continue // absent; component A empty: not rated
			}
			if missing != "" {
				return t.Errorf(r.Line, "component %s without component %s before it", x, missing)
			}
			if _, ok := cliClasses[class]; !ok {
				return t.BadValue(r.Line, "CLASS_"+x, class, cliClassCodes)
			}
			c := CLIComponent{Class: class}
			switch {
			case pct == "" && i == 0:
				c.Tenths, blankA = 10, true
			default:
				n, err := parseInt(pct, 1, 10)
				if err != nil {
					return t.Errorf(r.Line, "Percent_%s: %v (tenths of the polygon)", x, err)
				}
				c.Tenths = n
			}
			for j, s := range subs {
				for k := 0; k < len(s); k++ {
					l, ok := CLILimitation(s[k] &^ 0x20)
					if !ok {
						return t.BadValue(r.Line, fmt.Sprintf("SUBCLAS_%s%d", x, j+1), s, cliSubclassCodes)
					}
					c.Limitations = append(c.Limitations, l)
				}
			}
			sum += c.Tenths
			p.Components = append(p.Components, c)
		}
		if len(p.Components) > 1 && blankA {
			return t.Errorf(r.Line, "Percent_A is empty but the polygon has %d components", len(p.Components))
		}
		if len(p.Components) > 0 && sum != 10 {
			return t.Errorf(r.Line, "component shares add up to %d tenths, want 10", sum)
		}
		if t.Spatial {
			g, why := polygonal(r.Geom)
			if why != "" {
				return t.Errorf(r.Line, "%s", why)
			}
			p.Geometry = g
		}
		return fn(p)
	})
}

// cliClassCodes and cliSubclassCodes are the accepted CLI codes, for
// errors.
var (
	cliClassCodes    = []string{"1", "2", "3", "4", "5", "6", "7", "O"}
	cliSubclassCodes = []string{"C", "D", "E", "F", "I", "M", "N", "P", "R", "S", "T", "W", "X"}
)

// isZero reports whether s is a number equal to 0 ("0", "0.0").
func isZero(s string) bool {
	v, err := parseFloat(s)
	return err == nil && v == 0
}

// String formats a component the way CLI maps print it: "3T", "4^6W".
func (c CLIComponent) String() string {
	if c.Class == "" {
		return ""
	}
	var b strings.Builder
	b.WriteString(c.Class)
	if c.Tenths != 10 {
		fmt.Fprintf(&b, "^%d", c.Tenths)
	}
	for _, l := range c.Limitations {
		b.WriteString(l.Code)
	}
	return b.String()
}
