package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/assertions"
	"github.com/aws/jsii-runtime-go"
	"github.com/google/go-cmp/cmp"

	"meridian/shared/datafetch"
)

// refreshJobGrants are the refresh job's statements in the terms of
// TestGrants: action and resource, one per pair.
func refreshJobGrants() []string {
	return []string{
		"s3:GetObject grid/*", "s3:GetObject tiles/*", "s3:GetObject refresh/*",
		"s3:PutObject grid/*", "s3:PutObject tiles/*", "s3:PutObject refresh/*",
		"s3:DeleteObject refresh/*",
		"s3:ListBucket bucket",
		"dynamodb:GetItem table", "dynamodb:PutItem table", "dynamodb:BatchWriteItem table", "dynamodb:Scan table",
	}
}

// The schedules, written out: a change to one is a change to this test.
var wantSchedules = map[string]string{
	"Grids":  "cron(0 7 ? * MON *)", // weekly, Monday 07:00 UTC
	"Energy": "cron(0 9 * * ? *)",   // daily 09:00 UTC
	"Ag":     "cron(0 6 12 * ? *)",  // monthly, the 12th 06:00 UTC
}

// oneID returns the logical id of the only resource of typ whose
// properties satisfy keep.
func (s *synthesized) oneID(t *testing.T, typ string, keep func(p map[string]any) bool) string {
	t.Helper()
	var ids []string
	for id, r := range s.resources(typ) {
		if keep(props(r)) {
			ids = append(ids, id)
		}
	}
	if len(ids) != 1 {
		t.Fatalf("%d resources of %s match, want 1: %v", len(ids), typ, ids)
	}
	return ids[0]
}

func byPrefix(prefix string) func(string) bool {
	return func(id string) bool { return strings.HasPrefix(id, prefix) }
}

func (s *synthesized) idWithPrefix(t *testing.T, typ, prefix string) string {
	t.Helper()
	var ids []string
	for id := range s.resources(typ) {
		if byPrefix(prefix)(id) {
			ids = append(ids, id)
		}
	}
	if len(ids) != 1 {
		t.Fatalf("%d %s with id prefix %s: %v", len(ids), typ, prefix, ids)
	}
	return ids[0]
}

// TestRefreshSchedules: one EventBridge schedule per group at its cron,
// the grids to the refresh Lambda with their datasets as the event, energy
// and agriculture as Fargate tasks in public subnets; every target retries
// and has the dead-letter queue.
func TestRefreshSchedules(t *testing.T) {
	plain, _ := stacks(t)
	rules := plain.resources("AWS::Events::Rule")
	scheduled := 0
	for _, r := range rules {
		if e := props(r)["ScheduleExpression"]; e != nil && e != DeliverSchedule { // the webhooks': TestWatchFunctions
			scheduled++
		}
	}
	if scheduled != len(wantSchedules) {
		t.Errorf("%d scheduled rules, want %d", scheduled, len(wantSchedules))
	}
	dlq := plain.idWithPrefix(t, "AWS::SQS::Queue", "RefreshDeadLetterQueue")
	fn := plain.functionID(t, RefreshFunction)
	cluster := plain.idWithPrefix(t, "AWS::ECS::Cluster", "RefreshCluster")
	groups := map[string]RefreshGroup{}
	for _, g := range RefreshGroups() {
		groups[g.Name] = g
	}
	for name, cron := range wantSchedules {
		g, ok := groups[name]
		if !ok {
			t.Errorf("no refresh group %s", name)
			continue
		}
		id := plain.oneID(t, "AWS::Events::Rule", func(p map[string]any) bool { return p["ScheduleExpression"] == cron })
		if !strings.HasPrefix(id, name+"RefreshSchedule") {
			t.Errorf("%s runs at %s, want group %s there", id, cron, name)
		}
		targets, _ := props(rules[id])["Targets"].([]any)
		if len(targets) != 1 {
			t.Fatalf("%s: %d targets, want 1", id, len(targets))
		}
		tg := targets[0].(map[string]any)
		if dl, _ := tg["DeadLetterConfig"].(map[string]any); ref(dl["Arn"]) != dlq {
			t.Errorf("%s: dead-letter %v, want %s", id, tg["DeadLetterConfig"], dlq)
		}
		if rp, _ := tg["RetryPolicy"].(map[string]any); rp["MaximumRetryAttempts"] != float64(2) {
			t.Errorf("%s: retry policy %v, want 2 attempts", id, tg["RetryPolicy"])
		}
		if !g.Fargate {
			var in Request
			if ref(tg["Arn"]) != fn || json.Unmarshal([]byte(tg["Input"].(string)), &in) != nil || !slices.Equal(in.Datasets, g.Datasets) {
				t.Errorf("%s: target %v with input %v, want the refresh function with %v", id, tg["Arn"], tg["Input"], g.Datasets)
			}
			continue
		}
		ecs, _ := tg["EcsParameters"].(map[string]any)
		task := ref(ecs["TaskDefinitionArn"])
		net, _ := ecs["NetworkConfiguration"].(map[string]any)
		vpc, _ := net["AwsVpcConfiguration"].(map[string]any)
		if ref(tg["Arn"]) != cluster || ecs["LaunchType"] != "FARGATE" || ecs["TaskCount"] != float64(1) || vpc["AssignPublicIp"] != "ENABLED" ||
			!strings.HasPrefix(task, name+"RefreshTask") || tg["RoleArn"] == nil {
			t.Errorf("%s: target %v, ECS %v; want one Fargate task %sRefreshTask on %s with a public address", id, tg["Arn"], ecs, name, cluster)
		}
		for _, sn := range strs(vpc["Subnets"]) {
			if !strings.Contains(ref(sn), "publicSubnet") {
				t.Errorf("%s: subnet %v is not public", id, sn)
			}
		}
	}
}

// Request mirrors functions/refresh.Request, the event the Lambda reads.
type Request struct {
	Datasets []string `json:"datasets"`
}

// TestRefreshCoversTheManifest: every dataset of the manifest is
// scheduled exactly once, or listed as a hand step (and then not
// scheduled); the hand steps are the four the publishers impose.
func TestRefreshCoversTheManifest(t *testing.T) {
	seen := map[string]string{}
	for _, g := range RefreshGroups() {
		if len(g.Datasets) == 0 {
			t.Errorf("group %s has no datasets", g.Name)
		}
		for _, k := range g.Datasets {
			if seen[k] != "" {
				t.Errorf("%s in %s and %s", k, seen[k], g.Name)
			}
			seen[k] = g.Name
		}
	}
	var hand []string
	for _, h := range HandStepDatasets() {
		k, _, _ := strings.Cut(h, " ")
		hand = append(hand, k)
		if seen[k] != "" {
			t.Errorf("%s needs a hand step but is scheduled in %s", k, seen[k])
		}
		seen[k] = "hand"
	}
	sort.Strings(hand)
	if want := []string{"altalis-ats", "bc-alr", "owa-inventory", "sk-saskgrid"}; !slices.Equal(hand, want) {
		t.Errorf("hand steps %v, want %v", hand, want)
	}
	for _, k := range datafetch.Keys() {
		if seen[k] == "" {
			t.Errorf("%s is neither scheduled nor a hand step", k)
		}
	}
	plain, _ := stacks(t)
	check(t, "hand-step output", func() {
		plain.tmpl.HasOutput(jsii.String("RefreshHandSteps"), map[string]any{
			"Value": assertions.Match_StringLikeRegexp(jsii.String("altalis-ats.*bc-alr.*owa-inventory.*sk-saskgrid")),
		})
	})
}

// TestRefreshFunction: the Lambda of the grids, with the most memory and
// /tmp Lambda gives, 15 minutes, one retry, the dead-letter queue, and
// its environment.
func TestRefreshFunction(t *testing.T) {
	plain, _ := stacks(t)
	dlq := plain.idWithPrefix(t, "AWS::SQS::Queue", "RefreshDeadLetterQueue")
	fn := plain.functionID(t, RefreshFunction)
	check(t, "refresh function", func() {
		plain.tmpl.HasResourceProperties(jsii.String("AWS::Lambda::Function"), map[string]any{
			"Description":      "Meridian refresh (functions/refresh)",
			"Runtime":          "provided.al2023",
			"Architectures":    []any{"arm64"},
			"Handler":          "bootstrap",
			"Timeout":          900,
			"MemorySize":       3008,
			"EphemeralStorage": map[string]any{"Size": 10240},
			"DeadLetterConfig": map[string]any{"TargetArn": map[string]any{"Fn::GetAtt": []any{dlq, "Arn"}}},
			"Environment": map[string]any{"Variables": map[string]any{
				"DATA_BUCKET":      map[string]any{"Ref": assertions.Match_StringLikeRegexp(jsii.String("^DataBucket"))},
				"REPORTS_TABLE":    map[string]any{"Ref": assertions.Match_StringLikeRegexp(jsii.String("^ReportsTable"))},
				"REFRESH_PREFIX":   RefreshPrefix,
				"REFRESH_DATASETS": "mb-original-survey,on-lio-lot-fabric",
				"SCRATCH_DIR":      "/tmp/meridian-refresh",
				"LOG_LEVEL":        "info",
			}},
		})
	})
	check(t, "one retry", func() {
		plain.tmpl.HasResourceProperties(jsii.String("AWS::Lambda::EventInvokeConfig"), map[string]any{
			"FunctionName":         map[string]any{"Ref": fn},
			"MaximumRetryAttempts": 1,
		})
	})
}

// TestRefreshTasks: the energy and agriculture task definitions: Fargate
// on arm64, their size, the image built from the asset directory, the
// task role, their datasets.
func TestRefreshTasks(t *testing.T) {
	plain, _ := stacks(t)
	role := plain.idWithPrefix(t, "AWS::IAM::Role", "RefreshTaskRole")
	logs := plain.idWithPrefix(t, "AWS::Logs::LogGroup", "RefreshTaskLogs")
	for _, g := range RefreshGroups() {
		if !g.Fargate {
			continue
		}
		check(t, g.Name+" task", func() {
			plain.tmpl.HasResourceProperties(jsii.String("AWS::ECS::TaskDefinition"), map[string]any{
				"Family":                  "meridian-refresh-" + strings.ToLower(g.Name),
				"Cpu":                     strconv.Itoa(int(g.CPU)),
				"Memory":                  strconv.Itoa(int(g.MemoryMiB)),
				"EphemeralStorage":        map[string]any{"SizeInGiB": g.DiskGiB},
				"RequiresCompatibilities": []any{"FARGATE"},
				"RuntimePlatform":         map[string]any{"CpuArchitecture": "ARM64", "OperatingSystemFamily": "LINUX"},
				"TaskRoleArn":             map[string]any{"Fn::GetAtt": []any{role, "Arn"}},
				"ContainerDefinitions": []any{map[string]any{
					"Name":  refreshContainerName,
					"Image": map[string]any{"Fn::Sub": assertions.Match_StringLikeRegexp(jsii.String("container-assets"))},
					"Environment": assertions.Match_ArrayWith(&[]any{
						map[string]any{"Name": "DATA_BUCKET", "Value": map[string]any{"Ref": assertions.Match_StringLikeRegexp(jsii.String("^DataBucket"))}},
						map[string]any{"Name": "REFRESH_DATASETS", "Value": strings.Join(g.Datasets, ",")},
						map[string]any{"Name": "REPORTS_TABLE", "Value": map[string]any{"Ref": assertions.Match_StringLikeRegexp(jsii.String("^ReportsTable"))}},
					}),
					"LogConfiguration": map[string]any{"LogDriver": "awslogs", "Options": assertions.Match_ObjectLike(&map[string]any{
						"awslogs-group": map[string]any{"Ref": logs},
					})},
				}},
			})
		})
	}
	check(t, "no inbound", func() {
		plain.tmpl.HasResourceProperties(jsii.String("AWS::EC2::SecurityGroup"), map[string]any{
			"GroupDescription":     assertions.Match_StringLikeRegexp(jsii.String("^Meridian refresh tasks")),
			"SecurityGroupIngress": assertions.Match_Absent(),
		})
	})
	check(t, "no NAT gateway", func() {
		plain.tmpl.ResourceCountIs(jsii.String("AWS::EC2::NatGateway"), jsii.Number(0))
	})
}

// grantsOf lists a policy document's statements as TestGrants does.
func grantsOf(doc any) []string {
	var out []string
	sts, _ := doc.(map[string]any)["Statement"].([]any)
	for _, st := range sts {
		st := st.(map[string]any)
		for _, a := range strs(st["Action"]) {
			for _, r := range strs(st["Resource"]) {
				out = append(out, a.(string)+describeResource(r))
			}
		}
	}
	sort.Strings(out)
	return out
}

// TestRefreshTaskGrants: the task role may do what the job does and no
// more; the publisher's managed policy what `meridian-publish` does;
// EventBridge may run exactly the two task definitions on the cluster.
func TestRefreshTaskGrants(t *testing.T) {
	plain, _ := stacks(t)
	role := plain.idWithPrefix(t, "AWS::IAM::Role", "RefreshTaskRole")
	var got []string
	for _, r := range plain.resources("AWS::IAM::Policy") {
		if ref(strs(props(r)["Roles"])[0]) == role {
			got = append(got, grantsOf(props(r)["PolicyDocument"])...)
		}
	}
	want := refreshJobGrants()
	sort.Strings(got)
	sort.Strings(want)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("task role (-want +got):\n%s", diff)
	}

	pol := plain.idWithPrefix(t, "AWS::IAM::ManagedPolicy", "PublisherPolicy")
	got = grantsOf(props(plain.resources("AWS::IAM::ManagedPolicy")[pol])["PolicyDocument"])
	want = nil
	for _, g := range refreshJobGrants() {
		if !strings.HasSuffix(g, " refresh/*") {
			want = append(want, g)
		}
	}
	sort.Strings(want)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("publisher policy (-want +got):\n%s", diff)
	}
	check(t, "publisher policy output", func() {
		plain.tmpl.HasOutput(jsii.String("PublisherPolicyArn"), map[string]any{"Value": map[string]any{"Ref": pol}})
	})

	cluster := plain.idWithPrefix(t, "AWS::ECS::Cluster", "RefreshCluster")
	for _, g := range []string{"Energy", "Ag"} {
		task := plain.idWithPrefix(t, "AWS::ECS::TaskDefinition", g+"RefreshTask")
		check(t, g+" run task", func() {
			plain.tmpl.HasResourceProperties(jsii.String("AWS::IAM::Policy"), map[string]any{
				"PolicyDocument": map[string]any{"Statement": assertions.Match_ArrayWith(&[]any{map[string]any{
					"Action":    "ecs:RunTask",
					"Effect":    "Allow",
					"Resource":  map[string]any{"Ref": task},
					"Condition": map[string]any{"ArnEquals": map[string]any{"ecs:cluster": map[string]any{"Fn::GetAtt": []any{cluster, "Arn"}}}},
				}})},
			})
		})
	}
}

// TestRefreshFailureVisibility: a failed Lambda run, a message in the
// dead-letter queue and a task that stops with an error all reach the
// alarm topic.
func TestRefreshFailureVisibility(t *testing.T) {
	plain, _ := stacks(t)
	topic := plain.idWithPrefix(t, "AWS::SNS::Topic", "RefreshAlarmTopic")
	fn := plain.functionID(t, RefreshFunction)
	dlq := plain.idWithPrefix(t, "AWS::SQS::Queue", "RefreshDeadLetterQueue")
	cluster := plain.idWithPrefix(t, "AWS::ECS::Cluster", "RefreshCluster")
	check(t, "Lambda errors alarm", func() {
		plain.tmpl.HasResourceProperties(jsii.String("AWS::CloudWatch::Alarm"), map[string]any{
			"Namespace": "AWS/Lambda", "MetricName": "Errors", "Statistic": "Sum", "Threshold": 1,
			"ComparisonOperator": "GreaterThanOrEqualToThreshold",
			"Dimensions":         []any{map[string]any{"Name": "FunctionName", "Value": map[string]any{"Ref": fn}}},
			"AlarmActions":       []any{map[string]any{"Ref": topic}},
		})
	})
	check(t, "dead-letter alarm", func() {
		plain.tmpl.HasResourceProperties(jsii.String("AWS::CloudWatch::Alarm"), map[string]any{
			"Namespace": "AWS/SQS", "MetricName": "ApproximateNumberOfMessagesVisible", "Threshold": 1,
			"Dimensions":   []any{map[string]any{"Name": "QueueName", "Value": map[string]any{"Fn::GetAtt": []any{dlq, "QueueName"}}}},
			"AlarmActions": []any{map[string]any{"Ref": topic}},
		})
	})
	check(t, "failed task rule", func() {
		plain.tmpl.HasResourceProperties(jsii.String("AWS::Events::Rule"), map[string]any{
			"EventPattern": map[string]any{
				"source":      []any{"aws.ecs"},
				"detail-type": []any{"ECS Task State Change"},
				"detail": map[string]any{
					"clusterArn": []any{map[string]any{"Fn::GetAtt": []any{cluster, "Arn"}}},
					"lastStatus": []any{"STOPPED"},
					"$or": []any{
						map[string]any{"containers": map[string]any{"exitCode": []any{map[string]any{"anything-but": 0}}}},
						map[string]any{"stopCode": []any{"TaskFailedToStart"}},
					},
				},
			},
			"Targets": []any{map[string]any{"Arn": map[string]any{"Ref": topic}, "Id": assertions.Match_AnyValue()}},
		})
	})
	check(t, "EventBridge may publish to the topic", func() {
		plain.tmpl.HasResourceProperties(jsii.String("AWS::SNS::TopicPolicy"), map[string]any{
			"Topics": []any{map[string]any{"Ref": topic}},
			"PolicyDocument": map[string]any{"Statement": assertions.Match_ArrayWith(&[]any{assertions.Match_ObjectLike(&map[string]any{
				"Action": "sns:Publish", "Effect": "Allow", "Principal": map[string]any{"Service": "events.amazonaws.com"},
			})})},
		})
	})
}

// TestRefreshEnvironmentIsRead: every variable the stack gives the job is
// one functions/refresh reads.
func TestRefreshEnvironmentIsRead(t *testing.T) {
	plain, _ := stacks(t)
	src, err := os.ReadFile("../functions/refresh/config.go")
	if err != nil {
		t.Fatal(err)
	}
	names := plain.envNames(t, RefreshFunction)
	for _, r := range plain.resources("AWS::ECS::TaskDefinition") {
		for _, c := range props(r)["ContainerDefinitions"].([]any) {
			for _, e := range c.(map[string]any)["Environment"].([]any) {
				names = append(names, e.(map[string]any)["Name"].(string))
			}
		}
	}
	for _, n := range names {
		if !strings.Contains(string(src), strconv.Quote(n)) {
			t.Errorf("the refresh job gets %s, which functions/refresh/config.go does not read", n)
		}
	}
}

// TestRefreshImageStaged: synth stages the task image's directory
// (Dockerfile, bootstrap, meridian, meridian-publish) into the cloud assembly for cdk deploy
// to build; synth itself builds nothing.
func TestRefreshImageStaged(t *testing.T) {
	out := t.TempDir()
	app := awscdk.NewApp(&awscdk.AppProps{Context: appContext(), Outdir: jsii.String(out)})
	props := StackProps{AssetRoot: assetRoot}
	props.StackProps = awscdk.StackProps{Env: &awscdk.Environment{Account: jsii.String(defaultAccount), Region: jsii.String(defaultRegion)}}
	if _, err := NewStack(app, "Meridian", props); err != nil {
		t.Fatal(err)
	}
	app.Synth(nil)
	b, err := os.ReadFile(filepath.Join(out, "Meridian.assets.json"))
	if err != nil {
		t.Fatal(err)
	}
	var m struct {
		DockerImages map[string]struct {
			Source struct {
				Directory string `json:"directory"`
				Platform  string `json:"platform"`
			} `json:"source"`
		} `json:"dockerImages"`
	}
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	if len(m.DockerImages) != 1 {
		t.Fatalf("%d docker image assets, want 1 (both tasks share the image)", len(m.DockerImages))
	}
	for _, img := range m.DockerImages {
		if img.Source.Platform != "linux/arm64" {
			t.Errorf("image platform %q, want linux/arm64", img.Source.Platform)
		}
		for _, f := range []string{"Dockerfile", "bootstrap", "meridian", "meridian-publish"} {
			if _, err := os.Stat(filepath.Join(out, img.Source.Directory, f)); err != nil {
				t.Errorf("staged image directory lacks %s: %v", f, err)
			}
		}
	}
}
