package main

import (
	"encoding/json"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/aws/aws-cdk-go/awscdk/v2/assertions"
	"github.com/aws/jsii-runtime-go"
	"github.com/google/go-cmp/cmp"

	"meridian/shared/gateway"
)

func TestAPIs(t *testing.T) {
	plain, withData := stacks(t)
	for _, s := range []*synthesized{plain, withData} {
		check(t, "RestApi count", func() {
			s.tmpl.ResourceCountIs(jsii.String("AWS::ApiGateway::RestApi"), jsii.Number(len(s.products)))
		})
		check(t, "one CloudWatch role for every API", func() {
			s.tmpl.ResourceCountIs(jsii.String("AWS::ApiGateway::Account"), jsii.Number(1))
		})
		for _, p := range s.products {
			api := s.apiID(t, p.Product)
			check(t, p.Function+" api", func() {
				s.tmpl.HasResourceProperties(jsii.String("AWS::ApiGateway::RestApi"), map[string]any{
					"Name":             "meridian-" + p.Product.String(),
					"ApiKeySourceType": "AUTHORIZER",
				})
			})
			check(t, p.Function+" stage", func() {
				s.tmpl.HasResourceProperties(jsii.String("AWS::ApiGateway::Stage"), map[string]any{
					"RestApiId": map[string]any{"Ref": api},
					"StageName": StageName,
				})
			})
			// Exactly the routes the function mounts (routes.go), no
			// {proxy+}, no method on a bare /<base>.
			got := s.methods(t, api)
			want := apiRoutes(p)
			sort.Strings(got)
			sort.Strings(want)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("%s methods (-want +got):\n%s", p.Function, diff)
			}
		}
	}
}

// methods returns "VERB /path" for every method of the RestApi api, the
// path rebuilt from the resources' PathPart up to the root.
func (s *synthesized) methods(t *testing.T, api string) []string {
	t.Helper()
	byID := s.resources("AWS::ApiGateway::Resource")
	var pathOf func(id string) string
	pathOf = func(id string) string {
		r, ok := byID[id]
		if !ok {
			return "" // the root (a GetAtt of the RestApi)
		}
		return pathOf(ref(props(r)["ParentId"])) + "/" + props(r)["PathPart"].(string)
	}
	var out []string
	for _, m := range s.resources("AWS::ApiGateway::Method") {
		mp := props(m)
		if ref(mp["RestApiId"]) != api {
			continue
		}
		out = append(out, mp["HttpMethod"].(string)+" "+pathOf(ref(mp["ResourceId"])))
	}
	return out
}

// TestAuthorizerWiring checks that every method of every API goes through
// its API's key authorizer, requires a key, and proxies to its product's
// function; and that each authorizer is the authorizer function, REQUEST,
// with the X-API-Key header as identity source and results cached on the
// REST products, without identity source or cache on the maps API.
func TestAuthorizerWiring(t *testing.T) {
	plain, withData := stacks(t)
	for _, s := range []*synthesized{plain, withData} {
		authFn := s.functionID(t, AuthorizerFunction)
		authorizers := s.resources("AWS::ApiGateway::Authorizer")
		if len(authorizers) != len(s.products) {
			t.Errorf("%d authorizers, want one per API (%d)", len(authorizers), len(s.products))
		}
		apiOf := map[string]Product{}
		for _, p := range s.products {
			apiOf[s.apiID(t, p.Product)] = p
		}
		for id, a := range authorizers {
			ap := props(a)
			p := apiOf[ref(ap["RestApiId"])]
			wantTTL, wantSource := float64(AuthorizerCacheSeconds), any("method.request.header.X-API-Key")
			if p.Tiles {
				wantTTL, wantSource = 0, nil
			}
			if ap["Type"] != "REQUEST" || ap["AuthorizerResultTtlInSeconds"] != wantTTL {
				t.Errorf("%s authorizer %s: Type %v, TTL %v; want REQUEST, %v", p.Function, id, ap["Type"], ap["AuthorizerResultTtlInSeconds"], wantTTL)
			}
			if ap["IdentitySource"] != wantSource {
				t.Errorf("%s authorizer %s: IdentitySource %v, want %v", p.Function, id, ap["IdentitySource"], wantSource)
			}
			uri, _ := json.Marshal(ap["AuthorizerUri"])
			if !strings.Contains(string(uri), `"`+authFn+`"`) {
				t.Errorf("authorizer %s calls %s, want the authorizer function %s", id, uri, authFn)
			}
		}
		methods := s.resources("AWS::ApiGateway::Method")
		routes := 0
		for _, p := range s.products {
			routes += len(apiRoutes(p))
		}
		if len(methods) != routes {
			t.Errorf("%d methods, want one per route (%d)", len(methods), routes)
		}
		watchesFn := s.functionID(t, WatchesFunction)
		for _, p := range s.products {
			api, fn := s.apiID(t, p.Product), s.functionID(t, p.Function)
			n, watched := 0, 0
			for id, m := range methods {
				mp := props(m)
				if ref(mp["RestApiId"]) != api {
					continue
				}
				n++
				auth := ref(mp["AuthorizerId"])
				if mp["AuthorizationType"] != "CUSTOM" || authorizers[auth] == nil || ref(props(authorizers[auth])["RestApiId"]) != api {
					t.Errorf("%s method %s: authorization %v by %q, want CUSTOM by this API's key authorizer", p.Function, id, mp["AuthorizationType"], auth)
				}
				if mp["ApiKeyRequired"] != true || mp["HttpMethod"] == "ANY" {
					t.Errorf("%s method %s: ApiKeyRequired %v, HttpMethod %v; want true, a route's method", p.Function, id, mp["ApiKeyRequired"], mp["HttpMethod"])
				}
				integ, _ := mp["Integration"].(map[string]any)
				uri, _ := json.Marshal(integ["Uri"])
				if p.Product == watchesProduct() && strings.Contains(string(uri), `"`+watchesFn+`"`) {
					watched++ // the /watches routes (TestWatchRoutes)
					continue
				}
				if integ["Type"] != "AWS_PROXY" || !strings.Contains(string(uri), `"`+fn+`"`) {
					t.Errorf("%s method %s: integration %v to %s, want AWS_PROXY to %s", p.Function, id, integ["Type"], uri, fn)
				}
			}
			if n != len(apiRoutes(p)) {
				t.Errorf("%s: %d methods, want %d", p.Function, n, len(apiRoutes(p)))
			}
			if p.Product == watchesProduct() && watched != len(watchRoutes) {
				t.Errorf("%s: %d methods to the watches function, want %d", p.Function, watched, len(watchRoutes))
			}
		}
	}
}

// TestUsagePlans checks the usage plans of a production stack: one per
// product and plan with a monthly quota, on the product's stage, every one
// throttled (its plan's rate, or the product's per-key ceiling), and none
// without a quota.
func TestUsagePlans(t *testing.T) {
	plain, withData := stacks(t)
	plans := gateway.DefaultPlans()
	for _, s := range []*synthesized{plain, withData} {
		total := 0
		for _, p := range s.products {
			api := s.apiID(t, p.Product)
			for _, pl := range plans[p.Product] {
				if pl.MonthlyQuota == 0 {
					continue
				}
				total++
				throttle := map[string]any{"RateLimit": pl.RatePerSecond, "BurstLimit": pl.Burst}
				if pl.RatePerSecond == 0 {
					throttle = map[string]any{"RateLimit": p.Limits.Key.Rate, "BurstLimit": p.Limits.Key.Burst}
				}
				check(t, p.Function+" plan "+pl.Name, func() {
					s.tmpl.HasResourceProperties(jsii.String("AWS::ApiGateway::UsagePlan"), map[string]any{
						"UsagePlanName": "meridian-" + p.Product.String() + "-" + pl.Name,
						"ApiStages": []any{map[string]any{
							"ApiId": map[string]any{"Ref": api},
							"Stage": map[string]any{"Ref": assertions.Match_AnyValue()},
						}},
						"Throttle": throttle,
						"Quota":    map[string]any{"Limit": pl.MonthlyQuota, "Period": "MONTH"},
					})
				})
			}
		}
		check(t, "usage plan count", func() {
			s.tmpl.ResourceCountIs(jsii.String("AWS::ApiGateway::UsagePlan"), jsii.Number(total))
		})
		check(t, "no plan without a quota", func() {
			s.tmpl.ResourcePropertiesCountIs(jsii.String("AWS::ApiGateway::UsagePlan"), map[string]any{"Quota": assertions.Match_Absent()}, jsii.Number(0))
		})
		check(t, "no plan without a throttle", func() {
			s.tmpl.ResourcePropertiesCountIs(jsii.String("AWS::ApiGateway::UsagePlan"), map[string]any{"Throttle": assertions.Match_Absent()}, jsii.Number(0))
		})
	}
	// Spot-check the numbers, so that a change in the shared definitions
	// or in Products' limits is a visible decision.
	check(t, "search default", func() {
		plain.tmpl.HasResourceProperties(jsii.String("AWS::ApiGateway::UsagePlan"), map[string]any{
			"UsagePlanName": "meridian-search-default",
			"Throttle":      map[string]any{"RateLimit": 1, "BurstLimit": 5},
			"Quota":         map[string]any{"Limit": 1000, "Period": "MONTH"},
		})
	})
	check(t, "maps default", func() {
		plain.tmpl.HasResourceProperties(jsii.String("AWS::ApiGateway::UsagePlan"), map[string]any{
			"UsagePlanName": "meridian-maps-default",
			"Throttle":      map[string]any{"RateLimit": 100, "BurstLimit": 400},
			"Quota":         map[string]any{"Limit": 10000, "Period": "MONTH"},
		})
	})
	check(t, "no unlimited plan in production", func() {
		plain.tmpl.ResourcePropertiesCountIs(jsii.String("AWS::ApiGateway::UsagePlan"), map[string]any{
			"UsagePlanName": assertions.Match_StringLikeRegexp(jsii.String("-unlimited$")),
		}, jsii.Number(0))
	})
}

// TestAllowUnlimited checks the development stack (-c allowUnlimited=true):
// the unlimited plans are there, throttled at the product's per-key
// ceiling, without a quota.
func TestAllowUnlimited(t *testing.T) {
	dev := devStack(t)
	for _, p := range dev.products {
		check(t, p.Function+" unlimited", func() {
			dev.tmpl.HasResourceProperties(jsii.String("AWS::ApiGateway::UsagePlan"), map[string]any{
				"UsagePlanName": "meridian-" + p.Product.String() + "-unlimited",
				"Throttle":      map[string]any{"RateLimit": p.Limits.Key.Rate, "BurstLimit": p.Limits.Key.Burst},
				"Quota":         assertions.Match_Absent(),
			})
		})
	}
	check(t, "energy unlimited numbers", func() {
		dev.tmpl.HasResourceProperties(jsii.String("AWS::ApiGateway::UsagePlan"), map[string]any{
			"UsagePlanName": "meridian-energy-unlimited",
			"Throttle":      map[string]any{"RateLimit": 25, "BurstLimit": 50},
		})
	})
	check(t, "no plan without a throttle", func() {
		dev.tmpl.ResourcePropertiesCountIs(jsii.String("AWS::ApiGateway::UsagePlan"), map[string]any{"Throttle": assertions.Match_Absent()}, jsii.Number(0))
	})

	for _, v := range []struct {
		ctx  string
		want bool
	}{{"", false}, {"false", false}, {"true", true}} {
		p, err := propsFrom(func(k string) string { return map[string]string{"allowUnlimited": v.ctx}[k] }, func(string) string { return "" })
		if err != nil || p.AllowUnlimited != v.want {
			t.Errorf("allowUnlimited=%q: %v, %v; want %v", v.ctx, p.AllowUnlimited, err, v.want)
		}
	}
	if _, err := propsFrom(func(k string) string { return map[string]string{"allowUnlimited": "yes"}[k] }, func(string) string { return "" }); err == nil {
		t.Error("allowUnlimited=yes: no error")
	}
	// A product left with no plan at all is refused before synth.
	err := checkProps(StackProps{AssetRoot: assetRoot, Products: Products()[:1],
		Plans: gateway.Plans{gateway.Search: {{Name: "free", RatePerSecond: 1, Burst: 1}}}})
	if err == nil || !strings.Contains(err.Error(), "allowUnlimited") {
		t.Errorf("search with only an unlimited plan in production: %v", err)
	}
}

// TestGatewayResponses checks that API Gateway's own refusals carry the
// error body and the codes of the local gateway.
func TestGatewayResponses(t *testing.T) {
	plain, _ := stacks(t)
	src, err := os.ReadFile("../shared/gateway/middleware.go")
	if err != nil {
		t.Fatal(err)
	}
	apiSrc, err := os.ReadFile("../shared/apierr/apierr.go")
	if err != nil {
		t.Fatal(err)
	}
	src = append(src, apiSrc...)
	// Status, code and Retry-After ("" none) of each response type.
	want := map[string]struct {
		status, code, retry string
	}{
		"UNAUTHORIZED":                   {"401", "missing_api_key", ""},
		"INVALID_API_KEY":                {"401", "invalid_api_key", ""},
		"ACCESS_DENIED":                  {"403", "product_not_in_plan", ""},
		"THROTTLED":                      {"429", "rate_limited", "1"}, // every default plan allows >= 1/s
		"QUOTA_EXCEEDED":                 {"429", "quota_exceeded", "3600"},
		"AUTHORIZER_FAILURE":             {"503", "upstream_unavailable", "2"},
		"AUTHORIZER_CONFIGURATION_ERROR": {"503", "upstream_unavailable", "2"},
		"INTEGRATION_FAILURE":            {"503", "upstream_unavailable", "2"},
		"INTEGRATION_TIMEOUT":            {"503", "upstream_unavailable", "2"},
		"DEFAULT_5XX":                    {"503", "upstream_unavailable", "2"},
		"MISSING_AUTHENTICATION_TOKEN":   {"404", "not_found", ""},
	}
	for code := range want {
		if c := want[code].code; c != "not_found" && !strings.Contains(string(src), strconv.Quote(c)) {
			t.Errorf("code %s is not one the local server uses", c)
		}
	}
	for _, p := range plain.products {
		api := plain.apiID(t, p.Product)
		got := map[string]bool{}
		for id, r := range plain.resources("AWS::ApiGateway::GatewayResponse") {
			rp := props(r)
			if ref(rp["RestApiId"]) != api {
				continue
			}
			typ := rp["ResponseType"].(string)
			got[typ] = true
			if h, _ := rp["ResponseParameters"].(map[string]any); h["gatewayresponse.header.Content-Type"] != "'application/json'" {
				t.Errorf("%s: Content-Type %v, want application/json", id, h["gatewayresponse.header.Content-Type"])
			}
			tmpl, _ := rp["ResponseTemplates"].(map[string]any)["application/json"].(string)
			// What API Gateway substitutes, for a parse check.
			body := strings.NewReplacer("$context.requestId", "abc", "$context.error.messageString", `"Missing Authentication Token"`).Replace(tmpl)
			var e struct {
				Error struct {
					Code      string `json:"code"`
					Message   string `json:"message"`
					RequestID string `json:"request_id"`
				} `json:"error"`
				Message string `json:"message"`
			}
			if err := json.Unmarshal([]byte(body), &e); err != nil || e.Error.Code == "" || e.Error.Message == "" || e.Message != e.Error.Message || e.Error.RequestID != "abc" {
				t.Errorf("%s: template %s is not the error body: %v", id, tmpl, err)
			}
			if w, ok := want[typ]; ok {
				if rp["StatusCode"] != w.status || e.Error.Code != w.code {
					t.Errorf("%s %s: %v %s, want %s %s", p.Function, typ, rp["StatusCode"], e.Error.Code, w.status, w.code)
				}
				retry, _ := rp["ResponseParameters"].(map[string]any)["gatewayresponse.header.Retry-After"].(string)
				if w.retry != "" && retry != "'"+w.retry+"'" || w.retry == "" && retry != "" {
					t.Errorf("%s %s: Retry-After %q, want %q", p.Function, typ, retry, w.retry)
				}
				if w.retry != "" && w.code != "quota_exceeded" && !strings.Contains(e.Error.Message, "Retry after "+w.retry+" s") {
					t.Errorf("%s %s: message %q does not say the Retry-After", p.Function, typ, e.Error.Message)
				}
			}
		}
		for typ := range want {
			if !got[typ] {
				t.Errorf("%s: no %s gateway response", p.Function, typ)
			}
		}
	}
}

func TestBinaryMediaTypes(t *testing.T) {
	plain, _ := stacks(t)
	for _, p := range plain.products {
		want := map[string]any{
			"Name":             "meridian-" + p.Product.String(),
			"BinaryMediaTypes": assertions.Match_Absent(),
		}
		if p.Tiles {
			want["BinaryMediaTypes"] = []any{MVTMediaType, "*/*"}
		} else {
			want["MinimumCompressionSize"] = 1024
		}
		check(t, p.Function, func() {
			plain.tmpl.HasResourceProperties(jsii.String("AWS::ApiGateway::RestApi"), want)
		})
	}
}

// TestRetryAfter checks that the rate_limited answer of an API tells the
// wait of its slowest plan: the dev stack's search API has a plan of one
// request every 5 s.
func TestRetryAfter(t *testing.T) {
	dev := devStack(t)
	for _, p := range dev.products {
		want := "'1'"
		if p.Product == gateway.Search {
			want = "'5'"
		}
		check(t, p.Function, func() {
			dev.tmpl.HasResourceProperties(jsii.String("AWS::ApiGateway::GatewayResponse"), map[string]any{
				"RestApiId":          map[string]any{"Ref": dev.apiID(t, p.Product)},
				"ResponseType":       "THROTTLED",
				"ResponseParameters": assertions.Match_ObjectLike(&map[string]any{"gatewayresponse.header.Retry-After": want}),
			})
		})
	}
	for _, tc := range []struct {
		rates []float64
		want  int
	}{{nil, 1}, {[]float64{5, 1}, 1}, {[]float64{0.5}, 2}, {[]float64{0.3, 2}, 4}, {[]float64{0.01}, 100}} {
		var plans []deployedPlan
		for _, r := range tc.rates {
			plans = append(plans, deployedPlan{Throttle: Throttle{Rate: r, Burst: 1}})
		}
		if got := retryAfter(Products()[0], plans); got != tc.want {
			t.Errorf("retryAfter(%v) = %d, want %d", tc.rates, got, tc.want)
		}
	}
}

// TestStageLimits checks each product's stage throttle and its function's
// reserved concurrency, the authorizer's apart, with the numbers of the
// README.
func TestStageLimits(t *testing.T) {
	plain, _ := stacks(t)
	want := map[string]struct {
		rate, burst, concurrency int
	}{
		"search": {100, 200, 20}, "autocomplete": {200, 400, 20}, "batch": {20, 40, 10},
		"tiles": {500, 1000, 40}, "ag": {50, 100, 10}, "energy": {50, 100, 10}, "changes": {50, 100, 10},
	}
	if len(want) != len(plain.products) {
		t.Fatalf("%d products, %d expected limits", len(plain.products), len(want))
	}
	for _, p := range plain.products {
		w := want[p.Function]
		check(t, p.Function+" stage throttle", func() {
			plain.tmpl.HasResourceProperties(jsii.String("AWS::ApiGateway::Stage"), map[string]any{
				"RestApiId": map[string]any{"Ref": plain.apiID(t, p.Product)},
				"MethodSettings": assertions.Match_ArrayWith(&[]any{assertions.Match_ObjectLike(&map[string]any{
					"HttpMethod": "*", "ResourcePath": "/*",
					"ThrottlingRateLimit": w.rate, "ThrottlingBurstLimit": w.burst,
				})}),
			})
		})
		check(t, p.Function+" reserved concurrency", func() {
			plain.tmpl.HasResourceProperties(jsii.String("AWS::Lambda::Function"), map[string]any{
				"Description":                  "Meridian " + p.Function + " (functions/" + p.Function + ")",
				"ReservedConcurrentExecutions": w.concurrency,
			})
		})
	}
	check(t, "authorizer reserved concurrency", func() {
		plain.tmpl.HasResourceProperties(jsii.String("AWS::Lambda::Function"), map[string]any{
			"Description":                  "Meridian authorizer (functions/authorizer)",
			"ReservedConcurrentExecutions": 20,
		})
	})
}

// TestAccessLogs checks every stage's access log: a log group with a
// retention, a JSON format with the route, the status and the key's ids,
// never the key; and the account-wide CloudWatch role API Gateway needs.
func TestAccessLogs(t *testing.T) {
	plain, _ := stacks(t)
	groups := plain.resources("AWS::Logs::LogGroup")
	for id, r := range plain.resources("AWS::ApiGateway::Stage") {
		p := props(r)
		set, _ := p["AccessLogSetting"].(map[string]any)
		dest := ref(set["DestinationArn"])
		if g, ok := groups[dest]; !ok || props(g)["RetentionInDays"] != float64(30) {
			t.Errorf("stage %s: access log to %q, want a log group kept 30 days", id, dest)
		}
		format, _ := set["Format"].(string)
		var fields map[string]string
		if err := json.Unmarshal([]byte(format), &fields); err != nil {
			t.Errorf("stage %s: format %q is not JSON: %v", id, format, err)
			continue
		}
		for name, v := range map[string]string{
			"request_id": "$context.requestId", "route": "$context.resourcePath", "status": "$context.status",
			"latency_ms": "$context.responseLatency", "key_id": "$context.authorizer.key_id", "api_key_id": "$context.identity.apiKeyId",
		} {
			if fields[name] != v {
				t.Errorf("stage %s: field %s = %q, want %q", id, name, fields[name], v)
			}
		}
		if strings.Contains(format, "$context.identity.apiKey\"") || strings.Contains(format, "apiKey}") || strings.Contains(format, "querystring") {
			t.Errorf("stage %s: the format logs the key: %s", id, format)
		}
		for _, v := range fields {
			if v == "$context.identity.apiKey" {
				t.Errorf("stage %s logs the key itself", id)
			}
		}
	}
	check(t, "CloudWatch role", func() {
		plain.tmpl.HasResourceProperties(jsii.String("AWS::ApiGateway::Account"), map[string]any{
			"CloudWatchRoleArn": map[string]any{"Fn::GetAtt": []any{assertions.Match_StringLikeRegexp(jsii.String("^ApiGatewayCloudWatchRole")), "Arn"}},
		})
		plain.tmpl.HasResourceProperties(jsii.String("AWS::IAM::Role"), map[string]any{
			"AssumeRolePolicyDocument": map[string]any{"Statement": []any{assertions.Match_ObjectLike(&map[string]any{
				"Principal": map[string]any{"Service": "apigateway.amazonaws.com"},
			})}},
		})
	})
	// Each stage waits for the account setting: API Gateway refuses an
	// access log setting before it has a CloudWatch role.
	var account string
	for id := range plain.resources("AWS::ApiGateway::Account") {
		account = id
	}
	for id, r := range plain.resources("AWS::ApiGateway::Stage") {
		if !slices.Contains(strs(r["DependsOn"]), any(account)) {
			t.Errorf("stage %s does not depend on %s", id, account)
		}
	}
}
