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
// requestContext.requestId, so log lines match API Gateway's access logs.
func Wrap(h http.Handler, logger *slog.Logger) http.Handler {
	return api.Middleware(h, api.Options{Logger: logger, RequestID: RequestID})
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
