package energy

import (
	"slices"
	"strconv"

	"meridian/shared/api"
	"meridian/shared/report"
)

// The report's summary and production sections are written here, not by
// the reflecting encoder (7% of a full-size report's server CPU). A
// string that needs escaping or a number encoding/json writes in exponent
// form is rare (names are stored as published; volumes are rounded):
// then the section goes through encoding/json whole. TestSectionsAsEncoder
// holds the two ways to the same bytes.

// jsonWriter appends JSON to b; ok turns false at the first value it does
// not write as encoding/json would.
type jsonWriter struct {
	b  []byte
	ok bool
}

func (w *jsonWriter) raw(s string) { w.b = append(w.b, s...) }

func (w *jsonWriter) str(s string) {
	var ok bool
	if w.b, ok = report.AppendString(w.b, s); !ok {
		w.ok = false
	}
}

func (w *jsonWriter) strOrNull(s *string) {
	if s == nil {
		w.raw("null")
		return
	}
	w.str(*s)
}

func (w *jsonWriter) float(f float64) {
	var ok bool
	if w.b, ok = report.AppendFloat(w.b, f); !ok {
		w.ok = false
	}
}

func (w *jsonWriter) int(n int) { w.b = strconv.AppendInt(w.b, int64(n), 10) }

func (w *jsonWriter) bool(v bool) { w.b = strconv.AppendBool(w.b, v) }

// liability writes l's fields, without braces (Liability is embedded in
// the wells summary).
func (w *jsonWriter) liability(l Liability) {
	w.raw(`"total":`)
	w.int(l.Total)
	w.raw(`,"active":`)
	w.int(l.Active)
	w.raw(`,"suspended":`)
	w.int(l.Suspended)
	w.raw(`,"abandoned":`)
	w.int(l.Abandoned)
	w.raw(`,"orphan":`)
	w.int(l.Orphan)
	w.raw(`,"reclamation_certified":`)
	w.int(l.ReclamationCertified)
}

// appendWritten appends what write writes, or v through encoding/json when
// write met a value it does not write.
func appendWritten(dst []byte, v any, write func(w *jsonWriter)) ([]byte, error) {
	w := jsonWriter{b: dst, ok: true}
	write(&w)
	if w.ok {
		return w.b, nil
	}
	return api.AppendJSON(dst, v)
}

func (s *reportSummary) appendJSON(dst []byte) ([]byte, error) {
	return appendWritten(dst, s, func(w *jsonWriter) {
		w.raw(`{"wells":{`)
		w.liability(s.Wells.Liability)
		w.raw(`,"primary_source":`)
		w.str(s.Wells.PrimarySource)
		w.raw(`,"by_source":`)
		if s.Wells.BySource == nil {
			w.raw("null")
		} else {
			w.raw("{")
			keys := make([]string, 0, len(s.Wells.BySource))
			for k := range s.Wells.BySource {
				keys = append(keys, k)
			}
			slices.Sort(keys)
			for i, k := range keys {
				if i > 0 {
					w.raw(",")
				}
				w.str(k)
				w.raw(":{")
				w.liability(s.Wells.BySource[k])
				w.raw("}")
			}
			w.raw("}")
		}
		w.raw(`},"pipelines":{"segment_count":`)
		w.int(s.Pipelines.SegmentCount)
		w.raw(`,"length_m_on_parcel":`)
		w.float(s.Pipelines.LengthMOnParcel)
		w.raw(`},"facilities":{"count":`)
		w.int(s.Facilities.Count)
		w.raw(`,"categories":`)
		if s.Facilities.Categories == nil {
			w.raw("null")
		} else {
			w.raw("[")
			for i, c := range s.Facilities.Categories {
				if i > 0 {
					w.raw(",")
				}
				w.str(c)
			}
			w.raw("]")
		}
		w.raw(`},"operators":{"dominant":`)
		if d := s.Operators.Dominant; d == nil {
			w.raw("null")
		} else {
			w.raw(`{"name":`)
			w.strOrNull(d.Name)
			w.raw(`,"ba_code":`)
			w.strOrNull(d.BACode)
			w.raw(`,"slug":`)
			w.strOrNull(d.Slug)
			w.raw(`,"well_count":`)
			w.int(d.WellCount)
			w.raw(`,"well_share_pct":`)
			w.float(d.WellSharePct)
			w.raw(`,"share_basis":`)
			w.str(d.ShareBasis)
			w.raw("}")
		}
		w.raw(`},"last_activity_date":`)
		w.strOrNull(s.LastActivityDate)
		w.raw("}")
	})
}

// volumeKeys are the keys of reportProduction.Volumes, sorted.
var volumeKeys = []string{"condensate_m3", "gas_e3m3", "oil_m3", "water_m3"}

func (p *reportProduction) appendJSON(dst []byte) ([]byte, error) {
	return appendWritten(dst, p, func(w *jsonWriter) {
		w.raw(`{"window_months":`)
		w.int(p.WindowMonths)
		w.raw(`,"last_producing_month":`)
		w.strOrNull(p.LastProducingMonth)
		w.raw(`,"volumes":`)
		switch {
		case p.Volumes == nil:
			w.raw("null")
		case len(p.Volumes) != len(volumeKeys):
			w.ok = false // other keys: the encoder sorts them
		default:
			w.raw("{")
			for i, k := range volumeKeys {
				v, found := p.Volumes[k]
				if !found {
					w.ok = false
					break
				}
				if i > 0 {
					w.raw(",")
				}
				w.str(k)
				w.raw(":")
				w.float(v)
			}
			w.raw("}")
		}
		w.raw(`,"has_oil":`)
		w.bool(p.HasOil)
		w.raw(`,"has_gas":`)
		w.bool(p.HasGas)
		w.raw(`,"has_condensate":`)
		w.bool(p.HasCondensate)
		w.raw(`,"has_water":`)
		w.bool(p.HasWater)
		w.raw(`,"dominant_product":`)
		w.strOrNull(p.DominantProduct)
		w.raw(`,"producing_well_count":`)
		w.int(p.ProducingWellCount)
		w.raw("}")
	})
}
