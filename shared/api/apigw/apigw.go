// Package apigw runs the shared HTTP handlers on AWS Lambda behind an API
// Gateway REST API (v1 proxy events), through aws-lambda-go-api-proxy.
package apigw

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"os"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-lambda-go/lambda"
	"github.com/awslabs/aws-lambda-go-api-proxy/core"
	"github.com/awslabs/aws-lambda-go-api-proxy/httpadapter"

	"meridian/shared/api"
)

// Wrap adds the api middleware, taking request ids from API Gateway's
// requestContext.requestId, so log lines match API Gateway's access logs,
// and the authorizer's key_id (requestContext.authorizer.key_id) into each
// request line.
func Wrap(h http.Handler, logger *slog.Logger) http.Handler {
	return WrapMux(h, nil, logger)
}

// WrapMux is Wrap for a handler that serves mux behind layers that may
// answer first (the grid release check): their lines name mux's route.
func WrapMux(h http.Handler, mux *api.Mux, logger *slog.Logger) http.Handler {
	o := api.Options{Logger: logger, RequestID: RequestID}
	if mux != nil {
		o.Route = mux.Pattern
	}
	return api.Middleware(keyID(h), o)
}

// keyID annotates a request's line with the key id the authorizer handed
// API Gateway (functions/authorizer); it is absent off Lambda and on
// routes without the authorizer.
func keyID(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if rc, ok := core.GetAPIGatewayContextFromContext(r.Context()); ok {
			if id, _ := rc.Authorizer["key_id"].(string); id != "" {
				api.Annotate(r.Context(), "key_id", id)
			}
		}
		h.ServeHTTP(w, r)
	})
}

// RequestID returns API Gateway's request id of r, or "" off Lambda.
func RequestID(r *http.Request) string {
	if rc, ok := core.GetAPIGatewayContextFromContext(r.Context()); ok {
		return rc.RequestID
	}
	return ""
}

// Adapter returns the proxy adapter for h; its ProxyWithContext is the
// Lambda handler, and tests call it with recorded events.
func Adapter(h http.Handler) *httpadapter.HandlerAdapter {
	return httpadapter.New(h)
}

// Start serves h on Lambda; it does not return.
func Start(h http.Handler) {
	lambda.Start(Adapter(h).ProxyWithContext)
}

// ReadEvent reads a recorded REST API proxy event (events/*.json).
func ReadEvent(path string) (events.APIGatewayProxyRequest, error) {
	var ev events.APIGatewayProxyRequest
	data, err := os.ReadFile(path)
	if err != nil {
		return ev, err
	}
	if err := json.Unmarshal(data, &ev); err != nil {
		return ev, fmt.Errorf("apigw: decode event %s: %w", path, err)
	}
	return ev, nil
}

// Invoke runs ev through h exactly as the Lambda runtime would.
func Invoke(ctx context.Context, h http.Handler, ev events.APIGatewayProxyRequest) (events.APIGatewayProxyResponse, error) {
	return Adapter(h).ProxyWithContext(ctx, ev)
}
