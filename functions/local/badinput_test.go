package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"meridian/shared/api"
)

// badValues are malformed parameter values, written as they go into a URL
// (already escaped): NUL bytes, bytes that are not UTF-8, an invalid escape,
// ~100 KB strings, unicode (RTL override, Arabic, emoji, zero-width,
// mathematical digits), numbers out of range or not numbers, path tricks,
// JSON and markup where text is expected, header injection.
func badValues() []string {
	q := url.QueryEscape
	return []string{
		"%00", "a%00b", "%ff%fe", "%c3%28", "%ed%a0%80", "%zz", "%", "%2",
		strings.Repeat("A", 100<<10),
		strings.Repeat(q("é"), 17<<10), // ~100 KB escaped
		q(strings.Repeat("NW-25-24-1-W5,", 7000)),
		q("\u202e5W-3-24-63-01"), q("مرحبا"), q("🛢️🌾"), q("\u200b"), q("𝟏𝟎-𝟑𝟔-𝟒𝟐-𝟑-W𝟓"), q("ＮＷ-２５-２４-１-Ｗ５"),
		"1e308", "-1e308", "1e309", "NaN", "Inf", "-Inf", "-1", "0", "99", "2147483648", "-9223372036854775809",
		"99999999999999999999999", "0x10", "1.5", "", "%20", "+", "-0",
		q("../../etc/passwd"), "%2e%2e", "%2e%2e%2f%2e%2e%2fetc", "..", ".", "a.", "...", "%2F",
		q("1e308,1e308"), q("-200,95"), q("NaN,NaN"), q("91,181"), q("1,2,3"), q(","), q("51.04,-114.07,NAD27"),
		q("null"), q("[]"), q(`{"a":1}`), q("'; DROP TABLE x;--"), q("<script>alert(1)</script>"),
		"%0d%0aX-Injected:%201", q("NW-25-24-1-W5\x00"), q("summary," + strings.Repeat("geometry,", 2000)),
	}
}

// badBodies are request bodies of the POST routes: wrong JSON types, deep
// nesting, too many records, huge strings, invalid JSON and UTF-8.
func badBodies() []string {
	many := make([]string, 101)
	for i := range many {
		many[i] = `"NW-25-24-1-W5"`
	}
	pairs := make([]string, 101)
	for i := range pairs {
		pairs[i] = "[-114,51]"
	}
	return []string{
		"", " ", "null", "{}", "[]", "1", "-1e308", `"x"`, "true", "[", "{", `{"coordinates":`, "[1,2]", "[null]", "[[]]",
		`[{"a":1}]`, `["\u0000"]`, "[\"\xff\xfe\"]", `["` + strings.Repeat("A", 100<<10) + `"]`,
		"[" + strings.Join(many, ",") + "]",
		strings.Repeat("[", 20000) + strings.Repeat("]", 20000),
		strings.Repeat(`{"a":`, 20000) + "1" + strings.Repeat("}", 20000),
		`{"coordinates":"x"}`, `{"coordinates":null}`, `{"coordinates":[]}`, `{"coordinates":[[1]]}`, `{"coordinates":[[1,2,3]]}`,
		`{"coordinates":[["a","b"]]}`, `{"coordinates":[[1e308,1e308]]}`, `{"coordinates":[[-1e308,91]]}`, `{"coordinates":[[181,-91]]}`,
		`{"coordinates":[[-114,51]],"unit":5}`, `{"coordinates":[[-114,51]],"unit":"Nope"}`, `{"coordinates":[[-114,51]],"survey_system":["DLS"]}`,
		`{"coordinates":[[-114,51]],"datum":"WGS84"}`, `{"coordinates":[[-114,51]],"datum":null}`, `{"coordinates":[{"lng":1,"lat":2}]}`,
		`{"coordinates":[` + strings.Join(pairs, ",") + `]}`, `{"coordinates":[[-114,51]]}trailing`, `[1e999]`, `{"coordinates":[[1e999,0]]}`,
	}
}

// A malformed request to any route answers no 5xx, and a 4xx carries the
// JSON error body with a code the OpenAPI document lists for its status
// (issue 16), and one its operation documents when the request reaches a
// documented route. Deterministic (a fixed list), in-process over loopback;
// one request in memory at a time.
func TestBadInput(t *testing.T) {
	t.Parallel()
	srv, key := newTestServer(t)
	ts := httptest.NewServer(srv.handler)
	defer ts.Close()
	doc := readOpenAPI(t, srv.handler)
	host := strings.TrimPrefix(ts.URL, "http://")

	type probe struct {
		method, path, query, body string
		key                       string
	}
	start := time.Now()
	statuses := map[int]int{}
	netHTTP := 0 // refused by net/http before any handler: the path does not parse (an invalid escape)
	client := ts.Client()
	// route tells which documented operation a request reaches, as the
	// server's mux would route it, so its 4xx can be held to that
	// operation's documented statuses.
	route := http.NewServeMux()
	opOf := map[string]openAPIOp{}
	for _, r := range srv.mux.Routes() {
		route.Handle(r.Pattern, http.NotFoundHandler())
		if !r.Op.Hidden {
			opOf[r.Pattern] = doc.Paths[api.DocPath(r)][strings.ToLower(r.Method())]
		}
	}
	undocumented := map[string]bool{}
	n := 0
	// add sends p at once: one request in memory at a time (≤ ~300 KB).
	add := func(p probe) {
		n++
		req := &http.Request{Method: p.method, URL: &url.URL{Scheme: "http", Host: host, Opaque: p.path, RawQuery: p.query},
			Host: host, Header: http.Header{}, Body: http.NoBody}
		if p.body != "" {
			req.Body = io.NopCloser(strings.NewReader(p.body))
			req.ContentLength = int64(len(p.body))
			req.Header.Set("Content-Type", "application/json")
		}
		if p.key != "" {
			req.Header.Set("X-API-Key", p.key)
		}
		label := fmt.Sprintf("%s %.120s?%.120s (body %.60q)", p.method, p.path, p.query, p.body)
		res, err := client.Do(req)
		if err != nil {
			t.Errorf("%s: %v", label, err)
			return
		}
		body, _ := io.ReadAll(io.LimitReader(res.Body, 4<<20))
		res.Body.Close()
		statuses[res.StatusCode]++
		switch {
		case res.StatusCode >= 500:
			t.Errorf("%s: %d: %.300s", label, res.StatusCode, body)
		case res.StatusCode >= 400:
			if _, perr := url.ParseRequestURI(p.path); perr != nil && res.StatusCode == 400 && bytes.HasPrefix(body, []byte("400 Bad Request")) {
				netHTTP++
				return
			}
			if err := checkErrorBody(res, body); err != nil {
				t.Errorf("%s: %d: %v: %.300s", label, res.StatusCode, err, body)
			}
			if u, err := url.ParseRequestURI(p.path + "?" + p.query); err == nil {
				_, pattern := route.Handler(&http.Request{Method: p.method, URL: u, Host: host})
				if op, ok := opOf[pattern]; ok && res.StatusCode != http.StatusMethodNotAllowed {
					if _, documented := op.Responses[strconv.Itoa(res.StatusCode)]; !documented {
						if k := fmt.Sprintf("%s answers %d", pattern, res.StatusCode); !undocumented[k] {
							undocumented[k] = true
							t.Errorf("%s: %s, which its operation does not document: %.200s", label, k, body)
						}
					}
				}
			}
		}
	}

	for _, r := range srv.mux.Routes() {
		method := r.Method()
		if r.Op.Hidden {
			// The map page and its files: path tricks only.
			base := strings.TrimSuffix(strings.ReplaceAll(r.Path(), "{$}", ""), "/")
			for _, p := range []string{base + "/", base + "/app.js", base + "/%2e%2e/%2e%2e/go.mod", base + "/..%2fserver.go", base + "/vendor/%00",
				base + "/" + strings.Repeat("a", 100<<10), base + "/%ff", base + "/a.", base + "//x", base + "/./"} {
				add(probe{method: method, path: p, key: key})
			}
			continue
		}
		path := api.DocPath(r)
		op := doc.Paths[path][strings.ToLower(method)]
		// The working request of the document's examples, then each
		// parameter in turn replaced by every bad value.
		good := map[string]string{}
		for _, p := range op.Parameters {
			if v, ok := exampleOf(p.Example, p.Schema); ok && (p.Required || p.In == "path") {
				good[p.Name] = v
			}
		}
		build := func(name, raw string) (string, string) {
			pth := path
			var q []string
			for _, p := range op.Parameters {
				v, ok := good[p.Name]
				if p.Name == name {
					v, ok = raw, true
				} else if ok {
					v = url.QueryEscape(v)
				}
				if !ok {
					continue
				}
				if p.In == "path" {
					pth = strings.ReplaceAll(pth, "{"+p.Name+"}", v)
				} else {
					q = append(q, p.Name+"="+v)
				}
			}
			return pth, strings.Join(q, "&")
		}
		goodBody := ""
		if op.RequestBody != nil {
			b, _ := json.Marshal(op.RequestBody.Content["application/json"].Example)
			goodBody = string(b)
		}
		for _, p := range op.Parameters {
			for _, v := range badValues() {
				pth, q := build(p.Name, v)
				add(probe{method: method, path: pth, query: q, body: goodBody, key: key})
			}
		}
		pth, q := build("", "")
		// Repeated and unknown parameters.
		add(probe{method: method, path: pth, query: q + "&" + q, body: goodBody, key: key})
		add(probe{method: method, path: pth, query: q + "&unknown=%00&=x&&", body: goodBody, key: key})
		// Path tricks around the working path.
		for _, p := range []string{pth + "/", pth + "/.", pth + "/..", pth + ".", pth + "%2e%2e", pth + "/%2e%2e/%2e%2e", pth + "%00", pth + "%ff",
			strings.Replace(pth, "/", "//", 2)[1:], strings.ToUpper(pth), "/%2e%2e" + pth, pth + "/" + strings.Repeat("x", 100<<10), pth + ";x=1", pth + "%zz"} {
			add(probe{method: method, path: p, query: q, body: goodBody, key: key})
		}
		// Other methods, no key, a key that is not one.
		for _, m := range []string{http.MethodGet, http.MethodPost, http.MethodPut, http.MethodDelete, http.MethodPatch} {
			if m != method {
				add(probe{method: m, path: pth, query: q, body: goodBody, key: key})
			}
		}
		if !r.Op.Public {
			add(probe{method: method, path: pth, query: q, body: goodBody})
			add(probe{method: method, path: pth, query: q, body: goodBody, key: strings.Repeat("k", 100<<10)})
			add(probe{method: method, path: pth, query: q + "&api_key=" + key, body: goodBody})
		}
		if op.RequestBody != nil {
			for _, b := range badBodies() {
				add(probe{method: method, path: pth, query: q, body: b, key: key})
			}
		}
	}

	var codes []string
	for s, n := range statuses {
		codes = append(codes, fmt.Sprintf("%d×%d", s, n))
	}
	sort.Strings(codes)
	t.Logf("%d requests to %d routes in %v; statuses %v; %d refused by net/http itself (invalid escape in the path, before any handler)",
		n, len(srv.mux.Routes()), time.Since(start).Round(time.Millisecond), codes, netHTTP)
	if n < 2000 {
		t.Errorf("only %d requests", n)
	}
}

// checkErrorBody checks a 4xx body is {"error":{"code","message"},"message"}
// with a code the document lists for the status (405 and the map page's
// 403 host_not_allowed are the router's and the map page's, not an
// operation's).
func checkErrorBody(res *http.Response, body []byte) error {
	if ct := res.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		return fmt.Errorf("Content-Type %q, want application/json", ct)
	}
	var e struct {
		Error struct {
			Code    string `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
		Message string `json:"message"`
	}
	if err := json.Unmarshal(body, &e); err != nil {
		return fmt.Errorf("not the JSON error body: %v", err)
	}
	if e.Error.Code == "" || e.Error.Message == "" || e.Message == "" {
		return fmt.Errorf("error body without code or message")
	}
	documented := api.ErrorCodes(res.StatusCode)
	switch res.StatusCode {
	case http.StatusMethodNotAllowed:
		documented = []string{"method_not_allowed"}
	case http.StatusForbidden:
		documented = append(slices.Clone(documented), "host_not_allowed")
	}
	if !slices.Contains(documented, e.Error.Code) {
		return fmt.Errorf("code %q is not one the document lists for %d (%v)", e.Error.Code, res.StatusCode, documented)
	}
	return nil
}
