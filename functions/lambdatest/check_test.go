package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aws/aws-lambda-go/events"
)

// The repository's events all belong to a function of the stack, every
// function has some, and the authorizer's and the refresh job's have
// expectations (what make test-lambda needs before it starts anything).
func TestRepositoryEvents(t *testing.T) {
	evs, err := loadEvents(filepath.Join("..", "..", "events"))
	if err != nil {
		t.Fatal(err)
	}
	n := map[string]int{}
	for _, ev := range evs {
		n[ev.function]++
		if !behindAPI(ev.function) && ev.expect == nil {
			t.Errorf("%s: no expectation", ev.name)
		}
	}
	for fn := range stack {
		if n[fn] == 0 {
			t.Errorf("%s: no events", fn)
		}
	}
}

func writeFiles(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, body := range files {
		p := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestLoadEvents(t *testing.T) {
	good := map[string]string{
		"search-a.json":              `{"path":"/search/legal-location"}`,
		"refresh-x.json":             `{"datasets":["a"]}`,
		"expected/refresh-x.json":    `{"fields":{"published":true}}`,
		"authorizer-y.json":          `{}`,
		"expected/authorizer-y.json": `{"contains":["Unauthorized"]}`,
	}
	evs, err := loadEvents(writeFiles(t, good))
	if err != nil || len(evs) != 3 {
		t.Fatalf("got %d events, %v", len(evs), err)
	}
	for _, ev := range evs {
		want := map[string]string{"search-a": "search", "refresh-x": "refresh", "authorizer-y": "authorizer"}[ev.name]
		if ev.function != want {
			t.Errorf("%s: function %q, want %q", ev.name, ev.function, want)
		}
		if (ev.expect == nil) != (ev.name == "search-a") {
			t.Errorf("%s: expectation %v", ev.name, ev.expect)
		}
	}
	for name, files := range map[string]map[string]string{
		"an event of no function":              {"lambda-x.json": `{}`},
		"a refresh event without expectation":  {"refresh-x.json": `{}`},
		"an expectation without its event":     {"search-a.json": `{}`, "expected/search-b.json": `{"contains":["x"]}`},
		"an expectation that checks nothing":   {"refresh-x.json": `{}`, "expected/refresh-x.json": `{"status":200}`},
		"an expectation with an unknown field": {"refresh-x.json": `{}`, "expected/refresh-x.json": `{"field":{"a":1}}`},
		"an event that is not JSON":            {"search-a.json": `{`},
		"no events":                            {"README": ``},
	} {
		if _, err := loadEvents(writeFiles(t, files)); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

func TestExpectationCheck(t *testing.T) {
	e := expectation{Status: 200, Fields: map[string]json.RawMessage{
		"published": json.RawMessage(`true`),
		"updated":   json.RawMessage(`["a","b"]`),
		"unchanged": json.RawMessage(`null`),
	}, Contains: []string{`"a"`}}
	if err := e.check(200, []byte(`{"updated": ["a", "b"], "published":true, "seconds": 3}`)); err != nil {
		t.Errorf("matching answer: %v", err)
	}
	for _, bad := range []struct {
		status int
		body   string
	}{
		{502, `{"updated":["a","b"],"published":true}`},
		{200, `{"updated":["b","a"],"published":true}`},
		{200, `{"updated":["a","b"],"published":false}`},
		{200, `{"updated":["a","b"]}`},
		{200, `{"updated":["a","b"],"published":true,"unchanged":["c"]}`},
		{200, `["a"]`},
	} {
		if err := e.check(bad.status, []byte(bad.body)); err == nil {
			t.Errorf("%d %s: passed", bad.status, bad.body)
		}
	}
	c := expectation{Status: 200, Contains: []string{"needs a hand step"}}
	if c.check(200, []byte(`{"errorMessage":"refresh: x needs a hand step"}`)) != nil || c.check(200, []byte(`{"datasets":["x"]}`)) == nil {
		t.Error("contains: wrong verdict")
	}
}

func proxyResponse(t *testing.T, r events.APIGatewayProxyResponse) []byte {
	t.Helper()
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func gz(s string) []byte {
	var b bytes.Buffer
	w := gzip.NewWriter(&b)
	w.Write([]byte(s))
	w.Close()
	return b.Bytes()
}

func TestLambdaAnswer(t *testing.T) {
	raw := proxyResponse(t, events.APIGatewayProxyResponse{StatusCode: 200, Headers: map[string]string{"Content-Encoding": "gzip"},
		MultiValueHeaders: map[string][]string{"Content-Type": {"application/vnd.mapbox-vector-tile"}},
		Body:              base64.StdEncoding.EncodeToString(gz("tile bytes")), IsBase64Encoded: true})
	a, err := lambdaAnswer(200, raw)
	if err != nil || a.status != 200 || string(a.body) != "tile bytes" || a.header.Get("Content-Type") != "application/vnd.mapbox-vector-tile" {
		t.Errorf("got %+v %v", a, err)
	}
	for name, c := range map[string]struct {
		status int
		raw    string
	}{
		"emulator failure":    {502, `{"errorMessage":"exit status 1"}`},
		"a function's error":  {200, `{"errorMessage":"boom","errorType":"errorString"}`},
		"not a JSON response": {200, `Task timed out after 10.00 seconds`},
	} {
		if _, err := lambdaAnswer(c.status, []byte(c.raw)); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

func TestCompare(t *testing.T) {
	ev := events.APIGatewayProxyRequest{Path: "/tiles/ab/sec.json",
		Headers:               map[string]string{"Host": "abc.execute-api.ca-central-1.amazonaws.com", "X-Forwarded-Proto": "https"},
		QueryStringParameters: map[string]string{"api_key": "mk_example_maps"}}
	h := func(ct string) http.Header { return http.Header{"Content-Type": {ct}} }
	lambda := answer{200, h("application/json"), []byte(`{"tiles":["` + publicTilesURL + `/ab/sec/{z}/{x}/{y}.mvt?api_key=mk_example_maps"]}`)}
	local := answer{200, h("application/json"), []byte(`{"tiles":["https://abc.execute-api.ca-central-1.amazonaws.com/tiles/ab/sec/{z}/{x}/{y}.mvt?api_key=mk_localdemo"]}`)}
	if err := compare(ev, lambda, local, "mk_localdemo"); err != nil {
		t.Errorf("TileJSON equal but for the URL and key: %v", err)
	}
	errLambda := answer{404, h("application/json"), []byte(`{"error":{"code":"not_found","request_id":"c0ffee"}}`)}
	errLocal := answer{404, h("application/json"), []byte(`{"error":{"code":"not_found","request_id":"1234"}}`)}
	errLambda.header.Set("X-Request-Id", "c0ffee")
	errLocal.header.Set("X-Request-Id", "1234")
	errLocal.header.Set("X-RateLimit-Limit", "unlimited") // the local gateway's
	if err := compare(ev, errLambda, errLocal, "mk_localdemo"); err != nil {
		t.Errorf("errors equal but for the request id: %v", err)
	}
	vary := func(v ...string) http.Header { return http.Header{"Content-Type": {"application/json"}, "Vary": v} }
	for name, c := range map[string]struct{ lambda, local answer }{
		"status":                {answer{200, h("application/json"), []byte(`{}`)}, answer{404, h("application/json"), []byte(`{}`)}},
		"content type":          {answer{200, h("application/json"), []byte(`{}`)}, answer{200, h("application/geo+json"), []byte(`{}`)}},
		"body":                  {answer{200, h("application/json"), []byte(`{"n":1}`)}, answer{200, h("application/json"), []byte(`{"n":2}`)}},
		"a local 500 and equal": {answer{500, h("application/json"), []byte(`{}`)}, answer{500, h("application/json"), []byte(`{}`)}},
		"another key in Lambda": {answer{200, h("application/json"), []byte(`api_key=mk_other`)}, answer{200, h("application/json"), []byte(`api_key=mk_localdemo`)}},
		"Vary":                  {answer{200, vary("Accept-Encoding"), []byte(`{}`)}, answer{200, vary("Accept-Encoding", "X-API-Key"), []byte(`{}`)}},
		"a header Lambda adds":  {answer{200, http.Header{"Content-Type": {"application/json"}, "Etag": {`"1"`}}, []byte(`{}`)}, answer{200, h("application/json"), []byte(`{}`)}},
	} {
		if err := compare(ev, c.lambda, c.local, "mk_localdemo"); err == nil {
			t.Errorf("%s: no difference found", name)
		}
	}
}

// The local request is the event's, with the local key in place of the
// event's, in the header or the query where the event has it.
func TestLocalRequest(t *testing.T) {
	s := &localServer{base: "http://127.0.0.1:1", key: "mk_local"}
	ev := events.APIGatewayProxyRequest{HTTPMethod: "GET", Path: "/tiles/ab/sec/12/750/1370.mvt",
		MultiValueHeaders:               map[string][]string{"Host": {"h.example"}, "accept-encoding": {"gzip"}},
		MultiValueQueryStringParameters: map[string][]string{"api_key": {"mk_example_maps"}, "x": {"1", "2"}}}
	r, err := s.request(context.Background(), ev)
	if err != nil {
		t.Fatal(err)
	}
	if r.Host != "h.example" || r.URL.Query().Get("api_key") != "mk_local" || strings.Join(r.URL.Query()["x"], ",") != "1,2" ||
		r.Header.Get("Accept-Encoding") != "gzip" || r.Header.Get("X-API-Key") != "" {
		t.Errorf("query key: %s %v host %s", r.URL, r.Header, r.Host)
	}
	ev = events.APIGatewayProxyRequest{HTTPMethod: "POST", Path: "/batch/legal-location", Body: `["a"]`,
		Headers: map[string]string{"x-api-key": "mk_caller", "Content-Type": "application/json"}}
	r, err = s.request(context.Background(), ev)
	if err != nil {
		t.Fatal(err)
	}
	if r.Header.Get("X-API-Key") != "mk_local" || r.URL.RawQuery != "" || r.Method != "POST" {
		t.Errorf("header key: %s %v", r.URL, r.Header)
	}
}
