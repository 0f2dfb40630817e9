package convert

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/url"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"unicode/utf8"

	"github.com/paulmach/orb"

	"meridian/shared/api"
	"meridian/shared/apierr"
	"meridian/shared/lld"
	"meridian/shared/survey"
	"meridian/shared/survey/grid"
)

// Limits of the conversion endpoints.
const (
	MaxBatch           = 100     // records per batch request
	maxBatchBody       = 1 << 20 // bytes; 100 records fit many times over
	DefaultSuggestions = 3
	MaxSuggestions     = 10
	minAutocompleteLen = 2
)

// Grid is what the conversion endpoints ask of the grid service
// (*grid.Service).
type Grid interface {
	Search(ctx context.Context, input string) (survey.Block, error)
	Reverse(ctx context.Context, q grid.ReverseQuery) ([]survey.Block, error)
	Autocomplete(ctx context.Context, input string, limit int, proximity *orb.Point) ([]survey.Block, error)
}

// Handler serves the conversion endpoints over a grid service.
type Handler struct {
	grid Grid
	// BatchWorkers is how many of a batch's locations are resolved at
	// once: GOMAXPROCS when zero (CPU-bound lookups, as on a local disk),
	// each goroutine taking at least minPerWorker locations; more where
	// lookups wait on the network (S3 range reads on Lambda), where a
	// value set here is taken as it is, down to one location a goroutine.
	BatchWorkers int

	slots chan struct{} // the batches resolved at once (admitBatch)
}

// NewHandler returns the HTTP handlers of the conversion endpoints over g.
func NewHandler(g Grid) *Handler {
	return &Handler{grid: g, slots: make(chan struct{}, runtime.GOMAXPROCS(0))}
}

// admitBatch waits for one of the batch slots (as many as cores) when
// lookups are CPU-bound (BatchWorkers zero), in arrival order, and returns
// its release. More batches at once only share the cores, and their
// workers then wait behind one another's in the scheduler's queue: under
// 32 connections on two cores a batch's p99 was eight times its median.
// On Lambda (BatchWorkers set) an instance serves one request at a time
// and waits on S3, not on a core: nothing to bound.
func (h *Handler) admitBatch(r *http.Request) (release func(), err error) {
	if h.BatchWorkers > 0 || h.slots == nil {
		return func() {}, nil
	}
	select {
	case h.slots <- struct{}{}:
		return func() { <-h.slots }, nil
	case <-r.Context().Done():
		return nil, r.Context().Err()
	}
}

// batchWorkers returns the goroutines for a batch of n locations.
func (h *Handler) batchWorkers(n int) int {
	if h.BatchWorkers > 0 {
		return h.BatchWorkers
	}
	return min(runtime.GOMAXPROCS(0), n/minPerWorker)
}

// minPerWorker is the fewest locations worth a goroutine of their own: a
// cached lookup takes a few microseconds, starting a goroutine about one.
const minPerWorker = 8

// eachConcurrently calls fn(i) for i in [0, n) on up to workers goroutines
// (the caller's among them), each taking the next index in turn: a batch's
// answer waits on its slowest lookup, not on the sum of them.
func eachConcurrently(n, workers int, fn func(i int)) {
	workers = min(workers, n)
	if workers <= 1 {
		for i := range n {
			fn(i)
		}
		return
	}
	var next atomic.Int64
	work := func() {
		for i := int(next.Add(1) - 1); i < n; i = int(next.Add(1) - 1) {
			fn(i)
		}
	}
	var wg sync.WaitGroup
	for range workers - 1 {
		wg.Go(work)
	}
	work()
	wg.Wait()
}

// bodyBufs holds the buffers GeoJSON answers are built in: a batch of 100
// polygons (some hundreds of KB) is reused, anything past 1 MiB is left to
// the collector.
var bodyBufs = api.Buffers{Max: 1 << 20}

func writeCollection(w http.ResponseWriter, fill func(buf []byte) []byte) {
	bp := bodyBufs.Get()
	buf := append(*bp, `{"type":"FeatureCollection","features":[`...)
	buf = fill(buf)
	buf = append(buf, '}', '\n')
	api.WriteRaw(w, http.StatusOK, geoJSON, buf)
	*bp = buf
	bodyBufs.Put(bp)
}

// SearchLegalLocation answers GET /search/legal-location?location=...
func (h *Handler) SearchLegalLocation(w http.ResponseWriter, r *http.Request) error {
	query := r.URL.Query() // parsed once: each Query call parses the whole query again
	input, err := requiredParam(query, "location", "a legal land description such as NW-25-24-1-W5")
	if err != nil {
		return err
	}
	d, err := ParseDatum(query.Get("datum"))
	if err != nil {
		return err
	}
	b, err := h.grid.Search(r.Context(), input)
	if err == nil {
		b, err = d.Block(b)
	}
	if err != nil {
		return err
	}
	writeCollection(w, func(buf []byte) []byte {
		return append(appendBlockFeatures(buf, &b, input, d), ']')
	})
	return nil
}

// SearchCoordinates answers GET /search/coordinates?location=lng,lat[&survey_system=][&unit=][&datum=]
func (h *Handler) SearchCoordinates(w http.ResponseWriter, r *http.Request) error {
	query := r.URL.Query()
	input, err := requiredParam(query, "location", "coordinates as lng,lat such as -114.0719,51.0447")
	if err != nil {
		return err
	}
	pt, err := ParsePoint(input)
	if err != nil {
		return err
	}
	q, err := ParseReverse(query.Get("survey_system"), query.Get("unit"))
	if err != nil {
		return err
	}
	d, err := ParseDatum(query.Get("datum"))
	if err != nil {
		return err
	}
	if q.Point, err = d.ToNAD83(pt); err != nil {
		return err
	}
	blocks, err := h.grid.Reverse(r.Context(), q)
	if err == nil {
		err = d.blocks(blocks)
	}
	if err != nil {
		return d.explain(err, pt)
	}
	writeCollection(w, func(buf []byte) []byte {
		for i := range blocks {
			if i > 0 {
				buf = append(buf, ',')
			}
			buf = appendBlockFeatures(buf, &blocks[i], input, d)
		}
		return append(buf, ']')
	})
	return nil
}

// ParseReverse reads the survey_system and unit of a reverse lookup (as
// the HTTP routes and the convert command take them; either may be empty)
// and checks them together: an FPS Section or Unit is read with the system.
func ParseReverse(system, unit string) (grid.ReverseQuery, error) {
	var q grid.ReverseQuery
	if system = strings.TrimSpace(system); system != "" {
		s, ok := lld.ParseSystem(system)
		if !ok {
			return q, apierr.Invalidf("invalid_parameter", "survey_system '%s' is not valid: use DLS, NTS, River Lot, Geographic Township or FPS", system)
		}
		q.System = s
	}
	if unit = strings.TrimSpace(unit); unit != "" {
		if strings.EqualFold(unit, "all") {
			q.All = true
		} else {
			u, ok := lld.ParseUnit(unit)
			if !ok {
				return q, apierr.Invalidf("invalid_parameter", "unit '%s' is not valid: use Township, Section, Quarter Section, LSD (DLS); Series, Map Area, Map Sheet, Block, Unit, Quarter Unit (NTS); River/Parish Lot; Lot, Concession; Grid, Section, Unit (FPS); or all", unit)
			}
			q.Unit = u
		}
	}
	return q, grid.CheckReverse(q)
}

// Autocomplete answers GET /autocomplete/legal-location?location=...[&limit=][&proximity=]
func (h *Handler) Autocomplete(w http.ResponseWriter, r *http.Request) error {
	query := r.URL.Query()
	input, err := requiredParam(query, "location", "the start of a legal land description such as NW-25-24")
	if err != nil {
		return err
	}
	if len([]rune(strings.TrimSpace(input))) < minAutocompleteLen {
		return apierr.Invalidf("invalid_parameter", "location must be at least %d characters", minAutocompleteLen)
	}
	limit := DefaultSuggestions
	if s := query.Get("limit"); s != "" {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n < 1 || n > MaxSuggestions {
			return apierr.Invalidf("invalid_parameter", "limit '%s' is out of range: limit is an integer from 1 to %d (default %d)", s, MaxSuggestions, DefaultSuggestions)
		}
		limit = n
	}
	d, err := ParseDatum(query.Get("datum"))
	if err != nil {
		return err
	}
	var prox *orb.Point
	if s := query.Get("proximity"); s != "" {
		pt, err := ParsePoint(s)
		if err == nil {
			pt, err = d.ToNAD83(pt)
		}
		if err != nil {
			return apierr.Invalidf("invalid_coordinates", "proximity: %s", apierr.As(err).Message)
		}
		prox = &pt
	}
	blocks, err := h.grid.Autocomplete(r.Context(), input, limit, prox)
	if err == nil {
		err = d.blocks(blocks)
	}
	if err != nil {
		return err
	}
	writeCollection(w, func(buf []byte) []byte {
		for i := range blocks {
			if i > 0 {
				buf = append(buf, ',')
			}
			buf = appendSuggestion(buf, &blocks[i], input, d)
		}
		return append(buf, ']')
	})
	return nil
}

// BatchError is a record of a batch that failed: the errors foreign member.
type BatchError struct {
	Index   int             `json:"index"`
	Input   json.RawMessage `json:"input"`
	Code    string          `json:"code"`
	Message string          `json:"message"`
}

// BatchLegalLocation answers POST /batch/legal-location[?datum=] with a JSON
// array of up to 100 legal land descriptions.
func (h *Handler) BatchLegalLocation(w http.ResponseWriter, r *http.Request) error {
	d, err := datumParam(r)
	if err != nil {
		return err
	}
	items, err := decodeBatch(r)
	if err != nil {
		return err
	}
	if items == nil {
		return apierr.Invalidf("invalid_parameter", "request body is null: send a JSON array of up to 100 legal land descriptions")
	}
	if len(items) > MaxBatch {
		return tooMany(len(items))
	}
	release, err := h.admitBatch(r)
	if err != nil {
		return err
	}
	defer release()
	blocks := make([]survey.Block, len(items))
	terms := make([]string, len(items))
	failed := make([]*BatchError, len(items))
	fatal := make([]error, len(items))
	eachConcurrently(len(items), h.batchWorkers(len(items)), func(i int) {
		raw := items[i]
		s, ok := plainString(raw)
		if !ok {
			if err := json.Unmarshal(raw, &s); err != nil {
				failed[i] = &BatchError{i, raw, "invalid_legal_location", "record is not a string: send each legal land description as a JSON string"}
				return
			}
		}
		b, err := h.grid.Search(r.Context(), s)
		if err == nil {
			b, err = d.Block(b)
		}
		if err != nil {
			e := apierr.As(err)
			if e == nil || e.Kind == apierr.Unavailable {
				fatal[i] = err
				return
			}
			failed[i] = &BatchError{i, raw, e.Code, e.Message}
			return
		}
		blocks[i], terms[i] = b, s
	})
	var errs []BatchError
	for i := range items {
		if fatal[i] != nil {
			return fatal[i]
		}
		if failed[i] != nil {
			errs = append(errs, *failed[i])
		}
	}
	return writeBatch(w, blocks, terms, errs, d)
}

// decodeBatch reads the body of POST /batch/legal-location: a JSON array
// whose items are returned undecoded. A body of plain strings (see
// plainArray), which is every batch of legal land descriptions, is split
// by hand; anything else goes through decodeBody, which reads it (or
// refuses it) as json does.
func decodeBatch(r *http.Request) ([]json.RawMessage, error) {
	const want = "a JSON array of up to 100 legal land descriptions, e.g. [\"NW-25-24-1-W5\",\"10-36-42-3-W5\"]"
	data, err := readBody(r, want)
	if err != nil {
		return nil, err
	}
	if items, ok := plainArray(data); ok {
		return items, nil
	}
	var items []json.RawMessage
	return items, decodeJSON(data, &items, want)
}

// plainArray splits a JSON array of plain strings (printable ASCII with
// no backslash: see plainString) into its items, each a JSON string
// sharing data; ok is false for anything else (other values, escapes,
// non-ASCII, a syntax error), which json then reads. A nil array is not
// plain: the caller refuses "null" with its own message.
func plainArray(data []byte) (items []json.RawMessage, ok bool) {
	i := skipSpace(data, 0)
	if i == len(data) || data[i] != '[' {
		return nil, false
	}
	items = make([]json.RawMessage, 0, MaxBatch)
	i = skipSpace(data, i+1)
	if i < len(data) && data[i] == ']' {
		if skipSpace(data, i+1) != len(data) {
			return nil, false
		}
		return items, true
	}
	for {
		if i == len(data) || data[i] != '"' {
			return nil, false
		}
		j := i + 1
		for j < len(data) && data[j] != '"' {
			if c := data[j]; c < 0x20 || c == '\\' || c >= utf8.RuneSelf {
				return nil, false
			}
			j++
		}
		if j == len(data) {
			return nil, false
		}
		items = append(items, json.RawMessage(data[i:j+1:j+1]))
		i = skipSpace(data, j+1)
		if i == len(data) {
			return nil, false
		}
		switch data[i] {
		case ']':
			if skipSpace(data, i+1) != len(data) {
				return nil, false
			}
			return items, true
		case ',':
			i = skipSpace(data, i+1)
		default:
			return nil, false
		}
	}
}

// skipSpace returns the index of the first byte of data at or after i that
// is not JSON whitespace.
func skipSpace(data []byte, i int) int {
	for i < len(data) {
		switch data[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

// plainString returns the value of a JSON string that has nothing to
// unescape (no backslash, no control character, valid UTF-8), as every
// legal land description does, without the reflection and the two copies
// of json.Unmarshal; ok is false for anything else, which json.Unmarshal
// then reads (or refuses) as before.
func plainString(raw []byte) (s string, ok bool) {
	if len(raw) < 2 || raw[0] != '"' || raw[len(raw)-1] != '"' {
		return "", false
	}
	body := raw[1 : len(raw)-1]
	for _, c := range body {
		if c < 0x20 || c == '"' || c == '\\' || c >= utf8.RuneSelf {
			return "", false // escapes, and non-ASCII whose invalid bytes json replaces
		}
	}
	return string(body), true
}

// batchCoordinatesBody is the body of POST /batch/coordinates.
type batchCoordinatesBody struct {
	Coordinates  []json.RawMessage `json:"coordinates"`
	SurveySystem string            `json:"survey_system"`
	Unit         string            `json:"unit"`
	Datum        string            `json:"datum"`
}

// BatchCoordinates answers POST /batch/coordinates with
// {"coordinates": [[lng, lat], ...], "survey_system": ..., "unit": ...,
// "datum": ...}; the datum may also come as the query parameter (the two
// must agree when both are given).
func (h *Handler) BatchCoordinates(w http.ResponseWriter, r *http.Request) error {
	var body batchCoordinatesBody
	const want = `a JSON object {"coordinates": [[lng, lat], ...], "survey_system": "DLS", "unit": "Quarter Section"} with up to 100 pairs`
	if err := decodeBody(r, &body, want); err != nil {
		return err
	}
	if body.Coordinates == nil {
		return apierr.Invalidf("invalid_parameter", "coordinates is required: %s", want)
	}
	if len(body.Coordinates) > MaxBatch {
		return tooMany(len(body.Coordinates))
	}
	q, err := ParseReverse(body.SurveySystem, body.Unit)
	if err != nil {
		return err
	}
	d, err := bodyDatum(r, body.Datum)
	if err != nil {
		return err
	}
	release, err := h.admitBatch(r)
	if err != nil {
		return err
	}
	defer release()
	var (
		blocks []survey.Block
		terms  []string
		errs   []BatchError
	)
	for i, raw := range body.Coordinates {
		var pair []float64
		if err := json.Unmarshal(raw, &pair); err != nil || len(pair) != 2 {
			errs = append(errs, BatchError{i, raw, "invalid_coordinates", "record is not a [lng, lat] pair of numbers"})
			continue
		}
		sent, err := PointFrom(pair[0], pair[1])
		var pt orb.Point
		if err == nil {
			pt, err = d.ToNAD83(sent)
		}
		if err == nil {
			q.Point = pt
			var got []survey.Block
			if got, err = h.grid.Reverse(r.Context(), q); err == nil {
				err = d.blocks(got)
			}
			if err == nil {
				term := trimFloat(pair[0]) + "," + trimFloat(pair[1])
				for _, b := range got {
					blocks = append(blocks, b)
					terms = append(terms, term)
				}
				continue
			}
		}
		e := apierr.As(d.explain(err, sent))
		if e == nil || e.Kind == apierr.Unavailable {
			return err
		}
		errs = append(errs, BatchError{i, raw, e.Code, e.Message})
	}
	return writeBatch(w, blocks, terms, errs, d)
}

// bodyDatum reads the datum of a request that may name it in its body and
// in the query: either, or both if they agree.
func bodyDatum(r *http.Request, inBody string) (Datum, error) {
	d, err := ParseDatum(inBody)
	if err != nil {
		return d, err
	}
	q, err := datumParam(r)
	if err != nil {
		return q, err
	}
	switch {
	case strings.TrimSpace(inBody) == "":
		return q, nil
	case r.URL.Query().Has("datum") && q != d:
		return d, apierr.Invalidf("invalid_parameter", "datum is %s in the body but %s in the query: give one", d, q)
	}
	return d, nil
}

// writeBatch writes the blocks that resolved, in datum d (skipping the zero
// blocks of failed records), and the errors member.
func writeBatch(w http.ResponseWriter, blocks []survey.Block, terms []string, errs []BatchError, d Datum) error {
	errJSON := []byte("[]")
	if len(errs) > 0 {
		var err error
		if errJSON, err = json.Marshal(errs); err != nil {
			return err
		}
	}
	writeCollection(w, func(buf []byte) []byte {
		n := 0
		for i := range blocks {
			if blocks[i].Location.System == lld.SystemUnknown {
				continue
			}
			if n > 0 {
				buf = append(buf, ',')
			}
			buf = appendBlockFeatures(buf, &blocks[i], terms[i], d)
			n++
		}
		buf = append(buf, `],"errors":`...)
		return append(buf, errJSON...)
	})
	return nil
}

func tooMany(n int) error {
	return apierr.TooLargef("batch_too_large", "batch has %d records: at most %d records per request; split it into several requests", n, MaxBatch)
}

// decodeBody reads a JSON body of at most maxBatchBody bytes into v.
func decodeBody(r *http.Request, v any, want string) error {
	data, err := readBody(r, want)
	if err != nil {
		return err
	}
	return decodeJSON(data, v, want)
}

// readBody reads a request body of at most maxBatchBody bytes.
func readBody(r *http.Request, want string) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(r.Body, maxBatchBody+1))
	if err != nil {
		return nil, apierr.Invalidf("invalid_parameter", "request body could not be read: send %s", want)
	}
	if len(data) > maxBatchBody {
		return nil, apierr.TooLargef("batch_too_large", "request body is larger than %d bytes: send at most %d records per request", maxBatchBody, MaxBatch)
	}
	return data, nil
}

// decodeJSON reads one JSON value of data into v, refusing what is empty,
// malformed, of the wrong shape or followed by more data.
func decodeJSON(data []byte, v any, want string) error {
	data = bytes.TrimSpace(data)
	if len(data) == 0 {
		return apierr.Invalidf("invalid_parameter", "request body is empty: send %s", want)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(v); err != nil {
		var se *json.SyntaxError
		var te *json.UnmarshalTypeError
		switch {
		case errors.As(err, &se):
			return apierr.Invalidf("invalid_parameter", "request body is not valid JSON (at byte %d): send %s", se.Offset, want)
		case errors.As(err, &te):
			return apierr.Invalidf("invalid_parameter", "request body has the wrong shape: send %s", want)
		}
		return apierr.Invalidf("invalid_parameter", "request body is not valid JSON: send %s", want)
	}
	if dec.More() {
		return apierr.Invalidf("invalid_parameter", "request body has data after the JSON value: send %s", want)
	}
	return nil
}

// requiredParam returns a query parameter that must be present and not blank.
func requiredParam(query url.Values, name, what string) (string, error) {
	v := query.Get(name)
	if strings.TrimSpace(v) == "" {
		return "", apierr.Invalidf("invalid_parameter", "%s is required: %s", name, what)
	}
	return v, nil
}
