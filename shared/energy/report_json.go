package energy

import (
	"strconv"

	"meridian/shared/api"
)

// AppendJSON appends the report's JSON as encoding/json writes it
// without HTML escaping (api.WriteJSON), with a final newline. The rows a
// report read with PassRows passed through are copied as stored, not
// decoded and encoded again, and the sections' envelopes and the report's
// are written here: the reflecting encoder, and the decoding it needed,
// were about 45% of a report's server CPU. TestReportAppendJSON holds the
// two ways to the same bytes.
func (rep *Report) AppendJSON(dst []byte) ([]byte, error) {
	var err error
	field := func(name string, v any) {
		if err != nil {
			return
		}
		dst = append(dst, ',', '"')
		dst = append(dst, name...)
		dst = append(dst, '"', ':')
		dst, err = api.AppendJSON(dst, v)
	}
	dst = append(dst, `{"legal_location":`...)
	if dst, err = api.AppendJSON(dst, rep.LegalLocation); err != nil {
		return nil, err
	}
	field("province", rep.Province)
	if err == nil {
		dst, err = rep.Parcel.AppendJSON(append(dst, `,"parcel":`...))
	}
	if rep.Summary != nil && err == nil {
		dst, err = rep.Summary.appendJSON(append(dst, `,"summary":`...))
	}
	if rep.Production != nil && err == nil {
		dst, err = rep.Production.appendJSON(append(dst, `,"production":`...))
	}
	if err != nil {
		return nil, err
	}
	if rep.Tenure != nil {
		dst, err = appendSection(append(dst, `,"tenure":`...), rep.Tenure)
	}
	if rep.Wells != nil && err == nil {
		dst, err = appendSection(append(dst, `,"wells":`...), rep.Wells)
	}
	switch {
	case err != nil:
	case rep.pipes != nil:
		dst, err = appendSection(append(dst, `,"pipelines":`...), rep.pipes)
	case len(rep.Pipelines) > 0: // null: not published
		dst = append(append(dst, `,"pipelines":`...), rep.Pipelines...)
	}
	if rep.Facilities != nil && err == nil {
		dst, err = appendSection(append(dst, `,"facilities":`...), rep.Facilities)
	}
	if err != nil {
		return nil, err
	}
	if len(rep.AlternativeEnergy) > 0 {
		dst = append(append(dst, `,"alternative_energy":`...), rep.AlternativeEnergy...)
	}
	dst = append(dst, `,"units":`...)
	dst = append(dst, unitsJSON...)
	if rep.metaJSON != nil {
		dst = append(append(dst, `,"meta":`...), rep.metaJSON...)
	} else {
		field("meta", rep.Meta)
	}
	if err != nil {
		return nil, err
	}
	return append(dst, '}', '\n'), nil
}

// unitsJSON is Units as encoding/json writes it (keys sorted).
var unitsJSON = func() []byte {
	b, err := api.AppendJSON(nil, Units)
	if err != nil {
		panic(err)
	}
	return b
}()

// appendSection appends a section; its rows from s.Raw when they were
// passed through.
func appendSection[T any](dst []byte, s *section[T]) ([]byte, error) {
	if !s.Raw.Passed() {
		return api.AppendJSON(dst, s)
	}
	dst = append(dst, `{"total":`...)
	dst = strconv.AppendInt(dst, int64(s.Total), 10)
	dst = append(dst, `,"returned":`...)
	dst = strconv.AppendInt(dst, int64(s.Returned), 10)
	dst = append(dst, `,"truncated":`...)
	dst = strconv.AppendBool(dst, s.Truncated)
	dst = append(dst, `,"more":`...)
	if s.More == nil {
		dst = append(dst, "null"...)
	} else {
		var err error
		if dst, err = api.AppendJSON(dst, *s.More); err != nil {
			return nil, err
		}
	}
	dst = append(dst, `,"rows":[`...)
	dst = s.Raw.AppendRows(dst)
	return append(dst, ']', '}'), nil
}
