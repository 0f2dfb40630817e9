package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// openAPIDoc is the part of /openapi.json a client generator reads.
type openAPIDoc struct {
	Servers []struct {
		URL string `json:"url"`
	} `json:"servers"`
	Paths map[string]map[string]openAPIOp `json:"paths"`
}

type openAPIOp struct {
	OperationID string `json:"operationId"`
	Parameters  []struct {
		Name     string         `json:"name"`
		In       string         `json:"in"`
		Required bool           `json:"required"`
		Example  any            `json:"example"`
		Schema   map[string]any `json:"schema"`
	} `json:"parameters"`
	RequestBody *struct {
		Content map[string]struct {
			Example any `json:"example"`
		} `json:"content"`
	} `json:"requestBody"`
	Responses map[string]struct {
		Content map[string]json.RawMessage `json:"content"`
	} `json:"responses"`
	Security []map[string][]string `json:"security"`
}

func readOpenAPI(t *testing.T, h http.Handler) openAPIDoc {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/openapi.json", nil))
	if rec.Code != http.StatusOK {
		t.Fatalf("GET /openapi.json: %d %s", rec.Code, rec.Body)
	}
	var doc openAPIDoc
	dec := json.NewDecoder(rec.Body)
	dec.UseNumber() // path examples such as z=10 stay "10", not "1e+01"
	if err := dec.Decode(&doc); err != nil {
		t.Fatal(err)
	}
	return doc
}

// exampleOf is the value a generated client would send for a parameter:
// its example, else its schema's first example, default or enum value.
func exampleOf(example any, schema map[string]any) (string, bool) {
	if example != nil {
		return fmt.Sprint(example), true
	}
	if ex, ok := schema["examples"].([]any); ok && len(ex) > 0 {
		return fmt.Sprint(ex[0]), true
	}
	if d, ok := schema["default"]; ok {
		return fmt.Sprint(d), true
	}
	if e, ok := schema["enum"].([]any); ok && len(e) > 0 {
		return fmt.Sprint(e[0]), true
	}
	return "", false
}

// One request per operation, built from /openapi.json alone (server URL,
// path template with the path parameters' examples, required query
// parameters, the body's example, the key where the security scheme says),
// answers a status the document lists for it, and a 2xx answer has the
// documented content type. The examples are meant to work: every operation
// must answer 2xx with the demo data.
func TestOpenAPIRequests(t *testing.T) {
	t.Parallel()
	srv, key := newTestServer(t)
	ts := httptest.NewServer(srv.handler)
	defer ts.Close()
	doc := readOpenAPI(t, srv.handler)
	if len(doc.Servers) == 0 {
		t.Fatal("no servers in /openapi.json")
	}
	base, err := url.Parse(ts.URL)
	if err != nil {
		t.Fatal(err)
	}
	base, err = base.Parse(doc.Servers[0].URL)
	if err != nil {
		t.Fatalf("servers[0].url %q: %v", doc.Servers[0].URL, err)
	}
	var paths []string
	for p := range doc.Paths {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	n := 0
	for _, path := range paths {
		for method, op := range doc.Paths[path] {
			name := strings.ToUpper(method) + " " + path
			n++
			req, err := buildRequest(base, path, method, op, key)
			if err != nil {
				t.Errorf("%s: %v", name, err)
				continue
			}
			if strings.HasPrefix(path, "/watches/{id}") {
				// A watch's id is made by POST /watches: the example's
				// watch, made for each request (one of them deletes it).
				req.URL.Path = strings.Replace(req.URL.Path, watchExampleID, newExampleWatch(t, base, doc, key), 1)
			}
			res, err := ts.Client().Do(req)
			if err != nil {
				t.Errorf("%s: %v", name, err)
				continue
			}
			body, _ := io.ReadAll(io.LimitReader(res.Body, 1<<20))
			res.Body.Close()
			resp, ok := op.Responses[strconv.Itoa(res.StatusCode)]
			if !ok {
				t.Errorf("%s (%s): status %d is not among the documented %v: %.300s", name, req.URL, res.StatusCode, keys(op.Responses), body)
				continue
			}
			if res.StatusCode/100 != 2 {
				t.Errorf("%s (%s): %d, want 2xx from the document's examples: %.300s", name, req.URL, res.StatusCode, body)
				continue
			}
			if res.StatusCode == http.StatusNoContent {
				continue
			}
			ct, _, err := mime.ParseMediaType(res.Header.Get("Content-Type"))
			if _, documented := resp.Content[ct]; err != nil || !documented {
				t.Errorf("%s (%s): Content-Type %q, documented %v", name, req.URL, res.Header.Get("Content-Type"), keys(resp.Content))
			}
		}
	}
	if n < 20 {
		t.Errorf("only %d operations in /openapi.json", n)
	}
}

func buildRequest(base *url.URL, path, method string, op openAPIOp, key string) (*http.Request, error) {
	q := url.Values{}
	for _, p := range op.Parameters {
		if !p.Required {
			continue
		}
		v, ok := exampleOf(p.Example, p.Schema)
		if !ok {
			return nil, fmt.Errorf("required %s parameter %s has no example", p.In, p.Name)
		}
		switch p.In {
		case "path":
			if !strings.Contains(path, "{"+p.Name+"}") {
				return nil, fmt.Errorf("path parameter %s is not in the template", p.Name)
			}
			path = strings.ReplaceAll(path, "{"+p.Name+"}", url.PathEscape(v))
		case "query":
			q.Set(p.Name, v)
		default:
			return nil, fmt.Errorf("parameter %s in %s", p.Name, p.In)
		}
	}
	if strings.ContainsAny(path, "{}") {
		return nil, fmt.Errorf("path %s keeps a template variable", path)
	}
	var body io.Reader
	if op.RequestBody != nil {
		media, ok := op.RequestBody.Content["application/json"]
		if !ok || media.Example == nil {
			return nil, fmt.Errorf("request body has no application/json example")
		}
		b, err := json.Marshal(media.Example)
		if err != nil {
			return nil, err
		}
		body = bytes.NewReader(b)
	}
	header := false
	for _, s := range op.Security {
		if _, ok := s["ApiKeyHeader"]; ok {
			header = true
		}
	}
	if !header && len(op.Security) > 0 {
		q.Set("api_key", key)
	}
	u, err := base.Parse(strings.TrimPrefix(path, "/"))
	if err != nil {
		return nil, err
	}
	u.RawQuery = q.Encode()
	req, err := http.NewRequest(strings.ToUpper(method), u.String(), body)
	if err != nil {
		return nil, err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if header {
		req.Header.Set("X-API-Key", key)
	}
	return req, nil
}

func keys[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// meridian openapi prints, without a data directory, the document the
// server answers at /openapi.json (what make lint-openapi lints).
func TestOpenAPICommand(t *testing.T) {
	t.Parallel()
	var stdout, stderr bytes.Buffer
	if code := run([]string{"openapi"}, nil, &stdout, &stderr); code != 0 {
		t.Fatalf("meridian openapi: exit %d: %s", code, stderr.String())
	}
	srv, _ := newTestServer(t)
	rec := httptest.NewRecorder()
	srv.handler.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/openapi.json", nil))
	if !bytes.Equal(stdout.Bytes(), rec.Body.Bytes()) {
		t.Errorf("meridian openapi printed %d bytes that differ from GET /openapi.json (%d bytes)", stdout.Len(), rec.Body.Len())
	}
	out := filepath.Join(t.TempDir(), "openapi.json")
	if code := run([]string{"openapi", "-o", out}, nil, &stdout, &stderr); code != 0 {
		t.Fatalf("meridian openapi -o: exit %d: %s", code, stderr.String())
	}
	if b, err := os.ReadFile(out); err != nil || !bytes.Equal(b, rec.Body.Bytes()) {
		t.Errorf("meridian openapi -o wrote %d bytes, %v; want the document", len(b), err)
	}
}

// watchExampleID is the example of a watch's id in /openapi.json.
const watchExampleID = "w_0123456789abcdef"

// newExampleWatch makes a watch from POST /watches' example and returns
// its id.
func newExampleWatch(t *testing.T, base *url.URL, doc openAPIDoc, key string) string {
	t.Helper()
	req, err := buildRequest(base, "/watches", "post", doc.Paths["/watches"]["post"], key)
	if err != nil {
		t.Fatal(err)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var w struct{ ID string }
	if err := json.NewDecoder(res.Body).Decode(&w); err != nil || res.StatusCode != http.StatusCreated || w.ID == "" {
		t.Fatalf("POST /watches from its example: %d, %v", res.StatusCode, err)
	}
	return w.ID
}
