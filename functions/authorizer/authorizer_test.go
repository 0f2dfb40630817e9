package main

import (
	"context"
	"errors"
	"log/slog"
	"testing"

	"github.com/aws/aws-lambda-go/events"
	"github.com/google/go-cmp/cmp"
)

const (
	testMethodARN = "arn:aws:execute-api:ca-central-1:123456789012:a1b2c3d4e5/v1/GET/search/legal-location"
	testStageARN  = "arn:aws:execute-api:ca-central-1:123456789012:a1b2c3d4e5/v1/*"
	testKey       = "mk_t3vq4n2kx5wc7hfj4rmp6yd3bg2zs4la"
	otherKey      = "mk_p5mz2c7wq4ke6tjx3nh2ra7vds5gyb4u"
)

func TestAPIKeyOf(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		req  events.APIGatewayCustomAuthorizerRequestTypeRequest
		want string
	}{
		{"header", events.APIGatewayCustomAuthorizerRequestTypeRequest{
			Headers: map[string]string{"X-API-Key": testKey}}, testKey},
		{"header lower case (HTTP/2 clients)", events.APIGatewayCustomAuthorizerRequestTypeRequest{
			Headers: map[string]string{"x-api-key": testKey}}, testKey},
		{"header canonical case", events.APIGatewayCustomAuthorizerRequestTypeRequest{
			Headers: map[string]string{"X-Api-Key": testKey}}, testKey},
		{"multi-value header: the first value, as the local gateway", events.APIGatewayCustomAuthorizerRequestTypeRequest{
			Headers:           map[string]string{"X-API-Key": otherKey},
			MultiValueHeaders: map[string][]string{"X-API-Key": {testKey, otherKey}}}, testKey},
		{"query on a tile", events.APIGatewayCustomAuthorizerRequestTypeRequest{Path: "/tiles/ab/sec/10/1/2.mvt",
			QueryStringParameters: map[string]string{"api_key": testKey}}, testKey},
		{"query on TileJSON", events.APIGatewayCustomAuthorizerRequestTypeRequest{Path: "/tiles/ab/sec.json",
			QueryStringParameters: map[string]string{"api_key": testKey}}, testKey},
		{"query on a REST route: refused, as locally", events.APIGatewayCustomAuthorizerRequestTypeRequest{Path: "/search/legal-location",
			QueryStringParameters: map[string]string{"api_key": testKey}}, ""},
		{"multi-value query: the first value", events.APIGatewayCustomAuthorizerRequestTypeRequest{Path: "/tiles/ab/sec.json",
			QueryStringParameters:           map[string]string{"api_key": otherKey},
			MultiValueQueryStringParameters: map[string][]string{"api_key": {testKey, otherKey}}}, testKey},
		{"header wins over query", events.APIGatewayCustomAuthorizerRequestTypeRequest{
			Headers:               map[string]string{"X-API-Key": testKey},
			QueryStringParameters: map[string]string{"api_key": otherKey}}, testKey},
		{"empty header falls back to query", events.APIGatewayCustomAuthorizerRequestTypeRequest{Path: "/tiles/ab/sec.json",
			Headers:               map[string]string{"X-API-Key": ""},
			QueryStringParameters: map[string]string{"api_key": testKey}}, testKey},
		{"query name is case-sensitive, as locally", events.APIGatewayCustomAuthorizerRequestTypeRequest{Path: "/tiles/ab/sec.json",
			QueryStringParameters: map[string]string{"API_KEY": testKey}}, ""},
		{"other header", events.APIGatewayCustomAuthorizerRequestTypeRequest{
			Headers: map[string]string{"Authorization": "Bearer " + testKey}}, ""},
		{"nothing", events.APIGatewayCustomAuthorizerRequestTypeRequest{}, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := apiKeyOf(tc.req); got != tc.want {
				t.Errorf("apiKeyOf() = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestAuthorize(t *testing.T) {
	t.Parallel()
	h := newHandler(slog.New(slog.DiscardHandler))
	req := events.APIGatewayCustomAuthorizerRequestTypeRequest{
		Type:      "REQUEST",
		MethodArn: testMethodARN,
		Headers:   map[string]string{"X-API-Key": testKey},
	}
	got, err := h(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	want := events.APIGatewayCustomAuthorizerResponse{
		PrincipalID: "t3vq4n2k",
		PolicyDocument: events.APIGatewayCustomAuthorizerPolicy{
			Version: "2012-10-17",
			Statement: []events.IAMPolicyStatement{{
				Action: []string{"execute-api:Invoke"}, Effect: "Allow", Resource: []string{testStageARN},
			}},
		},
		Context:            map[string]any{"key_id": "t3vq4n2k"},
		UsageIdentifierKey: testKey,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("authorize (-want +got):\n%s", diff)
	}

	req.Headers = nil
	if _, err := h(context.Background(), req); !errors.Is(err, errUnauthorized) || err.Error() != "Unauthorized" {
		t.Errorf("without a key: error %v, want exactly \"Unauthorized\" (API Gateway's 401)", err)
	}

	req.Headers = map[string]string{"X-API-Key": testKey}
	req.MethodArn = "not-an-arn"
	if _, err := h(context.Background(), req); err == nil || errors.Is(err, errUnauthorized) {
		t.Errorf("malformed method ARN: error %v, want an authorizer failure", err)
	}
}

func TestStageARN(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in, want string
		ok       bool
	}{
		{testMethodARN, testStageARN, true},
		{"arn:aws:execute-api:ca-central-1:123456789012:c3d4e5f6g7/v1/GET/tiles/ab/sec/12/750/1370.mvt",
			"arn:aws:execute-api:ca-central-1:123456789012:c3d4e5f6g7/v1/*", true},
		{"arn:aws:execute-api:ca-central-1:123456789012:a1b2c3d4e5/v1/POST/", "arn:aws:execute-api:ca-central-1:123456789012:a1b2c3d4e5/v1/*", true},
		{"arn:aws:execute-api:ca-central-1:123456789012:a1b2c3d4e5", "", false},
		{"arn:aws:execute-api:ca-central-1:123456789012:a1b2c3d4e5//GET/x", "", false},
		{"", "", false},
	}
	for _, tc := range tests {
		got, err := stageARN(tc.in)
		if got != tc.want || (err == nil) != tc.ok {
			t.Errorf("stageARN(%q) = %q, %v; want %q, ok=%v", tc.in, got, err, tc.want, tc.ok)
		}
	}
}

func TestKeyID(t *testing.T) {
	t.Parallel()
	tests := []struct{ key, want string }{
		{testKey, "t3vq4n2k"},
		{"tc_live_4f9a2c7e1b8d3f6a0c5e9b2d7f1a4c8e", "1f752188"}, // sha256 prefix, as the local gateway
		{"mk_short", "936bac48"},                                 // too short for an id: hashed
	}
	for _, tc := range tests {
		if got := keyID(tc.key); got != tc.want {
			t.Errorf("keyID(%q) = %q, want %q", tc.key, got, tc.want)
		}
	}
}

func TestLoadConfig(t *testing.T) {
	t.Parallel()
	if _, err := loadConfig(func(string) string { return "" }); err != nil {
		t.Errorf("empty environment: %v", err)
	}
	_, err := loadConfig(func(k string) string { return map[string]string{"LOG_LEVEL": "loud"}[k] })
	if err == nil {
		t.Error("LOG_LEVEL=loud: no error")
	}
}
