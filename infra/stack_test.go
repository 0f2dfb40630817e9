package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/assertions"
	"github.com/aws/jsii-runtime-go"
	"github.com/google/go-cmp/cmp"

	"meridian/shared/gateway"
)

// The jsii runtime is not safe for concurrent calls, so these tests do not
// run in parallel.

// assetRoot holds a dummy bootstrap per function: Code_FromAsset needs the
// directories, not real binaries.
var assetRoot string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "meridian-infra-assets-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	for _, fn := range []string{AuthorizerFunction, "search", "autocomplete", "batch", "tiles", "ag", "energy", RefreshFunction} {
		err := os.MkdirAll(filepath.Join(dir, fn), 0o755)
		if err == nil {
			err = os.WriteFile(filepath.Join(dir, fn, "bootstrap"), []byte("#!/bin/sh\n# "+fn+"\n"), 0o755)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
	// The refresh job's directory also holds the meridian binary and the
	// task image's Dockerfile (make build-refresh).
	for _, name := range []string{"meridian", refreshImageDockerfile} {
		body := "#!/bin/sh\n"
		if name == refreshImageDockerfile {
			body = "FROM scratch\nCOPY bootstrap meridian /app/\nENTRYPOINT [\"/app/bootstrap\"]\n"
		}
		if err := os.WriteFile(filepath.Join(dir, RefreshFunction, name), []byte(body), 0o755); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
	assetRoot = dir
	code := m.Run()
	jsii.Close()
	os.RemoveAll(dir)
	os.Exit(code)
}

// synthesized is one synthesized variant of the stack.
type synthesized struct {
	tmpl     assertions.Template
	doc      map[string]any // the template as JSON
	products []Product
}

var variants struct {
	once                  sync.Once
	plain, withData       *synthesized
	plainErr, withDataErr error
}

// testProducts is the deployed product table.
func testProducts() []Product { return Products() }

// stacks synthesizes, once per test binary, the stack as `make synth` does
// with no data yet (plain), and with grid indexes and the agriculture
// product (withData).
func stacks(t *testing.T) (plain, withData *synthesized) {
	t.Helper()
	variants.once.Do(func() {
		variants.plain, variants.plainErr = synth(StackProps{AssetRoot: assetRoot})
		variants.withData, variants.withDataErr = synth(StackProps{
			AssetRoot:   assetRoot,
			Products:    testProducts(),
			GridIndexes: []string{"altalis-ats-v4.1.mgix", "sk-grid.mgix"},
			LogLevel:    "debug",
		})
	})
	if variants.plainErr != nil || variants.withDataErr != nil {
		t.Fatalf("synth: %v; %v", variants.plainErr, variants.withDataErr)
	}
	return variants.plain, variants.withData
}

func synth(props StackProps) (s *synthesized, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%v", r)
		}
	}()
	props.StackProps = awscdk.StackProps{
		Env:                &awscdk.Environment{Account: jsii.String(defaultAccount), Region: jsii.String(defaultRegion)},
		AnalyticsReporting: jsii.Bool(false),
	}
	// What the cdk CLI passes (its default --asset-metadata): where each
	// asset lies in cdk.out, which SAM reads.
	ctx := appContext()
	(*ctx)["aws:cdk:enable-asset-metadata"] = true
	app := awscdk.NewApp(&awscdk.AppProps{Context: ctx})
	st, err := NewStack(app, "Meridian", props)
	if err != nil {
		return nil, err
	}
	tmpl := assertions.Template_FromStack(st.Stack, nil)
	doc := map[string]any{}
	for k, v := range *tmpl.ToJSON() {
		doc[k] = v
	}
	products := props.Products
	if products == nil {
		products = Products()
	}
	return &synthesized{tmpl: tmpl, doc: doc, products: products}, nil
}

// check runs an assertions call, which panics on a mismatch, as a test error.
func check(t *testing.T, what string, f func()) {
	t.Helper()
	defer func() {
		if r := recover(); r != nil {
			t.Errorf("%s: %v", what, r)
		}
	}()
	f()
}

// resources returns the template's resources of type typ by logical id.
func (s *synthesized) resources(typ string) map[string]map[string]any {
	out := map[string]map[string]any{}
	for id, r := range s.doc["Resources"].(map[string]any) {
		if r := r.(map[string]any); r["Type"] == typ {
			out[id] = r
		}
	}
	return out
}

func props(r map[string]any) map[string]any {
	p, _ := r["Properties"].(map[string]any)
	return p
}

// ref returns the logical id a {"Ref": id} or {"Fn::GetAtt": [id, …]} names.
func ref(v any) string {
	m, ok := v.(map[string]any)
	if !ok {
		return ""
	}
	if id, ok := m["Ref"].(string); ok {
		return id
	}
	if ga, ok := m["Fn::GetAtt"].([]any); ok && len(ga) > 0 {
		id, _ := ga[0].(string)
		return id
	}
	return ""
}

// functionID returns the logical id of the function of directory dir.
func (s *synthesized) functionID(t *testing.T, dir string) string {
	t.Helper()
	for id, r := range s.resources("AWS::Lambda::Function") {
		if props(r)["Description"] == "Meridian "+dir+" (functions/"+dir+")" {
			return id
		}
	}
	t.Fatalf("no function for functions/%s", dir)
	return ""
}

// apiID returns the logical id of product p's RestApi.
func (s *synthesized) apiID(t *testing.T, p gateway.Product) string {
	t.Helper()
	for id, r := range s.resources("AWS::ApiGateway::RestApi") {
		if props(r)["Name"] == "meridian-"+p.String() {
			return id
		}
	}
	t.Fatalf("no RestApi for %s", p)
	return ""
}

func TestFunctions(t *testing.T) {
	plain, withData := stacks(t)
	for _, s := range []*synthesized{plain, withData} {
		dirs := []string{AuthorizerFunction}
		for _, p := range s.products {
			dirs = append(dirs, p.Function)
		}
		check(t, "function count", func() {
			// and the refresh job's (TestRefreshFunction)
			s.tmpl.ResourceCountIs(jsii.String("AWS::Lambda::Function"), jsii.Number(len(dirs)+1))
		})
		for _, dir := range dirs {
			memory := functionMemoryMB
			if dir == AuthorizerFunction {
				memory = authorizerMemoryMB
			}
			check(t, dir, func() {
				s.tmpl.HasResourceProperties(jsii.String("AWS::Lambda::Function"), map[string]any{
					"Description":   "Meridian " + dir + " (functions/" + dir + ")",
					"Runtime":       "provided.al2023",
					"Architectures": []any{"arm64"},
					"Handler":       "bootstrap",
					"MemorySize":    memory,
					"LoggingConfig": map[string]any{"LogGroup": assertions.Match_AnyValue()},
				})
			})
			id := s.functionID(t, dir)
			r := s.resources("AWS::Lambda::Function")[id]
			if timeout, _ := props(r)["Timeout"].(float64); timeout <= 0 || timeout >= 29 {
				t.Errorf("%s: Timeout %v s, want under API Gateway's 29 s", dir, props(r)["Timeout"])
			}
			if md, _ := r["Metadata"].(map[string]any); md["aws:asset:path"] == nil {
				t.Errorf("%s: no aws:asset:path metadata (SAM finds the code through it)", dir)
			}
		}
	}
}

// envNames returns the environment variable names of function dir.
func (s *synthesized) envNames(t *testing.T, dir string) []string {
	t.Helper()
	r := s.resources("AWS::Lambda::Function")[s.functionID(t, dir)]
	env, _ := props(r)["Environment"].(map[string]any)
	vars, _ := env["Variables"].(map[string]any)
	var names []string
	for k := range vars {
		names = append(names, k)
	}
	sort.Strings(names)
	return names
}

func TestEnvironment(t *testing.T) {
	plain, withData := stacks(t)
	tests := []struct {
		s    *synthesized
		dir  string
		want []string
	}{
		{plain, AuthorizerFunction, []string{"LOG_LEVEL"}},
		{plain, "search", []string{"LOG_LEVEL"}}, // no grid indexes yet: the models answer
		{plain, "batch", []string{"LOG_LEVEL"}},
		{plain, "tiles", []string{"LOG_LEVEL", "PUBLIC_TILES_URL", "TILES_BUCKET", "TILES_PREFIX"}},
		{withData, "search", []string{"GRID_BUCKET", "GRID_INDEXES", "GRID_PREFIX", "LOG_LEVEL"}},
		{withData, "autocomplete", []string{"GRID_BUCKET", "GRID_INDEXES", "GRID_PREFIX", "LOG_LEVEL"}},
		{withData, "tiles", []string{"GRID_BUCKET", "GRID_INDEXES", "GRID_PREFIX", "LOG_LEVEL", "PUBLIC_TILES_URL", "TILES_BUCKET", "TILES_PREFIX"}},
		{withData, "ag", []string{"GRID_BUCKET", "GRID_INDEXES", "GRID_PREFIX", "LOG_LEVEL", "REPORTS_TABLE"}},
		{withData, "energy", []string{"GRID_BUCKET", "GRID_INDEXES", "GRID_PREFIX", "LOG_LEVEL", "REPORTS_TABLE"}},
	}
	for _, tc := range tests {
		if diff := cmp.Diff(tc.want, tc.s.envNames(t, tc.dir)); diff != "" {
			t.Errorf("%s environment (-want +got):\n%s", tc.dir, diff)
		}
	}
	check(t, "search grid settings", func() {
		withData.tmpl.HasResourceProperties(jsii.String("AWS::Lambda::Function"), map[string]any{
			"Description": "Meridian search (functions/search)",
			"Environment": map[string]any{"Variables": map[string]any{
				"GRID_BUCKET":  map[string]any{"Ref": assertions.Match_StringLikeRegexp(jsii.String("^DataBucket"))},
				"GRID_PREFIX":  GridPrefix,
				"GRID_INDEXES": "altalis-ats-v4.1.mgix,sk-grid.mgix",
				"LOG_LEVEL":    "debug",
			}},
		})
	})
	check(t, "ag report table", func() {
		withData.tmpl.HasResourceProperties(jsii.String("AWS::Lambda::Function"), map[string]any{
			"Description": "Meridian ag (functions/ag)",
			"Environment": map[string]any{"Variables": map[string]any{
				"REPORTS_TABLE": map[string]any{"Ref": assertions.Match_StringLikeRegexp(jsii.String("^ReportsTable"))},
			}},
		})
	})
}

// TestEnvironmentIsRead checks that every variable the stack sets for a
// deployed function is a name the Go code reads (a string literal in a
// non-test file under ../functions or ../shared), so a rename on either side
// fails here.
func TestEnvironmentIsRead(t *testing.T) {
	_, withData := stacks(t)
	var src strings.Builder
	for _, root := range []string{"../functions", "../shared"} {
		filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() && strings.HasSuffix(path, ".go") && !strings.HasSuffix(path, "_test.go") {
				b, _ := os.ReadFile(path)
				src.Write(b)
			}
			return nil
		})
	}
	for _, p := range Products() {
		for _, name := range withData.envNames(t, p.Function) {
			if !strings.Contains(src.String(), strconv.Quote(name)) {
				t.Errorf("%s gets %s, which no function reads", p.Function, name)
			}
		}
	}
}

func TestPublicTilesURL(t *testing.T) {
	plain, _ := stacks(t)
	dist := ""
	for id := range plain.resources("AWS::CloudFront::Distribution") {
		dist = id
	}
	check(t, "PUBLIC_TILES_URL", func() {
		plain.tmpl.HasResourceProperties(jsii.String("AWS::Lambda::Function"), map[string]any{
			"Description": "Meridian tiles (functions/tiles)",
			"Environment": map[string]any{"Variables": map[string]any{
				"PUBLIC_TILES_URL": map[string]any{"Fn::Join": []any{"", []any{
					"https://", map[string]any{"Fn::GetAtt": []any{dist, "DomainName"}}, "/tiles",
				}}},
			}},
		})
	})
}

func TestAPIs(t *testing.T) {
	plain, withData := stacks(t)
	for _, s := range []*synthesized{plain, withData} {
		check(t, "RestApi count", func() {
			s.tmpl.ResourceCountIs(jsii.String("AWS::ApiGateway::RestApi"), jsii.Number(len(s.products)))
		})
		check(t, "no CloudWatch role", func() {
			s.tmpl.ResourceCountIs(jsii.String("AWS::ApiGateway::Account"), jsii.Number(0))
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
			// /<base> and /<base>/{proxy+}, nothing else.
			var paths []string
			byID := s.resources("AWS::ApiGateway::Resource")
			for _, r := range byID {
				if ref(props(r)["RestApiId"]) != api {
					continue
				}
				path := props(r)["PathPart"].(string)
				if parent := ref(props(r)["ParentId"]); byID[parent] != nil {
					path = props(byID[parent])["PathPart"].(string) + "/" + path
				}
				paths = append(paths, "/"+path)
			}
			sort.Strings(paths)
			if want := []string{"/" + p.Base, "/" + p.Base + "/{proxy+}"}; !slices.Equal(paths, want) {
				t.Errorf("%s resources %v, want %v", p.Function, paths, want)
			}
		}
	}
}

// TestAuthorizerWiring checks that every method of every API goes through
// its API's key authorizer, requires a key, and proxies to its product's
// function; and that each authorizer is the authorizer function, REQUEST,
// uncached, without identity sources.
func TestAuthorizerWiring(t *testing.T) {
	plain, withData := stacks(t)
	for _, s := range []*synthesized{plain, withData} {
		authFn := s.functionID(t, AuthorizerFunction)
		authorizers := s.resources("AWS::ApiGateway::Authorizer")
		if len(authorizers) != len(s.products) {
			t.Errorf("%d authorizers, want one per API (%d)", len(authorizers), len(s.products))
		}
		for id, a := range authorizers {
			ap := props(a)
			if ap["Type"] != "REQUEST" || ap["AuthorizerResultTtlInSeconds"] != float64(0) {
				t.Errorf("authorizer %s: Type %v, TTL %v; want REQUEST, 0", id, ap["Type"], ap["AuthorizerResultTtlInSeconds"])
			}
			if _, ok := ap["IdentitySource"]; ok {
				t.Errorf("authorizer %s has IdentitySource %v: keys come from the header or the query", id, ap["IdentitySource"])
			}
			uri, _ := json.Marshal(ap["AuthorizerUri"])
			if !strings.Contains(string(uri), `"`+authFn+`"`) {
				t.Errorf("authorizer %s calls %s, want the authorizer function %s", id, uri, authFn)
			}
		}
		methods := s.resources("AWS::ApiGateway::Method")
		if len(methods) != 2*len(s.products) {
			t.Errorf("%d methods, want 2 per API (ANY on /<base> and on {proxy+})", len(methods))
		}
		for _, p := range s.products {
			api, fn := s.apiID(t, p.Product), s.functionID(t, p.Function)
			n := 0
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
				if mp["ApiKeyRequired"] != true || mp["HttpMethod"] != "ANY" {
					t.Errorf("%s method %s: ApiKeyRequired %v, HttpMethod %v; want true, ANY", p.Function, id, mp["ApiKeyRequired"], mp["HttpMethod"])
				}
				integ, _ := mp["Integration"].(map[string]any)
				uri, _ := json.Marshal(integ["Uri"])
				if integ["Type"] != "AWS_PROXY" || !strings.Contains(string(uri), `"`+fn+`"`) {
					t.Errorf("%s method %s: integration %v to %s, want AWS_PROXY to %s", p.Function, id, integ["Type"], uri, fn)
				}
			}
			if n != 2 {
				t.Errorf("%s: %d methods, want 2", p.Function, n)
			}
		}
	}
}

// TestUsagePlans checks one usage plan per product and plan, with the
// limits of gateway.DefaultPlans, on the product's stage.
func TestUsagePlans(t *testing.T) {
	plain, withData := stacks(t)
	plans := gateway.DefaultPlans()
	for _, s := range []*synthesized{plain, withData} {
		total := 0
		for _, p := range s.products {
			api := s.apiID(t, p.Product)
			for _, pl := range plans[p.Product] {
				total++
				want := map[string]any{
					"UsagePlanName": "meridian-" + p.Product.String() + "-" + pl.Name,
					"ApiStages": []any{map[string]any{
						"ApiId": map[string]any{"Ref": api},
						"Stage": map[string]any{"Ref": assertions.Match_AnyValue()},
					}},
					"Throttle": assertions.Match_Absent(),
					"Quota":    assertions.Match_Absent(),
				}
				if pl.RatePerSecond > 0 {
					want["Throttle"] = map[string]any{"RateLimit": pl.RatePerSecond, "BurstLimit": pl.Burst}
				}
				if pl.MonthlyQuota > 0 {
					want["Quota"] = map[string]any{"Limit": pl.MonthlyQuota, "Period": "MONTH"}
				}
				check(t, p.Function+" plan "+pl.Name, func() {
					s.tmpl.HasResourceProperties(jsii.String("AWS::ApiGateway::UsagePlan"), want)
				})
			}
		}
		check(t, "usage plan count", func() {
			s.tmpl.ResourceCountIs(jsii.String("AWS::ApiGateway::UsagePlan"), jsii.Number(total))
		})
	}
	// Spot-check the spec's numbers, so that a change in the shared
	// definitions is a visible decision.
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
			"Throttle":      assertions.Match_Absent(),
			"Quota":         map[string]any{"Limit": 10000, "Period": "MONTH"},
		})
	})
}

// TestGatewayResponses checks that API Gateway's own refusals carry the
// error body and the codes of the local gateway.
func TestGatewayResponses(t *testing.T) {
	plain, _ := stacks(t)
	src, err := os.ReadFile("../shared/gateway/middleware.go")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]struct {
		status, code string
	}{
		"UNAUTHORIZED":    {"401", "missing_api_key"},
		"INVALID_API_KEY": {"401", "invalid_api_key"},
		"ACCESS_DENIED":   {"403", "product_not_in_plan"},
		"THROTTLED":       {"429", "rate_limited"},
		"QUOTA_EXCEEDED":  {"429", "quota_exceeded"},
	}
	for code := range want {
		if c := want[code].code; !strings.Contains(string(src), strconv.Quote(c)) {
			t.Errorf("code %s is not one the local gateway uses", c)
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
			}
			if typ == "THROTTLED" && rp["ResponseParameters"].(map[string]any)["gatewayresponse.header.Retry-After"] != "'1'" {
				t.Errorf("%s THROTTLED: no Retry-After", p.Function)
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
					"ViewerProtocolPolicy":  "redirect-to-https",
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

func TestBucket(t *testing.T) {
	plain, _ := stacks(t)
	check(t, "bucket", func() {
		plain.tmpl.ResourceCountIs(jsii.String("AWS::S3::Bucket"), jsii.Number(1))
		plain.tmpl.HasResource(jsii.String("AWS::S3::Bucket"), map[string]any{
			"DeletionPolicy": "Retain",
			"Properties": map[string]any{
				"BucketEncryption": map[string]any{"ServerSideEncryptionConfiguration": []any{
					map[string]any{"ServerSideEncryptionByDefault": map[string]any{"SSEAlgorithm": "AES256"}},
				}},
				"PublicAccessBlockConfiguration": map[string]any{
					"BlockPublicAcls": true, "BlockPublicPolicy": true, "IgnorePublicAcls": true, "RestrictPublicBuckets": true,
				},
				"OwnershipControls": map[string]any{"Rules": []any{map[string]any{"ObjectOwnership": "BucketOwnerEnforced"}}},
			},
		})
	})
	check(t, "TLS only", func() {
		plain.tmpl.HasResourceProperties(jsii.String("AWS::S3::BucketPolicy"), map[string]any{
			"PolicyDocument": map[string]any{"Statement": assertions.Match_ArrayWith(&[]any{assertions.Match_ObjectLike(&map[string]any{
				"Effect":    "Deny",
				"Action":    "s3:*",
				"Condition": map[string]any{"Bool": map[string]any{"aws:SecureTransport": "false"}},
			})})},
		})
	})
}

func TestTable(t *testing.T) {
	plain, _ := stacks(t)
	check(t, "table", func() {
		plain.tmpl.ResourceCountIs(jsii.String("AWS::DynamoDB::Table"), jsii.Number(1))
		plain.tmpl.HasResource(jsii.String("AWS::DynamoDB::Table"), map[string]any{
			"DeletionPolicy": "Retain",
			"Properties": map[string]any{
				"KeySchema": []any{
					map[string]any{"AttributeName": "pk", "KeyType": "HASH"},
					map[string]any{"AttributeName": "sk", "KeyType": "RANGE"},
				},
				"AttributeDefinitions": []any{
					map[string]any{"AttributeName": "pk", "AttributeType": "S"},
					map[string]any{"AttributeName": "sk", "AttributeType": "S"},
				},
				"BillingMode":                      "PAY_PER_REQUEST",
				"PointInTimeRecoverySpecification": map[string]any{"PointInTimeRecoveryEnabled": true},
				"SSESpecification":                 map[string]any{"SSEEnabled": true},
				"DeletionProtectionEnabled":        true,
			},
		})
	})
}

// statements returns every policy statement in the template with where it
// is: IAM policies, role inline policies, bucket policies.
func (s *synthesized) statements() map[string][]map[string]any {
	out := map[string][]map[string]any{}
	add := func(where string, doc any) {
		d, _ := doc.(map[string]any)
		st, _ := d["Statement"].([]any)
		for _, x := range st {
			out[where] = append(out[where], x.(map[string]any))
		}
	}
	for id, r := range s.doc["Resources"].(map[string]any) {
		p := props(r.(map[string]any))
		add(id, p["PolicyDocument"])
		if ps, ok := p["Policies"].([]any); ok {
			for _, x := range ps {
				add(id, x.(map[string]any)["PolicyDocument"])
			}
		}
	}
	return out
}

func strs(v any) []any {
	if l, ok := v.([]any); ok {
		return l
	}
	return []any{v}
}

// TestNoWildcardGrants: no Allow statement has a wildcard action or the
// resource "*", and no role carries a managed policy. Deny statements (the
// bucket's TLS-only rule) may be as broad as they like.
func TestNoWildcardGrants(t *testing.T) {
	plain, withData := stacks(t)
	for _, s := range []*synthesized{plain, withData} {
		n := 0
		for where, sts := range s.statements() {
			for _, st := range sts {
				if st["Effect"] != "Allow" {
					continue
				}
				n++
				for _, a := range strs(st["Action"]) {
					if a, _ := a.(string); strings.Contains(a, "*") {
						t.Errorf("%s allows action %s", where, a)
					}
				}
				for _, r := range strs(st["Resource"]) {
					// ECR's token call has no resource-level permission:
					// the task execution roles need it on *, alone.
					if r == "*" && slices.Equal(strs(st["Action"]), []any{"ecr:GetAuthorizationToken"}) && strings.Contains(where, "RefreshTaskExecutionRole") {
						continue
					}
					if r == "*" {
						t.Errorf("%s allows %v on resource *", where, st["Action"])
					}
				}
				if _, ok := st["NotAction"]; ok {
					t.Errorf("%s uses NotAction", where)
				}
				if _, ok := st["NotResource"]; ok {
					t.Errorf("%s uses NotResource", where)
				}
			}
		}
		if n == 0 {
			t.Error("no Allow statement found: the walk is broken")
		}
		check(t, "no managed policies", func() {
			s.tmpl.ResourcePropertiesCountIs(jsii.String("AWS::IAM::Role"), map[string]any{
				"ManagedPolicyArns": assertions.Match_AnyValue(),
			}, jsii.Number(0))
		})
	}
}

// TestGrants checks each function's exact permissions.
func TestGrants(t *testing.T) {
	_, withData := stacks(t)
	logs := []string{"logs:CreateLogStream", "logs:PutLogEvents"}
	want := map[string][]string{
		AuthorizerFunction: logs,
		"search":           append(slices.Clone(logs), "s3:GetObject grid/*"),
		"autocomplete":     append(slices.Clone(logs), "s3:GetObject grid/*"),
		"batch":            append(slices.Clone(logs), "s3:GetObject grid/*"),
		"tiles":            append(slices.Clone(logs), "s3:GetObject grid/*", "s3:GetObject tiles/*", "s3:ListBucket bucket"),
		"ag":               append(slices.Clone(logs), "s3:GetObject grid/*", "dynamodb:GetItem table", "dynamodb:Query table"),
		"energy":           append(slices.Clone(logs), "s3:GetObject grid/*", "dynamodb:GetItem table", "dynamodb:Query table"),
		RefreshFunction:    append(slices.Clone(logs), append(refreshJobGrants(), "sqs:SendMessage dlq")...),
	}
	roles := map[string]string{} // role logical id -> function dir
	for dir := range want {
		r := withData.resources("AWS::Lambda::Function")[withData.functionID(t, dir)]
		roles[ref(props(r)["Role"])] = dir
	}
	got := map[string][]string{}
	for _, r := range withData.resources("AWS::IAM::Policy") {
		p := props(r)
		dir, ok := roles[ref(strs(p["Roles"])[0])]
		if !ok {
			continue // the tasks' and EventBridge's roles: TestRefreshTaskGrants
		}
		for _, st := range p["PolicyDocument"].(map[string]any)["Statement"].([]any) {
			st := st.(map[string]any)
			for _, a := range strs(st["Action"]) {
				for _, r := range strs(st["Resource"]) {
					got[dir] = append(got[dir], a.(string)+describeResource(r))
				}
			}
		}
	}
	for dir := range got {
		sort.Strings(got[dir])
	}
	for dir := range want {
		sort.Strings(want[dir])
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("grants (-want +got):\n%s", diff)
	}
}

// describeResource names a statement's resource in the terms of TestGrants.
func describeResource(r any) string {
	b, _ := json.Marshal(r)
	s := string(b)
	switch {
	case strings.Contains(s, "Logs"):
		return ""
	case strings.Contains(s, "DataBucket") && strings.Contains(s, `"/grid/*"`):
		return " grid/*"
	case strings.Contains(s, "DataBucket") && strings.Contains(s, `"/tiles/*"`):
		return " tiles/*"
	case strings.Contains(s, "DataBucket") && strings.Contains(s, `"Arn"`) && !strings.Contains(s, "Fn::Join"):
		return " bucket"
	case strings.Contains(s, "ReportsTable") && !strings.Contains(s, "Fn::Join"):
		return " table"
	case strings.Contains(s, "DataBucket") && strings.Contains(s, `"/refresh/*"`):
		return " refresh/*"
	case strings.Contains(s, "RefreshDeadLetterQueue"):
		return " dlq"
	}
	return " " + s
}

// TestNoDependencyCycle checks that the resources can be created in some
// order (CloudFormation refuses a circular dependency at deploy time, which
// synth does not catch).
func TestNoDependencyCycle(t *testing.T) {
	plain, _ := stacks(t)
	res := plain.doc["Resources"].(map[string]any)
	deps := map[string]map[string]bool{}
	var walk func(id string, v any)
	walk = func(id string, v any) {
		switch v := v.(type) {
		case map[string]any:
			if r := ref(v); r != "" && res[r] != nil {
				deps[id][r] = true
			}
			for _, x := range v {
				walk(id, x)
			}
		case []any:
			for _, x := range v {
				walk(id, x)
			}
		}
	}
	for id, r := range res {
		deps[id] = map[string]bool{}
		r := r.(map[string]any)
		walk(id, r["Properties"])
		for _, d := range strs(r["DependsOn"]) {
			if d, ok := d.(string); ok {
				deps[id][d] = true
			}
		}
	}
	// Kahn's algorithm: whatever is left over sits on a cycle.
	left := len(deps)
	done := map[string]bool{}
	for progress := true; progress; {
		progress = false
		for id, ds := range deps {
			if done[id] {
				continue
			}
			ready := true
			for d := range ds {
				if !done[d] {
					ready = false
					break
				}
			}
			if ready {
				done[id], progress = true, true
				left--
			}
		}
	}
	if left > 0 {
		var stuck []string
		for id := range deps {
			if !done[id] {
				stuck = append(stuck, id)
			}
		}
		sort.Strings(stuck)
		t.Errorf("dependency cycle among %v", stuck)
	}
}

func TestOutputs(t *testing.T) {
	plain, _ := stacks(t)
	outputs, _ := plain.doc["Outputs"].(map[string]any)
	want := []string{"TilesUrl", "TilesDistributionId", "DataBucketName", "ReportsTableName",
		"RefreshFunctionName", "RefreshClusterName", "RefreshTaskSubnets", "RefreshTaskSecurityGroupId", "RefreshAlarmTopicArn",
		"PublisherPolicyArn", "RefreshHandSteps", "EnergyRefreshTaskDefinitionArn", "AgRefreshTaskDefinitionArn"}
	for _, p := range plain.products {
		want = append(want, title(p.Product.String())+"ApiUrl")
		for _, pl := range gateway.DefaultPlans()[p.Product] {
			want = append(want, title(p.Product.String())+title(pl.Name)+"UsagePlanId")
		}
	}
	var got []string
	for k := range outputs {
		got = append(got, k)
	}
	sort.Strings(want)
	sort.Strings(got)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("outputs (-want +got):\n%s", diff)
	}
	check(t, "search URL", func() {
		plain.tmpl.HasOutput(jsii.String("SearchApiUrl"), map[string]any{
			"Value": map[string]any{"Fn::Join": []any{"", assertions.Match_ArrayWith(&[]any{"/search"})}},
		})
	})
}

// TestProductTable checks the table against the repository: every listed
// function exists, and a product whose function exists is listed.
func TestProductTable(t *testing.T) {
	listed := map[gateway.Product]bool{}
	for _, p := range Products() {
		listed[p.Product] = true
		if _, err := os.Stat(filepath.Join("../functions", p.Function, "main.go")); err != nil {
			t.Errorf("%s is deployed but functions/%s has no main.go", p.Product, p.Function)
		}
	}
	for _, p := range gateway.Products() {
		dir := p.String()
		if p == gateway.Maps {
			dir = "tiles"
		}
		if _, err := os.Stat(filepath.Join("../functions", dir, "main.go")); err == nil && !listed[p] {
			t.Errorf("functions/%s exists but product %s is not in Products(): add its line (see its doc comment)", dir, p)
		}
	}
	if _, err := os.Stat(filepath.Join("../functions", AuthorizerFunction, "main.go")); err != nil {
		t.Errorf("authorizer: %v", err)
	}
}

func TestPropsFrom(t *testing.T) {
	plans := filepath.Join(t.TempDir(), "plans.json")
	if err := os.WriteFile(plans, []byte(`{"search":[{"name":"pro","rate_per_second":10,"burst":20,"monthly_quota":100000}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx := map[string]string{"region": "us-west-2", "assets": "/tmp/x", "gridIndexes": " a.mgix, b.mgix ,", "plans": plans}
	env := map[string]string{"CDK_DEFAULT_ACCOUNT": "111122223333", "CDK_DEFAULT_REGION": "eu-west-1"}
	p, err := propsFrom(func(k string) string { return ctx[k] }, func(k string) string { return env[k] })
	if err != nil {
		t.Fatal(err)
	}
	if *p.Env.Account != "111122223333" || *p.Env.Region != "us-west-2" || p.AssetRoot != "/tmp/x" || p.LogLevel != "info" {
		t.Errorf("account %s, region %s, assets %s, log level %s", *p.Env.Account, *p.Env.Region, p.AssetRoot, p.LogLevel)
	}
	if !slices.Equal(p.GridIndexes, []string{"a.mgix", "b.mgix"}) {
		t.Errorf("grid indexes %q", p.GridIndexes)
	}
	if pl, ok := p.Plans.Lookup(gateway.Search, "pro"); !ok || pl.MonthlyQuota != 100000 {
		t.Errorf("plans file not applied: %+v", p.Plans[gateway.Search])
	}

	p, err = propsFrom(func(string) string { return "" }, func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	if *p.Env.Account != defaultAccount || *p.Env.Region != defaultRegion || p.Plans != nil || len(p.GridIndexes) != 0 {
		t.Errorf("offline defaults: %s %s %v %v", *p.Env.Account, *p.Env.Region, p.Plans, p.GridIndexes)
	}
	if want, _ := filepath.Abs(defaultAssets); p.AssetRoot != want {
		t.Errorf("assets %s, want %s", p.AssetRoot, want)
	}

	if _, err := propsFrom(func(k string) string { return map[string]string{"plans": "/nonexistent/plans.json"}[k] }, func(string) string { return "" }); err == nil {
		t.Error("a plans file that does not exist: no error")
	}
}

// TestCheckProps: problems are reported before anything is defined, all at
// once.
func TestCheckProps(t *testing.T) {
	err := checkProps(StackProps{
		AssetRoot:   t.TempDir(),
		Products:    []Product{{Product: gateway.Maps, Function: "tiles", Base: "maps"}},
		Plans:       gateway.Plans{gateway.Maps: {{Name: "two words"}}},
		GridIndexes: []string{"grid/a.mgix"},
	})
	if err == nil {
		t.Fatal("no error")
	}
	for _, s := range []string{"make build", "authorizer", "tiles", "/maps", "two words", "grid/a.mgix"} {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("error lacks %q:\n%v", s, err)
		}
	}
}
