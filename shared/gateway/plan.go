package gateway

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path"
	"strings"
)

// Product is a separately sold part of the API. Its zero value is no product.
type Product uint8

// Append only: values index tables.
const (
	Search       Product = iota + 1 // /search/…
	Autocomplete                    // /autocomplete/…
	Batch                           // /batch/…
	Maps                            // /tiles/… (tiles and TileJSON)
	Ag                              // /ag/… (agriculture reports)
	Energy                          // /energy/… (energy reports and lists)
	Changes                         // /energy/changes and /watches/… (the change feed and its webhooks)

	maxProduct = Changes
)

var productNames = [...]string{"", "search", "autocomplete", "batch", "maps", "ag", "energy", "changes"}

// Products returns every product in declaration order.
func Products() []Product {
	ps := make([]Product, 0, maxProduct)
	for p := Search; p <= maxProduct; p++ {
		ps = append(ps, p)
	}
	return ps
}

// String returns the product's name as used in keys, plans and messages
// ("search", "maps", …).
func (p Product) String() string {
	if p.Valid() {
		return productNames[p]
	}
	return fmt.Sprintf("product(%d)", uint8(p))
}

// Valid reports whether p is one of the declared products.
func (p Product) Valid() bool { return p >= Search && p <= maxProduct }

// ParseProduct returns the product named s ("search", "maps", …).
func ParseProduct(s string) (Product, error) {
	for p := Search; p <= maxProduct; p++ {
		if productNames[p] == s {
			return p, nil
		}
	}
	return 0, fmt.Errorf("gateway: unknown product %q (want one of %s)", s, ProductList())
}

// ProductList names every product, comma-separated, for messages.
func ProductList() string {
	return strings.Join(productNames[1:], ", ")
}

// MarshalText encodes p as its name, so products are map keys in JSON.
func (p Product) MarshalText() ([]byte, error) {
	if !p.Valid() {
		return nil, fmt.Errorf("gateway: invalid product %d", uint8(p))
	}
	return []byte(productNames[p]), nil
}

// UnmarshalText decodes a product name.
func (p *Product) UnmarshalText(b []byte) error {
	q, err := ParseProduct(string(b))
	if err != nil {
		return err
	}
	*p = q
	return nil
}

// ProductOf returns the product a request path belongs to, from its first
// segment after cleaning: /search/… → Search, /autocomplete/… → Autocomplete,
// /batch/… → Batch, /tiles/… → Maps, /ag/… → Ag, /energy/… → Energy, except
// /energy/changes and /watches/… → Changes. The bare segment (/search)
// belongs to the product too. Any other path is public and ProductOf
// returns false.
func ProductOf(p string) (Product, bool) {
	if strings.Contains(p, "/.") || strings.Contains(p, "//") {
		p = path.Clean(p)
	}
	p = strings.TrimPrefix(p, "/")
	p0 := p
	if i := strings.IndexByte(p, '/'); i >= 0 {
		p = p[:i]
	}
	switch p {
	case "search":
		return Search, true
	case "autocomplete":
		return Autocomplete, true
	case "batch":
		return Batch, true
	case "tiles":
		return Maps, true
	case "ag":
		return Ag, true
	case "energy":
		if rest := strings.TrimPrefix(p0, "energy/changes"); len(rest) < len(p0) && (rest == "" || rest[0] == '/') {
			return Changes, true
		}
		return Energy, true
	case "watches":
		return Changes, true
	}
	return 0, false
}

// Plan names every product has in DefaultPlans.
const (
	DefaultPlan   = "default"   // the spec's limits
	UnlimitedPlan = "unlimited" // no rate limit, no quota: demo key and load tests
)

// Plan is the limits a key gets for one product. Zero means no limit, for
// the rate (then Burst is unused) and for the quota. It maps onto an API
// Gateway usage plan: RatePerSecond → throttle rateLimit, Burst → burstLimit,
// MonthlyQuota → quota limit with period MONTH.
type Plan struct {
	Name          string  `json:"name"`
	RatePerSecond float64 `json:"rate_per_second"`
	Burst         int     `json:"burst"`
	MonthlyQuota  int64   `json:"monthly_quota"`
}

// Plans is a catalogue: for each product, its plans in a stable order.
type Plans map[Product][]Plan

// DefaultPlans returns the catalogue of the spec's limits (see the package
// documentation for the table and the reasons behind the bursts). Each call
// returns a fresh copy the caller may change.
func DefaultPlans() Plans {
	unlimited := Plan{Name: UnlimitedPlan}
	return Plans{
		Search:       {{Name: DefaultPlan, RatePerSecond: 1, Burst: 5, MonthlyQuota: 1_000}, unlimited},
		Autocomplete: {{Name: DefaultPlan, RatePerSecond: 1, Burst: 5, MonthlyQuota: 1_000}, unlimited},
		Batch:        {{Name: DefaultPlan, RatePerSecond: 1, Burst: 2, MonthlyQuota: 1_000}, unlimited},
		Maps:         {{Name: DefaultPlan, MonthlyQuota: 10_000}, unlimited},
		Ag:           {{Name: DefaultPlan, RatePerSecond: 5, Burst: 10, MonthlyQuota: 1_000}, unlimited},
		Energy:       {{Name: DefaultPlan, RatePerSecond: 5, Burst: 10, MonthlyQuota: 1_000}, unlimited},
		Changes:      {{Name: DefaultPlan, RatePerSecond: 5, Burst: 10, MonthlyQuota: 10_000}, unlimited},
	}
}

// MapPagePlan is the plan of the local map page's key (EnsureMapKey), for
// the products the page calls. Its rates are a person at a map: a pan or a
// zoom asks for dozens of tiles at once, a search box a few requests a
// second; no monthly quota, the server being the user's own.
const MapPagePlan = "map-page"

// MapPageProducts are the products the map page calls: tiles, the search
// box and its suggestions, click-to-identify (search), batch paste, and the
// agriculture and energy reports it shows in place, and an LSD's recent
// changes in the identify panel.
func MapPageProducts() []Product {
	return []Product{Maps, Search, Autocomplete, Batch, Ag, Energy, Changes}
}

// WithMapPagePlans returns ps with MapPagePlan added to each of
// MapPageProducts where ps (a plans.json) does not define it: the local
// server's catalogue. AWS serves no map page, and its catalogue has none.
func WithMapPagePlans(ps Plans) Plans {
	for p, pl := range map[Product]Plan{
		Maps:         {Name: MapPagePlan, RatePerSecond: 100, Burst: 400},
		Search:       {Name: MapPagePlan, RatePerSecond: 5, Burst: 20},
		Autocomplete: {Name: MapPagePlan, RatePerSecond: 10, Burst: 30},
		Batch:        {Name: MapPagePlan, RatePerSecond: 1, Burst: 5},
		Ag:           {Name: MapPagePlan, RatePerSecond: 5, Burst: 20},
		Energy:       {Name: MapPagePlan, RatePerSecond: 5, Burst: 20},
		Changes:      {Name: MapPagePlan, RatePerSecond: 5, Burst: 20},
	} {
		if _, ok := ps.Lookup(p, MapPagePlan); !ok {
			ps[p] = append(ps[p], pl)
		}
	}
	return ps
}

// Lookup returns product p's plan called name.
func (ps Plans) Lookup(p Product, name string) (Plan, bool) {
	for _, pl := range ps[p] {
		if pl.Name == name {
			return pl, true
		}
	}
	return Plan{}, false
}

// Names returns the names of product p's plans.
func (ps Plans) Names(p Product) []string {
	names := make([]string, len(ps[p]))
	for i, pl := range ps[p] {
		names[i] = pl.Name
	}
	return names
}

// Validate reports every inconsistency in the catalogue in one error.
func (ps Plans) Validate() error {
	if probs := ps.problems(); len(probs) > 0 {
		return fmt.Errorf("gateway: invalid plans: %s", strings.Join(probs, "; "))
	}
	return nil
}

func (ps Plans) problems() []string {
	var probs []string
	for p := range ps {
		if !p.Valid() {
			probs = append(probs, fmt.Sprintf("plans for invalid product %d", uint8(p)))
		}
	}
	for _, p := range Products() {
		seen := make(map[string]bool, len(ps[p]))
		for _, pl := range ps[p] {
			where := p.String() + "/" + pl.Name
			switch {
			case pl.Name == "":
				probs = append(probs, fmt.Sprintf("a %s plan has no name", p))
			case seen[pl.Name]:
				probs = append(probs, fmt.Sprintf("plan %s is defined twice", where))
			}
			seen[pl.Name] = true
			if pl.RatePerSecond < 0 || math.IsNaN(pl.RatePerSecond) || math.IsInf(pl.RatePerSecond, 0) {
				probs = append(probs, fmt.Sprintf("plan %s: rate_per_second %v must be a finite number >= 0", where, pl.RatePerSecond))
			}
			if pl.Burst < 0 || (pl.RatePerSecond > 0 && pl.Burst < 1) {
				probs = append(probs, fmt.Sprintf("plan %s: burst %d must be at least 1 when rate_per_second > 0, and never negative", where, pl.Burst))
			}
			if pl.MonthlyQuota < 0 {
				probs = append(probs, fmt.Sprintf("plan %s: monthly_quota %d must be >= 0", where, pl.MonthlyQuota))
			}
		}
	}
	return probs
}

// LoadPlans returns DefaultPlans overlaid with the plans in the JSON file at
// path, if it exists. The file maps product names to plans:
//
//	{"ag": [{"name": "default", "rate_per_second": 10, "burst": 20, "monthly_quota": 5000}],
//	 "search": [{"name": "pro", "rate_per_second": 10, "burst": 20, "monthly_quota": 100000}]}
//
// A plan with the name of an existing one replaces it; others are added.
func LoadPlans(path string) (Plans, error) {
	plans := DefaultPlans()
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return plans, nil
	}
	if err != nil {
		return nil, fmt.Errorf("gateway: read plans: %w", err)
	}
	var file map[string][]Plan
	if err := json.Unmarshal(b, &file); err != nil {
		return nil, fmt.Errorf("gateway: parse plans %s: %w", path, err)
	}
	for name, overrides := range file {
		p, err := ParseProduct(name)
		if err != nil {
			return nil, fmt.Errorf("gateway: plans %s: unknown product %q (want one of %s)", path, name, ProductList())
		}
	next:
		for _, o := range overrides {
			for i, pl := range plans[p] {
				if pl.Name == o.Name {
					plans[p][i] = o
					continue next
				}
			}
			plans[p] = append(plans[p], o)
		}
	}
	if probs := plans.problems(); len(probs) > 0 {
		return nil, fmt.Errorf("gateway: plans %s: %s", path, strings.Join(probs, "; "))
	}
	return plans, nil
}
