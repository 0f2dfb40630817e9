package main

import (
	"encoding/csv"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/assertions"
	"github.com/aws/aws-cdk-go/awscdk/v2/awss3"
	"github.com/aws/jsii-runtime-go"
	"github.com/google/go-cmp/cmp"

	"meridian/shared/gateway"
)

// readNagReport reads cdk-nag's CSV compliance report of stack Meridian in
// the assembly directory dir, header left out.
func readNagReport(dir string) ([][]string, error) {
	paths, _ := filepath.Glob(filepath.Join(dir, "AwsSolutions-*Meridian-NagReport.csv"))
	if len(paths) != 1 {
		entries, _ := os.ReadDir(dir)
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		return nil, fmt.Errorf("cdk-nag report: want one in %s, found %q among %q", dir, paths, names)
	}
	path := paths[0]
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("cdk-nag report: %w", err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil || len(rows) < 2 {
		return nil, fmt.Errorf("cdk-nag report %s: %d rows, %v", path, len(rows), err)
	}
	return rows[1:], nil
}

// The customer-domain variant: -c domainName and -c certificateArn.
const (
	testDomain      = "tiles.example.ca"
	testCertificate = "arn:aws:acm:us-east-1:123456789012:certificate/0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d"
)

var customDomain struct {
	once sync.Once
	s    *synthesized
	err  error
}

func customDomainStack(t *testing.T) *synthesized {
	t.Helper()
	customDomain.once.Do(func() {
		customDomain.s, customDomain.err = synth(StackProps{AssetRoot: assetRoot, DomainName: testDomain, CertificateArn: testCertificate})
	})
	if customDomain.err != nil {
		t.Fatalf("synth: %v", customDomain.err)
	}
	return customDomain.s
}

// TestNagAwsSolutions: cdk-nag's AwsSolutions pack ran over every variant
// of the stack and left no unsuppressed error or warning, as the tests'
// annotations and main's gate both see it; the report shows the pack
// checked the stack (compliant rows) and that nothing is non-compliant.
func TestNagAwsSolutions(t *testing.T) {
	plain, withData := stacks(t)
	for name, s := range map[string]*synthesized{"plain": plain, "with data": withData, "dev": devStack(t), "custom domain": customDomainStack(t)} {
		if len(s.nag) > 0 {
			t.Errorf("%s stack: %d unsuppressed AwsSolutions findings:\n%s", name, len(s.nag), strings.Join(s.nag, "\n"))
		}
		if len(s.nagGate) > 0 {
			t.Errorf("%s stack: main's gate finds %q", name, s.nagGate)
		}
		count := map[string]int{}
		for _, row := range s.nagReport {
			count[row[2]]++
			if row[2] == "Non-Compliant" {
				t.Errorf("%s stack: %s non-compliant on %s", name, row[0], row[1])
			}
		}
		if count["Compliant"] < 50 || count["Suppressed"] == 0 {
			t.Errorf("%s stack: report %v: the pack did not run over the stack", name, count)
		}
	}
}

// nagSuppressions lists the suppressions in a template: resource, rule,
// reason, appliesTo.
type nagSuppression struct {
	Resource, Rule, Reason string
	AppliesTo              []any
}

func (s *synthesized) nagSuppressions() []nagSuppression {
	var out []nagSuppression
	for id, r := range s.doc["Resources"].(map[string]any) {
		md, _ := r.(map[string]any)["Metadata"].(map[string]any)
		nag, _ := md["cdk_nag"].(map[string]any)
		rules, _ := nag["rules_to_suppress"].([]any)
		for _, x := range rules {
			x := x.(map[string]any)
			rule, _ := x["id"].(string)
			reason, _ := x["reason"].(string)
			applies, _ := x["applies_to"].([]any)
			out = append(out, nagSuppression{id, rule, reason, applies})
		}
	}
	sort.Slice(out, func(i, j int) bool {
		return out[i].Resource+out[i].Rule < out[j].Resource+out[j].Rule
	})
	return out
}

// TestNagSuppressionReasons: every suppression in the template names an
// AwsSolutions rule and gives a reason of minReasonWords words or more;
// IAM5, whose findings are per resource, is always narrowed by appliesTo;
// and no rule is suppressed but those decided on (README: cdk-nag).
func TestNagSuppressionReasons(t *testing.T) {
	plain, withData := stacks(t)
	decided := []string{"AwsSolutions-CFR1", "AwsSolutions-CFR2", "AwsSolutions-CFR4", "AwsSolutions-COG4",
		"AwsSolutions-ECS2", "AwsSolutions-IAM5", "AwsSolutions-S1"}
	for name, s := range map[string]*synthesized{"plain": plain, "with data": withData, "custom domain": customDomainStack(t)} {
		sups := s.nagSuppressions()
		if len(sups) == 0 {
			t.Fatalf("%s stack: no suppression found: the walk is broken", name)
		}
		for _, x := range sups {
			if n := len(strings.Fields(x.Reason)); n < minReasonWords {
				t.Errorf("%s: %s on %s: reason %q has %d words, want %d or more", name, x.Rule, x.Resource, x.Reason, n, minReasonWords)
			}
			if !slices.Contains(decided, x.Rule) {
				t.Errorf("%s: %s suppressed on %s: not a decided suppression", name, x.Rule, x.Resource)
			}
			if x.Rule == "AwsSolutions-IAM5" && len(x.AppliesTo) == 0 {
				t.Errorf("%s: IAM5 suppressed on %s for every finding: narrow it with appliesTo", name, x.Resource)
			}
		}
	}
	// With the customer's certificate, TLS 1.2 is enforced: nothing to
	// suppress.
	for _, x := range customDomainStack(t).nagSuppressions() {
		if x.Rule == "AwsSolutions-CFR4" {
			t.Errorf("custom domain: CFR4 suppressed on %s", x.Resource)
		}
	}
}

// TestSuppressRefusesShortReasons: suppress panics on a reason a reviewer
// could not accept, and on a finding in the rule id.
func TestSuppressRefusesShortReasons(t *testing.T) {
	for _, c := range []struct{ rule, reason string }{
		{"AwsSolutions-S1", ""},
		{"AwsSolutions-S1", "not needed"},
		{"AwsSolutions-S1", "one two three four five six seven eight nine"},
		{"AwsSolutions-IAM5[Resource::*]", "one two three four five six seven eight nine ten"},
		{"S1", "one two three four five six seven eight nine ten"},
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("suppress(%q, %q): no panic", c.rule, c.reason)
				}
			}()
			app := awscdk.NewApp(nil)
			suppress(awscdk.NewStack(app, jsii.String("S"), nil), false, c.rule, c.reason)
		}()
	}
}

// TestNagGateFails: main's gate (nagFindings) reports an unsuppressed
// finding: a bucket with no access logs, no TLS-only policy.
func TestNagGateFails(t *testing.T) {
	app := awscdk.NewApp(&awscdk.AppProps{Context: appContext()})
	applyNag(app)
	st := awscdk.NewStack(app, jsii.String("Bare"), nil)
	awss3.NewBucket(st, jsii.String("Bare"), nil)
	got := nagFindings(app.Synth(nil))
	var rules []string
	for _, f := range got {
		if i := strings.Index(f, "AwsSolutions-"); i >= 0 {
			rules = append(rules, strings.Fields(f[i:])[0])
		}
	}
	for _, want := range []string{"AwsSolutions-S1:", "AwsSolutions-S10:"} {
		if !slices.Contains(rules, want) {
			t.Errorf("gate findings %q lack %s", got, want)
		}
	}
}

// TestLogBucket: the log bucket is private, TLS only, encrypted, expires
// its objects, and receives the data bucket's access logs, CloudFront's
// and the VPC's flow logs.
func TestLogBucket(t *testing.T) {
	plain, _ := stacks(t)
	logs := plain.oneID(t, "AWS::S3::Bucket", func(p map[string]any) bool { return p["LifecycleConfiguration"] != nil })
	check(t, "log bucket", func() {
		plain.tmpl.HasResource(jsii.String("AWS::S3::Bucket"), map[string]any{
			"Properties": map[string]any{
				"BucketEncryption": map[string]any{"ServerSideEncryptionConfiguration": []any{
					map[string]any{"ServerSideEncryptionByDefault": map[string]any{"SSEAlgorithm": "AES256"}},
				}},
				"PublicAccessBlockConfiguration": map[string]any{
					"BlockPublicAcls": true, "BlockPublicPolicy": true, "IgnorePublicAcls": true, "RestrictPublicBuckets": true,
				},
				"LifecycleConfiguration": map[string]any{"Rules": assertions.Match_ArrayWith(&[]any{assertions.Match_ObjectLike(&map[string]any{
					"ExpirationInDays": LogRetentionDays, "Status": "Enabled",
				})})},
			},
		})
		plain.tmpl.HasResourceProperties(jsii.String("AWS::S3::BucketPolicy"), map[string]any{
			"Bucket": map[string]any{"Ref": logs},
			"PolicyDocument": map[string]any{"Statement": assertions.Match_ArrayWith(&[]any{assertions.Match_ObjectLike(&map[string]any{
				"Effect":    "Deny",
				"Condition": map[string]any{"Bool": map[string]any{"aws:SecureTransport": "false"}},
			})})},
		})
	})
	check(t, "data bucket access logs", func() {
		plain.tmpl.HasResourceProperties(jsii.String("AWS::S3::Bucket"), map[string]any{
			"LoggingConfiguration": map[string]any{"DestinationBucketName": map[string]any{"Ref": logs}, "LogFilePrefix": DataBucketLogPrefix},
		})
	})
	check(t, "CloudFront access logs", func() {
		plain.tmpl.HasResourceProperties(jsii.String("AWS::CloudFront::Distribution"), map[string]any{
			"DistributionConfig": assertions.Match_ObjectLike(&map[string]any{"Logging": map[string]any{
				"Bucket": map[string]any{"Fn::GetAtt": []any{logs, "RegionalDomainName"}}, "Prefix": TilesLogPrefix, "IncludeCookies": false,
			}}),
		})
	})
	check(t, "flow logs", func() {
		plain.tmpl.HasResourceProperties(jsii.String("AWS::EC2::FlowLog"), map[string]any{
			"ResourceType":       "VPC",
			"TrafficType":        "ALL",
			"LogDestinationType": "s3",
			"LogDestination":     map[string]any{"Fn::Join": []any{"", []any{map[string]any{"Fn::GetAtt": []any{logs, "Arn"}}, "/" + FlowLogPrefix}}},
		})
	})
}

// TestStageExecutionLogs: every stage logs errors, never data, and every
// method of every API has the API's request validator.
func TestStageExecutionLogs(t *testing.T) {
	plain, _ := stacks(t)
	stages := plain.resources("AWS::ApiGateway::Stage")
	if len(stages) != len(plain.products) {
		t.Fatalf("%d stages, want %d", len(stages), len(plain.products))
	}
	for id, r := range stages {
		var all map[string]any
		for _, m := range strs(props(r)["MethodSettings"]) {
			if m := m.(map[string]any); m["HttpMethod"] == "*" && m["ResourcePath"] == "/*" {
				all = m
			}
		}
		if all["LoggingLevel"] != "ERROR" || all["DataTraceEnabled"] != false {
			t.Errorf("stage %s: method settings %v, want LoggingLevel ERROR, DataTraceEnabled false", id, all)
		}
	}
	validators := plain.resources("AWS::ApiGateway::RequestValidator")
	byAPI := map[string]string{}
	for id, r := range validators {
		p := props(r)
		if p["ValidateRequestParameters"] != true || p["ValidateRequestBody"] != true {
			t.Errorf("validator %s: %v", id, p)
		}
		byAPI[ref(p["RestApiId"])] = id
	}
	if len(byAPI) != len(plain.products) {
		t.Errorf("request validators for %d APIs, want %d", len(byAPI), len(plain.products))
	}
	n := 0
	for id, r := range plain.resources("AWS::ApiGateway::Method") {
		p := props(r)
		if p["HttpMethod"] == "OPTIONS" {
			continue
		}
		n++
		if want := byAPI[ref(p["RestApiId"])]; want == "" || ref(p["RequestValidatorId"]) != want {
			t.Errorf("method %s: validator %v, want its API's %q", id, p["RequestValidatorId"], want)
		}
	}
	if n == 0 {
		t.Error("no methods found")
	}
}

// TestContainerInsights: the refresh cluster has Container Insights.
func TestContainerInsights(t *testing.T) {
	plain, _ := stacks(t)
	check(t, "cluster", func() {
		plain.tmpl.HasResourceProperties(jsii.String("AWS::ECS::Cluster"), map[string]any{
			"ClusterSettings": []any{map[string]any{"Name": "containerInsights", "Value": "enabled"}},
		})
	})
}

// TestCustomDomain: with the customer's domain and certificate, CloudFront
// answers on that name with TLS 1.2 at least (SNI), and {tiles_url} is on
// it; without them, on the default certificate.
func TestCustomDomain(t *testing.T) {
	plain, _ := stacks(t)
	custom := customDomainStack(t)
	check(t, "viewer certificate", func() {
		custom.tmpl.HasResourceProperties(jsii.String("AWS::CloudFront::Distribution"), map[string]any{
			"DistributionConfig": assertions.Match_ObjectLike(&map[string]any{
				"Aliases": []any{testDomain},
				"ViewerCertificate": map[string]any{
					"AcmCertificateArn":      testCertificate,
					"MinimumProtocolVersion": "TLSv1.2_2021",
					"SslSupportMethod":       "sni-only",
				},
			}),
		})
		custom.tmpl.HasOutput(jsii.String("TilesUrl"), map[string]any{"Value": "https://" + testDomain + "/tiles"})
		custom.tmpl.HasOutput(jsii.String("TilesDistributionDomainName"), map[string]any{})
	})
	check(t, "default certificate", func() {
		plain.tmpl.HasResourceProperties(jsii.String("AWS::CloudFront::Distribution"), map[string]any{
			"DistributionConfig": assertions.Match_ObjectLike(&map[string]any{
				"Aliases":           assertions.Match_Absent(),
				"ViewerCertificate": assertions.Match_Absent(),
			}),
		})
	})
	// The tiles function's PUBLIC_TILES_URL follows.
	env := props(custom.resources("AWS::Lambda::Function")[custom.functionID(t, "tiles")])["Environment"].(map[string]any)["Variables"].(map[string]any)
	if got := env["PUBLIC_TILES_URL"]; got != "https://"+testDomain+"/tiles" {
		t.Errorf("PUBLIC_TILES_URL %v", got)
	}
}

// TestDomainProps: the domain and certificate come in pairs, well formed,
// the certificate in us-east-1.
func TestDomainProps(t *testing.T) {
	for _, c := range []struct {
		domain, cert, want string
	}{
		{testDomain, "", "both or neither"},
		{"", testCertificate, "both or neither"},
		{"tiles", testCertificate, "domainName"},
		{"https://tiles.example.ca", testCertificate, "domainName"},
		{testDomain, strings.Replace(testCertificate, "us-east-1", "ca-central-1", 1), "us-east-1"},
		{testDomain, "arn:aws:iam::123456789012:server-certificate/x", "certificateArn"},
		{testDomain, testCertificate, ""},
		{"", "", ""},
	} {
		err := checkProps(StackProps{AssetRoot: assetRoot, Products: Products(), Plans: gateway.DefaultPlans(), DomainName: c.domain, CertificateArn: c.cert})
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%q %q: %v", c.domain, c.cert, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%q %q: error %v, want one saying %q", c.domain, c.cert, err, c.want)
		}
	}
	got, err := propsFrom(func(k string) string {
		return map[string]string{"domainName": testDomain, "certificateArn": testCertificate}[k]
	}, func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{testDomain, testCertificate}, []string{got.DomainName, got.CertificateArn}); diff != "" {
		t.Errorf("propsFrom (-want +got):\n%s", diff)
	}
}
