package energy

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"meridian/shared/kv"
)

// randomSummary is an LSD's roll-up with every field drawn: maps and
// categories absent, empty or full, strings with escapes and other
// scripts, volumes from zero to exponent-sized.
func randomSummary(r *rand.Rand) LSDSummary {
	strs := []string{"", "AB", "0HX9", `q "x" \ y`, "é", "tab\there", "<&>", "CNRL 10-02", "2026-10"}
	floats := []float64{0, math.Copysign(0, -1), 0.5, 12.25, 1e-7, 3e21, -4.5, 1234567.89, 1.0 / 3}
	str := func() string { return strs[r.IntN(len(strs))] }
	flt := func() float64 { return floats[r.IntN(len(floats))] }
	s := LSDSummary{LSD: str(), Segments: r.IntN(40), PipelineLengthM: flt(), Facilities: r.IntN(9), LastActivityDate: str(), ProducingWells: r.IntN(30)}
	s.Wells = Liability{Total: r.IntN(500), Active: r.IntN(9), Suspended: r.IntN(9), Abandoned: r.IntN(9), Orphan: r.IntN(3), ReclamationCertified: -r.IntN(3)}
	if r.IntN(3) > 0 {
		s.WellsByOperator, s.OperatorNames = map[string]int{}, map[string]string{}
		for range r.IntN(4) {
			ba := str()
			s.WellsByOperator[ba] = r.IntN(100)
			if r.IntN(2) == 0 {
				s.OperatorNames[ba] = str()
			}
		}
	}
	if r.IntN(3) > 0 {
		for range 1 + r.IntN(3) {
			s.Categories = append(s.Categories, str())
		}
	}
	s.Production = Production{WindowMonths: r.IntN(13), LastProducingMonth: str(), Oil: flt(), Gas: flt(), Condensate: flt(), Water: flt(), ConfidentialMonths: r.IntN(3)}
	return s
}

// TestDecodeSummaryAsUnmarshal: decodeSummary gives what json.Unmarshal
// gives, on roll-ups as the ingest stores them (kv.MarshalItem) and on
// JSON it does not write; and the stored shape takes the fast path, unless
// a string needs escaping.
func TestDecodeSummaryAsUnmarshal(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 22))
	fast := 0
	for i := range 5000 {
		s := randomSummary(r)
		data, err := kv.MarshalItem(s)
		if err != nil {
			t.Fatal(err)
		}
		it := kv.Item{Data: data}
		var want, got LSDSummary
		if err := json.Unmarshal(it.Data, &want); err != nil {
			t.Fatal(err)
		}
		if err := decodeSummary(it.Data, &got); err != nil {
			t.Fatalf("summary %d: %v (%s)", i, err, it.Data)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("summary %d: decoded %+v, encoding/json %+v (%s)", i, got, want, it.Data)
		}
		var direct LSDSummary
		if decodeSummaryFast(it.Data, &direct) {
			fast++
		} else if !strings.Contains(string(it.Data), `\`) {
			t.Fatalf("summary %d took the slow way without an escape: %s", i, it.Data)
		}
	}
	if fast < 1000 {
		t.Fatalf("only %d of 5000 summaries took the fast way", fast)
	}
	// JSON the ingest does not write: the same values or the same error.
	for _, in := range []string{
		`{"lsd":"a","wells":{"total":1}}`,
		` { "lsd" : "a" , "producing_wells" : 3 } `,
		`{"LSD":"a"}`,
		`{"lsd":"a","unknown":1}`,
		`{"lsd":null,"facilities":2}`,
		`{"facility_categories":null}`,
		`{"facility_categories":[]}`,
		`{"wells_by_operator":{}}`,
		`{"facilities":-0}`,
		`{"facilities":1.5}`,
		`{"facilities":1e2}`,
		`{"facilities":01}`,
		`{"facilities":+1}`,
		`{"facilities":99999999999999999999}`,
		`{"pipeline_length_m":1.}`,
		`{"pipeline_length_m":.5}`,
		`{"pipeline_length_m":-}`,
		`{"pipeline_length_m":1e400}`,
		`{"pipeline_length_m":2E-3}`,
		`{"lsd":"a\u00e9"}`,
		"{\"lsd\":\"\xff\"}",
		"{\"lsd\":\"a\tb\"}",
		`{"lsd":"a",}`,
		`{"lsd":"a"}x`,
		`{"lsd":"a"`,
		`{"facility_categories":["a",]}`,
		`{"wells":{"total":1,"total":2}}`,
		`[]`,
		``,
	} {
		var want, got LSDSummary
		werr := json.Unmarshal([]byte(in), &want)
		gerr := decodeSummary([]byte(in), &got)
		if fmt.Sprint(werr) != fmt.Sprint(gerr) || !reflect.DeepEqual(got, want) {
			t.Errorf("%q: decoded %+v (%v), encoding/json %+v (%v)", in, got, gerr, want, werr)
		}
	}
}
