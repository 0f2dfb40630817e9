// Command deliver is the webhook delivering Lambda (issue 37): every
// minute (an EventBridge schedule, event {"dispatch": true}) it compares
// the served energy version (the dataset pointer in the report table)
// with the last one dispatched and, for a new one, makes its deliveries
// (package watch's Dispatch over the watches table) and queues one SQS
// message per delivery; for each message the queue hands it (an event
// source with ReportBatchItemFailures) it sends the delivery once (watch's
// Send: signed, with its Idempotency-Key), records the attempt, and on
// failure hides the message until the next attempt, for 24 hours
// (package delivery). The dead-letter queue takes a message whose
// handling keeps failing. See infra/watches.go.
//
// Environment: LOG_LEVEL, WATCHES_TABLE, REPORTS_TABLE,
// DELIVERY_QUEUE_URL; the SDK's (AWS_REGION; AWS_ENDPOINT_URL_SQS and
// AWS_ENDPOINT_URL_DYNAMODB for emulators).
package main

import (
	"context"
	"log/slog"
	"time"

	"github.com/aws/aws-lambda-go/lambda"
	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"meridian/functions/internal/delivery"
	"meridian/shared/awsconf"
	"meridian/shared/kv/dynamokv"
	"meridian/shared/lambdafn/coldstart"
)

type config struct {
	LogLevel slog.Level
	Watches  string // WATCHES_TABLE
	Reports  string // REPORTS_TABLE
	Queue    string // DELIVERY_QUEUE_URL
}

func loadConfig(getenv func(string) string) (config, error) {
	r := coldstart.NewEnv(getenv)
	c := config{
		LogLevel: r.LogLevel("LOG_LEVEL"),
		Watches:  r.Required("WATCHES_TABLE", "the DynamoDB table of the watches and their deliveries"),
		Reports:  r.Required("REPORTS_TABLE", "the DynamoDB table of the report store (the energy dataset's pointer)"),
		Queue:    r.Required("DELIVERY_QUEUE_URL", "the SQS queue of the deliveries"),
	}
	return c, r.Err()
}

func main() {
	c, logger := coldstart.Setup(loadConfig, func(c config) slog.Level { return c.LogLevel })
	ctx := context.Background()
	dc, err := dynamokv.NewClient(ctx, dynamokv.ClientOptions{FirstByteTimeout: awsconf.FirstByteTimeout})
	if err != nil {
		coldstart.Fail(logger, "cold start", err)
	}
	cfg, err := awsconf.Load(ctx, awsconf.Options{MaxAttempts: 3, BaseBackoff: 50 * time.Millisecond, FirstByteTimeout: awsconf.FirstByteTimeout})
	if err != nil {
		coldstart.Fail(logger, "cold start", err)
	}
	reports := dynamokv.New(dc, c.Reports, dynamokv.Options{})
	h := &delivery.Handler{
		Reports: reports,
		Book:    newWatchBook(reports, dynamokv.New(dc, c.Watches, dynamokv.Options{})),
		Queue:   delivery.Queue{API: sqs.NewFromConfig(cfg), URL: c.Queue},
		Now:     time.Now,
		Rand:    delivery.Jitter,
		Log:     logger,
	}
	lambda.Start(h.Invoke)
}
