package dynamokv_test

import (
	"context"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/google/go-cmp/cmp"
	"github.com/truora/minidyn/server"

	"meridian/shared/apierr"
	"meridian/shared/kv"
	"meridian/shared/kv/dynamokv"
	"meridian/shared/kv/kvtest"
)

// newClient returns an SDK client for the DynamoDB endpoint, with the
// package's retry settings.
func newClient(tb testing.TB, endpoint, accessKey, secretKey string, noChecksum bool) *dynamodb.Client {
	tb.Helper()
	client, err := dynamokv.NewClient(context.Background(), dynamokv.ClientOptions{
		Region:                  "us-east-1",
		Endpoint:                endpoint,
		AccessKeyID:             accessKey,
		SecretAccessKey:         secretKey,
		DisableResponseChecksum: noChecksum,
	})
	if err != nil {
		tb.Fatal(err)
	}
	return client
}

// newMinidyn starts an in-process minidyn server and returns a client for
// it. minidyn sends no valid CRC32: the checksum check is off.
func newMinidyn(tb testing.TB) *dynamodb.Client {
	ts := httptest.NewServer(server.NewServer())
	tb.Cleanup(ts.Close)
	return newClient(tb, ts.URL, "test", "test", true)
}

var tableSeq atomic.Int64

// newTable creates a table of its own for a test and deletes it afterwards.
func newTable(tb testing.TB, client *dynamodb.Client) string {
	tb.Helper()
	table := fmt.Sprintf("kvtest-%d-%d", time.Now().UnixNano(), tableSeq.Add(1))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := dynamokv.CreateTable(ctx, client, table); err != nil {
		tb.Fatalf("CreateTable(%s): %v", table, err)
	}
	tb.Cleanup(func() {
		client.DeleteTable(context.Background(), &dynamodb.DeleteTableInput{TableName: aws.String(table)})
	})
	return table
}

func TestDynamoContract(t *testing.T) {
	kvtest.Run(t, func(t *testing.T) kv.Store {
		// One server per store: minidyn v0.8.2 changes its map of tables
		// in CreateTable and DeleteTable without its lock (a data race with
		// calls on other tables), and serializes all calls behind that lock.
		client := newMinidyn(t)
		// minidyn sorts all keys on every insert: on a busy machine a call
		// can take seconds.
		return dynamokv.New(client, newTable(t, client), dynamokv.Options{Timeout: 30 * time.Second})
	})
}

// TestDynamoContractExternal runs the contract against the DynamoDB
// emulator at MERIDIAN_DYNAMODB_ENDPOINT (see the package doc), and is
// skipped without it.
func TestDynamoContractExternal(t *testing.T) {
	endpoint := os.Getenv("MERIDIAN_DYNAMODB_ENDPOINT")
	if endpoint == "" {
		t.Skip("MERIDIAN_DYNAMODB_ENDPOINT not set")
	}
	client := newClient(t, endpoint, envOr("MERIDIAN_DYNAMODB_ACCESS_KEY", "test"), envOr("MERIDIAN_DYNAMODB_SECRET_KEY", "test"), false)
	kvtest.Run(t, func(t *testing.T) kv.Store {
		// An emulator on a shared CI machine can be slow: allow it more
		// than the production default before calling it unavailable.
		return dynamokv.New(client, newTable(t, client), dynamokv.Options{Timeout: 20 * time.Second})
	})
}

func envOr(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}

func TestCreateTableExists(t *testing.T) {
	client := newMinidyn(t)
	table := newTable(t, client)
	if err := dynamokv.CreateTable(t.Context(), client, table); err != nil {
		t.Errorf("CreateTable of an existing table = %v, want nil", err)
	}
}

// dynamoError answers every request with a DynamoDB JSON error, with the
// CRC32 header DynamoDB sends.
func dynamoError(status int, code string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		body := fmt.Sprintf(`{"__type":"com.amazonaws.dynamodb.v20120810#%s","message":"canned %s"}`, code, code)
		w.Header().Set("Content-Type", "application/x-amz-json-1.0")
		w.Header().Set("X-Amzn-Errortype", code)
		w.Header().Set("X-Amz-Crc32", strconv.FormatUint(uint64(crc32.ChecksumIEEE([]byte(body))), 10))
		w.WriteHeader(status)
		io.WriteString(w, body)
	}
}

// refusedEndpoint returns the URL of a port nothing listens on.
func refusedEndpoint(t *testing.T) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return "http://" + addr
}

// TestDynamoUnavailable: a DynamoDB that refuses connections, fails, throttles
// or hangs gives a 503 from every operation within a bounded time.
func TestDynamoUnavailable(t *testing.T) {
	tests := []struct {
		name     string
		handler  http.Handler // nil: connection refused
		attempts int64        // requests per call, retries included; 0: not checked
	}{
		{"refused", nil, 0},
		{"InternalServerError", dynamoError(500, "InternalServerError"), 3},
		{"ServiceUnavailable", dynamoError(503, "ServiceUnavailable"), 3},
		{"ThrottlingException", dynamoError(400, "ThrottlingException"), 3},
		{"ProvisionedThroughputExceeded", dynamoError(400, "ProvisionedThroughputExceededException"), 3},
		{"ResourceNotFound", dynamoError(400, "ResourceNotFoundException"), 1},
		{"hung", nil, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			endpoint := ""
			var calls atomic.Int64
			handler := tc.handler
			if tc.name == "hung" {
				// Answers nothing until the test ends.
				hang := make(chan struct{})
				handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					select {
					case <-hang:
					case <-r.Context().Done():
					}
				})
				defer close(hang) // before the server's Close, which waits for handlers
			}
			if handler == nil {
				endpoint = refusedEndpoint(t)
			} else {
				ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					calls.Add(1)
					handler.ServeHTTP(w, r)
				}))
				t.Cleanup(ts.Close)
				endpoint = ts.URL
			}
			// Generous for a loaded CI machine; the point is a bound, far
			// below a Lambda's or a client's patience.
			timeout := 2 * time.Second
			if tc.name == "hung" {
				timeout = time.Second
			}
			// Writes retry a throttled batch BatchWriteAttempts times
			// (TestDynamoWriteRetries); two keep this test about the bound.
			s := dynamokv.New(newClient(t, endpoint, "test", "test", false), "reports", dynamokv.Options{Timeout: timeout, BatchWriteAttempts: 2})
			ctx := t.Context()
			ops := []struct {
				name string
				fn   func() error
			}{
				{"Get", func() error { _, _, err := s.Get(ctx, "pk", "sk"); return err }},
				{"Query", func() error { _, err := s.Query(ctx, kv.Query{PK: "pk"}); return err }},
				{"Put", func() error { return s.Put(ctx, []kv.Item{{PK: "pk", SK: "sk", Data: []byte("x")}}) }},
				{"Put60", func() error {
					items := make([]kv.Item, 60)
					for i := range items {
						items[i] = kv.Item{PK: "pk", SK: fmt.Sprint(i)}
					}
					return s.Put(ctx, items)
				}},
				{"Delete", func() error { return s.Delete(ctx, []kv.Key{{PK: "pk", SK: "sk"}}) }},
				{"ScanKeys", func() error { return s.ScanKeys(ctx, "x@", func([]kv.Key) error { return nil }) }},
				{"Open", func() error { _, _, err := kv.Open(ctx, s, "wells"); return err }},
				{"Publish", func() error {
					_, err := kv.Publish(ctx, s, kv.DatasetInfo{Name: "wells"}, func(*kv.Writer) error { return nil })
					return err
				}},
			}
			for _, op := range ops {
				calls.Store(0)
				start := time.Now()
				err := op.fn()
				elapsed := time.Since(start)
				kvtest.CheckUnavailable(t, op.name, err)
				if elapsed > 3*timeout {
					t.Errorf("%s took %v, want a fast failure", op.name, elapsed)
				}
				if n := calls.Load(); tc.attempts > 0 && op.name == "Get" && n != tc.attempts {
					t.Errorf("%s sent %d requests, want %d", op.name, n, tc.attempts)
				}
			}
		})
	}
}

func TestDynamoValidationIsNotUnavailable(t *testing.T) {
	ts := httptest.NewServer(dynamoError(400, "ValidationException"))
	t.Cleanup(ts.Close)
	s := dynamokv.New(newClient(t, ts.URL, "test", "test", false), "reports", dynamokv.Options{})
	_, _, err := s.Get(t.Context(), "pk", "sk")
	if err == nil || apierr.As(err) != nil {
		t.Errorf("Get answered by ValidationException = %v; want a plain (500) error", err)
	}
}

func TestDynamoCanceled(t *testing.T) {
	client := newMinidyn(t)
	s := dynamokv.New(client, newTable(t, client), dynamokv.Options{})
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	_, _, err := s.Get(ctx, "pk", "sk")
	if !errors.Is(err, context.Canceled) || apierr.As(err) != nil {
		t.Errorf("Get with a canceled context = %v; want context.Canceled, not a 503", err)
	}
}

// throttledBatches writes only the first half of each BatchWriteItem and
// returns the rest as UnprocessedItems, as DynamoDB does when a partition is
// throttled; with always set it writes nothing.
type throttledBatches struct {
	dynamokv.API
	always bool
	calls  atomic.Int64
}

func (f *throttledBatches) BatchWriteItem(ctx context.Context, in *dynamodb.BatchWriteItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.BatchWriteItemOutput, error) {
	f.calls.Add(1)
	if f.always {
		return &dynamodb.BatchWriteItemOutput{UnprocessedItems: in.RequestItems}, nil
	}
	unprocessed := map[string][]types.WriteRequest{}
	done := map[string][]types.WriteRequest{}
	for table, reqs := range in.RequestItems {
		half := (len(reqs) + 1) / 2
		done[table] = reqs[:half]
		if len(reqs[half:]) > 0 {
			unprocessed[table] = reqs[half:]
		}
	}
	if _, err := f.API.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: done}, opts...); err != nil {
		return nil, err
	}
	return &dynamodb.BatchWriteItemOutput{UnprocessedItems: unprocessed}, nil
}

func TestDynamoUnprocessedItems(t *testing.T) {
	client := newMinidyn(t)
	table := newTable(t, client)
	ctx := t.Context()
	f := &throttledBatches{API: client}
	s := dynamokv.New(f, table, dynamokv.Options{})
	items := make([]kv.Item, 100)
	for i := range items {
		items[i] = kv.Item{PK: "pk", SK: fmt.Sprintf("%03d", i), Data: []byte{byte(i)}}
	}
	if err := s.Put(ctx, items); err != nil {
		t.Fatalf("Put with throttled batches: %v", err)
	}
	// 4 batches of 25 take 25 -> 12 -> 6 -> 3 -> 1 -> 0: 5 calls each.
	if n := f.calls.Load(); n != 20 {
		t.Errorf("BatchWriteItem calls = %d, want 20", n)
	}
	page, err := s.Query(ctx, kv.Query{PK: "pk"})
	if err != nil || len(page.Items) != 100 {
		t.Errorf("Query after Put = %d items, %v; want 100", len(page.Items), err)
	}

	stuck := &throttledBatches{API: client, always: true}
	s = dynamokv.New(stuck, table, dynamokv.Options{BatchWriteAttempts: 3})
	start := time.Now()
	err = s.Delete(ctx, []kv.Key{{PK: "pk", SK: "000"}})
	kvtest.CheckUnavailable(t, "Delete with a batch never processed", err)
	if n := stuck.calls.Load(); n != 3 || time.Since(start) > 2*time.Second {
		t.Errorf("Delete with a batch never processed: %d calls in %v, want 3 and fast", n, time.Since(start))
	}
}

// readFlags records the ConsistentRead flag of each GetItem and Query, by
// partition key.
type readFlags struct {
	dynamokv.API
	mu   sync.Mutex
	seen map[string][]bool
}

func (r *readFlags) note(pk types.AttributeValue, consistent *bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	s, _ := pk.(*types.AttributeValueMemberS)
	if s != nil {
		r.seen[s.Value] = append(r.seen[s.Value], aws.ToBool(consistent))
	}
}

func (r *readFlags) GetItem(ctx context.Context, in *dynamodb.GetItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.GetItemOutput, error) {
	r.note(in.Key["pk"], in.ConsistentRead)
	return r.API.GetItem(ctx, in, opts...)
}

func (r *readFlags) Query(ctx context.Context, in *dynamodb.QueryInput, opts ...func(*dynamodb.Options)) (*dynamodb.QueryOutput, error) {
	r.note(in.ExpressionAttributeValues[":pk"], in.ConsistentRead)
	return r.API.Query(ctx, in, opts...)
}

// TestDynamoConsistentReads: without DynamoOptions.ConsistentRead, the
// dataset pointer and version counter are read strongly consistently, and
// so are the items of a version published less than kv.SettleWindow ago;
// other reads are eventually consistent.
func TestDynamoConsistentReads(t *testing.T) {
	client := newMinidyn(t)
	rec := &readFlags{API: client, seen: map[string][]bool{}}
	s := dynamokv.New(rec, newTable(t, client), dynamokv.Options{Timeout: 30 * time.Second})
	ctx := t.Context()
	v, err := kv.Publish(ctx, s, kv.DatasetInfo{Name: "wells", Source: "test"}, func(w *kv.Writer) error {
		return w.Put("LSD#1", "a", map[string]int{"n": 1})
	})
	if err != nil || v != 1 {
		t.Fatalf("Publish = %d, %v", v, err)
	}
	d, ok, err := kv.Open(ctx, s, "wells")
	if err != nil || !ok {
		t.Fatalf("Open = %v, %v", ok, err)
	}
	if it, ok, err := d.Get(ctx, "LSD#1", "a"); err != nil || !ok || it.PK != "LSD#1" || string(it.Data) != `{"n":1}` {
		t.Errorf("Dataset.Get of a fresh version = %+v, %v, %v", it, ok, err)
	}
	if _, ok, err := d.Get(ctx, "LSD#1", "b"); err != nil || ok {
		t.Errorf("Dataset.Get of a missing item = %v, %v", ok, err)
	}
	if _, err := d.Query(ctx, kv.Query{PK: "LSD#1"}); err != nil {
		t.Fatal(err)
	}
	s.Get(ctx, "OTHER", "x")
	want := map[string][]bool{
		kv.DatasetPK:     {true, true}, // Publish's reservation, Open
		kv.LastVersionPK: {true},
		"wells@1#LSD#1":  {true, true, true},
		"OTHER":          {false},
	}
	if diff := cmp.Diff(want, rec.seen); diff != "" {
		t.Errorf("ConsistentRead by partition (-want +got):\n%s", diff)
	}
}
