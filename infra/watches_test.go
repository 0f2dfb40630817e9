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

// apiRoutes are the methods product p's API declares: its function's
// routes, and the /watches routes on the watches' product.
func apiRoutes(p Product) []string {
	out := slices.Clone(p.Routes)
	if p.Product == watchesProduct() {
		out = append(out, watchRoutes...)
	}
	return out
}

// The watches table is protected as the report table is.
func TestWatchesTable(t *testing.T) {
	plain, _ := stacks(t)
	check(t, "watches table", func() {
		plain.tmpl.HasResource(jsii.String("AWS::DynamoDB::Table"), map[string]any{
			"Properties": map[string]any{
				"KeySchema": []any{
					map[string]any{"AttributeName": "pk", "KeyType": "HASH"},
					map[string]any{"AttributeName": "sk", "KeyType": "RANGE"},
				},
				"BillingMode":                      "PAY_PER_REQUEST",
				"PointInTimeRecoverySpecification": map[string]any{"PointInTimeRecoveryEnabled": true},
				"SSESpecification":                 map[string]any{"SSEEnabled": true},
				"DeletionProtectionEnabled":        true,
			},
			"DeletionPolicy":      "Retain",
			"UpdateReplacePolicy": "Retain",
		})
	})
	plain.idWithPrefix(t, "AWS::DynamoDB::Table", "WatchesTable")
}

// The delivery queue: encrypted, TLS only, a visibility timeout of six
// function timeouts, and its dead-letter queue after
// DeliveryMaxReceiveCount receives.
func TestDeliveryQueues(t *testing.T) {
	plain, _ := stacks(t)
	q := plain.idWithPrefix(t, "AWS::SQS::Queue", "DeliveryQueue")
	dlq := plain.idWithPrefix(t, "AWS::SQS::Queue", "DeliveryDeadLetterQueue")
	qp := props(plain.resources("AWS::SQS::Queue")[q])
	if qp["VisibilityTimeout"] != float64(DeliveryVisibilitySeconds) || qp["SqsManagedSseEnabled"] != true ||
		qp["MessageRetentionPeriod"] != float64(DeliveryRetentionDays*86400) {
		t.Errorf("delivery queue %v: want visibility %d s, SSE-SQS, %d days", qp, DeliveryVisibilitySeconds, DeliveryRetentionDays)
	}
	if DeliveryVisibilitySeconds < 6*deliverTimeoutSeconds {
		t.Errorf("visibility %d s under six times the function's %d s", DeliveryVisibilitySeconds, deliverTimeoutSeconds)
	}
	rp, _ := qp["RedrivePolicy"].(map[string]any)
	if ref(rp["deadLetterTargetArn"]) != dlq || rp["maxReceiveCount"] != float64(DeliveryMaxReceiveCount) {
		t.Errorf("redrive policy %v: want %s after %d receives", rp, dlq, DeliveryMaxReceiveCount)
	}
	dp := props(plain.resources("AWS::SQS::Queue")[dlq])
	if dp["SqsManagedSseEnabled"] != true || dp["MessageRetentionPeriod"] != float64(DeadLetterRetentionDays*86400) || dp["RedrivePolicy"] != nil {
		t.Errorf("dead-letter queue %v", dp)
	}
	// Each queue's policy denies every call without TLS.
	for _, id := range []string{q, dlq} {
		found := false
		for _, r := range plain.resources("AWS::SQS::QueuePolicy") {
			b, _ := json.Marshal(props(r))
			if strings.Contains(string(b), `"`+id+`"`) && strings.Contains(string(b), `"aws:SecureTransport":"false"`) && strings.Contains(string(b), `"Effect":"Deny"`) {
				found = true
			}
		}
		if !found {
			t.Errorf("%s: no queue policy denying calls without TLS", id)
		}
	}
	check(t, "dead-letter alarm", func() {
		plain.tmpl.HasResourceProperties(jsii.String("AWS::CloudWatch::Alarm"), map[string]any{
			"Namespace": "AWS/SQS", "MetricName": "ApproximateNumberOfMessagesVisible", "Threshold": 1,
			"Dimensions":   []any{map[string]any{"Name": "QueueName", "Value": map[string]any{"Fn::GetAtt": []any{dlq, "QueueName"}}}},
			"AlarmActions": assertions.Match_AnyValue(),
		})
	})
}

// The two functions, their environment, the event source with partial
// batch failures, and the schedule.
func TestWatchFunctions(t *testing.T) {
	plain, _ := stacks(t)
	watches, deliver := plain.functionID(t, WatchesFunction), plain.functionID(t, DeliverFunction)
	if diff := cmp.Diff([]string{"LOG_LEVEL", "WATCHES_TABLE"}, plain.envNames(t, WatchesFunction)); diff != "" {
		t.Errorf("watches environment (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"DELIVERY_QUEUE_URL", "LOG_LEVEL", "REPORTS_TABLE", "WATCHES_TABLE"}, plain.envNames(t, DeliverFunction)); diff != "" {
		t.Errorf("deliver environment (-want +got):\n%s", diff)
	}
	fns := plain.resources("AWS::Lambda::Function")
	for id, want := range map[string]float64{watches: watchesTimeoutSeconds, deliver: deliverTimeoutSeconds} {
		p := props(fns[id])
		if p["Timeout"] != want || p["Runtime"] != "provided.al2023" || p["ReservedConcurrentExecutions"] == nil {
			t.Errorf("%s: timeout %v, runtime %v, reserved %v; want %v s, provided.al2023, reserved", id, p["Timeout"], p["Runtime"], p["ReservedConcurrentExecutions"], want)
		}
	}
	q := plain.idWithPrefix(t, "AWS::SQS::Queue", "DeliveryQueue")
	check(t, "event source", func() {
		plain.tmpl.HasResourceProperties(jsii.String("AWS::Lambda::EventSourceMapping"), map[string]any{
			"FunctionName":          map[string]any{"Ref": deliver},
			"EventSourceArn":        map[string]any{"Fn::GetAtt": []any{q, "Arn"}},
			"BatchSize":             DeliveryBatchSize,
			"FunctionResponseTypes": []any{"ReportBatchItemFailures"},
			"ScalingConfig":         map[string]any{"MaximumConcurrency": deliverPollers},
		})
	})
	plain.tmpl.ResourceCountIs(jsii.String("AWS::Lambda::EventSourceMapping"), jsii.Number(1))
	if deliverPollers >= deliverConcurrency {
		t.Errorf("%d pollers take every one of the %d reserved instances: the schedule would find none", deliverPollers, deliverConcurrency)
	}
	rule := plain.oneID(t, "AWS::Events::Rule", func(p map[string]any) bool { return p["ScheduleExpression"] == DeliverSchedule })
	targets := props(plain.resources("AWS::Events::Rule")[rule])["Targets"].([]any)
	if len(targets) != 1 {
		t.Fatalf("deliver schedule: %d targets", len(targets))
	}
	tg := targets[0].(map[string]any)
	if ref(tg["Arn"]) != deliver || tg["Input"] != `{"dispatch":true}` {
		t.Errorf("deliver schedule target %v: want the deliver function with {\"dispatch\":true}", tg)
	}
	check(t, "deliver errors alarm", func() {
		plain.tmpl.HasResourceProperties(jsii.String("AWS::CloudWatch::Alarm"), map[string]any{
			"Namespace": "AWS/Lambda", "MetricName": "Errors",
			"Dimensions": []any{map[string]any{"Name": "FunctionName", "Value": map[string]any{"Ref": deliver}}},
		})
	})
}

// The /watches routes are methods of the watches' product's API, behind
// its key authorizer, proxied to the watches function.
func TestWatchRoutes(t *testing.T) {
	plain, _ := stacks(t)
	api := plain.apiID(t, watchesProduct())
	fn := plain.functionID(t, WatchesFunction)
	var got []string
	for _, m := range plain.resources("AWS::ApiGateway::Method") {
		mp := props(m)
		integ, _ := mp["Integration"].(map[string]any)
		uri, _ := json.Marshal(integ["Uri"])
		if !strings.Contains(string(uri), `"`+fn+`"`) {
			continue
		}
		if ref(mp["RestApiId"]) != api || mp["AuthorizationType"] != "CUSTOM" || mp["ApiKeyRequired"] != true || integ["Type"] != "AWS_PROXY" {
			t.Errorf("watches method %v: want on %s, CUSTOM, key required, AWS_PROXY", mp, api)
		}
	}
	for _, m := range plain.methods(t, api) {
		if strings.HasPrefix(m, strings.SplitN(m, " ", 2)[0]+" /watches") {
			got = append(got, m)
		}
	}
	want := slices.Clone(watchRoutes)
	sort.Strings(got)
	sort.Strings(want)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("/watches methods (-want +got):\n%s", diff)
	}
	for _, r := range watchRoutes {
		method, path, ok := strings.Cut(r, " ")
		if !ok || !routeMethod.MatchString(method) || !routePath.MatchString(path) || !strings.HasPrefix(path, "/watches") {
			t.Errorf("route %q: want METHOD /watches/...", r)
		}
	}
}

// The deliver function's redrive count leaves room for its retries:
// functions/internal/delivery holds the same number (an internal package,
// which this module cannot import) and checks its backoff against it.
func TestDeliverRedriveMatchesFunction(t *testing.T) {
	src := readFile(t, "../functions/internal/delivery/backoff.go")
	if !strings.Contains(src, "MaxReceiveCount = "+strconv.Itoa(DeliveryMaxReceiveCount)) {
		t.Errorf("functions/internal/delivery/backoff.go has no MaxReceiveCount = %d", DeliveryMaxReceiveCount)
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// The watches are deployed by default; -c watches=false leaves them out
// (and needs no bootstrap of theirs); anything else is an error.
func TestWatchesProp(t *testing.T) {
	for v, want := range map[string]bool{"": true, "false": false, "true": true} {
		p, err := propsFrom(func(k string) string { return map[string]string{"watches": v}[k] }, func(string) string { return "" })
		if err != nil || p.Watches != want {
			t.Errorf("watches=%q: %v %v, want %v", v, p.Watches, err, want)
		}
	}
	if _, err := propsFrom(func(k string) string { return map[string]string{"watches": "yes"}[k] }, func(string) string { return "" }); err == nil {
		t.Error(`watches="yes": no error`)
	}
	// Without the watches, their functions need not be built.
	dir := t.TempDir()
	for _, fn := range []string{AuthorizerFunction, "search"} {
		os.MkdirAll(dir+"/"+fn, 0o755)
		os.WriteFile(dir+"/"+fn+"/bootstrap", []byte("#!/bin/sh\n"), 0o755)
	}
	props := StackProps{AssetRoot: dir, Products: Products()[:1], Plans: gateway.DefaultPlans()}
	if err := checkProps(props); err != nil && strings.Contains(err.Error(), WatchesFunction+"/bootstrap") {
		t.Errorf("without watches: %v", err)
	}
	props.Watches = true
	if err := checkProps(props); err == nil || !strings.Contains(err.Error(), WatchesFunction+"/bootstrap") || !strings.Contains(err.Error(), DeliverFunction+"/bootstrap") {
		t.Errorf("with watches and no bootstraps of theirs: %v", err)
	}
}
