package apigw_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/aws/aws-lambda-go/events"

	"meridian/shared/api"
	"meridian/shared/api/apigw"
	"meridian/shared/apierr"
)

// On Lambda the request line carries API Gateway's request id, the key id
// the authorizer handed API Gateway (never the key), and the Mux's route
// also when a layer in front of the Mux answered (here a readiness check
// refusing with 503).
func TestRequestLineOnLambda(t *testing.T) {
	mux := api.NewMux()
	mux.Mount(api.Route{Pattern: "GET /search/legal-location", Handler: api.Func(func(w http.ResponseWriter, r *http.Request) error {
		api.WriteJSON(w, http.StatusOK, map[string]bool{"ok": true})
		return nil
	})})
	ready := false
	gate := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !ready {
			api.WriteError(w, r, apierr.Unavailablef(nil, "not ready"))
			return
		}
		mux.ServeHTTP(w, r)
	})
	var logs bytes.Buffer
	h := apigw.WrapMux(gate, mux, api.NewJSONLogger(&logs, nil))
	const key = "mk_abcd1234efghijklmnopqrstuvwxyz23"
	send := func(path string) map[string]any {
		t.Helper()
		logs.Reset()
		ev := events.APIGatewayProxyRequest{
			HTTPMethod: "GET", Path: path, Headers: map[string]string{"X-API-Key": key},
			RequestContext: events.APIGatewayProxyRequestContext{RequestID: "req-1", Authorizer: map[string]any{"key_id": "abcd1234"}},
		}
		if _, err := apigw.Invoke(context.Background(), h, ev); err != nil {
			t.Fatal(err)
		}
		if strings.Contains(logs.String(), key) {
			t.Errorf("the key is in the log: %s", logs.String())
		}
		lines := strings.Split(strings.TrimSpace(logs.String()), "\n")
		var m map[string]any // the request line is the last
		if err := json.Unmarshal([]byte(lines[len(lines)-1]), &m); err != nil {
			t.Fatalf("log %q: %v", logs.String(), err)
		}
		return m
	}
	for _, c := range []struct {
		ready  bool
		path   string
		status float64
		route  string
	}{
		{false, "/search/legal-location", 503, "GET /search/legal-location"},
		{true, "/search/legal-location", 200, "GET /search/legal-location"},
		{true, "/search/nope", 404, ""},
	} {
		ready = c.ready
		m := send(c.path)
		if m["request_id"] != "req-1" || m["key_id"] != "abcd1234" || m["status"] != c.status || m["route"] != c.route {
			t.Errorf("%s (ready %v): line %v: want request_id req-1, key_id abcd1234, status %v, route %q", c.path, c.ready, m, c.status, c.route)
		}
		if _, has := m["path"]; has != (c.route == "") {
			t.Errorf("%s: line %v: path present %v, want %v", c.path, m, has, c.route == "")
		}
	}
}
