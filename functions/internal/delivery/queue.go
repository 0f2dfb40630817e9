package delivery

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"sync"
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

// sendWorkers is how many SendMessageBatch calls a dispatch has in
// flight: a version with 100,000 deliveries is 10,000 calls, some 25 s at
// 20 ms each eight at a time, within the function's 120 s.
const sendWorkers = 8

// send queues one message per delivery, in batches of ten, sendWorkers
// batches at a time. An entry SQS refuses fails the call: the dispatch is
// run again by the next schedule, and a delivery queued twice is sent
// once more at most (the receiver sees its Idempotency-Key twice).
func (q Queue) send(ctx context.Context, msgs []Message) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	batches := make(chan []Message)
	errs := make(chan error, sendWorkers)
	var wg sync.WaitGroup
	for range sendWorkers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for b := range batches {
				if err := q.sendBatch(ctx, b); err != nil {
					errs <- err
					cancel()
					for range batches {
					}
					return
				}
			}
		}()
	}
	for start := 0; start < len(msgs) && ctx.Err() == nil; start += sqsBatch {
		select {
		case batches <- msgs[start:min(start+sqsBatch, len(msgs))]:
		case <-ctx.Done():
		}
	}
	close(batches)
	wg.Wait()
	close(errs)
	var all []error
	for err := range errs {
		all = append(all, err)
	}
	return errors.Join(all...)
}

// sendBatch sends at most sqsBatch messages in one call.
func (q Queue) sendBatch(ctx context.Context, chunk []Message) error {
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
