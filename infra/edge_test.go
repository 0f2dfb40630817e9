package main

import (
	"encoding/json"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/aws/aws-cdk-go/awscdk/v2/assertions"
	"github.com/aws/jsii-runtime-go"

	"meridian/shared/gateway"
)

func TestCloudFront(t *testing.T) {
	plain, _ := stacks(t)
	maps := plain.apiID(t, gateway.Maps)
	check(t, "cache policy", func() {
		plain.tmpl.HasResourceProperties(jsii.String("AWS::CloudFront::CachePolicy"), map[string]any{
			"CachePolicyConfig": map[string]any{
				"MinTTL":     0,
				"DefaultTTL": TileTTLSeconds,
				"MaxTTL":     TileTTLSeconds,
				"ParametersInCacheKeyAndForwardedToOrigin": map[string]any{
					"QueryStringsConfig":         map[string]any{"QueryStringBehavior": "whitelist", "QueryStrings": []any{"api_key"}},
					"HeadersConfig":              map[string]any{"HeaderBehavior": "whitelist", "Headers": []any{"X-API-Key"}},
					"CookiesConfig":              map[string]any{"CookieBehavior": "none"},
					"EnableAcceptEncodingGzip":   true,
					"EnableAcceptEncodingBrotli": true,
				},
			},
		})
	})
	policy := ""
	for id := range plain.resources("AWS::CloudFront::CachePolicy") {
		policy = id
	}
	check(t, "distribution", func() {
		plain.tmpl.HasResourceProperties(jsii.String("AWS::CloudFront::Distribution"), map[string]any{
			"DistributionConfig": map[string]any{
				"DefaultCacheBehavior": map[string]any{
					"CachePolicyId":         map[string]any{"Ref": policy},
					"Compress":              true,
					"AllowedMethods":        []any{"GET", "HEAD"},
					"ViewerProtocolPolicy":  "https-only",
					"OriginRequestPolicyId": assertions.Match_Absent(),
				},
				"Origins": []any{map[string]any{
					"DomainName": map[string]any{"Fn::Join": []any{"", []any{
						map[string]any{"Ref": maps}, ".execute-api." + defaultRegion + ".", map[string]any{"Ref": "AWS::URLSuffix"},
					}}},
					"OriginPath":         "/" + StageName,
					"CustomOriginConfig": map[string]any{"OriginProtocolPolicy": "https-only"},
				}},
			},
		})
	})
}

// TestWAF checks the two WebACLs (REST products; maps), their rules and
// that every stage has exactly one association, to the right one.
func TestWAF(t *testing.T) {
	plain, _ := stacks(t)
	check(t, "two WebACLs", func() {
		plain.tmpl.ResourceCountIs(jsii.String("AWS::WAFv2::WebACL"), jsii.Number(2))
	})
	acls := map[string]string{} // logical id -> name
	for id, r := range plain.resources("AWS::WAFv2::WebACL") {
		p := props(r)
		acls[id] = p["Name"].(string)
		if p["Scope"] != "REGIONAL" {
			t.Errorf("%s: scope %v, want REGIONAL", id, p["Scope"])
		}
		if _, ok := p["DefaultAction"].(map[string]any)["Allow"]; !ok {
			t.Errorf("%s: default action %v, want Allow", id, p["DefaultAction"])
		}
	}
	check(t, "api rate rule", func() {
		plain.tmpl.HasResourceProperties(jsii.String("AWS::WAFv2::WebACL"), map[string]any{
			"Name": "meridian-api",
			"Rules": []any{assertions.Match_ObjectLike(&map[string]any{
				"Name": "RatePerAddress",
				"Statement": map[string]any{"RateBasedStatement": assertions.Match_ObjectLike(&map[string]any{
					"AggregateKeyType": "IP", "Limit": 6000, "EvaluationWindowSec": 300,
				})},
				"Action": map[string]any{"Block": map[string]any{"CustomResponse": map[string]any{
					"ResponseCode": 429, "CustomResponseBodyKey": "rate_limited",
					"ResponseHeaders": []any{map[string]any{"Name": "Retry-After", "Value": "60"}},
				}}},
			})},
		})
	})
	check(t, "tiles rules", func() {
		plain.tmpl.HasResourceProperties(jsii.String("AWS::WAFv2::WebACL"), map[string]any{
			"Name": "meridian-tiles",
			"Rules": assertions.Match_ArrayWith(&[]any{
				assertions.Match_ObjectLike(&map[string]any{
					"Name": "RatePerAddress",
					"Statement": map[string]any{"RateBasedStatement": map[string]any{
						"AggregateKeyType": "FORWARDED_IP", "Limit": 30000, "EvaluationWindowSec": 300,
						"ForwardedIPConfig": map[string]any{"HeaderName": "X-Forwarded-For", "FallbackBehavior": "NO_MATCH"},
					}},
				}),
				assertions.Match_ObjectLike(&map[string]any{
					"Name":   "KeyRequired",
					"Action": map[string]any{"Block": map[string]any{"CustomResponse": map[string]any{"ResponseCode": 401, "CustomResponseBodyKey": "missing_api_key"}}},
					"Statement": map[string]any{"NotStatement": map[string]any{"Statement": map[string]any{"OrStatement": map[string]any{"Statements": []any{
						assertions.Match_ObjectLike(&map[string]any{"SizeConstraintStatement": assertions.Match_ObjectLike(&map[string]any{
							"FieldToMatch": map[string]any{"SingleHeader": map[string]any{"Name": gateway.HeaderAPIKey}}, "ComparisonOperator": "GT", "Size": 0})}),
						assertions.Match_ObjectLike(&map[string]any{"SizeConstraintStatement": assertions.Match_ObjectLike(&map[string]any{
							"FieldToMatch": map[string]any{"SingleQueryArgument": map[string]any{"Name": "api_key"}}, "ComparisonOperator": "GT", "Size": 0})}),
					}}}}},
				}),
			}),
		})
	})
	// The custom bodies are the error body (no request id: WAF has none).
	for id, r := range plain.resources("AWS::WAFv2::WebACL") {
		for key, b := range props(r)["CustomResponseBodies"].(map[string]any) {
			var e struct {
				Error   struct{ Code, Message string } `json:"error"`
				Message string                         `json:"message"`
			}
			bb := b.(map[string]any)
			if err := json.Unmarshal([]byte(bb["Content"].(string)), &e); err != nil || e.Error.Code != key || e.Message != e.Error.Message || bb["ContentType"] != "APPLICATION_JSON" {
				t.Errorf("%s body %s: %v %v", id, key, bb, err)
			}
		}
	}
	stages := map[string]string{} // stage logical id -> API logical id
	for id, r := range plain.resources("AWS::ApiGateway::Stage") {
		stages[id] = ref(props(r)["RestApiId"])
	}
	assoc := map[string]string{} // API logical id -> WebACL name
	for id, r := range plain.resources("AWS::WAFv2::WebACLAssociation") {
		p := props(r)
		b, _ := json.Marshal(p["ResourceArn"])
		api := ""
		for _, a := range stages {
			if strings.Contains(string(b), `"`+a+`"`) {
				api = a
			}
		}
		if api == "" || assoc[api] != "" {
			t.Errorf("%s: resource %s is no stage, or a stage with two WebACLs", id, b)
		}
		assoc[api] = acls[ref(p["WebACLArn"])]
		deps := strs(r["DependsOn"])
		found := false
		for stage, a := range stages {
			if a == api && slices.Contains(deps, any(stage)) {
				found = true
			}
		}
		if !found {
			t.Errorf("%s: does not wait for its stage (DependsOn %v)", id, deps)
		}
	}
	for _, p := range plain.products {
		want := "meridian-api"
		if p.Tiles {
			want = "meridian-tiles"
		}
		if got := assoc[plain.apiID(t, p.Product)]; got != want {
			t.Errorf("%s stage: WebACL %q, want %q", p.Function, got, want)
		}
	}
}

// TestTileCacheControl reads the tiles' Cache-Control from shared/tile and
// checks that CloudFront's lifetimes follow it.
func TestTileCacheControl(t *testing.T) {
	src, err := os.ReadFile("../shared/tile/http.go")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`tileCacheControl\s*=\s*"([^"]*)"`).FindSubmatch(src)
	if m == nil {
		t.Fatal("shared/tile/http.go: tileCacheControl not found")
	}
	age := regexp.MustCompile(`(?:^|[ ,])max-age=(\d+)`).FindSubmatch(m[1])
	if age == nil {
		t.Fatalf("tile Cache-Control %q has no max-age", m[1])
	}
	if got, _ := strconv.Atoi(string(age[1])); got != TileTTLSeconds {
		t.Errorf("tiles say max-age=%d, CloudFront keeps them %d s: change TileTTLSeconds with the header", got, TileTTLSeconds)
	}
}
