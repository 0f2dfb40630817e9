package sqsemu

import (
	"context"
	"fmt"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"meridian/shared/awsconf"
)

// PollResult is what one Poll did.
type PollResult struct {
	Received, Deleted, Failed int
}

// Poll does what Lambda's event source mapping with ReportBatchItemFailures
// does once: it receives up to batch messages of queueURL through client
// (the real SDK calls), hands them to handler as an SQS event, and deletes
// the messages the handler did not report as failed. If the handler
// returns an error the whole batch is failed: nothing is deleted, and each
// message becomes visible again when its visibility timeout ends (the
// handler may have changed it). An item failure naming no message of the
// batch fails the whole batch too, as Lambda does.
func Poll(ctx context.Context, client *sqs.Client, queueURL string, batch int,
	handler func(context.Context, events.SQSEvent) (events.SQSEventResponse, error)) (PollResult, error) {
	var res PollResult
	out, err := client.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{
		QueueUrl:                    aws.String(queueURL),
		MaxNumberOfMessages:         int32(batch),
		MessageSystemAttributeNames: []types.MessageSystemAttributeName{types.MessageSystemAttributeNameAll},
	})
	if err != nil || len(out.Messages) == 0 {
		return res, err
	}
	res.Received = len(out.Messages)
	name := nameOf(queueURL)
	ev := events.SQSEvent{}
	for _, m := range out.Messages {
		ev.Records = append(ev.Records, events.SQSMessage{
			MessageId: aws.ToString(m.MessageId), ReceiptHandle: aws.ToString(m.ReceiptHandle), Body: aws.ToString(m.Body),
			Md5OfBody: aws.ToString(m.MD5OfBody), Attributes: m.Attributes, EventSource: "aws:sqs",
			EventSourceARN: QueueARN(name), AWSRegion: Region,
		})
	}
	resp, herr := handler(ctx, ev)
	if herr != nil {
		res.Failed = res.Received
		return res, nil
	}
	failed := map[string]bool{}
	for _, f := range resp.BatchItemFailures {
		failed[f.ItemIdentifier] = true
	}
	for id := range failed {
		found := false
		for _, r := range ev.Records {
			found = found || r.MessageId == id
		}
		if !found {
			res.Failed = res.Received
			return res, nil
		}
	}
	for _, r := range ev.Records {
		if failed[r.MessageId] {
			res.Failed++
			continue
		}
		if _, err := client.DeleteMessage(ctx, &sqs.DeleteMessageInput{QueueUrl: aws.String(queueURL), ReceiptHandle: aws.String(r.ReceiptHandle)}); err != nil {
			return res, fmt.Errorf("sqsemu: delete %s: %w", r.MessageId, err)
		}
		res.Deleted++
	}
	return res, nil
}

func nameOf(queueURL string) string {
	for i := len(queueURL) - 1; i >= 0; i-- {
		if queueURL[i] == '/' {
			return queueURL[i+1:]
		}
	}
	return queueURL
}

// NewClient is the SDK's SQS client for the emulator at endpoint (its
// URL), with static credentials, as the deliver function builds its own
// (awsconf).
func NewClient(ctx context.Context, endpoint string) (*sqs.Client, error) {
	cfg, err := awsconf.Load(ctx, awsconf.Options{Region: Region, AccessKeyID: "test", SecretAccessKey: "test", MaxAttempts: 1})
	if err != nil {
		return nil, err
	}
	return sqs.NewFromConfig(cfg, func(o *sqs.Options) { o.BaseEndpoint = aws.String(endpoint) }), nil
}

// CreateQueue makes queue name in the emulator at endpoint, with a
// dead-letter queue name-dlq after maxReceiveCount receives when that is
// above 0, and returns its URL.
func CreateQueue(ctx context.Context, endpoint, name string, maxReceiveCount ...int) (string, error) {
	client, err := NewClient(ctx, endpoint)
	if err != nil {
		return "", err
	}
	in := &sqs.CreateQueueInput{QueueName: aws.String(name), Attributes: map[string]string{}}
	if len(maxReceiveCount) > 0 && maxReceiveCount[0] > 0 {
		if _, err := client.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String(name + "-dlq")}); err != nil {
			return "", err
		}
		in.Attributes["RedrivePolicy"] = fmt.Sprintf(`{"deadLetterTargetArn":%q,"maxReceiveCount":%d}`, QueueARN(name+"-dlq"), maxReceiveCount[0])
	}
	out, err := client.CreateQueue(ctx, in)
	if err != nil {
		return "", err
	}
	return aws.ToString(out.QueueUrl), nil
}
