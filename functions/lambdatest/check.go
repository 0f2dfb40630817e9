package main

import (
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/aws/aws-lambda-go/events"
)

// eventPrefixes name the function an events/ file is meant for, by the
// start of its name. A file that matches none fails the run: an event
// nobody replays is a check that silently stopped.
var eventPrefixes = []struct{ prefix, function string }{
	{"search-", "search"},
	{"autocomplete-", "autocomplete"},
	{"batch-", "batch"},
	{"tiles-", "tiles"},
	{"authorizer-", "authorizer"},
	{"ag-report", "ag"},
	{"energy-", "energy"},
	{"changes-", "changes"},
	{"refresh-", "refresh"},
	{"watches-", "watches"},
	{"deliver-", "deliver"},
}

// behindAPI says whether fn serves API Gateway REST proxy requests, which
// the local server answers too: its answers are checked against the local
// server's. The authorizer and the refresh job have no local counterpart:
// theirs are checked against events/expected/.
func behindAPI(fn string) bool { return fn != "authorizer" && fn != "refresh" && fn != "deliver" }

// event is one recorded payload and what its answer must be.
type event struct {
	name, file, function string
	payload              []byte
	expect               *expectation // events/expected/<name>.json; nil when none
}

// expectation is an events/expected/<name>.json file: what the emulator's
// answer to the event must hold.
type expectation struct {
	// Status is the emulator's HTTP status (200, the default, for any
	// answer of the function, an error it returned included).
	Status int `json:"status"`
	// Fields are top-level fields of the answer (a JSON object), each of
	// which must equal the given JSON value; a field given as null must be
	// absent or null.
	Fields map[string]json.RawMessage `json:"fields"`
	// Contains are strings the answer must contain.
	Contains []string `json:"contains"`
}

// loadEvents reads every dir/*.json and its dir/expected/ file, and
// assigns each to its function.
func loadEvents(dir string) ([]event, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		return nil, err
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("%s: no events (*.json)", dir)
	}
	sort.Strings(files)
	var out []event
	var errs []error
	seen := map[string]bool{}
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".json")
		ev := event{name: name, file: f}
		for _, p := range eventPrefixes {
			if strings.HasPrefix(name, p.prefix) {
				ev.function = p.function
				break
			}
		}
		if ev.function == "" {
			errs = append(errs, fmt.Errorf("%s: no function's events (prefixes: %s)", f, prefixList()))
			continue
		}
		if ev.payload, err = os.ReadFile(f); err != nil {
			errs = append(errs, err)
			continue
		}
		if !json.Valid(ev.payload) {
			errs = append(errs, fmt.Errorf("%s: not JSON", f))
			continue
		}
		exp, err := readExpectation(filepath.Join(dir, "expected", name+".json"))
		switch {
		case err != nil:
			errs = append(errs, err)
		case exp == nil && !behindAPI(ev.function):
			errs = append(errs, fmt.Errorf("%s: the %s function's events need an expectation in %s", f, ev.function, filepath.Join(dir, "expected", name+".json")))
		}
		ev.expect = exp
		seen[name] = true
		out = append(out, ev)
	}
	// An expectation without its event checks nothing.
	extra, _ := filepath.Glob(filepath.Join(dir, "expected", "*.json"))
	for _, f := range extra {
		if name := strings.TrimSuffix(filepath.Base(f), ".json"); !seen[name] {
			errs = append(errs, fmt.Errorf("%s: no event %s.json", f, name))
		}
	}
	return out, errors.Join(errs...)
}

func prefixList() string {
	var p []string
	for _, x := range eventPrefixes {
		p = append(p, x.prefix)
	}
	return strings.Join(p, " ")
}

// readExpectation reads an expectation file; nil, nil when there is none.
func readExpectation(path string) (*expectation, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var e expectation
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&e); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(e.Fields) == 0 && len(e.Contains) == 0 {
		return nil, fmt.Errorf("%s: neither fields nor contains: it would pass whatever the function answers", path)
	}
	if e.Status == 0 {
		e.Status = http.StatusOK
	}
	return &e, nil
}

// check compares the emulator's answer (status and body) with e.
func (e *expectation) check(status int, body []byte) error {
	var errs []error
	if status != e.Status {
		errs = append(errs, fmt.Errorf("emulator status %d, want %d", status, e.Status))
	}
	if len(e.Fields) > 0 {
		var got map[string]json.RawMessage
		if err := json.Unmarshal(body, &got); err != nil {
			errs = append(errs, fmt.Errorf("answer is not a JSON object: %v", err))
		} else {
			keys := make([]string, 0, len(e.Fields))
			for k := range e.Fields {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				if !jsonEqual(got[k], e.Fields[k]) {
					errs = append(errs, fmt.Errorf("%s: %s, want %s", k, orNone(got[k]), e.Fields[k]))
				}
			}
		}
	}
	for _, c := range e.Contains {
		if !bytes.Contains(body, []byte(c)) {
			errs = append(errs, fmt.Errorf("answer lacks %q", c))
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("%w; answer: %.300s", errors.Join(errs...), body)
	}
	return nil
}

func orNone(v json.RawMessage) string {
	if v == nil {
		return "absent"
	}
	return string(v)
}

// jsonEqual compares two JSON values as values (key order and spacing
// aside); an absent value equals null.
func jsonEqual(a, b json.RawMessage) bool {
	var x, y any
	if len(a) == 0 {
		a = json.RawMessage("null")
	}
	if len(b) == 0 {
		b = json.RawMessage("null")
	}
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	xb, _ := json.Marshal(x)
	yb, _ := json.Marshal(y)
	return bytes.Equal(xb, yb)
}

// answer is one HTTP answer, the Lambda's or the local server's.
type answer struct {
	status int
	header http.Header
	body   []byte // decoded: base64 undone, gzip undone (Content-Encoding stays in header)
}

// lambdaAnswer decodes the emulator's answer to an API event: status 200
// and an API Gateway proxy response.
func lambdaAnswer(status int, raw []byte) (answer, error) {
	if status != http.StatusOK {
		return answer{}, fmt.Errorf("emulator status %d: %.300s", status, raw)
	}
	var pr events.APIGatewayProxyResponse
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&pr); err != nil || pr.StatusCode == 0 {
		return answer{}, fmt.Errorf("not an API Gateway proxy response (%v): %.300s", err, raw)
	}
	a := answer{status: pr.StatusCode, header: http.Header{}}
	for k, v := range pr.Headers {
		a.header.Set(k, v)
	}
	for k, vs := range pr.MultiValueHeaders {
		a.header.Del(k)
		for _, v := range vs {
			a.header.Add(k, v)
		}
	}
	a.body = []byte(pr.Body)
	if pr.IsBase64Encoded {
		b, err := base64.StdEncoding.DecodeString(pr.Body)
		if err != nil {
			return answer{}, fmt.Errorf("body: base64: %w", err)
		}
		a.body = b
	}
	return a, a.gunzip()
}

// gunzip undoes a gzip Content-Encoding of a.body.
func (a *answer) gunzip() error {
	if a.header.Get("Content-Encoding") != "gzip" {
		return nil
	}
	zr, err := gzip.NewReader(bytes.NewReader(a.body))
	if err != nil {
		return fmt.Errorf("gzip body: %w", err)
	}
	b, err := io.ReadAll(zr)
	if err != nil {
		return fmt.Errorf("gzip body: %w", err)
	}
	a.body = b
	return nil
}

// comparedHeaders are headers a Lambda's answer must share with the local
// server's, whichever has them; besides, every header the Lambda's answer
// has must be the local server's too (the local server adds its
// gateway's), but those in ownHeaders.
var comparedHeaders = []string{"Content-Type", "Content-Encoding", "Cache-Control", "Vary", "Retry-After"}

// ownHeaders differ by design: API Gateway sets the length, and the
// request id is API Gateway's on Lambda, the local server's own locally.
var ownHeaders = []string{"Content-Length", "X-Request-Id"}

var requestID = regexp.MustCompile(`"request_id":"[^"]*"`)

// compare checks the Lambda's answer to ev against the local server's to
// the same request. What differs by design is made equal first: the
// request id of error bodies (API Gateway's against the local server's
// own), the caller's key written into TileJSON (the event's against the
// local demo key) and {tiles_url} in TileJSON (the stack's
// PUBLIC_TILES_URL against the local server's own address).
func compare(ev events.APIGatewayProxyRequest, lambda, local answer, localKey string) error {
	if local.status >= 500 {
		return fmt.Errorf("the local server answered %d: %.300s", local.status, local.body)
	}
	var errs []error
	if lambda.status != local.status {
		errs = append(errs, fmt.Errorf("status %d, local server %d", lambda.status, local.status))
	}
	names := slices.Clone(comparedHeaders)
	for h := range lambda.header {
		if !slices.Contains(ownHeaders, h) && !slices.Contains(names, h) {
			names = append(names, h)
		}
	}
	for _, h := range names {
		if a, b := strings.Join(lambda.header.Values(h), ", "), strings.Join(local.header.Values(h), ", "); a != b {
			errs = append(errs, fmt.Errorf("%s %q, local server %q", h, a, b))
		}
	}
	lb, wb := normalise(lambda.body, ev, "", publicTilesURL), normalise(local.body, ev, localKey, localTilesURL(ev))
	if !bytes.Equal(lb, wb) {
		i := 0
		for i < len(lb) && i < len(wb) && lb[i] == wb[i] {
			i++
		}
		from := max(0, i-80)
		errs = append(errs, fmt.Errorf("bodies differ at byte %d (Lambda %d bytes, local server %d)\n      lambda: %q\n      local:  %q",
			i, len(lb), len(wb), lb[from:min(len(lb), i+120)], wb[from:min(len(wb), i+120)]))
	}
	return errors.Join(errs...)
}

// normalise replaces what differs by design in body: request ids, key
// (when set) by the event's key, and tilesURL by a placeholder.
func normalise(body []byte, ev events.APIGatewayProxyRequest, key, tilesURL string) []byte {
	b := requestID.ReplaceAll(body, []byte(`"request_id":""`))
	if key != "" {
		if k := eventKey(ev); k != "" {
			b = bytes.ReplaceAll(b, []byte(key), []byte(k))
		}
	}
	return bytes.ReplaceAll(b, []byte(tilesURL), []byte("{tiles_url}"))
}

// localTilesURL is {tiles_url} as the local server writes it for ev: the
// scheme of X-Forwarded-Proto and the Host the request was sent with.
func localTilesURL(ev events.APIGatewayProxyRequest) string {
	scheme := "http"
	if p := header(ev, "X-Forwarded-Proto"); p == "https" || p == "http" {
		scheme = p
	}
	return scheme + "://" + header(ev, "Host") + "/tiles"
}

// eventKey is the API key ev carries (header, else api_key).
func eventKey(ev events.APIGatewayProxyRequest) string {
	if k := header(ev, "X-API-Key"); k != "" {
		return k
	}
	if v := ev.MultiValueQueryStringParameters["api_key"]; len(v) > 0 {
		return v[0]
	}
	return ev.QueryStringParameters["api_key"]
}

// header is ev's first value of header name, in any case.
func header(ev events.APIGatewayProxyRequest, name string) string {
	for k, v := range ev.MultiValueHeaders {
		if len(v) > 0 && http.CanonicalHeaderKey(k) == name {
			return v[0]
		}
	}
	for k, v := range ev.Headers {
		if http.CanonicalHeaderKey(k) == name {
			return v
		}
	}
	return ""
}
