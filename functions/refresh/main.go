// Command refresh is the scheduled data refresh on AWS: for the datasets
// it is given (manifest keys of package datafetch), it fetches what the
// publishers changed, checks and ingests it into scratch storage, and
// publishes it to the data bucket and the report table (see Job).
//
// One program, two runtimes. On Lambda (AWS_LAMBDA_RUNTIME_API set) the
// event is a Request, {"datasets": ["mb-original-survey"]}, and the answer
// a Result. Elsewhere (the ECS Fargate task of the datasets too large for
// Lambda) it runs once over REFRESH_DATASETS, with REFRESH_URL (a hand
// step's link) if set, and exits 1 on failure.
// Environment: see config.
package main

import (
	"context"
	"encoding/json"
	"log/slog"
	"os"
	"os/signal"
	"syscall"

	"github.com/aws/aws-lambda-go/lambda"

	"meridian/shared/blob/s3blob"
	"meridian/shared/lambdafn/coldstart"
)

func main() {
	c, logger := coldstart.Setup(loadConfig, func(c config) slog.Level { return c.LogLevel })
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	client, err := s3blob.NewClient(ctx, s3blob.ClientOptions{})
	if err != nil {
		coldstart.Fail(logger, "start", err)
	}
	job := &Job{S3: client, Bucket: c.Bucket, Table: c.Table, Prefix: c.Prefix, Scratch: c.Scratch,
		Meridian: c.Meridian, Publish: c.Publish, FetchBaseURL: c.FetchBaseURL, Log: logger, Out: os.Stdout}
	if os.Getenv("AWS_LAMBDA_RUNTIME_API") != "" {
		lambda.StartWithOptions(newHandler(job, c.Datasets), lambda.WithContext(ctx))
		return
	}
	res, err := job.Run(ctx, Request{Datasets: c.Datasets, URL: c.URL})
	b, _ := json.Marshal(res)
	logger.Info("refresh", "result", json.RawMessage(b), "err", errString(err))
	if err != nil {
		os.Exit(1)
	}
}

// newHandler is the Lambda handler: the event's datasets, or the
// configured ones when it names none. An error fails the invocation, which
// counts in the function's Errors metric (the stack's alarm) and, once the
// retries are spent, sends the event to the dead-letter queue.
func newHandler(job *Job, defaults []string) func(context.Context, Request) (Result, error) {
	return func(ctx context.Context, req Request) (Result, error) {
		if len(req.Datasets) == 0 {
			req.Datasets = defaults
		}
		res, err := job.Run(ctx, req)
		job.Log.Info("refresh", "datasets", res.Datasets, "updated", res.Updated, "unchanged", res.Unchanged,
			"published", res.Published, "scratch_bytes", res.ScratchBytes, "peak_rss_kib", res.PeakRSSKiB, "seconds", res.Seconds, "err", errString(err))
		return res, err
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
