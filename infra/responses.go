package main

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/aws/aws-cdk-go/awscdk/v2/awsapigateway"
	"github.com/aws/jsii-runtime-go"
)

// errorResponse is one of API Gateway's own answers (it refuses before the
// function runs) rewritten to the error body of ARCHITECTURE §4 and the code
// the local gateway uses for the same case.
type errorResponse struct {
	Type    awsapigateway.ResponseType
	Name    string // construct id suffix
	Status  string // "" keeps API Gateway's status
	Code    string
	Message string // may use $context.error.messageString (already quoted)
	Headers map[string]string
}

// errorResponses are the gateway responses of the API of product d, whose
// 429 rate_limited answer says Retry-After: retry seconds (retryAfter).
//
//   - UNAUTHORIZED (401): no key → missing_api_key. On the REST products
//     API Gateway answers it before invoking the authorizer (identity source
//     X-API-Key); on the maps API the authorizer finds no key.
//   - INVALID_API_KEY (403): the key is not in any usage plan of this stage:
//     unknown, disabled, or without this product. The local gateway answers
//     401 invalid_api_key for the first and 403 product_not_in_plan for the
//     last; API Gateway cannot tell them apart, so this answers 401
//     invalid_api_key with a message naming both.
//   - ACCESS_DENIED (403): an authorizer Deny; ours never denies, so only a
//     misconfiguration gets here → product_not_in_plan.
//   - THROTTLED (429) → rate_limited, Retry-After the wait for one token of
//     the product's slowest plan (static: API Gateway cannot compute it per
//     key).
//   - QUOTA_EXCEEDED (429) → quota_exceeded, Retry-After one hour: the
//     quota resets at the start of the next UTC month, which a static header
//     cannot name; a client that retries hourly loses at most an hour after
//     the reset, for a few hundred cheap refusals a month at worst.
//   - AUTHORIZER_FAILURE, AUTHORIZER_CONFIGURATION_ERROR (500), and
//     INTEGRATION_FAILURE, INTEGRATION_TIMEOUT, DEFAULT_5XX (the function
//     throttled at its reserved concurrency, timed out or failed to answer)
//     → 503 upstream_unavailable with Retry-After, as locally when a
//     dependency is down: the caller may retry, and a throttled Lambda is no
//     "internal error".
//   - MISSING_AUTHENTICATION_TOKEN (403): API Gateway's answer to a path or
//     method it does not declare (routes.go) → 404 not_found, before the
//     authorizer and the usage plan.
//   - DEFAULT_4XX: everything else keeps its status with the JSON shape
//     (invalid_parameter), so clients parse one body.
func errorResponses(d Product, retry int) []errorResponse {
	p := d.Product
	unavailable := func(typ awsapigateway.ResponseType, name string) errorResponse {
		return errorResponse{Type: typ, Name: name, Status: "503", Code: "upstream_unavailable",
			Message: fmt.Sprintf("The %s service is busy or briefly unavailable. Retry after %d s.", p, unavailableRetrySeconds),
			Headers: map[string]string{"Retry-After": strconv.Itoa(unavailableRetrySeconds)}}
	}
	routes := strings.Join(d.Routes, ", ")
	return []errorResponse{
		{Type: awsapigateway.ResponseType_UNAUTHORIZED(), Name: "Unauthorized", Status: "401", Code: "missing_api_key",
			Message: "Missing API key. Send your key in the X-API-Key header, or in the api_key query parameter for tiles and TileJSON."},
		{Type: awsapigateway.ResponseType_INVALID_API_KEY(), Name: "InvalidApiKey", Status: "401", Code: "invalid_api_key",
			Message: fmt.Sprintf("Invalid API key: it is unknown, has been revoked, or does not include the %s product. Check that the whole key was sent, or use a key whose plan includes %s.", p, p)},
		{Type: awsapigateway.ResponseType_ACCESS_DENIED(), Name: "AccessDenied", Status: "403", Code: "product_not_in_plan",
			Message: fmt.Sprintf("This API key may not call the %s product. Use a key whose plan includes %s, or ask for %s to be added to this key.", p, p, p)},
		{Type: awsapigateway.ResponseType_THROTTLED(), Name: "Throttled", Status: "429", Code: "rate_limited",
			Message: fmt.Sprintf("Rate limit exceeded: the plan of this key allows fewer %s requests per second. Retry after %d s, and space out requests.", p, retry),
			Headers: map[string]string{"Retry-After": strconv.Itoa(retry)}},
		{Type: awsapigateway.ResponseType_QUOTA_EXCEEDED(), Name: "QuotaExceeded", Status: "429", Code: "quota_exceeded",
			Message: fmt.Sprintf("Monthly quota exceeded: the plan of this key allows no more %s requests this month. The quota resets at the start of next month (UTC); ask for a plan with a higher quota to continue sooner.", p),
			Headers: map[string]string{"Retry-After": strconv.Itoa(quotaRetrySeconds)}},
		unavailable(awsapigateway.ResponseType_AUTHORIZER_FAILURE(), "AuthorizerFailure"),
		unavailable(awsapigateway.ResponseType_AUTHORIZER_CONFIGURATION_ERROR(), "AuthorizerConfigurationError"),
		unavailable(awsapigateway.ResponseType_INTEGRATION_FAILURE(), "IntegrationFailure"),
		unavailable(awsapigateway.ResponseType_INTEGRATION_TIMEOUT(), "IntegrationTimeout"),
		unavailable(awsapigateway.ResponseType_DEFAULT_5XX(), "Default5xx"),
		{Type: awsapigateway.ResponseType_MISSING_AUTHENTICATION_TOKEN(), Name: "NoRoute", Status: "404", Code: "not_found",
			Message: fmt.Sprintf("No such route: the %s API serves %s.", p, routes)},
		{Type: awsapigateway.ResponseType_DEFAULT_4XX(), Name: "Default4xx", Code: "invalid_parameter", Message: "$context.error.messageString"},
	}
}

// Static Retry-After values of the answers whose wait no template knows.
const (
	quotaRetrySeconds       = 3600
	unavailableRetrySeconds = 2
)

// template is the mapping template of the error body, with API Gateway's
// request id where the local server puts its own.
func (r errorResponse) template() string {
	msg := r.Message
	if !strings.HasPrefix(msg, "$context.") {
		b, _ := json.Marshal(msg)
		msg = string(b)
	}
	code, _ := json.Marshal(r.Code)
	return fmt.Sprintf(`{"error":{"code":%s,"message":%s,"request_id":"$context.requestId"},"message":%s}`, code, msg, msg)
}

// addErrorResponses puts the error responses of product d on api.
func addErrorResponses(api awsapigateway.RestApi, d Product, retry int) {
	for _, r := range errorResponses(d, retry) {
		headers := map[string]*string{"Content-Type": jsii.String("'application/json'")}
		for k, v := range r.Headers {
			headers[k] = jsii.String("'" + v + "'")
		}
		o := &awsapigateway.GatewayResponseOptions{
			Type:            r.Type,
			ResponseHeaders: &headers,
			Templates:       &map[string]*string{"application/json": jsii.String(r.template())},
		}
		if r.Status != "" {
			o.StatusCode = jsii.String(r.Status)
		}
		api.AddGatewayResponse(jsii.String(r.Name), o)
	}
}
