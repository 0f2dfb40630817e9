package main

import (
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsapigateway"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsiam"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslogs"
	"github.com/aws/aws-cdk-go/awscdk/v2/awswafv2"
	"github.com/aws/jsii-runtime-go"

	"meridian/shared/gateway"
)

// WAF limits: requests per client IP address in a five-minute window,
// above which the WebACL answers 429 until the rate falls again. They sit
// well above any one key's plan (the REST plans allow 1-5 requests a second
// per product; the map page's pace is 100 tiles a second), so they stop
// floods and scanners, not customers.
const (
	wafWindowSeconds = 300
	// RESTRateLimit: 20 requests a second sustained from one address,
	// across the REST products (one WebACL for all five stages).
	RESTRateLimit = 6000
	// TilesRateLimit: 100 tile requests a second from one viewer, counted
	// by the X-Forwarded-For address CloudFront adds (the maps API's peer
	// address is a CloudFront edge, shared by every viewer behind it).
	TilesRateLimit = 30000
	// wafRetrySeconds is the Retry-After of the WAF's 429: WAF re-evaluates
	// rates about every 30 s, and lifts the block once the rate is under
	// the limit again.
	wafRetrySeconds = 60
)

// accessLogFields is the JSON format of every stage's access log: which
// request, which route, which key (its id: the authorizer's key_id and API
// Gateway's own key id), what happened. Never $context.identity.apiKey, the
// key itself; $context.path has no query string, so an api_key there is
// not logged either.
var accessLogFields = [][2]string{
	{"request_id", "$context.requestId"},
	{"time", "$context.requestTime"},
	{"ip", "$context.identity.sourceIp"},
	{"method", "$context.httpMethod"},
	{"route", "$context.resourcePath"},
	{"path", "$context.path"},
	{"status", "$context.status"},
	{"latency_ms", "$context.responseLatency"},
	{"integration_latency_ms", "$context.integrationLatency"},
	{"key_id", "$context.authorizer.key_id"},
	{"api_key_id", "$context.identity.apiKeyId"},
	{"error", "$context.error.responseType"},
	{"waf", "$context.wafResponseCode"},
}

// accessLogFormat renders accessLogFields as one JSON object per line.
// Numbers are left unquoted where API Gateway writes a number or "-".
func accessLogFormat() string {
	out := "{"
	for i, f := range accessLogFields {
		if i > 0 {
			out += ","
		}
		name, _ := json.Marshal(f[0])
		out += string(name) + `:"` + f[1] + `"`
	}
	return out + "}"
}

// accessLogs gives product p's stage its access log group (a month kept,
// as the functions' logs).
func (s *Stack) accessLogs(p Product) awslogs.LogGroup {
	return awslogs.NewLogGroup(s.Stack, jsii.String(title(p.Product.String())+"ApiAccessLogs"), &awslogs.LogGroupProps{
		Retention:     awslogs.RetentionDays_ONE_MONTH,
		RemovalPolicy: awscdk.RemovalPolicy_DESTROY,
	})
}

// cloudWatchAccount is API Gateway's account setting (AWS::ApiGateway::Account):
// the role it writes access logs with. It is ACCOUNT-WIDE, one per region:
// deploying this stack replaces a role set before for other APIs of the
// account and region. The role may write logs of this account and region
// only, with the actions of AWS's AmazonAPIGatewayPushToCloudWatchLogs
// policy, inline (no managed policies: TestNoWildcardGrants).
func (s *Stack) cloudWatchAccount() awsapigateway.CfnAccount {
	role := awsiam.NewRole(s.Stack, jsii.String("ApiGatewayCloudWatchRole"), &awsiam.RoleProps{
		AssumedBy:   awsiam.NewServicePrincipal(jsii.String("apigateway.amazonaws.com"), nil),
		Description: jsii.String("API Gateway writes Meridian's access logs (account-wide setting)"),
	})
	role.AddToPrincipalPolicy(awsiam.NewPolicyStatement(&awsiam.PolicyStatementProps{
		Actions: jsii.Strings("logs:CreateLogGroup", "logs:CreateLogStream", "logs:DescribeLogGroups",
			"logs:DescribeLogStreams", "logs:PutLogEvents", "logs:GetLogEvents", "logs:FilterLogEvents"),
		Resources: jsii.Strings(fmt.Sprintf("arn:%s:logs:%s:%s:*", *awscdk.Aws_PARTITION(), *s.Region(), *s.Account())),
	}))
	// The role's Resource is every log group of the account and region:
	// the role serves every REST API of the region, and API Gateway
	// creates and names the execution log groups itself.
	suppress(role, true, "AwsSolutions-IAM5",
		"API Gateway's CloudWatch role is one per account and region, shared by every REST API there; API Gateway creates the execution log groups (API-Gateway-Execution-Logs_<api id>/<stage>) itself, so the role needs the account's log groups of this region, as AWS's AmazonAPIGatewayPushToCloudWatchLogs policy grants.",
		nagRegexp(`^Resource::arn:<AWS::Partition>:logs:[a-z0-9-]+:[0-9]{12}:\*$`))
	acct := awsapigateway.NewCfnAccount(s.Stack, jsii.String("ApiGatewayAccount"), &awsapigateway.CfnAccountProps{
		CloudWatchRoleArn: role.RoleArn(),
	})
	// The role's policy must exist before API Gateway checks the role.
	acct.Node().AddDependency(role)
	return acct
}

// webACL defines a REGIONAL WAF WebACL: a rate-based rule per client
// address and, for the maps API (tiles true), a rule refusing requests
// with no key at all before the authorizer runs. The REST APIs need no such
// rule: their authorizer's identity source makes API Gateway refuse a
// keyless request itself.
func (s *Stack) webACL(name string, tiles bool) awswafv2.CfnWebACL {
	visibility := func(metric string) *awswafv2.CfnWebACL_VisibilityConfigProperty {
		return &awswafv2.CfnWebACL_VisibilityConfigProperty{
			CloudWatchMetricsEnabled: jsii.Bool(true),
			MetricName:               jsii.String(metric),
			SampledRequestsEnabled:   jsii.Bool(true),
		}
	}
	body := func(code, message string) *awswafv2.CfnWebACL_CustomResponseBodyProperty {
		b, _ := json.Marshal(map[string]any{"error": map[string]string{"code": code, "message": message}, "message": message})
		return &awswafv2.CfnWebACL_CustomResponseBodyProperty{Content: jsii.String(string(b)), ContentType: jsii.String("APPLICATION_JSON")}
	}
	block := func(status int, bodyKey string, headers map[string]string) *awswafv2.CfnWebACL_RuleActionProperty {
		var hs []any
		for k, v := range headers {
			hs = append(hs, &awswafv2.CfnWebACL_CustomHTTPHeaderProperty{Name: jsii.String(k), Value: jsii.String(v)})
		}
		r := &awswafv2.CfnWebACL_CustomResponseProperty{ResponseCode: jsii.Number(status), CustomResponseBodyKey: jsii.String(bodyKey)}
		if hs != nil {
			r.ResponseHeaders = hs
		}
		return &awswafv2.CfnWebACL_RuleActionProperty{Block: &awswafv2.CfnWebACL_BlockActionProperty{CustomResponse: r}}
	}
	rate := &awswafv2.CfnWebACL_RateBasedStatementProperty{
		AggregateKeyType:    jsii.String("IP"),
		Limit:               jsii.Number(RESTRateLimit),
		EvaluationWindowSec: jsii.Number(wafWindowSeconds),
	}
	if tiles {
		rate = &awswafv2.CfnWebACL_RateBasedStatementProperty{
			AggregateKeyType:    jsii.String("FORWARDED_IP"),
			Limit:               jsii.Number(TilesRateLimit),
			EvaluationWindowSec: jsii.Number(wafWindowSeconds),
			// A request without the header (not through CloudFront) is not
			// counted by this rule; the stage throttle still bounds it.
			ForwardedIpConfig: &awswafv2.CfnWebACL_ForwardedIPConfigurationProperty{
				HeaderName: jsii.String("X-Forwarded-For"), FallbackBehavior: jsii.String("NO_MATCH"),
			},
		}
	}
	bodies := map[string]any{
		"rate_limited": body("rate_limited", "Too many requests from this address. Retry after "+strconv.Itoa(wafRetrySeconds)+" s, and space out requests."),
	}
	rules := []any{&awswafv2.CfnWebACL_RuleProperty{
		Name:             jsii.String("RatePerAddress"),
		Priority:         jsii.Number(1),
		Statement:        &awswafv2.CfnWebACL_StatementProperty{RateBasedStatement: rate},
		Action:           block(429, "rate_limited", map[string]string{"Retry-After": strconv.Itoa(wafRetrySeconds)}),
		VisibilityConfig: visibility(name + "RatePerAddress"),
	}}
	if tiles {
		present := func(field *awswafv2.CfnWebACL_FieldToMatchProperty) *awswafv2.CfnWebACL_StatementProperty {
			return &awswafv2.CfnWebACL_StatementProperty{SizeConstraintStatement: &awswafv2.CfnWebACL_SizeConstraintStatementProperty{
				FieldToMatch:        field,
				ComparisonOperator:  jsii.String("GT"),
				Size:                jsii.Number(0),
				TextTransformations: []any{&awswafv2.CfnWebACL_TextTransformationProperty{Priority: jsii.Number(0), Type: jsii.String("NONE")}},
			}}
		}
		bodies["missing_api_key"] = body("missing_api_key", "Missing API key. Send your key in the X-API-Key header, or in the api_key query parameter for tiles and TileJSON.")
		rules = append(rules, &awswafv2.CfnWebACL_RuleProperty{
			Name:     jsii.String("KeyRequired"),
			Priority: jsii.Number(0),
			// Neither an X-API-Key header (any case) nor an api_key query
			// parameter, whatever the value: the authorizer judges keys.
			Statement: &awswafv2.CfnWebACL_StatementProperty{NotStatement: &awswafv2.CfnWebACL_NotStatementProperty{
				Statement: &awswafv2.CfnWebACL_StatementProperty{OrStatement: &awswafv2.CfnWebACL_OrStatementProperty{
					Statements: []any{
						// SingleHeader and SingleQueryArgument are JSON in the
						// CloudFormation schema: CloudFormation spelling.
						present(&awswafv2.CfnWebACL_FieldToMatchProperty{SingleHeader: map[string]any{"Name": gateway.HeaderAPIKey}}),
						present(&awswafv2.CfnWebACL_FieldToMatchProperty{SingleQueryArgument: map[string]any{"Name": gateway.QueryAPIKey}}),
					},
				}},
			}},
			Action:           block(401, "missing_api_key", nil),
			VisibilityConfig: visibility(name + "KeyRequired"),
		})
	}
	return awswafv2.NewCfnWebACL(s.Stack, jsii.String(name+"WebAcl"), &awswafv2.CfnWebACLProps{
		Name:                 jsii.String("meridian-" + name),
		Description:          jsii.String("Meridian " + name + ": rate per client address" + map[bool]string{true: ", key required", false: ""}[tiles]),
		Scope:                jsii.String("REGIONAL"),
		DefaultAction:        &awswafv2.CfnWebACL_DefaultActionProperty{Allow: &awswafv2.CfnWebACL_AllowActionProperty{}},
		CustomResponseBodies: bodies,
		Rules:                rules,
		VisibilityConfig:     visibility("meridian-" + name),
	})
}

// protect associates acl with api's stage.
func (s *Stack) protect(api awsapigateway.RestApi, acl awswafv2.CfnWebACL, cid string) {
	stage := api.DeploymentStage()
	assoc := awswafv2.NewCfnWebACLAssociation(s.Stack, jsii.String(cid+"WebAclAssociation"), &awswafv2.CfnWebACLAssociationProps{
		ResourceArn: stage.StageArn(),
		WebAclArn:   acl.AttrArn(),
	})
	// The stage's ARN is a string built from the API id: the association
	// must wait for the stage itself.
	assoc.Node().AddDependency(stage)
}
