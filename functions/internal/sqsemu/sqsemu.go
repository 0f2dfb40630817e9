// Package sqsemu is a small in-process Amazon SQS for tests: standard
// queues spoken to over the AWS JSON 1.0 protocol that the SDK v2 client
// (github.com/aws/aws-sdk-go-v2/service/sqs) uses, so that the code under
// test makes its real calls. There is no SQS emulator among the tools the
// project installs (s3rver and dynoxide stand in for S3 and DynamoDB).
//
// What it does as SQS does:
//
//   - CreateQueue (attributes VisibilityTimeout and RedrivePolicy),
//     GetQueueUrl, SendMessage, SendMessageBatch (at most 10 entries, ids
//     unique), ReceiveMessage (1-10 messages, a visibility timeout of the
//     queue's or the call's, the system attributes asked for),
//     DeleteMessage and ChangeMessageVisibility (on a message in flight
//     only, to at most 43,200 s, 12 hours, after its receive);
//   - each receive hands out a new receipt handle and counts the message's
//     receives (ApproximateReceiveCount); only the latest handle deletes
//     or changes the message;
//   - a message whose receives reached the queue's maxReceiveCount is moved
//     to its dead-letter queue instead of being received again;
//   - the MD5 digests of bodies that the SDK checks, and SQS's error codes
//     for bad calls (InvalidParameterValue, ReceiptHandleIsInvalid,
//     MessageNotInflight, QueueDoesNotExist, ...).
//
// What it does not: FIFO queues, message attributes, long polling
// (ReceiveMessage answers at once), retention periods (messages stay
// until deleted), permissions and signatures (any credentials pass). Time is the Server's clock, which a test can move.
package sqsemu

import (
	"crypto/md5"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Limits of SQS that the emulator enforces.
const (
	MaxBatch             = 10                  // entries of a batch call, messages of a receive
	MaxVisibilitySeconds = 43200               // 12 hours
	MaxDelaySeconds      = 900                 // 15 minutes
	MaxMessageBytes      = 256 << 10           // a body, and a whole batch
	AccountID            = "000000000000"      // in queue URLs and ARNs
	Region               = "us-east-1"         // in ARNs
	defaultVisibility    = 30 * time.Second    // a queue's default visibility timeout
	targetPrefix         = "AmazonSQS."        // X-Amz-Target of every call
	errorNamespace       = "com.amazonaws.sqs" // of the __type of errors
)

// Server is the emulated SQS. Its zero value is not usable: see New.
type Server struct {
	mu     sync.Mutex
	now    func() time.Time
	queues map[string]*queue // by name
	calls  map[string]int    // by operation
}

type queue struct {
	name       string
	visibility time.Duration
	dlq        string // dead-letter queue's name, "" for none
	maxRecv    int
	msgs       []*message // in send order
}

type message struct {
	id, body, md5      string
	receipt            string // latest receipt handle, "" before the first receive
	receives           int
	sent, firstReceive time.Time
	received           time.Time // of the latest receive
	visibleAt          time.Time
}

// New returns a Server reading time from now (time.Now when nil).
func New(now func() time.Time) *Server {
	if now == nil {
		now = time.Now
	}
	return &Server{now: now, queues: map[string]*queue{}, calls: map[string]int{}}
}

// QueueARN is the ARN of queue name, as a redrive policy names it.
func QueueARN(name string) string {
	return "arn:aws:sqs:" + Region + ":" + AccountID + ":" + name
}

// Message is a snapshot of one message of a queue, for tests.
type Message struct {
	ID, Body  string
	Receives  int
	InFlight  bool          // received and not yet visible again
	VisibleIn time.Duration // until it is visible again (0 when visible)
}

// Messages returns the messages of queue name, in send order.
func (s *Server) Messages(name string) []Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	q := s.queues[name]
	if q == nil {
		return nil
	}
	now := s.now()
	var out []Message
	for _, m := range q.msgs {
		out = append(out, Message{ID: m.id, Body: m.body, Receives: m.receives, InFlight: m.visibleAt.After(now), VisibleIn: max(0, m.visibleAt.Sub(now))})
	}
	return out
}

// Calls returns how many times operation op (e.g. "ChangeMessageVisibility")
// was called, failed calls included.
func (s *Server) Calls(op string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.calls[op]
}

// apiError is an answer of SQS to a bad call.
type apiError struct {
	status int
	code   string
	msg    string
}

func (e *apiError) Error() string { return e.code + ": " + e.msg }

func invalid(format string, args ...any) *apiError {
	return &apiError{http.StatusBadRequest, "InvalidParameterValue", fmt.Sprintf(format, args...)}
}

// ServeHTTP answers one AWS JSON 1.0 call.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	op, ok := strings.CutPrefix(r.Header.Get("X-Amz-Target"), targetPrefix)
	if r.Method != http.MethodPost || !ok {
		writeError(w, &apiError{http.StatusBadRequest, "InvalidAction", "want POST with X-Amz-Target: AmazonSQS.<operation>"})
		return
	}
	var in map[string]json.RawMessage
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 4*MaxMessageBytes)).Decode(&in); err != nil {
		writeError(w, &apiError{http.StatusBadRequest, "MalformedInput", "the body is not a JSON object: " + err.Error()})
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls[op]++
	var out any
	var err *apiError
	switch op {
	case "CreateQueue":
		out, err = s.createQueue(r, in)
	case "GetQueueUrl":
		out, err = s.getQueueURL(r, in)
	case "SendMessage":
		out, err = s.sendMessage(in)
	case "SendMessageBatch":
		out, err = s.sendMessageBatch(in)
	case "ReceiveMessage":
		out, err = s.receiveMessage(in)
	case "DeleteMessage":
		out, err = s.deleteMessage(in)
	case "ChangeMessageVisibility":
		out, err = s.changeVisibility(in)
	default:
		err = &apiError{http.StatusBadRequest, "InvalidAction", "operation " + op + " is not emulated"}
	}
	if err != nil {
		writeError(w, err)
		return
	}
	w.Header().Set("Content-Type", "application/x-amz-json-1.0")
	json.NewEncoder(w).Encode(out)
}

func writeError(w http.ResponseWriter, e *apiError) {
	w.Header().Set("Content-Type", "application/x-amz-json-1.0")
	w.WriteHeader(e.status)
	json.NewEncoder(w).Encode(map[string]string{"__type": errorNamespace + "#" + e.code, "message": e.msg})
}

// field decodes in[name] into v; absent is not an error (ok false).
func field(in map[string]json.RawMessage, name string, v any) (ok bool, err *apiError) {
	raw, ok := in[name]
	if !ok || string(raw) == "null" {
		return false, nil
	}
	if e := json.Unmarshal(raw, v); e != nil {
		return false, invalid("%s: %v", name, e)
	}
	return true, nil
}

// queueOf finds the queue named by in's QueueUrl (its last path segment).
func (s *Server) queueOf(in map[string]json.RawMessage) (*queue, *apiError) {
	var u string
	if ok, err := field(in, "QueueUrl", &u); err != nil {
		return nil, err
	} else if !ok || u == "" {
		return nil, &apiError{http.StatusBadRequest, "MissingParameter", "QueueUrl is required"}
	}
	name := u[strings.LastIndexByte(u, '/')+1:]
	q := s.queues[name]
	if q == nil {
		return nil, &apiError{http.StatusBadRequest, "QueueDoesNotExist", "no queue " + u}
	}
	return q, nil
}

func queueURL(r *http.Request, name string) string {
	return "http://" + r.Host + "/" + AccountID + "/" + name
}

// redrivePolicy is the JSON of the RedrivePolicy attribute.
type redrivePolicy struct {
	DeadLetterTargetArn string `json:"deadLetterTargetArn"`
	MaxReceiveCount     any    `json:"maxReceiveCount"` // SQS takes "5" or 5
}

func (s *Server) createQueue(r *http.Request, in map[string]json.RawMessage) (any, *apiError) {
	var name string
	var attrs map[string]string
	if _, err := field(in, "QueueName", &name); err != nil {
		return nil, err
	}
	if _, err := field(in, "Attributes", &attrs); err != nil {
		return nil, err
	}
	if name == "" || len(name) > 80 || strings.Trim(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_") != "" {
		return nil, invalid("QueueName %q: 1-80 letters, digits, - and _", name)
	}
	q := &queue{name: name, visibility: defaultVisibility}
	for k, v := range attrs {
		switch k {
		case "VisibilityTimeout":
			n, err := strconv.Atoi(v)
			if err != nil || n < 0 || n > MaxVisibilitySeconds {
				return nil, invalid("VisibilityTimeout %q: 0-%d seconds", v, MaxVisibilitySeconds)
			}
			q.visibility = time.Duration(n) * time.Second
		case "RedrivePolicy":
			var p redrivePolicy
			if err := json.Unmarshal([]byte(v), &p); err != nil {
				return nil, invalid("RedrivePolicy: %v", err)
			}
			n, err := strconv.Atoi(strings.Trim(fmt.Sprint(p.MaxReceiveCount), `"`))
			if err != nil || n < 1 || n > 1000 {
				return nil, invalid("RedrivePolicy: maxReceiveCount %v: 1-1000", p.MaxReceiveCount)
			}
			dlq, ok := strings.CutPrefix(p.DeadLetterTargetArn, QueueARN(""))
			if !ok || s.queues[dlq] == nil || dlq == name {
				return nil, invalid("RedrivePolicy: deadLetterTargetArn %q is not an existing queue's ARN", p.DeadLetterTargetArn)
			}
			q.dlq, q.maxRecv = dlq, n
		default:
			return nil, invalid("attribute %s is not emulated", k)
		}
	}
	if old := s.queues[name]; old != nil {
		if old.visibility != q.visibility || old.dlq != q.dlq || old.maxRecv != q.maxRecv {
			return nil, &apiError{http.StatusBadRequest, "QueueNameExists", "queue " + name + " exists with other attributes"}
		}
		return map[string]string{"QueueUrl": queueURL(r, name)}, nil
	}
	s.queues[name] = q
	return map[string]string{"QueueUrl": queueURL(r, name)}, nil
}

func (s *Server) getQueueURL(r *http.Request, in map[string]json.RawMessage) (any, *apiError) {
	var name string
	if _, err := field(in, "QueueName", &name); err != nil {
		return nil, err
	}
	if s.queues[name] == nil {
		return nil, &apiError{http.StatusBadRequest, "QueueDoesNotExist", "no queue " + name}
	}
	return map[string]string{"QueueUrl": queueURL(r, name)}, nil
}

func newID() string {
	var b [16]byte
	rand.Read(b[:])
	h := hex.EncodeToString(b[:])
	return h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}

func md5Hex(s string) string {
	sum := md5.Sum([]byte(s))
	return hex.EncodeToString(sum[:])
}

// entry is a message to send: SendMessage's input or a batch's entry.
type entry struct {
	ID                string          `json:"Id"`
	MessageBody       *string         `json:"MessageBody"`
	DelaySeconds      *int            `json:"DelaySeconds"`
	MessageAttributes json.RawMessage `json:"MessageAttributes"`
	MessageGroupID    string          `json:"MessageGroupId"`
}

func (e entry) check() *apiError {
	switch {
	case e.MessageBody == nil || *e.MessageBody == "":
		return &apiError{http.StatusBadRequest, "MissingParameter", "MessageBody is required and not empty"}
	case len(*e.MessageBody) > MaxMessageBytes:
		return invalid("MessageBody of %d bytes: at most %d", len(*e.MessageBody), MaxMessageBytes)
	case e.DelaySeconds != nil && (*e.DelaySeconds < 0 || *e.DelaySeconds > MaxDelaySeconds):
		return invalid("DelaySeconds %d: 0-%d", *e.DelaySeconds, MaxDelaySeconds)
	case len(e.MessageAttributes) > 0 && string(e.MessageAttributes) != "null":
		return invalid("MessageAttributes are not emulated")
	case e.MessageGroupID != "":
		return invalid("MessageGroupId: FIFO queues are not emulated")
	}
	return nil
}

func (s *Server) enqueue(q *queue, e entry) *message {
	now := s.now()
	m := &message{id: newID(), body: *e.MessageBody, md5: md5Hex(*e.MessageBody), sent: now, visibleAt: now}
	if e.DelaySeconds != nil {
		m.visibleAt = now.Add(time.Duration(*e.DelaySeconds) * time.Second)
	}
	q.msgs = append(q.msgs, m)
	return m
}

func (s *Server) sendMessage(in map[string]json.RawMessage) (any, *apiError) {
	q, err := s.queueOf(in)
	if err != nil {
		return nil, err
	}
	var e entry
	raw, _ := json.Marshal(in)
	if err := json.Unmarshal(raw, &e); err != nil {
		return nil, invalid("%v", err)
	}
	if err := e.check(); err != nil {
		return nil, err
	}
	m := s.enqueue(q, e)
	return map[string]string{"MessageId": m.id, "MD5OfMessageBody": m.md5}, nil
}

type batchError struct {
	ID          string `json:"Id"`
	SenderFault bool   `json:"SenderFault"`
	Code        string `json:"Code"`
	Message     string `json:"Message"`
}

func (s *Server) sendMessageBatch(in map[string]json.RawMessage) (any, *apiError) {
	q, err := s.queueOf(in)
	if err != nil {
		return nil, err
	}
	var entries []entry
	if _, err := field(in, "Entries", &entries); err != nil {
		return nil, err
	}
	switch {
	case len(entries) == 0:
		return nil, &apiError{http.StatusBadRequest, "EmptyBatchRequest", "no entries"}
	case len(entries) > MaxBatch:
		return nil, &apiError{http.StatusBadRequest, "TooManyEntriesInBatchRequest", fmt.Sprintf("%d entries: at most %d", len(entries), MaxBatch)}
	}
	total, ids := 0, map[string]bool{}
	for _, e := range entries {
		if ids[e.ID] {
			return nil, &apiError{http.StatusBadRequest, "BatchEntryIdsNotDistinct", "entry id " + e.ID + " repeats"}
		}
		ids[e.ID] = true
		if e.MessageBody != nil {
			total += len(*e.MessageBody)
		}
	}
	if total > MaxMessageBytes {
		return nil, &apiError{http.StatusBadRequest, "BatchRequestTooLong", fmt.Sprintf("%d bytes of bodies: at most %d", total, MaxMessageBytes)}
	}
	type ok struct {
		ID               string `json:"Id"`
		MessageID        string `json:"MessageId"`
		MD5OfMessageBody string `json:"MD5OfMessageBody"`
	}
	out := struct {
		Successful []ok         `json:"Successful"`
		Failed     []batchError `json:"Failed"`
	}{Successful: []ok{}, Failed: []batchError{}}
	for _, e := range entries {
		if err := e.check(); err != nil {
			out.Failed = append(out.Failed, batchError{ID: e.ID, SenderFault: true, Code: err.code, Message: err.msg})
			continue
		}
		m := s.enqueue(q, e)
		out.Successful = append(out.Successful, ok{ID: e.ID, MessageID: m.id, MD5OfMessageBody: m.md5})
	}
	return out, nil
}

func (s *Server) receiveMessage(in map[string]json.RawMessage) (any, *apiError) {
	q, err := s.queueOf(in)
	if err != nil {
		return nil, err
	}
	n, vis := 1, q.visibility
	var v int
	var names, oldNames []string
	if ok, err := field(in, "MaxNumberOfMessages", &v); err != nil {
		return nil, err
	} else if ok {
		if v < 1 || v > MaxBatch {
			return nil, invalid("MaxNumberOfMessages %d: 1-%d", v, MaxBatch)
		}
		n = v
	}
	if ok, err := field(in, "VisibilityTimeout", &v); err != nil {
		return nil, err
	} else if ok {
		if v < 0 || v > MaxVisibilitySeconds {
			return nil, invalid("VisibilityTimeout %d: 0-%d", v, MaxVisibilitySeconds)
		}
		vis = time.Duration(v) * time.Second
	}
	if _, err := field(in, "MessageSystemAttributeNames", &names); err != nil {
		return nil, err
	}
	if _, err := field(in, "AttributeNames", &oldNames); err != nil {
		return nil, err
	}
	names = append(names, oldNames...)
	want := func(a string) bool { return slices.Contains(names, "All") || slices.Contains(names, a) }

	type msg struct {
		MessageID     string            `json:"MessageId"`
		ReceiptHandle string            `json:"ReceiptHandle"`
		MD5OfBody     string            `json:"MD5OfBody"`
		Body          string            `json:"Body"`
		Attributes    map[string]string `json:"Attributes,omitempty"`
	}
	out := struct {
		Messages []msg `json:"Messages,omitempty"`
	}{}
	now := s.now()
	kept := q.msgs[:0]
	for _, m := range q.msgs {
		if len(out.Messages) == n || m.visibleAt.After(now) {
			kept = append(kept, m)
			continue
		}
		if q.dlq != "" && m.receives >= q.maxRecv {
			// SQS moves a message past its receives to the dead-letter
			// queue when it would hand it out again; it keeps its id,
			// body and sent time, and its receive count.
			dlq := s.queues[q.dlq]
			m.receipt, m.visibleAt = "", now
			dlq.msgs = append(dlq.msgs, m)
			continue
		}
		m.receives++
		if m.receives == 1 {
			m.firstReceive = now
		}
		m.receipt = m.id + "#" + newID()
		m.received, m.visibleAt = now, now.Add(vis)
		kept = append(kept, m)
		o := msg{MessageID: m.id, ReceiptHandle: m.receipt, MD5OfBody: m.md5, Body: m.body, Attributes: map[string]string{}}
		for a, val := range map[string]string{
			"ApproximateReceiveCount":          strconv.Itoa(m.receives),
			"SentTimestamp":                    strconv.FormatInt(m.sent.UnixMilli(), 10),
			"ApproximateFirstReceiveTimestamp": strconv.FormatInt(m.firstReceive.UnixMilli(), 10),
			"SenderId":                         AccountID,
		} {
			if want(a) {
				o.Attributes[a] = val
			}
		}
		out.Messages = append(out.Messages, o)
	}
	q.msgs = kept
	return out, nil
}

// byReceipt finds the message of q whose latest receipt handle is h.
func byReceipt(q *queue, in map[string]json.RawMessage) (int, *apiError) {
	var h string
	if _, err := field(in, "ReceiptHandle", &h); err != nil {
		return 0, err
	}
	if h == "" {
		return 0, &apiError{http.StatusBadRequest, "MissingParameter", "ReceiptHandle is required"}
	}
	for i, m := range q.msgs {
		if m.receipt == h {
			return i, nil
		}
	}
	return 0, &apiError{http.StatusBadRequest, "ReceiptHandleIsInvalid", "receipt handle " + h + " is not the latest of a message of the queue"}
}

func (s *Server) deleteMessage(in map[string]json.RawMessage) (any, *apiError) {
	q, err := s.queueOf(in)
	if err != nil {
		return nil, err
	}
	i, err := byReceipt(q, in)
	if err != nil {
		return nil, err
	}
	q.msgs = slices.Delete(q.msgs, i, i+1)
	return struct{}{}, nil
}

func (s *Server) changeVisibility(in map[string]json.RawMessage) (any, *apiError) {
	q, err := s.queueOf(in)
	if err != nil {
		return nil, err
	}
	var v int
	if ok, err := field(in, "VisibilityTimeout", &v); err != nil {
		return nil, err
	} else if !ok {
		return nil, &apiError{http.StatusBadRequest, "MissingParameter", "VisibilityTimeout is required"}
	}
	if v < 0 || v > MaxVisibilitySeconds {
		return nil, invalid("VisibilityTimeout %d: 0-%d", v, MaxVisibilitySeconds)
	}
	i, err := byReceipt(q, in)
	if err != nil {
		return nil, err
	}
	m, now := q.msgs[i], s.now()
	if !m.visibleAt.After(now) {
		return nil, &apiError{http.StatusBadRequest, "MessageNotInflight", "message " + m.id + " is not in flight"}
	}
	// A message stays in flight at most 12 hours from its receive, however
	// its timeout is changed.
	until := now.Add(time.Duration(v) * time.Second)
	if until.After(m.received.Add(MaxVisibilitySeconds * time.Second)) {
		return nil, invalid("VisibilityTimeout %d: past %d seconds from the message's receive", v, MaxVisibilitySeconds)
	}
	m.visibleAt = until
	return struct{}{}, nil
}
