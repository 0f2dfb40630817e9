package delivery

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
)

// MaxVisibility is the longest a failed delivery's message stays hidden:
// SQS allows 12 hours from the receive; a few minutes are left for the
// time the invocation took before it changes the visibility.
const MaxVisibility = 12*time.Hour - 5*time.Minute

// sqsBatch is SQS' most entries in one SendMessageBatch.
const sqsBatch = 10

// Message is the body of a delivery's SQS message: which delivery of
// which watch to send. The delivery itself (its changes, its attempts) is
// in the watches table.
type Message struct {
	Watch    string `json:"watch_id"`
	Delivery string `json:"delivery_id"`
}

// QueueAPI is the part of *sqs.Client the function uses.
type QueueAPI interface {
	SendMessageBatch(ctx context.Context, in *sqs.SendMessageBatchInput, opts ...func(*sqs.Options)) (*sqs.SendMessageBatchOutput, error)
	ChangeMessageVisibility(ctx context.Context, in *sqs.ChangeMessageVisibilityInput, opts ...func(*sqs.Options)) (*sqs.ChangeMessageVisibilityOutput, error)
}

// queue is the delivery queue (DELIVERY_QUEUE_URL).
type Queue struct {
	API QueueAPI
	URL string
}

// send queues one message per delivery, in batches of ten. An entry SQS
// refuses fails the call: the dispatch is run again by the next schedule,
// and a delivery queued twice is sent once more at most (the receiver
// sees its Idempotency-Key twice).
func (q Queue) send(ctx context.Context, msgs []Message) error {
	for start := 0; start < len(msgs); start += sqsBatch {
		chunk := msgs[start:min(start+sqsBatch, len(msgs))]
		in := &sqs.SendMessageBatchInput{QueueUrl: aws.String(q.URL)}
		for i, m := range chunk {
			b, err := json.Marshal(m)
			if err != nil {
				return err
			}
			in.Entries = append(in.Entries, types.SendMessageBatchRequestEntry{Id: aws.String(strconv.Itoa(i)), MessageBody: aws.String(string(b))})
		}
		out, err := q.API.SendMessageBatch(ctx, in)
		if err != nil {
			return fmt.Errorf("delivery: queue %d deliveries: %w", len(chunk), err)
		}
		if len(out.Failed) > 0 {
			var errs []error
			for _, f := range out.Failed {
				errs = append(errs, fmt.Errorf("entry %s: %s: %s", aws.ToString(f.Id), aws.ToString(f.Code), aws.ToString(f.Message)))
			}
			return fmt.Errorf("delivery: queue deliveries: %w", errors.Join(errs...))
		}
	}
	return nil
}

// retryIn hides a received message for d (at most MaxVisibility), after
// which SQS hands it out again: the next attempt of its delivery.
func (q Queue) retryIn(ctx context.Context, receipt string, d time.Duration) error {
	secs := int32(min(max(d, 0), MaxVisibility) / time.Second)
	_, err := q.API.ChangeMessageVisibility(ctx, &sqs.ChangeMessageVisibilityInput{
		QueueUrl: aws.String(q.URL), ReceiptHandle: aws.String(receipt), VisibilityTimeout: secs,
	})
	if err != nil {
		return fmt.Errorf("delivery: retry in %v: %w", d, err)
	}
	return nil
}
