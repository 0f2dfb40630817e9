package ag

import (
	"fmt"
	"strings"

	"github.com/paulmach/orb"
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
// with up to three components A, B, C, A first.
type CLIPolygon struct {
	Components []CLIComponent // none for land the CLI does not rate (water, towns)
	Geometry   orb.Geometry   // nil when read from a DBF or CSV table alone
}

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

// ReadCLI streams the CLI soil capability for agriculture (1:250,000
// Level I/II layout of the NRCan README, docs/data-sources.md §13;
// shapefile, GeoJSON, or the attribute table as DBF or CSV) to fn.
// Columns, for X = A, B, C (B and C optional): Class_X (1-7 or O; empty
// when the component is absent), Percent_X (tenths; Percent_A may be empty
// for a lone component, which then covers the whole polygon), Subclas_X1
// and Subclas_X2 (subclass letters C, D, E, F, I, M, N, P, R, S, T, W, X;
// empty when none). The shares of the components present must add up to 10
// tenths. ⚠ The field names of the current product are not verified.
func ReadCLI(src Source, fn func(CLIPolygon) error) error {
	t, err := src.open()
	if err != nil {
		return err
	}
	if err := t.need("CLASS_A", "PERCENT_A", "SUBCLAS_A1"); err != nil {
		return err
	}
	return each(t, func(r *row) error {
		var p CLIPolygon
		sum, blankA := 0, false
		for i, x := range []string{"A", "B", "C"} {
			class := strings.ToUpper(r.get("CLASS_" + x))
			pct := r.get("PERCENT_" + x)
			subs := []string{r.get("SUBCLAS_" + x + "1"), r.get("SUBCLAS_" + x + "2")}
			if class == "" {
				if pct != "" || subs[0] != "" || subs[1] != "" {
					return t.errorf(r.line, "component %s has a share or subclasses but no Class_%s", x, x)
				}
				continue // component A empty: not rated
			}
			if i > 0 && len(p.Components) < i {
				return t.errorf(r.line, "component %s without the component before it", x)
			}
			if _, ok := cliClasses[class]; !ok {
				return t.errorf(r.line, "Class_%s %q: want 1 to 7 or O", x, class)
			}
			c := CLIComponent{Class: class}
			switch {
			case pct == "" && i == 0:
				c.Tenths, blankA = 10, true
			default:
				n, err := parseInt(pct, 1, 10)
				if err != nil {
					return t.errorf(r.line, "Percent_%s: %v (tenths of the polygon)", x, err)
				}
				c.Tenths = n
			}
			for j, s := range subs {
				for k := 0; k < len(s); k++ {
					l, ok := CLILimitation(s[k] &^ 0x20)
					if !ok {
						return t.errorf(r.line, "Subclas_%s%d %q: %q is not a CLI subclass", x, j+1, s, s[k])
					}
					c.Limitations = append(c.Limitations, l)
				}
			}
			sum += c.Tenths
			p.Components = append(p.Components, c)
		}
		if len(p.Components) > 1 && blankA {
			return t.errorf(r.line, "Percent_A is empty but the polygon has %d components", len(p.Components))
		}
		if len(p.Components) > 0 && sum != 10 {
			return t.errorf(r.line, "component shares add up to %d tenths, want 10", sum)
		}
		if t.spatial {
			g, why := polygonal(r.geom)
			if why != "" {
				return t.errorf(r.line, "%s", why)
			}
			p.Geometry = g
		}
		return fn(p)
	})
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
