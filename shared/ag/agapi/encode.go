package agapi

import (
	"bytes"
	"encoding/json"
	"maps"
	"slices"

	"meridian/shared/ag"
	"meridian/shared/api"
	"meridian/shared/report"
)

// appendReport appends rep's JSON as api.WriteJSON writes it (no HTML
// escaping, a final newline), with the sections' stored JSON copied as it
// is instead of through encoding/json, which scans every json.RawMessage
// twice (validity, then compaction): 14% of an ag report's server CPU.
// Package ag has checked every section it sets (valid JSON, or "null", or
// composed of checked parts), and compacted it (rep.Compact): the
// sections are then written as they are. Without rep.Compact, a section
// without whitespace outside its strings is written as it is, one with
// such whitespace compacted as the encoder would.
func appendReport(dst []byte, rep *ag.Report) ([]byte, error) {
	var err error
	field := func(name string, v any, first bool) {
		if err != nil {
			return
		}
		if !first {
			dst = append(dst, ',')
		}
		dst = append(dst, '"')
		dst = append(dst, name...)
		dst = append(dst, '"', ':')
		switch v := v.(type) {
		case string:
			dst, err = appendString(dst, v)
		case report.Parcel:
			dst, err = v.AppendJSON(dst)
		case ag.Units:
			if v == standardUnits {
				dst = append(dst, standardUnitsJSON...)
				return
			}
			dst, err = api.AppendJSON(dst, v)
		default:
			dst, err = api.AppendJSON(dst, v)
		}
	}
	section := func(name string, raw json.RawMessage) {
		if err != nil || len(raw) == 0 { // omitempty
			return
		}
		dst = append(dst, ',', '"')
		dst = append(dst, name...)
		dst = append(dst, '"', ':')
		dst, err = appendRaw(dst, raw, rep.Compact)
	}
	dst = append(dst, '{')
	field("legal_location", rep.LegalLocation, true)
	field("resolved_legal_location", rep.Resolved, false)
	field("grain", rep.Grain, false)
	field("province", rep.Province, false)
	field("parcel", rep.Parcel, false)
	section("productivity", rep.Productivity)
	section("cropping", rep.Cropping)
	section("soil", rep.Soil)
	section("land_use", rep.LandUse)
	section("drought", rep.Drought)
	section("wetlands", rep.Wetlands)
	section("hydrology", rep.Hydrology)
	section("parcel_context", rep.ParcelContext)
	section("provincial_detail", rep.ProvincialDetail)
	field("units", rep.Units, false)
	// meta: its sources are stored JSON too (checked by package ag).
	if err != nil {
		return nil, err
	}
	dst = append(dst, `,"meta":{"unavailable":`...)
	if dst, err = appendUnavailable(dst, rep.Meta.Unavailable); err != nil {
		return nil, err
	}
	dst = append(dst, `,"sources":`...)
	if rep.Meta.Sources == nil {
		dst = append(dst, "null"...)
	} else {
		dst = append(dst, '{')
		// In order: ag.SourceNames, unless the report has another.
		names := ag.SourceNames
		n := 0
		for _, k := range names {
			if _, ok := rep.Meta.Sources[k]; ok {
				n++
			}
		}
		if n != len(rep.Meta.Sources) {
			names = slices.Sorted(maps.Keys(rep.Meta.Sources))
		}
		n = 0
		for _, k := range names {
			src, ok := rep.Meta.Sources[k]
			if !ok {
				continue
			}
			if n > 0 {
				dst = append(dst, ',')
			}
			n++
			if dst, err = appendString(dst, k); err != nil {
				return nil, err
			}
			dst = append(dst, ':')
			if dst, err = appendRaw(dst, src, rep.Compact); err != nil {
				return nil, err
			}
		}
		dst = append(dst, '}')
	}
	return append(dst, '}', '}', '\n'), nil
}

// appendUnavailable appends meta.unavailable as encoding/json writes it:
// [] when empty, null when nil.
func appendUnavailable(dst []byte, us []report.Unavailable) ([]byte, error) {
	if us == nil {
		return append(dst, "null"...), nil
	}
	dst = append(dst, '[')
	var err error
	for i, u := range us {
		if i > 0 {
			dst = append(dst, ',')
		}
		if dst, err = appendString(append(dst, `{"section":`...), u.Section); err != nil {
			return nil, err
		}
		if dst, err = appendString(append(dst, `,"reason":`...), u.Reason); err != nil {
			return nil, err
		}
		dst = append(dst, '}')
	}
	return append(dst, ']'), nil
}

// appendRaw appends stored JSON as the encoder writes a json.RawMessage:
// null when empty, as it is when compact (known: the report says so, or
// found by a scan), compacted otherwise.
func appendRaw(dst []byte, raw json.RawMessage, known bool) ([]byte, error) {
	switch {
	case len(raw) == 0:
		return append(dst, "null"...), nil
	case known || compact(raw):
		return append(dst, raw...), nil
	}
	return appendCompact(dst, raw)
}

// appendCompact appends raw without insignificant whitespace, as the
// encoder writes a json.RawMessage.
func appendCompact(dst []byte, raw json.RawMessage) ([]byte, error) {
	b := bytes.NewBuffer(dst)
	if err := json.Compact(b, raw); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// compact reports whether valid JSON has no whitespace outside its
// strings: what the encoder's compaction would leave as it is (without
// HTML escaping it changes nothing else).
func compact(raw []byte) bool {
	inString, escaped := false, false
	for _, c := range raw {
		switch {
		case escaped:
			escaped = false
		case inString:
			switch c {
			case '\\':
				escaped = true
			case '"':
				inString = false
			}
		case c == '"':
			inString = true
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			return false
		}
	}
	return true
}

// standardUnits are the report's units, written once (encoding them by
// reflection, with the report's strings, was 5% of its CPU).
var (
	standardUnits        = ag.Units{Area: "ha", Distance: "m"}
	standardUnitsJSON, _ = api.AppendJSON(nil, standardUnits)
)

// appendString appends s as the encoder writes a string without HTML
// escaping: as it is when it needs no escape (report.AppendString),
// through the encoder otherwise.
func appendString(dst []byte, s string) ([]byte, error) {
	if b, ok := report.AppendString(dst, s); ok {
		return b, nil
	}
	return api.AppendJSON(dst, s)
}
