package main

import (
	"encoding/json"
	"fmt"
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

// errorResponses are the gateway responses of the API of product d.
//
//   - UNAUTHORIZED (401): the authorizer found no key → missing_api_key.
//   - INVALID_API_KEY (403): the key is not in any usage plan of this stage:
//     unknown, disabled, or without this product. The local gateway answers
//     401 invalid_api_key for the first and 403 product_not_in_plan for the
//     last; API Gateway cannot tell them apart, so this answers 401
//     invalid_api_key with a message naming both.
//   - ACCESS_DENIED (403): an authorizer Deny; ours never denies, so only a
//     misconfiguration gets here → product_not_in_plan.
//   - THROTTLED, QUOTA_EXCEEDED (429) → rate_limited, quota_exceeded.
//     Retry-After is static: 1 s for the rate (every plan allows at least one
//     request a second); none for the quota (the month's end is not known
//     to a template).
//   - MISSING_AUTHENTICATION_TOKEN (403): API Gateway's answer to a path
//     with no method, such as /v1/ → 404 not_found, as locally.
//   - DEFAULT_4XX, DEFAULT_5XX: everything else keeps its status with the
//     JSON shape (invalid_parameter, internal), so clients parse one body.
func errorResponses(d Product) []errorResponse {
	p := d.Product
	return []errorResponse{
		{Type: awsapigateway.ResponseType_UNAUTHORIZED(), Name: "Unauthorized", Status: "401", Code: "missing_api_key",
			Message: "Missing API key. Send your key in the X-API-Key header, or in the api_key query parameter for tiles and TileJSON."},
		{Type: awsapigateway.ResponseType_INVALID_API_KEY(), Name: "InvalidApiKey", Status: "401", Code: "invalid_api_key",
			Message: fmt.Sprintf("Invalid API key: it is unknown, has been revoked, or does not include the %s product. Check that the whole key was sent, or use a key whose plan includes %s.", p, p)},
		{Type: awsapigateway.ResponseType_ACCESS_DENIED(), Name: "AccessDenied", Status: "403", Code: "product_not_in_plan",
			Message: fmt.Sprintf("This API key may not call the %s product. Use a key whose plan includes %s, or ask for %s to be added to this key.", p, p, p)},
		{Type: awsapigateway.ResponseType_THROTTLED(), Name: "Throttled", Status: "429", Code: "rate_limited",
			Message: fmt.Sprintf("Rate limit exceeded: the plan of this key allows fewer %s requests per second. Retry after 1 s, and space out requests.", p),
			Headers: map[string]string{"Retry-After": "1"}},
		{Type: awsapigateway.ResponseType_QUOTA_EXCEEDED(), Name: "QuotaExceeded", Status: "429", Code: "quota_exceeded",
			Message: fmt.Sprintf("Monthly quota exceeded: the plan of this key allows no more %s requests this month. The quota resets at the start of next month (UTC); ask for a plan with a higher quota to continue sooner.", p)},
		{Type: awsapigateway.ResponseType_MISSING_AUTHENTICATION_TOKEN(), Name: "NoRoute", Status: "404", Code: "not_found",
			Message: fmt.Sprintf("No such path: the %s API serves /%s and /%s/... only.", p, d.Base, d.Base)},
		{Type: awsapigateway.ResponseType_DEFAULT_4XX(), Name: "Default4xx", Code: "invalid_parameter", Message: "$context.error.messageString"},
		{Type: awsapigateway.ResponseType_DEFAULT_5XX(), Name: "Default5xx", Code: "internal", Message: "internal error"},
	}
}

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
func addErrorResponses(api awsapigateway.RestApi, d Product) {
	for _, r := range errorResponses(d) {
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
