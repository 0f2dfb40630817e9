package apigw_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/aws/aws-lambda-go/events"

	"meridian/shared/api"
	"meridian/shared/api/apigw"
	"meridian/shared/gateway"
)

// The key id the authorizer hands API Gateway becomes the caller of the
// request, as the local gateway makes it; without one, 401.
func TestWithCaller(t *testing.T) {
	mux := api.NewMux()
	mux.Mount(api.Route{Pattern: "GET /watches", Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, ok := gateway.CallerFrom(r.Context())
		if !ok {
			t.Error("no caller in the context")
		}
		api.WriteJSON(w, 200, map[string]string{"owner": c.KeyID, "product": c.Product.String()})
	})})
	h := apigw.Wrap(apigw.WithCaller(gateway.Energy, mux), nil)
	call := func(authorizer map[string]any) events.APIGatewayProxyResponse {
		resp, err := apigw.Invoke(context.Background(), h, events.APIGatewayProxyRequest{
			HTTPMethod: "GET", Path: "/watches",
			RequestContext: events.APIGatewayProxyRequestContext{RequestID: "r1", Authorizer: authorizer},
		})
		if err != nil {
			t.Fatal(err)
		}
		return resp
	}
	if r := call(map[string]any{"key_id": "abcd1234", "principalId": "abcd1234"}); r.StatusCode != 200 || !strings.Contains(r.Body, `"owner":"abcd1234"`) || !strings.Contains(r.Body, `"product":"energy"`) {
		t.Errorf("with a key id: %d %s", r.StatusCode, r.Body)
	}
	for _, a := range []map[string]any{nil, {"principalId": "abcd1234"}, {"key_id": ""}, {"key_id": 7}} {
		if r := call(a); r.StatusCode != 401 || !strings.Contains(r.Body, `"code":"missing_api_key"`) {
			t.Errorf("authorizer context %v: %d %s, want 401 missing_api_key", a, r.StatusCode, r.Body)
		}
	}
}
