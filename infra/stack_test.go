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
	// The refresh job's directory also holds the meridian and
	// meridian-publish binaries and the task image's Dockerfile (make
	// build-refresh).
	for _, name := range []string{"meridian", "meridian-publish", refreshImageDockerfile} {
		body := "#!/bin/sh\n"
		if name == refreshImageDockerfile {
			body = "FROM scratch\nCOPY bootstrap meridian meridian-publish /app/\nENTRYPOINT [\"/app/bootstrap\"]\n"
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
	errors   []string // error annotations: `cdk synth` fails on any
	missing  []string // context lookups the cdk CLI would make (they need AWS credentials)
}

var variants struct {
	once                          sync.Once
	plain, withData, dev          *synthesized
	plainErr, withDataErr, devErr error
}

// devPlans are the plans of the dev variant: the defaults, and a slow
// search plan (one request every 5 s) whose Retry-After the API must say.
func devPlans() gateway.Plans {
	ps := gateway.DefaultPlans()
	ps[gateway.Search] = append(ps[gateway.Search], gateway.Plan{Name: "trickle", RatePerSecond: 0.2, Burst: 1, MonthlyQuota: 100})
	return ps
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
		variants.dev, variants.devErr = synth(StackProps{AssetRoot: assetRoot, AllowUnlimited: true, Plans: devPlans()})
	})
	if variants.plainErr != nil || variants.withDataErr != nil || variants.devErr != nil {
		t.Fatalf("synth: %v; %v; %v", variants.plainErr, variants.withDataErr, variants.devErr)
	}
	return variants.plain, variants.withData
}

// devStack is the stack as a development deployment has it
// (-c allowUnlimited=true), with devPlans.
func devStack(t *testing.T) *synthesized {
	t.Helper()
	stacks(t)
	return variants.dev
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
	offlineLookups(app, props)
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
	var errs, missing []string
	for _, m := range *assertions.Annotations_FromStack(st.Stack).FindError(jsii.String("*"), assertions.Match_AnyValue()) {
		errs = append(errs, fmt.Sprintf("%s: %v", *m.Id, m.Entry.Data))
	}
	if m := app.Synth(nil).Manifest().Missing; m != nil {
		for _, c := range *m {
			missing = append(missing, *c.Key)
		}
	}
	return &synthesized{tmpl: tmpl, doc: doc, products: products, errors: errs, missing: missing}, nil
}

// The stack synthesizes offline: no error annotations and no context
// lookup, which the cdk CLI would make with AWS credentials and otherwise
// fail the synth on (the availability zones of a VPC in a stack with an
// account did).
func TestNoSynthErrors(t *testing.T) {
	plain, withData := stacks(t)
	for name, s := range map[string]*synthesized{"plain": plain, "with data": withData, "dev": devStack(t)} {
		if len(s.errors) > 0 || len(s.missing) > 0 {
			t.Errorf("%s stack: error annotations %q, context lookups %q", name, s.errors, s.missing)
		}
	}
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
			want := slices.Clone(p.Routes)
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
			routes += len(p.Routes)
		}
		if len(methods) != routes {
			t.Errorf("%d methods, want one per route (%d)", len(methods), routes)
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
				if mp["ApiKeyRequired"] != true || mp["HttpMethod"] == "ANY" {
					t.Errorf("%s method %s: ApiKeyRequired %v, HttpMethod %v; want true, a route's method", p.Function, id, mp["ApiKeyRequired"], mp["HttpMethod"])
				}
				integ, _ := mp["Integration"].(map[string]any)
				uri, _ := json.Marshal(integ["Uri"])
				if integ["Type"] != "AWS_PROXY" || !strings.Contains(string(uri), `"`+fn+`"`) {
					t.Errorf("%s method %s: integration %v to %s, want AWS_PROXY to %s", p.Function, id, integ["Type"], uri, fn)
				}
			}
			if n != len(p.Routes) {
				t.Errorf("%s: %d methods, want %d", p.Function, n, len(p.Routes))
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
		"tiles": {500, 1000, 40}, "ag": {50, 100, 10}, "energy": {50, 100, 10},
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
			if pl.MonthlyQuota > 0 { // production: no unlimited plan
				want = append(want, title(p.Product.String())+title(pl.Name)+"UsagePlanId")
			}
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

	// Routes API Gateway could not declare, and limits that throttle
	// nothing or let one key take the whole stage.
	bad := Products()[0]
	bad.Routes = []string{"GET /search/{rest...}", "ANY /search/x", "GET /other/x", "GET /search/legal-location"}
	bad.Limits = Limits{Stage: Throttle{10, 10}, Key: Throttle{20, 5}, Concurrency: 0}
	err = checkProps(StackProps{AssetRoot: assetRoot, Products: []Product{bad}})
	if err == nil {
		t.Fatal("bad routes and limits: no error")
	}
	for _, s := range []string{"{rest...}", "ANY /search/x", "/other/x", "limits of search"} {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("error lacks %q:\n%v", s, err)
		}
	}
	if strings.Contains(err.Error(), `"GET /search/legal-location"`) {
		t.Errorf("a good route refused:\n%v", err)
	}
}
