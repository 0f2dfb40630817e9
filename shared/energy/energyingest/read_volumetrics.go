package energyingest

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"meridian/shared/energy"
	"meridian/shared/lld"
)

// readVolumetrics reads the months of every file first (one row each), so
// that only the trailing window is accumulated.
func (in *ingester) readVolumetrics() error {
	errStop := fmt.Errorf("stop")
	for _, p := range in.files.Volumetrics {
		err := withFile(p, func(r io.Reader, name string) error {
			return ReadVolumetrics(r, name, func(v Volumetric) error {
				if v.Month > in.windowEnd {
					in.windowEnd = v.Month
				}
				return errStop
			})
		})
		if err != nil && err != errStop {
			return err
		}
	}
	if in.windowEnd == "" {
		return nil
	}
	start := energy.MonthsBefore(in.windowEnd, 11)
	for _, p := range in.files.Volumetrics {
		err := withFile(p, func(r io.Reader, name string) error {
			return ReadVolumetrics(r, name, func(v Volumetric) error {
				in.sum.Read["volumetric_rows"]++
				uwi, ok := v.WellUWI()
				if !ok || v.Activity != "PROD" {
					return nil
				}
				if v.Month < start || v.Month > in.windowEnd {
					in.sum.skip("volumes outside the 12-month window")
					return nil
				}
				switch energy.Product(v.Product) {
				case energy.Oil, energy.Gas, energy.Condensate, energy.Water:
				default:
					return nil
				}
				wp := in.prod[uwi]
				if wp == nil {
					wp = &energy.Production{WindowMonths: 12}
					in.prod[strings.Clone(uwi)] = wp // not the reader's record
				}
				// The window's volumes summed as they come (energy.Trailing
				// of them, in the same order): no volume is held.
				wp.AddVolume(energy.Volume{Month: v.Month, Product: energy.Product(v.Product), Value: v.Volume.Value, Confidential: v.Volume.Confidential})
				return nil
			})
		})
		if err != nil {
			return err
		}
		in.source("production", "Petrinex conventional volumetrics", p)
	}
	// Per well, then per LSD.
	uwis := make([]string, 0, len(in.prod))
	for u := range in.prod {
		uwis = append(uwis, u)
	}
	sort.Strings(uwis)
	for _, u := range uwis {
		p := *in.prod[u]
		lsdKey, ok := in.wellLSD[u]
		if !ok {
			display, err := DisplayUWI(u)
			if err != nil {
				in.sum.skip("production of a UWI that does not parse")
				continue
			}
			l, err := lld.ParseUWI(display)
			if err != nil {
				in.sum.skip("production of a UWI that does not parse")
				continue
			}
			lsdKey = l.String()
		}
		l, err := lld.Parse(lsdKey)
		if err != nil {
			continue
		}
		s := in.lsd(l)
		if s.prod == nil {
			s.prod = &energy.Production{}
		}
		*s.prod = s.prod.Add(p)
		if p.Producing() {
			s.producing++
		}
		if err := in.w.Put(energy.LSDKey(lsdKey), energy.ProductionWellSK(u), p); err != nil {
			return err
		}
	}
	in.progress("wells with production in %s..%s: %d", start, in.windowEnd, len(uwis))
	return nil
}
