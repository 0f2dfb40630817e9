package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsapigateway"
	"github.com/aws/aws-cdk-go/awscdk/v2/awscertificatemanager"
	"github.com/aws/aws-cdk-go/awscdk/v2/awscloudfront"
	"github.com/aws/aws-cdk-go/awscdk/v2/awscloudfrontorigins"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsdynamodb"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsiam"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslambda"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslogs"
	"github.com/aws/aws-cdk-go/awscdk/v2/awss3"
	"github.com/aws/aws-cdk-go/awscdk/v2/awssns"
	"github.com/aws/aws-cdk-go/awscdk/v2/awssqs"
	"github.com/aws/aws-cdk-go/awscdk/v2/awswafv2"
	"github.com/aws/constructs-go/constructs/v10"
	"github.com/aws/jsii-runtime-go"

	"meridian/shared/gateway"
)

// Deployment constants the functions and the tests share.
const (
	StageName   = "v1"
	GridPrefix  = "grid/"  // GRID_PREFIX: grid index files in the data bucket
	TilesPrefix = "tiles/" // TILES_PREFIX: PMTiles archives in the data bucket

	// MVTMediaType is the media type of tiles (shared/tile.ContentType).
	MVTMediaType = "application/vnd.mapbox-vector-tile"

	// Tile cache lifetimes at CloudFront, matching the tiles' own
	// Cache-Control (public, max-age=86400, stale-while-revalidate=604800;
	// TestTileCacheControl reads it from shared/tile): a day by default and
	// at most, so CloudFront never keeps a tile longer than a browser would;
	// TileJSON's max-age=300 and errors' shorter lives are honoured (min 0).
	TileTTLSeconds = 86400

	// The log bucket: where each kind of log goes, and how long it is
	// kept (a lifecycle rule deletes older objects).
	DataBucketLogPrefix = "s3/data/"
	TilesLogPrefix      = "cloudfront/tiles/"
	FlowLogPrefix       = "vpc-flow-logs/"
	LogRetentionDays    = 90

	functionMemoryMB   = 256
	authorizerMemoryMB = 128
)

// StackProps configure the Meridian stack.
type StackProps struct {
	awscdk.StackProps
	// AssetRoot holds <function>/bootstrap for every function (`make build`
	// writes .build/); each must exist at synth time.
	AssetRoot string
	// Products to deploy; Products() when nil.
	Products []Product
	// Plans gives each product its usage plans; gateway.DefaultPlans() when
	// nil. Every deployed product needs at least one plan.
	Plans gateway.Plans
	// GridIndexes are the grid index files under grid/ in the data bucket
	// (GRID_INDEXES). Empty: the functions get no GRID_BUCKET and answer
	// from the survey models alone, so a new deployment starts before any
	// data is published; every listed file must be in the bucket, or the
	// functions stop at cold start.
	GridIndexes []string
	// LogLevel is every function's LOG_LEVEL; "info" when empty.
	LogLevel string
	// AllowUnlimited deploys the plans without a monthly quota (every
	// "unlimited" plan) too, for a development stack: off, they are left
	// out, so a production stack has no key whose cost is unbounded. Every
	// deployed plan is throttled either way (deployedPlans).
	AllowUnlimited bool
	// DomainName and CertificateArn (both or neither) put the tiles'
	// CloudFront distribution on the customer's domain name, with its ACM
	// certificate (in us-east-1, where CloudFront reads certificates) and
	// TLS 1.2 at least for viewers. Without them the distribution answers
	// on its *.cloudfront.net name only.
	DomainName     string
	CertificateArn string
	// Watches deploys the watches and their webhook deliveries
	// (watches.go: a table, two queues, the watches and deliver functions,
	// a schedule, the /watches routes). Off until functions/watches and
	// functions/deliver exist (they are built on package watch): their
	// bootstraps must be in the asset root. -c watches=true.
	Watches bool
}

// Stack is the synthesized stack and the handles tests look at.
type Stack struct {
	awscdk.Stack
	Functions map[string]awslambda.Function // by function directory, authorizer included
	APIs      map[gateway.Product]awsapigateway.RestApi
	Bucket    awss3.Bucket
	// LogBucket receives the data bucket's access logs (s3/data/), the
	// tiles distribution's (cloudfront/tiles/) and the refresh VPC's flow
	// logs (vpc-flow-logs/), for LogRetentionDays.
	LogBucket    awss3.Bucket
	Table        awsdynamodb.Table
	Distribution awscloudfront.Distribution
	domainName   string // StackProps.DomainName
	// methods are each product's method options (the key authorizer, the
	// request validator), for routes of other functions on its API
	// (watches.go).
	methods map[gateway.Product]*awsapigateway.MethodOptions
	// alarms is the topic of the failure alarms (refresh.go, watches.go).
	alarms awssns.Topic
	// Watches: the watches table, the delivery queue and its dead-letter
	// queue (watches.go).
	WatchesTable       awsdynamodb.Table
	DeliveryQueue      awssqs.Queue
	DeliveryDeadLetter awssqs.Queue
	// Omitted lists, by product, the plans left out for want of
	// AllowUnlimited.
	Omitted map[gateway.Product][]string
}

// NewStack defines the whole deployment: per product a Lambda (reserved
// concurrency) and a REST API (stage v1: throttle, access log, WAF WebACL)
// declaring the function's routes, with the key authorizer (reserved
// concurrency of its own) and usage plans; the account-wide CloudWatch role
// of API Gateway; the log bucket and the data bucket; the report table;
// CloudFront before the maps API; the scheduled data refresh (refresh.go)
// and the publisher's managed policy. cdk-nag's AwsSolutions findings are
// fixed or suppressed beside their resources (nag.go). Limits and their reasons: products.go, limits.go,
// protect.go, responses.go.
//
// PUBLIC_TILES_URL needs the distribution's domain, and the distribution
// needs the maps API. Taking the API's stage URL (api.url) would close a
// cycle: distribution → stage → deployment → methods → tiles function →
// distribution. The origin is therefore built from the RestApi id alone
// ({id}.execute-api.{region}.{suffix} with origin path /v1), which depends
// on nothing, and the tiles function reads the distribution's domain:
// one deploy, no post-deploy step. A cycle fails synth (appContext turns
// CDK's CloudFormation checks into errors) and TestNoDependencyCycle.
func NewStack(scope constructs.Construct, id string, props StackProps) (*Stack, error) {
	if props.Products == nil {
		props.Products = Products()
	}
	if props.Plans == nil {
		props.Plans = gateway.DefaultPlans()
	}
	if props.LogLevel == "" {
		props.LogLevel = "info"
	}
	if err := checkProps(props); err != nil {
		return nil, err
	}
	stack := awscdk.NewStack(scope, jsii.String(id), &props.StackProps)
	awscdk.Tags_Of(stack).Add(jsii.String("project"), jsii.String("meridian"), nil)
	s := &Stack{
		Stack:      stack,
		Functions:  map[string]awslambda.Function{},
		APIs:       map[gateway.Product]awsapigateway.RestApi{},
		Omitted:    map[gateway.Product][]string{},
		domainName: props.DomainName,
		methods:    map[gateway.Product]*awsapigateway.MethodOptions{},
	}

	s.LogBucket = s.logBucket()
	s.Bucket = awss3.NewBucket(stack, jsii.String("DataBucket"), &awss3.BucketProps{
		BlockPublicAccess:      awss3.BlockPublicAccess_BLOCK_ALL(),
		Encryption:             awss3.BucketEncryption_S3_MANAGED,
		EnforceSSL:             jsii.Bool(true),
		ObjectOwnership:        awss3.ObjectOwnership_BUCKET_OWNER_ENFORCED,
		RemovalPolicy:          awscdk.RemovalPolicy_RETAIN,
		ServerAccessLogsBucket: s.LogBucket,
		ServerAccessLogsPrefix: jsii.String(DataBucketLogPrefix),
	})
	s.Table = itemTable(stack, "ReportsTable")

	authorizer := s.function(props, AuthorizerFunction, authorizerMemoryMB, 3, nil)
	reserve(authorizer, AuthorizerConcurrency)
	account := s.cloudWatchAccount()
	restACL := s.webACL("api", false)
	var tilesACL awswafv2.CfnWebACL

	for _, p := range props.Products {
		env := map[string]string{}
		if p.Grid && len(props.GridIndexes) > 0 {
			env["GRID_BUCKET"] = *s.Bucket.BucketName()
			env["GRID_PREFIX"] = GridPrefix
			env["GRID_INDEXES"] = strings.Join(props.GridIndexes, ",")
		}
		if p.Tiles {
			env["TILES_BUCKET"] = *s.Bucket.BucketName()
			env["TILES_PREFIX"] = TilesPrefix
		}
		if p.Reports {
			env["REPORTS_TABLE"] = *s.Table.TableName()
		}
		fn := s.function(props, p.Function, functionMemoryMB, p.TimeoutSeconds, env)
		reserve(fn, p.Limits.Concurrency)
		s.grant(fn, p)
		plans, omitted := deployedPlans(p, props.Plans[p.Product], props.AllowUnlimited)
		if len(omitted) > 0 {
			s.Omitted[p.Product] = omitted
			awscdk.Annotations_Of(stack).AddInfo(jsii.String(fmt.Sprintf(
				"%s: plans without a monthly quota left out (%s); -c allowUnlimited=true deploys them", p.Product, strings.Join(omitted, ", "))))
		}
		api := s.restAPI(p, fn, authorizer, plans)
		api.DeploymentStage().Node().AddDependency(account)
		acl := restACL
		if p.Tiles {
			tilesACL = s.webACL("tiles", true)
			acl = tilesACL
		}
		s.protect(api, acl, title(p.Product.String()))
		s.APIs[p.Product] = api
		awscdk.NewCfnOutput(stack, jsii.String(title(p.Product.String())+"ApiUrl"), &awscdk.CfnOutputProps{
			Description: jsii.String(fmt.Sprintf("Base URL of the %s product (API Gateway, stage %s)", p.Product, StageName)),
			Value:       api.UrlForPath(jsii.String("/" + p.Base)),
		})
		if p.Tiles {
			s.Distribution = s.tilesDistribution(api, props)
			fn.AddEnvironment(jsii.String("PUBLIC_TILES_URL"), s.tilesURL(), nil)
			awscdk.NewCfnOutput(stack, jsii.String("TilesUrl"), &awscdk.CfnOutputProps{
				Description: jsii.String("{tiles_url} for map clients: CloudFront in front of the maps API; add ?api_key=<key>"),
				Value:       s.tilesURL(),
			})
			if props.DomainName != "" {
				awscdk.NewCfnOutput(stack, jsii.String("TilesDistributionDomainName"), &awscdk.CfnOutputProps{
					Description: jsii.String("Point " + props.DomainName + " here (a CNAME, or a Route 53 alias): the distribution answers on that name with its certificate"),
					Value:       s.Distribution.DistributionDomainName(),
				})
			}
			awscdk.NewCfnOutput(stack, jsii.String("TilesDistributionId"), &awscdk.CfnOutputProps{
				Description: jsii.String("CloudFront distribution of the tiles, for invalidations after publishing archives"),
				Value:       s.Distribution.DistributionId(),
			})
		}
	}

	s.refresh(props)
	if props.Watches {
		if err := s.watches(props); err != nil {
			return nil, err
		}
	}

	awscdk.NewCfnOutput(stack, jsii.String("DataBucketName"), &awscdk.CfnOutputProps{
		Description: jsii.String("S3 bucket of grid indexes (" + GridPrefix + ") and PMTiles archives (" + TilesPrefix + ")"),
		Value:       s.Bucket.BucketName(),
	})
	awscdk.NewCfnOutput(stack, jsii.String("ReportsTableName"), &awscdk.CfnOutputProps{
		Description: jsii.String("DynamoDB table of the report data (single-table design, pk/sk)"),
		Value:       s.Table.TableName(),
	})
	return s, nil
}

// logBucket is where the stack's access logs go: S3's for the data bucket,
// CloudFront's for the tiles, the refresh VPC's flow logs. Private, TLS
// only, encrypted (SSE-S3: the log delivery services cannot write with a
// customer's KMS key without a key policy to keep), and every object
// deleted after LogRetentionDays. CloudFront's standard logs are written
// with an ACL granting the bucket owner full control (its awslogsdelivery
// account writes them), so ACLs stay enabled: ObjectWriter, the owner
// controlling the objects through that grant.
func (s *Stack) logBucket() awss3.Bucket {
	b := awss3.NewBucket(s.Stack, jsii.String("LogBucket"), &awss3.BucketProps{
		BlockPublicAccess: awss3.BlockPublicAccess_BLOCK_ALL(),
		Encryption:        awss3.BucketEncryption_S3_MANAGED,
		EnforceSSL:        jsii.Bool(true),
		ObjectOwnership:   awss3.ObjectOwnership_OBJECT_WRITER,
		RemovalPolicy:     awscdk.RemovalPolicy_RETAIN,
		LifecycleRules: &[]*awss3.LifecycleRule{{
			Id:                                  jsii.String("expire-logs"),
			Expiration:                          awscdk.Duration_Days(jsii.Number(LogRetentionDays)),
			AbortIncompleteMultipartUploadAfter: awscdk.Duration_Days(jsii.Number(1)),
		}},
	})
	suppress(b, false, "AwsSolutions-S1",
		"This is the access log bucket itself: logging its own accesses into itself would log every log delivery, without end, and a second log bucket only moves the question.")
	return b
}

// What a route of routes.go may look like: a method and a path of literal
// segments and whole-segment parameters, as API Gateway resources are.
var (
	routeMethod = regexp.MustCompile(`^(GET|POST|PUT|DELETE|PATCH)$`)
	routePath   = regexp.MustCompile(`^(/([A-Za-z0-9._-]+|\{[A-Za-z0-9_]+\}))+$`)
)

// reserve sets fn's reserved concurrency: its share of the account's, and
// its ceiling, so that one function's flood cannot take the others'.
func reserve(fn awslambda.Function, n int) {
	fn.Node().DefaultChild().(awslambda.CfnFunction).SetReservedConcurrentExecutions(jsii.Number(n))
}

// planName is what a plan name may look like in construct ids and usage
// plan names.
var planName = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)

// What the customer's domain and certificate may look like: a host name
// of two labels or more, and an ACM certificate in us-east-1.
var (
	domainName     = regexp.MustCompile(`^([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$`)
	certificateARN = regexp.MustCompile(`^arn:aws[a-z-]*:acm:us-east-1:[0-9]{12}:certificate/[0-9a-f-]{36}$`)
)

func checkProps(props StackProps) error {
	var errs []error
	if err := props.Plans.Validate(); err != nil {
		errs = append(errs, err)
	}
	seen := map[gateway.Product]bool{}
	for _, p := range props.Products {
		if seen[p.Product] {
			errs = append(errs, fmt.Errorf("infra: product %s is listed twice", p.Product))
		}
		seen[p.Product] = true
		if got, ok := gateway.ProductOf("/" + p.Base); !ok || got != p.Product {
			errs = append(errs, fmt.Errorf("infra: base path /%s does not belong to product %s", p.Base, p.Product))
		}
		if len(props.Plans[p.Product]) == 0 {
			errs = append(errs, fmt.Errorf("infra: product %s has no usage plan", p.Product))
		} else if plans, _ := deployedPlans(p, props.Plans[p.Product], props.AllowUnlimited); len(plans) == 0 {
			errs = append(errs, fmt.Errorf("infra: product %s has only plans without a monthly quota: give one a quota, or deploy with -c allowUnlimited=true", p.Product))
		}
		if len(p.Routes) == 0 {
			errs = append(errs, fmt.Errorf("infra: product %s has no routes", p.Product))
		}
		for _, r := range p.Routes {
			method, path, ok := strings.Cut(r, " ")
			if !ok || !routeMethod.MatchString(method) || !(path == "/"+p.Base || strings.HasPrefix(path, "/"+p.Base+"/")) || !routePath.MatchString(path) {
				errs = append(errs, fmt.Errorf("infra: route %q of %s: want METHOD /%s/segment/{param}...", r, p.Product, p.Base))
			}
		}
		l := p.Limits
		if l.Concurrency < 1 || l.Stage.Rate <= 0 || l.Stage.Burst < 1 || l.Key.Rate <= 0 || l.Key.Burst < 1 || l.Key.Rate > l.Stage.Rate {
			errs = append(errs, fmt.Errorf("infra: limits of %s: want concurrency >= 1, stage and key rates > 0 and bursts >= 1, the key's rate within the stage's: %+v", p.Product, l))
		}
		for _, pl := range props.Plans[p.Product] {
			if !planName.MatchString(pl.Name) {
				errs = append(errs, fmt.Errorf("infra: plan name %q of %s: want 1-64 letters, digits, - or _", pl.Name, p.Product))
			}
		}
	}
	if (props.DomainName == "") != (props.CertificateArn == "") {
		errs = append(errs, fmt.Errorf("infra: domainName %q and certificateArn %q: give both or neither", props.DomainName, props.CertificateArn))
	} else if props.DomainName != "" {
		if !domainName.MatchString(props.DomainName) {
			errs = append(errs, fmt.Errorf("infra: domainName %q: want a host name such as tiles.example.ca", props.DomainName))
		}
		if !certificateARN.MatchString(props.CertificateArn) {
			errs = append(errs, fmt.Errorf("infra: certificateArn %q: want an ACM certificate in us-east-1 (arn:aws:acm:us-east-1:ACCOUNT:certificate/ID), where CloudFront reads certificates", props.CertificateArn))
		}
	}
	for _, name := range props.GridIndexes {
		if name == "" || strings.ContainsAny(name, ", /") {
			errs = append(errs, fmt.Errorf("infra: grid index %q: want a file name under %s", name, GridPrefix))
		}
	}
	fns := []string{AuthorizerFunction}
	if props.Watches {
		fns = append(fns, WatchesFunction, DeliverFunction)
	}
	for _, p := range props.Products {
		fns = append(fns, p.Function)
	}
	var need []string
	for _, fn := range fns {
		need = append(need, filepath.Join(props.AssetRoot, fn, "bootstrap"))
	}
	for _, path := range append(need, checkRefreshAssets(props.AssetRoot)...) {
		if _, err := os.Stat(path); err != nil {
			rel, _ := filepath.Rel(props.AssetRoot, path)
			errs = append(errs, fmt.Errorf("infra: %s: build the functions first (make build): %w", rel, err))
		}
	}
	return errors.Join(errs...)
}

// function defines one Lambda: provided.al2023 on arm64, the bootstrap
// from the asset root, its own log group and a role that may write only
// there (no managed policies: AWSLambdaBasicExecutionRole allows every log
// group in the account).
func (s *Stack) function(props StackProps, dir string, memoryMB, timeoutSeconds float64, env map[string]string) awslambda.Function {
	cid := title(dir) + "Function"
	logs := awslogs.NewLogGroup(s.Stack, jsii.String(cid+"Logs"), &awslogs.LogGroupProps{
		Retention:     awslogs.RetentionDays_ONE_MONTH,
		RemovalPolicy: awscdk.RemovalPolicy_DESTROY,
	})
	role := awsiam.NewRole(s.Stack, jsii.String(cid+"Role"), &awsiam.RoleProps{
		AssumedBy:   awsiam.NewServicePrincipal(jsii.String("lambda.amazonaws.com"), nil),
		Description: jsii.String("Meridian " + dir + " function"),
	})
	role.AddToPrincipalPolicy(awsiam.NewPolicyStatement(&awsiam.PolicyStatementProps{
		Actions:   jsii.Strings("logs:CreateLogStream", "logs:PutLogEvents"),
		Resources: jsii.Strings(*logs.LogGroupArn()),
	}))
	vars := map[string]*string{"LOG_LEVEL": jsii.String(props.LogLevel)}
	for k, v := range env {
		vars[k] = jsii.String(v)
	}
	fn := awslambda.NewFunction(s.Stack, jsii.String(cid), &awslambda.FunctionProps{
		Description:  jsii.String("Meridian " + dir + " (functions/" + dir + ")"),
		Runtime:      awslambda.Runtime_PROVIDED_AL2023(),
		Architecture: awslambda.Architecture_ARM_64(),
		Handler:      jsii.String("bootstrap"),
		Code:         awslambda.Code_FromAsset(jsii.String(filepath.Join(props.AssetRoot, dir)), nil),
		MemorySize:   jsii.Number(memoryMB),
		Timeout:      awscdk.Duration_Seconds(jsii.Number(timeoutSeconds)),
		Environment:  &vars,
		Role:         role,
		LogGroup:     logs,
	})
	s.Functions[dir] = fn
	return fn
}

// grant gives a product's function read access to exactly the data it
// reads: named actions, resources of this stack only.
func (s *Stack) grant(fn awslambda.Function, p Product) {
	allow := func(actions []string, resources ...string) {
		fn.AddToRolePolicy(awsiam.NewPolicyStatement(&awsiam.PolicyStatementProps{
			Actions:   jsii.Strings(actions...),
			Resources: jsii.Strings(resources...),
		}))
	}
	if p.Grid {
		allow([]string{"s3:GetObject"}, *s.Bucket.ArnForObjects(jsii.String(GridPrefix + "*")))
	}
	if p.Tiles {
		allow([]string{"s3:GetObject"}, *s.Bucket.ArnForObjects(jsii.String(TilesPrefix + "*")))
		// An archive that is not there must read as absent (S3 answers 404
		// only to callers that may list the bucket; 403 otherwise), so the
		// function answers 404 or generates the survey tile on demand
		// instead of failing. Listing shows key names of this bucket only.
		allow([]string{"s3:ListBucket"}, *s.Bucket.BucketArn())
	}
	if p.Reports {
		allow([]string{"dynamodb:GetItem", "dynamodb:Query"}, *s.Table.TableArn())
	}
	var prefixes []any
	if p.Grid {
		prefixes = append(prefixes, objectsUnder(GridPrefix))
	}
	if p.Tiles {
		prefixes = append(prefixes, objectsUnder(TilesPrefix))
	}
	if len(prefixes) > 0 {
		suppress(fn.Role(), true, "AwsSolutions-IAM5",
			"s3:GetObject only, on the objects under the prefixes this function reads (grid/, tiles/): their keys are content addressed (v/<sha256>/<name>) and named by a manifest written at publish, so no list of keys exists at deploy.",
			prefixes...)
	}
}

// restAPI defines product p's REST API: stage v1 with its throttle and
// access log, one method per route of p.Routes proxied to fn behind the key
// authorizer, API keys taken from the authorizer, and one usage plan per
// deployed plan.
func (s *Stack) restAPI(p Product, fn, authorizerFn awslambda.Function, plans []deployedPlan) awsapigateway.RestApi {
	name := title(p.Product.String())
	o := &awsapigateway.RestApiProps{
		RestApiName:      jsii.String("meridian-" + p.Product.String()),
		Description:      jsii.String(fmt.Sprintf("Meridian %s product: /%s/...", p.Product, p.Base)),
		ApiKeySourceType: awsapigateway.ApiKeySourceType_AUTHORIZER,
		// One account-wide role for every API (cloudWatchAccount), not one
		// per API: several AWS::ApiGateway::Account resources would fight.
		CloudWatchRole: jsii.Bool(false),
		EndpointTypes:  &[]awsapigateway.EndpointType{awsapigateway.EndpointType_REGIONAL},
		DeployOptions: &awsapigateway.StageOptions{
			StageName:   jsii.String(StageName),
			Description: jsii.String("Meridian " + p.Product.String()),
			// The stage's default method throttle: the whole product, every
			// key together.
			ThrottlingRateLimit:  jsii.Number(p.Limits.Stage.Rate),
			ThrottlingBurstLimit: jsii.Number(p.Limits.Stage.Burst),
			AccessLogDestination: awsapigateway.NewLogGroupLogDestination(s.accessLogs(p)),
			AccessLogFormat:      awsapigateway.AccessLogFormat_Custom(jsii.String(accessLogFormat())),
			// Execution logs (API-Gateway-Execution-Logs_<id>/v1, written
			// with the account's CloudWatch role, cloudWatchAccount) for
			// errors only, and never the requests' and answers' data: they
			// would hold API keys and customers' queries.
			LoggingLevel:     awsapigateway.MethodLoggingLevel_ERROR,
			DataTraceEnabled: jsii.Bool(false),
		},
	}
	if p.Tiles {
		// The tiles function answers MVT, gzip-compressed or not, and the
		// adapter base64-encodes any body that is not UTF-8. API Gateway
		// turns such a body back into bytes only when the media type
		// matches binaryMediaTypes, which for Lambda proxy integrations it
		// takes from the request's Accept header. Map clients send
		// Accept: */* (or nothing through CloudFront, which forwards only the
		// cache key's headers), so the MVT type alone would leave tiles as
		// base64 text: */* makes every base64 body binary. Text answers
		// (TileJSON, errors) are not base64 and pass unchanged. The maps
		// API takes no request bodies, so nothing is lost on the way in.
		o.BinaryMediaTypes = jsii.Strings(MVTMediaType, "*/*")
	} else {
		// GeoJSON answers (batch: up to 100 locations) compress well;
		// tiles are compressed already, and CloudFront compresses TileJSON.
		o.MinCompressionSize = awscdk.Size_Kibibytes(jsii.Number(1))
	}
	api := awsapigateway.NewRestApi(s.Stack, jsii.String(name+"Api"), o)
	// Its own URL output would repeat <Product>ApiUrl without the base path.
	api.Node().TryRemoveChild(jsii.String("Endpoint"))

	auth := s.keyAuthorizer(api, p, authorizerFn)

	integration := awsapigateway.NewLambdaIntegration(fn, &awsapigateway.LambdaIntegrationOptions{
		Proxy:           jsii.Bool(true),
		AllowTestInvoke: jsii.Bool(false),
	})
	// Every method validates what it declares (its path parameters) and
	// its body against a model where it has one, before the function
	// runs; the functions check queries and bodies themselves and answer
	// their documented error codes.
	validator := api.AddRequestValidator(jsii.String("RequestValidator"), &awsapigateway.RequestValidatorOptions{
		RequestValidatorName:      jsii.String("meridian-" + p.Product.String()),
		ValidateRequestParameters: jsii.Bool(true),
		ValidateRequestBody:       jsii.Bool(true),
	})
	method := &awsapigateway.MethodOptions{
		AuthorizationType: awsapigateway.AuthorizationType_CUSTOM,
		Authorizer:        auth,
		ApiKeyRequired:    jsii.Bool(true),
		RequestValidator:  validator,
	}
	for _, r := range p.Routes {
		verb, path, _ := strings.Cut(r, " ")
		api.Root().ResourceForPath(jsii.String(path)).AddMethod(jsii.String(verb), integration, method)
	}
	s.methods[p.Product] = method
	addErrorResponses(api, p, retryAfter(p, plans))
	suppress(api, true, "AwsSolutions-COG4",
		"Customers are machines holding API keys, not Cognito users: every method requires a key, checked by the key authorizer (functions/authorizer) and metered by the product's usage plans, which is what the product sells.")

	for _, pl := range plans {
		up := &awsapigateway.UsagePlanProps{
			Name:        jsii.String("meridian-" + p.Product.String() + "-" + pl.Name),
			Description: jsii.String(planDescription(p.Product, pl)),
			ApiStages: &[]*awsapigateway.UsagePlanPerApiStage{{
				Api:   api,
				Stage: api.DeploymentStage(),
			}},
			Throttle: &awsapigateway.ThrottleSettings{
				RateLimit:  jsii.Number(pl.Throttle.Rate),
				BurstLimit: jsii.Number(pl.Throttle.Burst),
			},
		}
		if pl.MonthlyQuota > 0 {
			up.Quota = &awsapigateway.QuotaSettings{
				Limit:  jsii.Number(pl.MonthlyQuota),
				Period: awsapigateway.Period_MONTH,
			}
		}
		cid := name + title(pl.Name) + "UsagePlan"
		plan := api.AddUsagePlan(jsii.String(cid), up)
		awscdk.NewCfnOutput(s.Stack, jsii.String(strings.NewReplacer("-", "", "_", "").Replace(cid)+"Id"), &awscdk.CfnOutputProps{
			Description: jsii.String("Usage plan " + *up.Name + ": attach keys with aws apigateway create-usage-plan-key"),
			Value:       plan.UsagePlanId(),
		})
	}
	return api
}

// AuthorizerCacheSeconds is how long API Gateway keeps the key authorizer's
// answer for one X-API-Key value on the REST APIs: a key's requests within
// it invoke no Lambda. Revoking a key still takes effect at once: API
// Gateway checks the key against the usage plans on every request; only the
// authorizer's own verdict (key present, key id) is cached.
const AuthorizerCacheSeconds = 300

// keyAuthorizer is the REQUEST authorizer of product p's API.
//
// The REST products take keys from the X-API-Key header only: the header is
// the identity source, so API Gateway answers a request without it 401
// (UNAUTHORIZED) itself, without invoking the authorizer, and caches the
// authorizer's answer per key for AuthorizerCacheSeconds.
//
// The maps API takes the key from the header or the api_key query
// parameter (map libraries cannot always set headers). API Gateway requires
// every identity source listed to be present, so no list fits both; it has
// none and no caching (caching needs identity sources), and the authorizer
// runs on every request that reaches it. Keyless tile requests are refused
// earlier, by the maps WebACL's KeyRequired rule, and CloudFront answers
// cached tiles without reaching API Gateway at all.
func (s *Stack) keyAuthorizer(api awsapigateway.RestApi, p Product, fn awslambda.Function) awsapigateway.RequestAuthorizer {
	o := &awsapigateway.RequestAuthorizerProps{
		AuthorizerName:  jsii.String("meridian-key"),
		Handler:         fn,
		IdentitySources: &[]*string{awsapigateway.IdentitySource_Header(jsii.String("X-API-Key"))},
		ResultsCacheTtl: awscdk.Duration_Seconds(jsii.Number(AuthorizerCacheSeconds)),
	}
	if p.Tiles {
		o.IdentitySources = &[]*string{}
		o.ResultsCacheTtl = awscdk.Duration_Seconds(jsii.Number(0))
	}
	auth := awsapigateway.NewRequestAuthorizer(api, jsii.String("KeyAuthorizer"), o)
	if p.Tiles {
		auth.Node().DefaultChild().(awscdk.CfnResource).AddPropertyDeletionOverride(jsii.String("IdentitySource"))
	}
	return auth
}

// planDescription says a plan's limits in words.
func planDescription(p gateway.Product, pl deployedPlan) string {
	quota := "no monthly quota"
	rate := "rate " + strconv.FormatFloat(pl.Throttle.Rate, 'f', -1, 64) + "/s, burst " + strconv.Itoa(pl.Throttle.Burst)
	if pl.RatePerSecond <= 0 {
		rate += " (the product's ceiling per key)"
	}
	if pl.MonthlyQuota > 0 {
		quota = "quota " + strconv.FormatInt(pl.MonthlyQuota, 10) + "/month"
	}
	return fmt.Sprintf("Meridian %s, %s plan: %s, %s (meridian/shared/gateway)", p, pl.Name, rate, quota)
}

// tilesDistribution puts CloudFront in front of the maps API. The cache key
// holds the api_key query parameter and the X-API-Key header (both forms
// work, as locally), so a cached tile is served only to the key that
// fetched it; they are forwarded to the origin with it, and nothing else
// is (no Host: API Gateway needs its own). Compression is on and
// Accept-Encoding normalised into the key, so gzip and identity answers are
// cached apart. Cache hits never reach API Gateway: they are neither
// counted against the quota nor throttled, and a revoked key keeps getting
// cached tiles for up to a day.
func (s *Stack) tilesDistribution(api awsapigateway.RestApi, props StackProps) awscloudfront.Distribution {
	policy := awscloudfront.NewCachePolicy(s.Stack, jsii.String("TilesCachePolicy"), &awscloudfront.CachePolicyProps{
		Comment:                    jsii.String("Meridian tiles: per key, gzip/br apart, lifetimes of the tiles' Cache-Control"),
		QueryStringBehavior:        awscloudfront.CacheQueryStringBehavior_AllowList(jsii.String(gateway.QueryAPIKey)),
		HeaderBehavior:             awscloudfront.CacheHeaderBehavior_AllowList(jsii.String("X-API-Key")),
		CookieBehavior:             awscloudfront.CacheCookieBehavior_None(),
		EnableAcceptEncodingGzip:   jsii.Bool(true),
		EnableAcceptEncodingBrotli: jsii.Bool(true),
		MinTtl:                     awscdk.Duration_Seconds(jsii.Number(0)),
		DefaultTtl:                 awscdk.Duration_Seconds(jsii.Number(TileTTLSeconds)),
		MaxTtl:                     awscdk.Duration_Seconds(jsii.Number(TileTTLSeconds)),
	})
	domain := awscdk.Fn_Join(jsii.String(""), jsii.Strings(
		*api.RestApiId(), ".execute-api.", *s.Region(), ".", *awscdk.Aws_URL_SUFFIX()))
	origin := awscloudfrontorigins.NewHttpOrigin(domain, &awscloudfrontorigins.HttpOriginProps{
		OriginPath:         jsii.String("/" + StageName),
		ProtocolPolicy:     awscloudfront.OriginProtocolPolicy_HTTPS_ONLY,
		OriginSslProtocols: &[]awscloudfront.OriginSslPolicy{awscloudfront.OriginSslPolicy_TLS_V1_2},
	})
	o := &awscloudfront.DistributionProps{
		Comment:     jsii.String("Meridian tiles and TileJSON (maps API)"),
		PriceClass:  awscloudfront.PriceClass_PRICE_CLASS_100,
		HttpVersion: awscloudfront.HttpVersion_HTTP2_AND_3,
		DefaultBehavior: &awscloudfront.BehaviorOptions{
			Origin:         origin,
			CachePolicy:    policy,
			Compress:       jsii.Bool(true),
			AllowedMethods: awscloudfront.AllowedMethods_ALLOW_GET_HEAD(),
			CachedMethods:  awscloudfront.CachedMethods_CACHE_GET_HEAD(),
			// HTTPS only: a redirect would come after the request (and its
			// api_key) had crossed the network in clear. Plain HTTP gets 403.
			ViewerProtocolPolicy: awscloudfront.ViewerProtocolPolicy_HTTPS_ONLY,
		},
		// Standard access logs, a line per viewer request (cookies are
		// not in the cache key and not logged).
		EnableLogging:      jsii.Bool(true),
		LogBucket:          s.LogBucket,
		LogFilePrefix:      jsii.String(TilesLogPrefix),
		LogIncludesCookies: jsii.Bool(false),
	}
	if props.DomainName != "" {
		o.DomainNames = jsii.Strings(props.DomainName)
		o.Certificate = awscertificatemanager.Certificate_FromCertificateArn(s.Stack, jsii.String("TilesCertificate"), jsii.String(props.CertificateArn))
		o.MinimumProtocolVersion = awscloudfront.SecurityPolicyProtocol_TLS_V1_2_2021
		o.SslSupportMethod = awscloudfront.SSLMethod_SNI
	}
	d := awscloudfront.NewDistribution(s.Stack, jsii.String("TilesDistribution"), o)
	if props.DomainName == "" {
		suppress(d, false, "AwsSolutions-CFR4",
			"No customer domain and certificate were given (-c domainName, -c certificateArn): the distribution answers on its *.cloudfront.net name, whose default certificate cannot set a minimum protocol version; CloudFront allows TLSv1 there. Give both to get TLSv1.2_2021.")
	}
	suppress(d, false, "AwsSolutions-CFR1",
		"No geo restriction: Meridian is a Canadian land location service whose customers (banks, energy and agriculture firms, their contractors) call it from abroad as well; every request needs an API key.")
	suppress(d, false, "AwsSolutions-CFR2",
		"A CloudFront WebACL must be created in us-east-1, outside this regional stack. Every cache miss reaches the maps API, whose regional WebACL (meridian-tiles: key required, 30000 requests per viewer address in 5 minutes), stage throttle and usage plan quotas apply; hits are tiles already paid for by that key.")
	return d
}

// tilesURL is {tiles_url} as clients reach it: https://<distribution>/tiles,
// or https://<domainName>/tiles on the customer's domain.
func (s *Stack) tilesURL() *string {
	if s.domainName != "" {
		return jsii.String("https://" + s.domainName + "/tiles")
	}
	return awscdk.Fn_Join(jsii.String(""), jsii.Strings("https://", *s.Distribution.DistributionDomainName(), "/tiles"))
}
