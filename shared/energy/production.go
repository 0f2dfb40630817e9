package energy

import (
	"sort"
	"time"
)

// Product is a volumetric product the report sums (Petrinex ProductID).
type Product string

const (
	Oil        Product = "OIL"   // m³
	Gas        Product = "GAS"   // e3m3 (10³ m³)
	Condensate Product = "COND"  // m³
	Water      Product = "WATER" // m³
)

// Volume is one month of one well's production of one product, from the
// Petrinex volumetrics rows with FromToIDType WI and ActivityID PROD.
type Volume struct {
	Month        string // YYYY-MM
	Product      Product
	Value        float64
	Confidential bool // *** in the file: unknown, not zero
}

// Production is a trailing-window roll-up of volumes.
type Production struct {
	WindowMonths       int     `json:"window_months"`
	LastProducingMonth string  `json:"last_producing_month,omitempty"` // YYYY-MM of the latest month with a positive volume; "" when none
	Oil                float64 `json:"oil_m3"`
	Gas                float64 `json:"gas_e3m3"`
	Condensate         float64 `json:"condensate_m3"`
	Water              float64 `json:"water_m3"`
	ConfidentialMonths int     `json:"confidential_months,omitempty"` // product-months withheld as confidential
}

// gasToOilM3 converts gas (e3m3) to oil-equivalent m³ at the customary six
// thousand cubic feet of gas to one barrel: 1 e3m3 = 35.3147 Mcf = 5.886 bbl
// = 0.9357 m³.
const gasToOilM3 = 35.3147 / 6 * 0.158987

// Dominant is the product with the largest oil-equivalent volume (gas
// converted at 6:1; condensate counted as oil), "" when nothing flowed.
func (p Production) Dominant() string {
	best, name := 0.0, ""
	for _, c := range []struct {
		v    float64
		name string
	}{{p.Oil, "oil"}, {p.Gas * gasToOilM3, "gas"}, {p.Condensate, "condensate"}} {
		if c.v > best {
			best, name = c.v, c.name
		}
	}
	return name
}

// Producing reports whether anything flowed in the window.
func (p Production) Producing() bool { return p.Oil > 0 || p.Gas > 0 || p.Condensate > 0 }

// WindowEnd is the month the trailing window ends at: the latest month in
// the data, so a report says what the published data says even when
// Petrinex lags a month or two.
func WindowEnd(months []string) string {
	end := ""
	for _, m := range months {
		if m > end {
			end = m
		}
	}
	return end
}

// Trailing sums vols over the window of n months ending at end (YYYY-MM,
// inclusive). Negative volumes are amendments and are summed as published.
func Trailing(vols []Volume, end string, n int) Production {
	p := Production{WindowMonths: n}
	start := MonthsBefore(end, n-1)
	for _, v := range vols {
		if v.Month < start || v.Month > end {
			continue
		}
		p.AddVolume(v)
	}
	return p
}

// AddVolume adds one volume to the roll-up, whatever its month: Trailing
// over the volumes of a window is AddVolume of each in turn, so an ingest
// can keep a Production per well instead of its volumes.
func (p *Production) AddVolume(v Volume) {
	if v.Confidential {
		p.ConfidentialMonths++
		return
	}
	switch v.Product {
	case Oil:
		p.Oil += v.Value
	case Gas:
		p.Gas += v.Value
	case Condensate:
		p.Condensate += v.Value
	case Water:
		p.Water += v.Value
	}
	if v.Value > 0 && v.Product != Water && v.Month > p.LastProducingMonth {
		p.LastProducingMonth = v.Month
	}
}

// Add sums two roll-ups of the same window (wells into their LSD).
func (p Production) Add(q Production) Production {
	p.Oil += q.Oil
	p.Gas += q.Gas
	p.Condensate += q.Condensate
	p.Water += q.Water
	p.ConfidentialMonths += q.ConfidentialMonths
	if q.LastProducingMonth > p.LastProducingMonth {
		p.LastProducingMonth = q.LastProducingMonth
	}
	if p.WindowMonths == 0 {
		p.WindowMonths = q.WindowMonths
	}
	return p
}

// MonthsBefore returns the month k months before m (YYYY-MM).
func MonthsBefore(m string, k int) string {
	t, err := time.Parse("2006-01", m)
	if err != nil {
		return m
	}
	return t.AddDate(0, -k, 0).Format("2006-01")
}

// Liability is an operator's well counts by bucket (the public stand-in
// for the confidential Licensee Capability Assessment: data-sources §4.2).
type Liability struct {
	Total                int `json:"total"`
	Active               int `json:"active"`
	Suspended            int `json:"suspended"`
	Abandoned            int `json:"abandoned"`
	Orphan               int `json:"orphan"`
	ReclamationCertified int `json:"reclamation_certified"`
}

// Count adds one well of bucket b.
func (l *Liability) Count(b Bucket) {
	l.Total++
	switch b {
	case Active:
		l.Active++
	case Suspended:
		l.Suspended++
	case Abandoned:
		l.Abandoned++
	case Orphan:
		l.Orphan++
	case ReclamationCertified:
		l.ReclamationCertified++
	}
}

// OperatorWell is a well's licensee BA code and bucket.
type OperatorWell struct {
	BA     string
	Bucket Bucket
}

// RollUp counts wells by licensee BA code.
func RollUp(wells []OperatorWell) map[string]Liability {
	out := map[string]Liability{}
	for _, w := range wells {
		l := out[w.BA]
		l.Count(w.Bucket)
		out[w.BA] = l
	}
	return out
}

// SortedBAs returns the BA codes of a roll-up by orphan wells, most first,
// then by code: the operators list's default order.
func SortedBAs(r map[string]Liability) []string {
	out := make([]string, 0, len(r))
	for ba := range r {
		out = append(out, ba)
	}
	sort.Slice(out, func(i, j int) bool {
		if a, b := r[out[i]].Orphan, r[out[j]].Orphan; a != b {
			return a > b
		}
		return out[i] < out[j]
	})
	return out
}
