// Command infra is Meridian's AWS deployment, a CDK app in Go: stack
// Meridian with one Lambda and REST API per product, the key authorizer,
// usage plans from meridian/shared/gateway, the data bucket, the report
// table, CloudFront in front of the tiles, and the scheduled data refresh
// (a Lambda and two Fargate tasks, refresh.go; see NewStack).
//
// `cdk synth` (make synth) runs it offline; `cdk deploy` (make deploy) needs
// an account that has been through `cdk bootstrap`. Context values (-c
// name=value), each with an environment fallback:
//
//	account      AWS account; CDK_DEFAULT_ACCOUNT, else 123456789012 (offline synth only)
//	region       AWS region; CDK_DEFAULT_REGION, else ca-central-1
//	assets       directory of <function>/bootstrap (and refresh/meridian, refresh/Dockerfile);
//	             ../.build (what make build writes)
//	gridIndexes  comma-separated grid index files under grid/ in the data bucket
//	             (GRID_INDEXES); empty: the functions answer from the survey models
//	plans        a plans.json overlaying gateway.DefaultPlans (same file and format
//	             as the local server's)
//	logLevel     LOG_LEVEL of every function; info
//	allowUnlimited  true: also deploy the plans without a monthly quota (the
//	             "unlimited" plans), for a development stack; false (default):
//	             they are left out, as a production stack must
//	watches      true: also deploy the watches and their webhook deliveries
//	             (watches.go), which need the watches and deliver functions'
//	             bootstraps; false (default) until those functions exist
//	domainName   the customer's domain name for the tiles (tiles.example.ca), with
//	certificateArn  the ARN of its ACM certificate, which CloudFront requires in
//	             us-east-1 (arn:aws:acm:us-east-1:…): CloudFront then answers on
//	             that name with TLS 1.2 at least (TLSv1.2_2021). Both or neither;
//	             without them the tiles are on the distribution's *.cloudfront.net
//	             name, whose default certificate cannot set a minimum protocol
//
// Every synth runs cdk-nag's AwsSolutions checks (nag.go), and fails on any
// error or warning of theirs that is not suppressed beside its resource.
//
// The account and region are explicit so synth never looks anything up.
package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/jsii-runtime-go"

	"meridian/shared/gateway"
)

// Offline defaults: the AWS documentation's example account, and the
// Canadian region.
const (
	defaultAccount = "123456789012"
	defaultRegion  = "ca-central-1"
	defaultAssets  = "../.build"
)

// appContext is CDK context the app always sets, in tests too:
// CloudFormation's own checks (circular dependencies, invalid properties)
// fail synth instead of printing warnings.
func appContext() *map[string]any {
	return &map[string]any{
		"@aws-cdk/core:validateAgainstDefaultRules": true,
		// S3 server access logs are delivered under a bucket policy of the
		// log bucket (logging.s3.amazonaws.com, this account's data bucket
		// only), AWS's recommendation, rather than its LogDeliveryWrite ACL.
		"@aws-cdk/aws-s3:serverAccessLogsUseBucketPolicy": true,
	}
}

// offlineLookups answers, for the offline example account, the context
// lookups the stack makes (the availability zones of the refresh VPC), so
// `cdk synth` needs no AWS credentials: the cdk CLI would otherwise call
// AWS for them and fail. A real account's lookups are made by the CLI at
// deploy, with its credentials, and cached in cdk.context.json.
func offlineLookups(app awscdk.App, props StackProps) {
	env := props.StackProps.Env
	if env == nil || env.Account == nil || *env.Account != defaultAccount || env.Region == nil {
		return
	}
	region := *env.Region
	key := "availability-zones:account=" + defaultAccount + ":region=" + region
	app.Node().SetContext(jsii.String(key), []string{region + "a", region + "b"})
}

func main() {
	defer jsii.Close()
	app := awscdk.NewApp(&awscdk.AppProps{Context: appContext()})
	applyNag(app)
	props, err := propsFrom(func(name string) string {
		if v, ok := app.Node().TryGetContext(jsii.String(name)).(string); ok {
			return v
		}
		return ""
	}, os.Getenv)
	if err == nil {
		offlineLookups(app, props)
		_, err = NewStack(app, "Meridian", props)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if findings := nagFindings(app.Synth(nil)); len(findings) > 0 {
		fmt.Fprintf(os.Stderr, "infra: %d unsuppressed cdk-nag AwsSolutions findings: fix them, or suppress a design decision beside its resource with its reason (nag.go)\n", len(findings))
		for _, f := range findings {
			fmt.Fprintln(os.Stderr, "  "+f)
		}
		os.Exit(1)
	}
}

// propsFrom reads the stack's settings from CDK context, then the
// environment, then the offline defaults.
func propsFrom(context, getenv func(string) string) (StackProps, error) {
	pick := func(ctx, env, def string) string {
		if v := strings.TrimSpace(context(ctx)); v != "" {
			return v
		}
		if env != "" {
			if v := strings.TrimSpace(getenv(env)); v != "" {
				return v
			}
		}
		return def
	}
	assets, err := filepath.Abs(pick("assets", "", defaultAssets))
	if err != nil {
		return StackProps{}, fmt.Errorf("infra: assets: %w", err)
	}
	p := StackProps{
		StackProps: awscdk.StackProps{
			Env: &awscdk.Environment{
				Account: jsii.String(pick("account", "CDK_DEFAULT_ACCOUNT", defaultAccount)),
				Region:  jsii.String(pick("region", "CDK_DEFAULT_REGION", defaultRegion)),
			},
			Description:        jsii.String("Meridian: legal land locations, reports and map tiles (infra/, CDK in Go)"),
			AnalyticsReporting: jsii.Bool(false),
		},
		AssetRoot:      assets,
		LogLevel:       pick("logLevel", "", "info"),
		DomainName:     pick("domainName", "", ""),
		CertificateArn: pick("certificateArn", "", ""),
	}
	for _, name := range strings.Split(pick("gridIndexes", "", ""), ",") {
		if name = strings.TrimSpace(name); name != "" {
			p.GridIndexes = append(p.GridIndexes, name)
		}
	}
	switch v := pick("allowUnlimited", "", "false"); v {
	case "true":
		p.AllowUnlimited = true
	case "false":
	default:
		return StackProps{}, fmt.Errorf("infra: allowUnlimited %q: want true or false", v)
	}
	switch v := pick("watches", "", "true"); v {
	case "true":
		p.Watches = true
	case "false":
	default:
		return StackProps{}, fmt.Errorf("infra: watches %q: want true or false", v)
	}
	if path := pick("plans", "", ""); path != "" {
		if _, err := os.Stat(path); err != nil {
			return StackProps{}, fmt.Errorf("infra: plans: %w", err)
		}
		if p.Plans, err = gateway.LoadPlans(path); err != nil {
			return StackProps{}, err
		}
	}
	return p, nil
}
