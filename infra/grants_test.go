package main

import (
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/aws/aws-cdk-go/awscdk/v2/assertions"
	"github.com/aws/jsii-runtime-go"
	"github.com/google/go-cmp/cmp"
)

func TestBucket(t *testing.T) {
	plain, _ := stacks(t)
	check(t, "bucket", func() {
		// The data bucket and the log bucket (TestLogBucket).
		plain.tmpl.ResourceCountIs(jsii.String("AWS::S3::Bucket"), jsii.Number(2))
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
		// and the watches' (TestWatchesTable)
		plain.tmpl.ResourceCountIs(jsii.String("AWS::DynamoDB::Table"), jsii.Number(2))
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
		WatchesFunction: append(slices.Clone(logs), "dynamodb:GetItem watches", "dynamodb:Query watches",
			"dynamodb:PutItem watches", "dynamodb:BatchWriteItem watches"),
		// The event source's grant (sqs:ReceiveMessage, DeleteMessage, ...)
		// is CDK's, on the queue alone.
		DeliverFunction: append(slices.Clone(logs), "dynamodb:GetItem watches", "dynamodb:Query watches",
			"dynamodb:PutItem watches", "dynamodb:BatchWriteItem watches", "dynamodb:GetItem table", "dynamodb:Query table",
			"sqs:SendMessage queue", "sqs:ChangeMessageVisibility queue",
			"sqs:ReceiveMessage queue", "sqs:ChangeMessageVisibility queue", "sqs:GetQueueUrl queue", "sqs:DeleteMessage queue", "sqs:GetQueueAttributes queue"),
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
