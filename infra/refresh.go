package main

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awscloudwatch"
	"github.com/aws/aws-cdk-go/awscdk/v2/awscloudwatchactions"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsec2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsecrassets"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsecs"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsevents"
	"github.com/aws/aws-cdk-go/awscdk/v2/awseventstargets"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsiam"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslambda"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslogs"
	"github.com/aws/aws-cdk-go/awscdk/v2/awssns"
	"github.com/aws/aws-cdk-go/awscdk/v2/awssqs"
	"github.com/aws/constructs-go/constructs/v10"
	"github.com/aws/jsii-runtime-go"

	"meridian/shared/datafetch"
)

// The scheduled refresh (functions/refresh): per dataset group an
// EventBridge schedule runs fetch → check → ingest → publish, on the
// refresh Lambda where a group fits Lambda's 15 minutes, 10 GB of memory
// and 10 GB of /tmp, on an ECS Fargate task otherwise.
const (
	// RefreshFunction is the directory of the refresh job under functions/
	// and under the asset root, where `make build` also puts the meridian
	// binary it runs and the Dockerfile of the task's image.
	RefreshFunction = "refresh"
	// RefreshPrefix is where the job keeps its downloads in the data
	// bucket (REFRESH_PREFIX).
	RefreshPrefix = "refresh/"

	refreshMemoryMB        = 3008
	refreshEphemeralMB     = 10240
	refreshTimeoutSeconds  = 900
	refreshScratch         = "/tmp/meridian-refresh"
	refreshContainerName   = "refresh"
	refreshImageDockerfile = "Dockerfile"
)

// RefreshGroup is a set of datasets refreshed together on one schedule.
type RefreshGroup struct {
	// Name is the construct id prefix (GridsRefreshSchedule) and the
	// group's word in outputs.
	Name string
	// Datasets are the manifest keys the run is given.
	Datasets []string
	// Schedule is an EventBridge cron expression, in UTC.
	Schedule string
	// Fargate: the group runs as an ECS Fargate task of CPU (vCPU/1024),
	// MemoryMiB and DiskGiB of ephemeral storage; otherwise on the
	// refresh Lambda.
	Fargate   bool
	CPU       float64
	MemoryMiB float64
	DiskGiB   float64
}

// RefreshGroups are the scheduled groups: every dataset of the manifest
// that downloads unattended, by what ingests it. The sizes are the
// publishers' (docs/data-sources.md, the manifest's notes):
//
//   - Grids (Manitoba original survey and corners, Ontario lot fabric): a
//     few hundred MB at most, one grid index each, S3 only: the Lambda
//     (3 GB memory, 10 GB /tmp, 15 min). Weekly, Monday 07:00 UTC: the
//     grids change a few times a year, and a week's check is two or three
//     conditional HEADs.
//   - Energy (ST37 ~130 MB of text, Petrinex infrastructure daily, 14
//     months × 3 provinces of volumetrics at ~120 MB of CSV per AB month,
//     pipelines hundreds of MB): several GB to unpack, and the energy
//     ingest reads the whole domain and writes hundreds of thousands of
//     items to DynamoDB; past Lambda's 15 minutes. Fargate, 2 vCPU, 8 GiB,
//     60 GiB of disk, daily 09:00 UTC (Petrinex publishes daily; the
//     monthly files answer 304 on the other days).
//   - Agriculture (the crop inventory: 0.5-2 GB per province and year, five
//     years; land use, soils, hydro): tens of GB. Fargate, 4 vCPU,
//     16 GiB, 150 GiB of disk, monthly on the 12th 06:00 UTC (the drought
//     monitor is out by the 10th; the rest is yearly or rarer).
//
// Datasets that need a hand step (an account, an order, a link found on a
// page) are not scheduled: see HandStepDatasets.
func RefreshGroups() []RefreshGroup {
	groups := []RefreshGroup{
		{Name: "Grids", Schedule: "cron(0 7 ? * MON *)"},
		{Name: "Energy", Schedule: "cron(0 9 * * ? *)", Fargate: true, CPU: 2048, MemoryMiB: 8192, DiskGiB: 60},
		{Name: "Ag", Schedule: "cron(0 6 12 * ? *)", Fargate: true, CPU: 4096, MemoryMiB: 16384, DiskGiB: 150},
	}
	kind := map[string]int{"grid": 0, "energy": 1, "ag": 2}
	for _, e := range datafetch.Manifest() {
		if i, ok := kind[e.Ingest.Kind]; ok && e.Access.Unattended() {
			groups[i].Datasets = append(groups[i].Datasets, e.Key)
		}
	}
	return groups
}

// HandStepDatasets are the manifest's datasets no schedule fetches, with
// what the publisher asks: an operator fetches them by hand (the job
// accepts {"datasets":[KEY],"url":LINK}).
func HandStepDatasets() []string {
	var out []string
	for _, e := range datafetch.Manifest() {
		if !e.Access.Unattended() {
			out = append(out, e.Key+" ("+e.Access.String()+")")
		}
	}
	return out
}

// refreshEnv is the job's environment but for REFRESH_DATASETS.
func (s *Stack) refreshEnv(props StackProps) map[string]*string {
	return map[string]*string{
		"DATA_BUCKET":    s.Bucket.BucketName(),
		"REPORTS_TABLE":  s.Table.TableName(),
		"REFRESH_PREFIX": jsii.String(RefreshPrefix),
		"SCRATCH_DIR":    jsii.String(refreshScratch),
		"LOG_LEVEL":      jsii.String(props.LogLevel),
	}
}

// refreshStatements is what the refresh job and `meridian-publish` call,
// and nothing else:
//
//   - s3:GetObject and s3:PutObject under grid/ and tiles/: the release
//     manifests read with their ETag and written conditionally (If-Match
//     and If-None-Match need PutObject only), the content-addressed
//     objects; with job, also under refresh/ (its downloads) and
//     s3:DeleteObject there only (a replaced download);
//   - s3:ListBucket on the bucket: without it S3 answers 403 instead of
//     404 for a key that is absent, and publish asks exactly that of the
//     first manifest and of each content key before uploading it (the job,
//     of its first state); it shows key names of this bucket only;
//   - on the report table only, what dynamokv.Store calls for kv.Publish:
//     GetItem (pointer and counter, strongly consistent), PutItem (the
//     conditional counter and pointer swaps), BatchWriteItem (a version's
//     items, and deleting old ones) and Scan (kv.ScanKeys finds an old
//     version's keys; there is no index to Query).
func (s *Stack) refreshStatements(job bool) []awsiam.PolicyStatement {
	objects := []string{*s.Bucket.ArnForObjects(jsii.String(GridPrefix + "*")), *s.Bucket.ArnForObjects(jsii.String(TilesPrefix + "*"))}
	if job {
		objects = append(objects, *s.Bucket.ArnForObjects(jsii.String(RefreshPrefix + "*")))
	}
	st := func(actions []string, resources ...string) awsiam.PolicyStatement {
		return awsiam.NewPolicyStatement(&awsiam.PolicyStatementProps{Actions: jsii.Strings(actions...), Resources: jsii.Strings(resources...)})
	}
	out := []awsiam.PolicyStatement{
		st([]string{"s3:GetObject", "s3:PutObject"}, objects...),
		st([]string{"s3:ListBucket"}, *s.Bucket.BucketArn()),
		st([]string{"dynamodb:GetItem", "dynamodb:PutItem", "dynamodb:BatchWriteItem", "dynamodb:Scan"}, *s.Table.TableArn()),
	}
	if job {
		out = append(out, st([]string{"s3:DeleteObject"}, *s.Bucket.ArnForObjects(jsii.String(RefreshPrefix + "*"))))
	}
	return out
}

// checkRefreshAssets reports what the refresh job needs in the asset root.
func checkRefreshAssets(root string) []string {
	return []string{
		filepath.Join(root, RefreshFunction, "bootstrap"),
		filepath.Join(root, RefreshFunction, "meridian"),
		filepath.Join(root, RefreshFunction, "meridian-publish"),
		filepath.Join(root, RefreshFunction, refreshImageDockerfile),
	}
}

// refresh defines the scheduled refresh: the Lambda and its schedules, the
// Fargate task definitions, cluster and schedules, the failure alarms on
// one SNS topic, and the publisher's managed policy.
func (s *Stack) refresh(props StackProps) {
	st := s.Stack
	alarms := awssns.NewTopic(st, jsii.String("RefreshAlarmTopic"), &awssns.TopicProps{
		DisplayName: jsii.String("Meridian data refresh failures"),
		EnforceSSL:  jsii.Bool(true),
	})
	s.alarms = alarms
	notify := awscloudwatchactions.NewSnsAction(alarms)
	// Schedules whose target could not be invoked or started land here.
	dlq := awssqs.NewQueue(st, jsii.String("RefreshDeadLetterQueue"), &awssqs.QueueProps{
		RetentionPeriod: awscdk.Duration_Days(jsii.Number(14)),
		Encryption:      awssqs.QueueEncryption_SQS_MANAGED,
		EnforceSSL:      jsii.Bool(true),
	})
	alarmOnAny(st, "RefreshDeadLetterAlarm", notify,
		"Meridian refresh: a scheduled run could not be delivered or failed all its attempts (see the queue's messages)",
		dlq.MetricApproximateNumberOfMessagesVisible(&awscloudwatch.MetricOptions{
			Period: awscdk.Duration_Minutes(jsii.Number(5)), Statistic: jsii.String("Maximum"),
		}))

	groups := RefreshGroups()
	var lambdaDefault []string
	for _, g := range groups {
		if !g.Fargate {
			lambdaDefault = append(lambdaDefault, g.Datasets...)
		}
	}

	// The Lambda.
	env := map[string]string{}
	for k, v := range s.refreshEnv(props) {
		env[k] = *v
	}
	env["REFRESH_DATASETS"] = strings.Join(lambdaDefault, ",")
	fn := s.function(props, RefreshFunction, refreshMemoryMB, refreshTimeoutSeconds, env)
	cfn := fn.Node().DefaultChild().(awslambda.CfnFunction)
	cfn.SetEphemeralStorage(&awslambda.CfnFunction_EphemeralStorageProperty{Size: jsii.Number(refreshEphemeralMB)})
	cfn.SetDeadLetterConfig(&awslambda.CfnFunction_DeadLetterConfigProperty{TargetArn: dlq.QueueArn()})
	fn.AddToRolePolicy(awsiam.NewPolicyStatement(&awsiam.PolicyStatementProps{
		Actions: jsii.Strings("sqs:SendMessage"), Resources: jsii.Strings(*dlq.QueueArn()),
	}))
	// A failed scheduled run is tried once more, then goes to the queue;
	// the next schedule starts over anyway.
	awslambda.NewEventInvokeConfig(st, jsii.String("RefreshFunctionInvokeConfig"), &awslambda.EventInvokeConfigProps{
		Function:      fn,
		RetryAttempts: jsii.Number(1),
		MaxEventAge:   awscdk.Duration_Hours(jsii.Number(6)),
	})
	for _, p := range s.refreshStatements(true) {
		fn.AddToRolePolicy(p)
	}
	suppressRefreshObjects(fn.Role(), true)
	alarmOnAny(st, "RefreshFunctionErrorsAlarm", notify,
		"Meridian refresh Lambda: a run failed (its log group says which dataset and why); the data served is unchanged",
		fn.MetricErrors(&awscloudwatch.MetricOptions{
			Period: awscdk.Duration_Minutes(jsii.Number(15)), Statistic: jsii.String("Sum"),
		}))

	// The Fargate side: public subnets with a public address (the job
	// downloads from the publishers; no NAT gateway to pay for), no
	// inbound traffic.
	vpc := awsec2.NewVpc(st, jsii.String("RefreshVpc"), &awsec2.VpcProps{
		MaxAzs:      jsii.Number(2),
		NatGateways: jsii.Number(0),
		SubnetConfiguration: &[]*awsec2.SubnetConfiguration{{
			Name: jsii.String("public"), SubnetType: awsec2.SubnetType_PUBLIC, CidrMask: jsii.Number(24),
		}},
		RestrictDefaultSecurityGroup: jsii.Bool(false), // true adds a custom-resource Lambda
	})
	sg := awsec2.NewSecurityGroup(st, jsii.String("RefreshTaskSecurityGroup"), &awsec2.SecurityGroupProps{
		Vpc:              vpc,
		Description:      jsii.String("Meridian refresh tasks: outbound only (publishers, S3, DynamoDB)"),
		AllowAllOutbound: jsii.Bool(true),
	})
	// Flow logs of every interface (the tasks' traffic to the publishers),
	// accepted and rejected, to the log bucket.
	vpc.AddFlowLog(jsii.String("FlowLog"), &awsec2.FlowLogOptions{
		Destination: awsec2.FlowLogDestination_ToS3(s.LogBucket, jsii.String(FlowLogPrefix), nil),
		TrafficType: awsec2.FlowLogTrafficType_ALL,
	})
	cluster := awsecs.NewCluster(st, jsii.String("RefreshCluster"), &awsecs.ClusterProps{
		Vpc:                 vpc,
		ContainerInsightsV2: awsecs.ContainerInsights_ENABLED,
	})
	taskRole := awsiam.NewRole(st, jsii.String("RefreshTaskRole"), &awsiam.RoleProps{
		AssumedBy:   awsiam.NewServicePrincipal(jsii.String("ecs-tasks.amazonaws.com"), nil),
		Description: jsii.String("Meridian refresh task"),
	})
	for _, p := range s.refreshStatements(true) {
		taskRole.AddToPrincipalPolicy(p)
	}
	suppressRefreshObjects(taskRole, true)
	taskLogs := awslogs.NewLogGroup(st, jsii.String("RefreshTaskLogs"), &awslogs.LogGroupProps{
		Retention:     awslogs.RetentionDays_ONE_MONTH,
		RemovalPolicy: awscdk.RemovalPolicy_DESTROY,
	})
	// Staged into cdk.out at synth, built by cdk deploy: synth needs no
	// Docker and no network.
	image := awsecs.ContainerImage_FromAsset(jsii.String(filepath.Join(props.AssetRoot, RefreshFunction)), &awsecs.AssetImageProps{
		Platform: awsecrassets.Platform_LINUX_ARM64(),
		File:     jsii.String(refreshImageDockerfile),
	})
	public := &awsec2.SubnetSelection{SubnetType: awsec2.SubnetType_PUBLIC}

	for _, g := range groups {
		var target awsevents.IRuleTarget
		var td awsecs.FargateTaskDefinition
		if g.Fargate {
			td = awsecs.NewFargateTaskDefinition(st, jsii.String(g.Name+"RefreshTask"), &awsecs.FargateTaskDefinitionProps{
				Family:              jsii.String("meridian-refresh-" + strings.ToLower(g.Name)),
				Cpu:                 jsii.Number(g.CPU),
				MemoryLimitMiB:      jsii.Number(g.MemoryMiB),
				EphemeralStorageGiB: jsii.Number(g.DiskGiB),
				RuntimePlatform: &awsecs.RuntimePlatform{
					CpuArchitecture:       awsecs.CpuArchitecture_ARM64(),
					OperatingSystemFamily: awsecs.OperatingSystemFamily_LINUX(),
				},
				TaskRole: taskRole,
			})
			env := s.refreshEnv(props)
			env["REFRESH_DATASETS"] = jsii.String(strings.Join(g.Datasets, ","))
			td.AddContainer(jsii.String(refreshContainerName), &awsecs.ContainerDefinitionOptions{
				ContainerName: jsii.String(refreshContainerName),
				Image:         image,
				Essential:     jsii.Bool(true),
				Environment:   &env,
				Logging: awsecs.LogDrivers_AwsLogs(&awsecs.AwsLogDriverProps{
					StreamPrefix: jsii.String(strings.ToLower(g.Name)),
					LogGroup:     taskLogs,
				}),
			})
			target = awseventstargets.NewEcsTask(&awseventstargets.EcsTaskProps{
				Cluster:         cluster,
				TaskDefinition:  td,
				TaskCount:       jsii.Number(1),
				SubnetSelection: public,
				SecurityGroups:  &[]awsec2.ISecurityGroup{sg},
				AssignPublicIp:  jsii.Bool(true),
				PlatformVersion: awsecs.FargatePlatformVersion_LATEST,
				DeadLetterQueue: dlq,
				RetryAttempts:   jsii.Number(2),
			})
			awscdk.NewCfnOutput(st, jsii.String(g.Name+"RefreshTaskDefinitionArn"), &awscdk.CfnOutputProps{
				Description: jsii.String(fmt.Sprintf("Task definition of the %s refresh (%s), for aws ecs run-task", strings.ToLower(g.Name), strings.Join(g.Datasets, ", "))),
				Value:       td.TaskDefinitionArn(),
			})
		} else {
			target = awseventstargets.NewLambdaFunction(fn, &awseventstargets.LambdaFunctionProps{
				Event:           awsevents.RuleTargetInput_FromObject(map[string]any{"datasets": g.Datasets}),
				DeadLetterQueue: dlq,
				RetryAttempts:   jsii.Number(2),
			})
		}
		awsevents.NewRule(st, jsii.String(g.Name+"RefreshSchedule"), &awsevents.RuleProps{
			Description: jsii.String(fmt.Sprintf("Meridian: refresh %s (%s)", strings.Join(g.Datasets, ", "), runner(g))),
			Schedule:    awsevents.Schedule_Expression(jsii.String(g.Schedule)),
			Targets:     &[]awsevents.IRuleTarget{target},
		})
		if td != nil {
			// After the rule: the events role is made by binding the target.
			suppressTaskDefinition(td)
		}
	}

	// A task that stops with a non-zero exit code, or fails to start, is
	// a failed run: its stop event goes to the alarm topic.
	awsevents.NewRule(st, jsii.String("RefreshTaskFailedRule"), &awsevents.RuleProps{
		Description: jsii.String("Meridian: a refresh task stopped with an error"),
		EventPattern: &awsevents.EventPattern{
			Source:     jsii.Strings("aws.ecs"),
			DetailType: jsii.Strings("ECS Task State Change"),
			Detail: &map[string]any{
				"clusterArn": []any{*cluster.ClusterArn()},
				"lastStatus": []any{"STOPPED"},
				"$or": []any{
					map[string]any{"containers": map[string]any{"exitCode": []any{map[string]any{"anything-but": 0}}}},
					map[string]any{"stopCode": []any{"TaskFailedToStart"}},
				},
			},
		},
		Targets: &[]awsevents.IRuleTarget{awseventstargets.NewSnsTopic(alarms, nil)},
	})

	// What an operator (or CI) running `meridian-publish` needs: the same
	// statements without the job's downloads.
	publisher := awsiam.NewManagedPolicy(st, jsii.String("PublisherPolicy"), &awsiam.ManagedPolicyProps{
		Description: jsii.String("Meridian: what `meridian-publish` calls (attach to the user or role that publishes)"),
		Statements:  &[]awsiam.PolicyStatement{},
	})
	for _, p := range s.refreshStatements(false) {
		publisher.AddStatements(p)
	}
	suppressRefreshObjects(publisher, false)

	out := func(id, desc string, v *string) {
		awscdk.NewCfnOutput(st, jsii.String(id), &awscdk.CfnOutputProps{Description: jsii.String(desc), Value: v})
	}
	out("RefreshFunctionName", "The refresh Lambda: aws lambda invoke --function-name NAME --payload '{\"datasets\":[\"mb-original-survey\"]}'", fn.FunctionName())
	out("RefreshClusterName", "ECS cluster of the refresh tasks", cluster.ClusterName())
	out("RefreshTaskSubnets", "Public subnets for aws ecs run-task (assignPublicIp=ENABLED)",
		awscdk.Fn_Join(jsii.String(","), vpc.SelectSubnets(public).SubnetIds))
	out("RefreshTaskSecurityGroupId", "Security group for aws ecs run-task", sg.SecurityGroupId())
	out("RefreshAlarmTopicArn", "SNS topic of refresh failures: subscribe an address to it", alarms.TopicArn())
	out("PublisherPolicyArn", "Managed policy with what `meridian-publish` needs: attach it to the publishing user or role", publisher.ManagedPolicyArn())
	hand := HandStepDatasets()
	slices.Sort(hand)
	out("RefreshHandSteps", "Datasets no schedule fetches (an account, an order or a link found by hand): fetch them with the job's url field or meridian data fetch -url",
		jsii.String(strings.Join(hand, "; ")))
}

// suppressRefreshObjects says why the refresh job's (job) and the
// publisher's grants name every object under their prefixes.
func suppressRefreshObjects(c constructs.IConstruct, job bool) {
	prefixes := []any{objectsUnder(GridPrefix), objectsUnder(TilesPrefix)}
	reason := "Publishing writes new content-addressed objects (grid/v/<sha256>/<name>, tiles/v/...) and the manifests naming them under grid/ and tiles/; their keys exist only once the data is built, so the grant names the prefixes, with object actions only."
	if job {
		prefixes = append(prefixes, objectsUnder(RefreshPrefix))
		reason += " The job also keeps its downloads under refresh/, named by dataset and publisher file."
	}
	suppress(c, true, "AwsSolutions-IAM5", reason, prefixes...)
}

// suppressTaskDefinition records the design decisions of a refresh task
// definition.
func suppressTaskDefinition(td awsecs.FargateTaskDefinition) {
	suppress(td, false, "AwsSolutions-ECS2",
		"The environment holds no secret: the data bucket and table names, the refresh prefix, the scratch directory, the log level and the dataset keys. Credentials come from the task role, never from variables.")
	// The execution role (pulls the image, writes the log stream) and
	// EventBridge's role (runs the task) are CDK's own.
	suppress(td, true, "AwsSolutions-IAM5",
		"ecr:GetAuthorizationToken has no resource-level permission, so AWS requires Resource * for it; EventBridge's role may tag and run tasks of this cluster only, whose task ids do not exist before the schedule starts them.",
		"Resource::*",
		nagRegexp(`^Resource::arn:<AWS::Partition>:ecs:[a-z0-9-]+:\*:task/<RefreshCluster[0-9A-F]{8}>/\*$`))
}

func runner(g RefreshGroup) string {
	if g.Fargate {
		return "ECS Fargate task"
	}
	return "refresh Lambda"
}

// alarmOnAny raises an alarm, sent to notify, as soon as metric reaches 1
// in one period; no data is not an alarm.
func alarmOnAny(scope constructs.Construct, id string, notify awscloudwatch.IAlarmAction, description string, metric awscloudwatch.IMetric) {
	awscloudwatch.NewAlarm(scope, jsii.String(id), &awscloudwatch.AlarmProps{
		AlarmDescription:   jsii.String(description),
		Metric:             metric,
		Threshold:          jsii.Number(1),
		EvaluationPeriods:  jsii.Number(1),
		ComparisonOperator: awscloudwatch.ComparisonOperator_GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
		TreatMissingData:   awscloudwatch.TreatMissingData_NOT_BREACHING,
	}).AddAlarmAction(notify)
}
