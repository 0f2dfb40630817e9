package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
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
	for _, fn := range []string{AuthorizerFunction, "search", "autocomplete", "batch", "tiles", "ag", "energy", "changes", RefreshFunction, WatchesFunction, DeliverFunction} {
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
	// nag lists the unsuppressed cdk-nag AwsSolutions errors and warnings,
	// as assertions.Annotations finds them; nagGate, as main's gate
	// (nagFindings) finds them in the assembly.
	nag, nagGate []string
	// nagReport is cdk-nag's compliance report of the stack (CSV rows:
	// rule, resource, compliance, reason, level, info).
	nagReport [][]string
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
	// The watches are checked in every variant (watches_test.go).
	props.Watches = true
	// What the cdk CLI passes (its default --asset-metadata): where each
	// asset lies in cdk.out, which SAM reads.
	ctx := appContext()
	(*ctx)["aws:cdk:enable-asset-metadata"] = true
	app := awscdk.NewApp(&awscdk.AppProps{Context: ctx})
	applyNag(app)
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
	var errs, missing, nag []string
	annotations := assertions.Annotations_FromStack(st.Stack)
	for _, m := range *annotations.FindError(jsii.String("*"), assertions.Match_AnyValue()) {
		errs = append(errs, fmt.Sprintf("%s: %v", *m.Id, m.Entry.Data))
	}
	finding := assertions.Match_StringLikeRegexp(jsii.String("AwsSolutions-.*"))
	for _, m := range append(*annotations.FindError(jsii.String("*"), finding), *annotations.FindWarning(jsii.String("*"), finding)...) {
		nag = append(nag, fmt.Sprintf("%s %s: %v", m.Level, *m.Id, m.Entry.Data))
	}
	asm := app.Synth(nil)
	if m := asm.Manifest().Missing; m != nil {
		for _, c := range *m {
			missing = append(missing, *c.Key)
		}
	}
	report, err := readNagReport(*asm.Directory())
	if err != nil {
		return nil, err
	}
	return &synthesized{tmpl: tmpl, doc: doc, products: products, errors: errs, missing: missing,
		nag: nag, nagGate: nagFindings(asm), nagReport: report}, nil
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
			// and the refresh job's (TestRefreshFunction), the watches' and
			// the deliver function's (TestWatchFunctions)
			s.tmpl.ResourceCountIs(jsii.String("AWS::Lambda::Function"), jsii.Number(len(dirs)+3))
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
	case strings.Contains(s, "WatchesTable") && !strings.Contains(s, "Fn::Join"):
		return " watches"
	case strings.Contains(s, "DeliveryQueue") && !strings.Contains(s, "DeadLetter"):
		return " queue"
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
		"PublisherPolicyArn", "RefreshHandSteps", "EnergyRefreshTaskDefinitionArn", "AgRefreshTaskDefinitionArn",
		"WatchesTableName", "DeliveryDeadLetterQueueUrl"}
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
