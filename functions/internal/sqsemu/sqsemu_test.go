package sqsemu

import (
	"context"
	"errors"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
	"github.com/aws/smithy-go"
)

// clock is a test's time, moved by hand.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// newClient is the SDK's SQS client pointed at s, as the deliver function
// builds it (awsconf), with static credentials.
func newClient(t *testing.T, s *Server) *sqs.Client {
	t.Helper()
	ts := httptest.NewServer(s)
	t.Cleanup(ts.Close)
	client, err := NewClient(context.Background(), ts.URL)
	if err != nil {
		t.Fatal(err)
	}
	return client
}

// setup makes a queue with a visibility timeout of 30 s whose messages go
// to a dead-letter queue after 3 receives.
func setup(t *testing.T) (*Server, *clock, *sqs.Client, string, string) {
	c := &clock{t: time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)}
	s := New(c.now)
	client := newClient(t, s)
	ctx := context.Background()
	dlq, err := client.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("dlq")})
	if err != nil {
		t.Fatal(err)
	}
	q, err := client.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("work"), Attributes: map[string]string{
		"VisibilityTimeout": "30",
		"RedrivePolicy":     `{"deadLetterTargetArn":"` + QueueARN("dlq") + `","maxReceiveCount":"3"}`,
	}})
	if err != nil {
		t.Fatal(err)
	}
	return s, c, client, *q.QueueUrl, *dlq.QueueUrl
}

func code(err error) string {
	var ae smithy.APIError
	if errors.As(err, &ae) {
		return ae.ErrorCode()
	}
	return ""
}

func receive(t *testing.T, client *sqs.Client, url string, n int32) []types.Message {
	t.Helper()
	out, err := client.ReceiveMessage(context.Background(), &sqs.ReceiveMessageInput{QueueUrl: aws.String(url), MaxNumberOfMessages: n,
		MessageSystemAttributeNames: []types.MessageSystemAttributeName{types.MessageSystemAttributeNameApproximateReceiveCount}})
	if err != nil {
		t.Fatal(err)
	}
	return out.Messages
}

// Sending, receiving (the SDK checks the bodies' MD5), visibility, the
// latest receipt handle only, deleting.
func TestSendReceiveDelete(t *testing.T) {
	s, c, client, url, _ := setup(t)
	ctx := context.Background()
	if _, err := client.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: aws.String(url), MessageBody: aws.String(`{"n":1}`)}); err != nil {
		t.Fatal(err)
	}
	out, err := client.SendMessageBatch(ctx, &sqs.SendMessageBatchInput{QueueUrl: aws.String(url), Entries: []types.SendMessageBatchRequestEntry{
		{Id: aws.String("a"), MessageBody: aws.String(`{"n":2}`)},
		{Id: aws.String("b"), MessageBody: aws.String(`{"n":3}`), DelaySeconds: 60},
	}})
	if err != nil || len(out.Successful) != 2 || len(out.Failed) != 0 {
		t.Fatalf("batch: %+v %v", out, err)
	}
	got := receive(t, client, url, 10)
	if len(got) != 2 || *got[0].Body != `{"n":1}` || *got[1].Body != `{"n":2}` || got[0].Attributes["ApproximateReceiveCount"] != "1" {
		t.Fatalf("first receive: %d messages %+v, want n 1 and 2 (3 is delayed)", len(got), got)
	}
	if again := receive(t, client, url, 10); len(again) != 0 {
		t.Errorf("in flight, received again: %d", len(again))
	}
	c.add(61 * time.Second)
	got2 := receive(t, client, url, 10)
	if len(got2) != 3 || got2[0].Attributes["ApproximateReceiveCount"] != "2" || *got2[2].Body != `{"n":3}` {
		t.Fatalf("after the timeout: %+v, want all three, the first received twice", got2)
	}
	_, err = client.DeleteMessage(ctx, &sqs.DeleteMessageInput{QueueUrl: aws.String(url), ReceiptHandle: got[0].ReceiptHandle})
	if code(err) != "ReceiptHandleIsInvalid" {
		t.Errorf("delete with an old receipt handle: %v, want ReceiptHandleIsInvalid", err)
	}
	for _, m := range got2 {
		if _, err := client.DeleteMessage(ctx, &sqs.DeleteMessageInput{QueueUrl: aws.String(url), ReceiptHandle: m.ReceiptHandle}); err != nil {
			t.Fatal(err)
		}
	}
	if n := len(s.Messages("work")); n != 0 {
		t.Errorf("%d messages left after deleting all", n)
	}
}

// ChangeMessageVisibility moves a message's return, within 12 hours of its
// receive, on messages in flight only.
func TestChangeVisibility(t *testing.T) {
	s, c, client, url, _ := setup(t)
	ctx := context.Background()
	client.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: aws.String(url), MessageBody: aws.String("x")})
	m := receive(t, client, url, 1)[0]
	change := func(v int32) error {
		_, err := client.ChangeMessageVisibility(ctx, &sqs.ChangeMessageVisibilityInput{QueueUrl: aws.String(url), ReceiptHandle: m.ReceiptHandle, VisibilityTimeout: v})
		return err
	}
	if err := change(MaxVisibilitySeconds + 1); code(err) != "InvalidParameterValue" {
		t.Errorf("43201 s: %v, want InvalidParameterValue", err)
	}
	if err := change(7200); err != nil {
		t.Fatal(err)
	}
	if got := s.Messages("work")[0].VisibleIn; got != 2*time.Hour {
		t.Errorf("visible in %v, want 2h", got)
	}
	c.add(time.Hour)
	if err := change(MaxVisibilitySeconds); code(err) != "InvalidParameterValue" {
		t.Errorf("12 h more, an hour after the receive: %v, want InvalidParameterValue", err)
	}
	if err := change(0); err != nil {
		t.Fatal(err)
	}
	if err := change(60); code(err) != "MessageNotInflight" {
		t.Errorf("a visible message: %v, want MessageNotInflight", err)
	}
	if got := s.Calls("ChangeMessageVisibility"); got != 5 {
		t.Errorf("%d calls counted, want 5", got)
	}
}

// A message received maxReceiveCount times goes to the dead-letter queue
// instead of a fourth receive.
func TestRedrive(t *testing.T) {
	s, c, client, url, dlqURL := setup(t)
	ctx := context.Background()
	client.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: aws.String(url), MessageBody: aws.String("poison")})
	for i := 1; i <= 3; i++ {
		got := receive(t, client, url, 1)
		if len(got) != 1 || got[0].Attributes["ApproximateReceiveCount"] != strconv.Itoa(i) {
			t.Fatalf("receive %d: %+v", i, got)
		}
		c.add(31 * time.Second)
	}
	if got := receive(t, client, url, 1); len(got) != 0 {
		t.Fatalf("a fourth receive: %+v", got)
	}
	dead := receive(t, client, dlqURL, 10)
	if len(dead) != 1 || *dead[0].Body != "poison" || len(s.Messages("work")) != 0 {
		t.Errorf("dead-letter queue %+v, work %+v: want the message moved", dead, s.Messages("work"))
	}
}

// Bad calls get SQS's error codes through the SDK.
func TestErrors(t *testing.T) {
	_, _, client, url, _ := setup(t)
	ctx := context.Background()
	var entries []types.SendMessageBatchRequestEntry
	for i := range 11 {
		entries = append(entries, types.SendMessageBatchRequestEntry{Id: aws.String(strconv.Itoa(i)), MessageBody: aws.String("x")})
	}
	for name, err := range map[string]error{
		"TooManyEntriesInBatchRequest": func() error {
			_, err := client.SendMessageBatch(ctx, &sqs.SendMessageBatchInput{QueueUrl: aws.String(url), Entries: entries})
			return err
		}(),
		"BatchEntryIdsNotDistinct": func() error {
			_, err := client.SendMessageBatch(ctx, &sqs.SendMessageBatchInput{QueueUrl: aws.String(url), Entries: []types.SendMessageBatchRequestEntry{entries[0], entries[0]}})
			return err
		}(),
		"QueueDoesNotExist": func() error {
			_, err := client.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: aws.String(url + "-nope"), MessageBody: aws.String("x")})
			return err
		}(),
		"InvalidParameterValue": func() error {
			_, err := client.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: aws.String(url), MessageBody: aws.String(strings.Repeat("x", MaxMessageBytes+1))})
			return err
		}(),
	} {
		if code(err) != name {
			t.Errorf("want %s, got %v", name, err)
		}
	}
}

// Poll deletes what the handler did not report failed, and nothing when
// the handler fails.
func TestPoll(t *testing.T) {
	s, c, client, url, _ := setup(t)
	ctx := context.Background()
	for _, b := range []string{"ok", "fail", "ok2"} {
		client.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: aws.String(url), MessageBody: aws.String(b)})
	}
	res, err := Poll(ctx, client, url, 10, func(_ context.Context, ev events.SQSEvent) (events.SQSEventResponse, error) {
		var r events.SQSEventResponse
		for _, m := range ev.Records {
			if m.Body == "fail" {
				r.BatchItemFailures = append(r.BatchItemFailures, events.SQSBatchItemFailure{ItemIdentifier: m.MessageId})
			}
			if m.EventSourceARN != QueueARN("work") || m.Attributes["ApproximateReceiveCount"] != "1" {
				t.Errorf("record %+v", m)
			}
		}
		return r, nil
	})
	if err != nil || res != (PollResult{Received: 3, Deleted: 2, Failed: 1}) {
		t.Fatalf("poll: %+v %v", res, err)
	}
	c.add(31 * time.Second)
	res, err = Poll(ctx, client, url, 10, func(context.Context, events.SQSEvent) (events.SQSEventResponse, error) {
		return events.SQSEventResponse{}, errors.New("crash")
	})
	if err != nil || res != (PollResult{Received: 1, Failed: 1}) || len(s.Messages("work")) != 1 {
		t.Errorf("a failed handler: %+v %v, %d left", res, err, len(s.Messages("work")))
	}
}
