package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"

	"github.com/aws/aws-lambda-go/events"

	"meridian/shared/gateway"
)

// errUnauthorized is the one error API Gateway turns into a 401 (its
// UNAUTHORIZED gateway response): the message must be exactly
// "Unauthorized", so it breaks the package-prefix rule for error strings.
var errUnauthorized = errors.New("Unauthorized")

// authorizer answers API Gateway REQUEST authorizer calls for every
// product's RestApi. It does not know which keys exist: it hands the key to
// API Gateway as the usage identifier key (the RestApis use API key source
// AUTHORIZER), and API Gateway looks it up among the keys of the usage plans
// on the called stage.
//
// What a caller sees, compared with the local gateway (meridian/shared/gateway):
//
//   - no key: on the REST products (search, autocomplete, batch, ag,
//     energy) the X-API-Key header is the authorizer's identity source, so
//     API Gateway answers 401 itself without invoking this function; on the
//     maps API the WebACL refuses a request with neither the header nor the
//     api_key query parameter (401) before it gets here, and this function
//     returns errUnauthorized for anything keyless that gets past it.
//     Every such answer's body says missing_api_key, as locally;
//   - a key that is unknown, disabled, or in no usage plan of this product's
//     stage: API Gateway itself refuses it with 403 (gateway response
//     INVALID_API_KEY), which the stack rewrites to 401 invalid_api_key. The
//     local gateway tells an unknown key (401 invalid_api_key) from a known
//     key without the product (403 product_not_in_plan); API Gateway cannot,
//     so the one answer names both causes;
//   - over the plan's rate or quota: 429 from API Gateway (THROTTLED,
//     QUOTA_EXCEEDED), rewritten to rate_limited and quota_exceeded.
//
// The policy allows the whole stage (apiId/stage/*), because API Gateway
// caches this answer per X-API-Key value for five minutes on the REST
// products and applies it to every method of the stage. The maps API has no
// cache: its key may come from either of two places, and a cached REQUEST
// authorizer needs all its identity sources present.
type authorizer struct {
	logger *slog.Logger
}

// newHandler returns the Lambda handler.
func newHandler(logger *slog.Logger) func(context.Context, events.APIGatewayCustomAuthorizerRequestTypeRequest) (events.APIGatewayCustomAuthorizerResponse, error) {
	a := &authorizer{logger: logger}
	return a.authorize
}

func (a *authorizer) authorize(ctx context.Context, req events.APIGatewayCustomAuthorizerRequestTypeRequest) (events.APIGatewayCustomAuthorizerResponse, error) {
	key := apiKeyOf(req)
	if key == "" {
		a.logger.InfoContext(ctx, "refused", "request_id", req.RequestContext.RequestID, "code", "missing_api_key", "path", req.Path)
		return events.APIGatewayCustomAuthorizerResponse{}, errUnauthorized
	}
	resource, err := stageARN(req.MethodArn)
	if err != nil {
		// API Gateway answers 500 (AUTHORIZER_FAILURE): it only happens if
		// API Gateway changes its event.
		a.logger.ErrorContext(ctx, "bad event", "request_id", req.RequestContext.RequestID, "err", err)
		return events.APIGatewayCustomAuthorizerResponse{}, err
	}
	id := keyID(key)
	a.logger.DebugContext(ctx, "key passed on", "request_id", req.RequestContext.RequestID, "key_id", id)
	return events.APIGatewayCustomAuthorizerResponse{
		PrincipalID: id,
		PolicyDocument: events.APIGatewayCustomAuthorizerPolicy{
			Version: "2012-10-17",
			Statement: []events.IAMPolicyStatement{{
				Action:   []string{"execute-api:Invoke"},
				Effect:   "Allow",
				Resource: []string{resource},
			}},
		},
		// The function behind the method reads it as
		// requestContext.authorizer.key_id (for logs); never the key itself.
		Context:            map[string]any{"key_id": id},
		UsageIdentifierKey: key,
	}, nil
}

// apiKeyOf returns the caller's key as the local gateway finds it: the
// X-API-Key header (any case; its first value) when not empty, else, for
// tiles and TileJSON only, the first api_key query parameter.
func apiKeyOf(req events.APIGatewayCustomAuthorizerRequestTypeRequest) string {
	if v := headerValue(req.MultiValueHeaders, req.Headers, gateway.HeaderAPIKey); v != "" {
		return v
	}
	if p, ok := gateway.ProductOf(req.Path); !ok || p != gateway.Maps {
		return ""
	}
	if v := req.MultiValueQueryStringParameters[gateway.QueryAPIKey]; len(v) > 0 {
		return v[0]
	}
	return req.QueryStringParameters[gateway.QueryAPIKey]
}

// headerValue returns the first value of header name in either of API
// Gateway's header maps, which keep the names as the client sent them.
func headerValue(multi map[string][]string, single map[string]string, name string) string {
	for k, v := range multi {
		if len(v) > 0 && v[0] != "" && http.CanonicalHeaderKey(k) == name {
			return v[0]
		}
	}
	for k, v := range single {
		if v != "" && http.CanonicalHeaderKey(k) == name {
			return v
		}
	}
	return ""
}

// stageARN turns a method ARN (arn:aws:execute-api:region:account:apiId/stage/VERB/path)
// into the ARN of every method of its stage.
func stageARN(methodARN string) (string, error) {
	parts := strings.SplitN(methodARN, "/", 3)
	if len(parts) < 3 || !strings.HasPrefix(parts[0], "arn:") || parts[1] == "" {
		return "", fmt.Errorf("authorizer: method ARN %q is not arn:…:apiId/stage/verb/path", methodARN)
	}
	return parts[0] + "/" + parts[1] + "/*", nil
}

// keyID is the short id the local gateway logs for a key: the 8 characters
// after "mk_", or the first 8 hex digits of the SHA-256 of any other form.
// It is the principal id API Gateway writes to its access logs.
func keyID(key string) string {
	const n = 8
	if rest, ok := strings.CutPrefix(key, gateway.KeyPrefix); ok && len(rest) >= n {
		return rest[:n]
	}
	sum := sha256.Sum256([]byte(key))
	return hex.EncodeToString(sum[:])[:n]
}
