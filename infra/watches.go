package main

import (
	"fmt"
	"strings"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsapigateway"
	"github.com/aws/aws-cdk-go/awscdk/v2/awscloudwatch"
	"github.com/aws/aws-cdk-go/awscdk/v2/awscloudwatchactions"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsevents"
	"github.com/aws/aws-cdk-go/awscdk/v2/awseventstargets"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsiam"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslambda"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslambdaeventsources"
	"github.com/aws/aws-cdk-go/awscdk/v2/awssqs"
	"github.com/aws/jsii-runtime-go"

	"meridian/shared/gateway"
)

// Watches and their webhook deliveries (issue 37): the /watches routes
// (functions/watches) over a table of their own, and the delivering
// function (functions/deliver), which a schedule runs every minute to
// dispatch a new energy version's changes to the watches, one SQS message
// per delivery, and which the queue runs for each message to send it.
const (
	WatchesFunction = "watches"
	DeliverFunction = "deliver"

	watchesTimeoutSeconds = 10
	// deliverTimeoutSeconds bounds a dispatch (the version's new changes
	// against every watch, the deliveries written and queued) and a batch
	// of messages (at most DeliveryBatchSize webhooks sent at once, each
	// within its own 10 s).
	deliverTimeoutSeconds = 120

	// DeliveryBatchSize is how many messages one invocation gets.
	DeliveryBatchSize = 10
	// DeliveryVisibilitySeconds is the queue's visibility timeout: six
	// times the function's timeout, as AWS advises for a Lambda event
	// source, so a message is not handed out again while a slow
	// invocation (throttled, retried) still holds it. A failed delivery
	// changes its own message's visibility to its backoff instead.
	DeliveryVisibilitySeconds = 6 * deliverTimeoutSeconds
	// DeliveryMaxReceiveCount is how many receives a message gets before
	// SQS moves it to the dead-letter queue. The deliver function retries a
	// webhook by changing its message's visibility to the next backoff
	// (at least half of 30 s doubling, at most 12 h: about 15 receives in
	// 24 h: TestBackoffFitsRedrive of functions/internal/delivery) and then deletes
	// it as failed; only a message whose handling keeps crashing (poison)
	// comes back every DeliveryVisibilitySeconds until it reaches the
	// dead-letter queue.
	DeliveryMaxReceiveCount = 30
	// DeliveryRetentionDays keeps a message past the 24 h of retries.
	DeliveryRetentionDays = 2
	// DeadLetterRetentionDays keeps what the dead-letter queue caught
	// long enough to look at it (SQS' maximum).
	DeadLetterRetentionDays = 14

	// DeliverSchedule runs the dispatch: every minute, so a new energy
	// version's webhooks leave within a minute or two of its publish.
	DeliverSchedule = "rate(1 minute)"

	watchesConcurrency = 5
	deliverConcurrency = 10
	// deliverPollers caps the event source's concurrent invocations, so
	// the scheduled dispatch always finds a slot of the reserved ones.
	deliverPollers = 5
)

// watchesProduct is the product whose API carries the /watches routes and
// whose usage plans meter them: the one gateway.ProductOf gives /watches
// (the change feed's, `changes`), or, while no product claims the path,
// energy's, whose dataset the watches follow.
func watchesProduct() gateway.Product {
	if p, ok := gateway.ProductOf("/watches"); ok {
		return p
	}
	return gateway.Energy
}

// watches defines the watches table, the delivery queue and its
// dead-letter queue, the two functions with their grants, the schedule,
// the event source and the /watches routes.
func (s *Stack) watches(props StackProps) error {
	st := s.Stack
	product := watchesProduct()
	method, ok := s.methods[product]
	if !ok {
		return fmt.Errorf("infra: the /watches routes belong to product %s, which is not deployed", product)
	}
	api := s.APIs[product]

	// The same design and protection as the report table (itemTable).
	// Its items are the customers' (watches, secrets, deliveries), not
	// data a publish can make again.
	s.WatchesTable = itemTable(st, "WatchesTable")

	// SQS-managed encryption (SSE-SQS): no key policy to keep, and the
	// Lambda needs no KMS grant; TLS only.
	s.DeliveryDeadLetter = awssqs.NewQueue(st, jsii.String("DeliveryDeadLetterQueue"), &awssqs.QueueProps{
		RetentionPeriod: awscdk.Duration_Days(jsii.Number(DeadLetterRetentionDays)),
		Encryption:      awssqs.QueueEncryption_SQS_MANAGED,
		EnforceSSL:      jsii.Bool(true),
	})
	s.DeliveryQueue = awssqs.NewQueue(st, jsii.String("DeliveryQueue"), &awssqs.QueueProps{
		VisibilityTimeout: awscdk.Duration_Seconds(jsii.Number(DeliveryVisibilitySeconds)),
		RetentionPeriod:   awscdk.Duration_Days(jsii.Number(DeliveryRetentionDays)),
		Encryption:        awssqs.QueueEncryption_SQS_MANAGED,
		EnforceSSL:        jsii.Bool(true),
		DeadLetterQueue: &awssqs.DeadLetterQueue{
			Queue:           s.DeliveryDeadLetter,
			MaxReceiveCount: jsii.Number(DeliveryMaxReceiveCount),
		},
	})

	watchesFn := s.function(props, WatchesFunction, functionMemoryMB, watchesTimeoutSeconds, map[string]string{
		"WATCHES_TABLE": *s.WatchesTable.TableName(),
	})
	reserve(watchesFn, watchesConcurrency)
	s.allow(watchesFn, watchesTableActions, *s.WatchesTable.TableArn())

	deliverFn := s.function(props, DeliverFunction, functionMemoryMB, deliverTimeoutSeconds, map[string]string{
		"WATCHES_TABLE":      *s.WatchesTable.TableName(),
		"REPORTS_TABLE":      *s.Table.TableName(),
		"DELIVERY_QUEUE_URL": *s.DeliveryQueue.QueueUrl(),
	})
	reserve(deliverFn, deliverConcurrency)
	s.allow(deliverFn, watchesTableActions, *s.WatchesTable.TableArn())
	s.allow(deliverFn, []string{"dynamodb:GetItem", "dynamodb:Query"}, *s.Table.TableArn())
	// Dispatch queues the deliveries; a failed webhook moves its own
	// message's return (the event source's grant below holds the rest).
	s.allow(deliverFn, []string{"sqs:SendMessage", "sqs:ChangeMessageVisibility"}, *s.DeliveryQueue.QueueArn())
	deliverFn.AddEventSource(awslambdaeventsources.NewSqsEventSource(s.DeliveryQueue, &awslambdaeventsources.SqsEventSourceProps{
		BatchSize:               jsii.Number(DeliveryBatchSize),
		ReportBatchItemFailures: jsii.Bool(true),
		MaxConcurrency:          jsii.Number(deliverPollers),
	}))
	awsevents.NewRule(st, jsii.String("DeliverSchedule"), &awsevents.RuleProps{
		Description: jsii.String("Meridian: dispatch a new energy version's changes to the watches (functions/deliver)"),
		Schedule:    awsevents.Schedule_Expression(jsii.String(DeliverSchedule)),
		Targets: &[]awsevents.IRuleTarget{awseventstargets.NewLambdaFunction(deliverFn, &awseventstargets.LambdaFunctionProps{
			Event: awsevents.RuleTargetInput_FromObject(map[string]any{"dispatch": true}),
			// The next minute's run dispatches what this one could not.
			RetryAttempts: jsii.Number(0),
			MaxEventAge:   awscdk.Duration_Minutes(jsii.Number(2)),
		})},
	})

	notify := awscloudwatchactions.NewSnsAction(s.alarms)
	alarmOnAny(st, "DeliveryDeadLetterAlarm", notify,
		"Meridian webhooks: a delivery message failed to be handled again and again and reached the dead-letter queue (its body names the delivery)",
		s.DeliveryDeadLetter.MetricApproximateNumberOfMessagesVisible(&awscloudwatch.MetricOptions{
			Period: awscdk.Duration_Minutes(jsii.Number(5)), Statistic: jsii.String("Maximum"),
		}))
	alarmOnAny(st, "DeliverFunctionErrorsAlarm", notify,
		"Meridian deliver Lambda: an invocation failed (a dispatch, or a whole batch of messages); its log group says why",
		deliverFn.MetricErrors(&awscloudwatch.MetricOptions{
			Period: awscdk.Duration_Minutes(jsii.Number(15)), Statistic: jsii.String("Sum"),
		}))

	integration := awsapigateway.NewLambdaIntegration(watchesFn, &awsapigateway.LambdaIntegrationOptions{
		Proxy:           jsii.Bool(true),
		AllowTestInvoke: jsii.Bool(false),
	})
	for _, r := range watchRoutes {
		verb, path, _ := strings.Cut(r, " ")
		api.Root().ResourceForPath(jsii.String(path)).AddMethod(jsii.String(verb), integration, method)
	}
	// The API's own suppression (restAPI) covers the methods it had then.
	suppress(api.Root().ResourceForPath(jsii.String("/watches")), true, "AwsSolutions-COG4",
		"Watches belong to API keys, not Cognito users: every /watches method requires a key, checked by the key authorizer, and a watch is visible to the key that made it only.")

	awscdk.NewCfnOutput(st, jsii.String("WatchesTableName"), &awscdk.CfnOutputProps{
		Description: jsii.String("DynamoDB table of the watches and their deliveries (single-table design, pk/sk)"),
		Value:       s.WatchesTable.TableName(),
	})
	awscdk.NewCfnOutput(st, jsii.String("DeliveryDeadLetterQueueUrl"), &awscdk.CfnOutputProps{
		Description: jsii.String("Webhook delivery messages whose handling kept failing (aws sqs receive-message)"),
		Value:       s.DeliveryDeadLetter.QueueUrl(),
	})
	return nil
}

// watchesTableActions are what the store of package watch does on its
// table: reads, conditional puts (Swap), batched puts and deletes.
var watchesTableActions = []string{"dynamodb:GetItem", "dynamodb:Query", "dynamodb:PutItem", "dynamodb:BatchWriteItem"}

// allow adds a statement of actions on resources to fn's role.
func (s *Stack) allow(fn awslambda.Function, actions []string, resources ...string) {
	fn.AddToRolePolicy(awsiam.NewPolicyStatement(&awsiam.PolicyStatementProps{
		Actions:   jsii.Strings(actions...),
		Resources: jsii.Strings(resources...),
	}))
}
