package dynamokv_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"

	"meridian/shared/apierr"
	"meridian/shared/kv"
	"meridian/shared/kv/dynamokv"
)

// unreliable sits between a Store and the emulator and makes its
// BatchWriteItem calls behave as a busy table's: a call is refused with a
// throttling error (ProvisionedThroughputExceededException) with
// probability throttle, and each request of a call that goes through is
// left unprocessed with probability unprocessed (the rest are written).
// failPK makes every put of a partition key containing it unprocessed,
// always. It records the calls in flight at once, their peak, and the
// requests written.
type unreliable struct {
	dynamokv.API
	throttle, unprocessed float64
	failPK                string
	delay                 time.Duration                                 // added to each call
	delayFor              func(reqs []types.WriteRequest) time.Duration // more delay, by the requests of a call
	onCall                func(n int64)                                 // called with the call's number (1, 2, ...) before it runs

	mu        sync.Mutex
	rng       *rand.Rand
	inFlight  int
	peak      int
	calls     atomic.Int64
	written   atomic.Int64
	throttled atomic.Int64
	left      atomic.Int64
}

func newUnreliable(api dynamokv.API, throttle, unprocessed float64) *unreliable {
	return &unreliable{API: api, throttle: throttle, unprocessed: unprocessed, rng: rand.New(rand.NewPCG(17, 25))}
}

func (u *unreliable) BatchWriteItem(ctx context.Context, in *dynamodb.BatchWriteItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.BatchWriteItemOutput, error) {
	n := u.calls.Add(1)
	if u.onCall != nil {
		u.onCall(n)
	}
	u.mu.Lock()
	u.inFlight++
	u.peak = max(u.peak, u.inFlight)
	throttled := u.rng.Float64() < u.throttle
	do := map[string][]types.WriteRequest{}
	left := map[string][]types.WriteRequest{}
	for table, reqs := range in.RequestItems {
		for _, r := range reqs {
			fail := u.rng.Float64() < u.unprocessed
			if r.PutRequest != nil && u.failPK != "" {
				pk, _ := r.PutRequest.Item["pk"].(*types.AttributeValueMemberS)
				fail = fail || pk != nil && strings.Contains(pk.Value, u.failPK)
			}
			if fail {
				left[table] = append(left[table], r)
			} else {
				do[table] = append(do[table], r)
			}
		}
	}
	u.mu.Unlock()
	defer func() {
		u.mu.Lock()
		u.inFlight--
		u.mu.Unlock()
	}()
	if u.delay > 0 {
		time.Sleep(u.delay)
	}
	if u.delayFor != nil {
		for _, reqs := range in.RequestItems {
			time.Sleep(u.delayFor(reqs))
		}
	}
	if throttled {
		u.throttled.Add(1)
		return nil, &smithy.GenericAPIError{Code: "ProvisionedThroughputExceededException", Message: "injected throttling"}
	}
	if len(do) > 0 {
		if _, err := u.API.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: do}, opts...); err != nil {
			return nil, err
		}
	}
	for _, reqs := range do {
		u.written.Add(int64(len(reqs)))
	}
	for _, reqs := range left {
		u.left.Add(int64(len(reqs)))
	}
	return &dynamodb.BatchWriteItemOutput{UnprocessedItems: left}, nil
}

func (u *unreliable) peakInFlight() int {
	u.mu.Lock()
	defer u.mu.Unlock()
	return u.peak
}

// wellRecord is the data of item i of generation gen.
func wellRecord(gen, i int) []byte { return fmt.Appendf(nil, `{"gen":%d,"i":%d}`, gen, i) }

// publishWells publishes n items of generation gen in partitions of 100.
func publishWells(ctx context.Context, s kv.Store, gen, n int) (kv.Version, error) {
	return kv.Publish(ctx, s, kv.DatasetInfo{Name: "wells", Source: "test"}, func(w *kv.Writer) error {
		for i := range n {
			if err := w.PutRaw(fmt.Sprintf("LSD#%04d", i/100), fmt.Sprintf("W%06d", i), wellRecord(gen, i)); err != nil {
				return err
			}
		}
		return nil
	})
}

// checkWells checks that the store serves exactly n items of generation
// gen.
func checkWells(t *testing.T, s kv.Store, gen, n int) {
	t.Helper()
	ctx := t.Context()
	d, ok, err := kv.Open(ctx, s, "wells")
	if err != nil || !ok {
		t.Fatalf("Open(wells) = %v, %v", ok, err)
	}
	got := 0
	for p := 0; p*100 < n; p++ {
		q := kv.Query{PK: fmt.Sprintf("LSD#%04d", p)}
		for {
			page, err := d.Query(ctx, q)
			if err != nil {
				t.Fatal(err)
			}
			for _, it := range page.Items {
				var i int
				fmt.Sscanf(it.SK, "W%06d", &i)
				if string(it.Data) != string(wellRecord(gen, i)) {
					t.Fatalf("item %s/%s = %s, want %s", it.PK, it.SK, it.Data, wellRecord(gen, i))
				}
				got++
			}
			if page.Next == "" {
				break
			}
			q.After = page.Next
		}
	}
	if got != n || d.Items != n {
		t.Errorf("wells version %d serves %d items (pointer says %d), want %d", d.Version, got, d.Items, n)
	}
}

// TestDynamoWriteRetries: a publish through a table that throttles a share
// of the calls and leaves a share of the items unprocessed writes every
// item, from at most WriteConcurrency calls at once.
func TestDynamoWriteRetries(t *testing.T) {
	client := newMinidyn(t)
	table := newTable(t, client)
	u := newUnreliable(client, 0.2, 0.3)
	const workers, n = 6, 3000
	s := dynamokv.New(u, table, dynamokv.Options{Timeout: 30 * time.Second, WriteConcurrency: workers,
		BatchWriteAttempts: 40, MaxBackoff: 5 * time.Millisecond})
	if v, err := publishWells(t.Context(), s, 1, n); err != nil || v != 1 {
		t.Fatalf("Publish through an unreliable table = %d, %v; want version 1", v, err)
	}
	checkWells(t, s, 1, n)
	st := s.WriteStats()
	if st.Written != n || u.written.Load() != n {
		t.Errorf("WriteStats().Written = %d, table wrote %d; want %d", st.Written, u.written.Load(), n)
	}
	if st.Throttled == 0 || st.Throttled != u.throttled.Load() || st.Unprocessed == 0 || st.Unprocessed != u.left.Load() {
		t.Errorf("WriteStats() = %+v; table throttled %d calls and left %d items unprocessed", st, u.throttled.Load(), u.left.Load())
	}
	if st.Calls != u.calls.Load() {
		t.Errorf("WriteStats().Calls = %d, table saw %d", st.Calls, u.calls.Load())
	}
	if p := u.peakInFlight(); p > workers || p < 2 {
		t.Errorf("peak BatchWriteItem calls in flight = %d, want 2..%d", p, workers)
	}
	t.Logf("%d items: %+v, peak %d calls in flight", n, st, u.peakInFlight())
}

// TestDynamoWriteBounds: whatever the number of workers, at most that many
// BatchWriteItem calls are in flight, the workers are all used, and the
// items handed to a Writer but not yet written stay within
// (2*workers+1)*25: the memory bound of a publish.
func TestDynamoWriteBounds(t *testing.T) {
	client := newMinidyn(t)
	table := newTable(t, client)
	for _, workers := range []int{1, 3, 8} {
		u := newUnreliable(client, 0, 0)
		u.delay = 3 * time.Millisecond // calls overlap however fast the emulator
		s := dynamokv.New(u, table, dynamokv.Options{Timeout: 30 * time.Second, WriteConcurrency: workers})
		bound := int64((2*workers + 1) * 25)
		var worst int64
		_, err := kv.Publish(t.Context(), s, kv.DatasetInfo{Name: fmt.Sprintf("bounds%d", workers)}, func(w *kv.Writer) error {
			for i := range 1500 {
				if err := w.PutRaw("P", fmt.Sprintf("%05d", i), []byte("x")); err != nil {
					return err
				}
				worst = max(worst, int64(i+1)-u.written.Load())
			}
			return nil
		})
		if err != nil {
			t.Fatalf("workers %d: Publish: %v", workers, err)
		}
		if p := u.peakInFlight(); p != workers {
			t.Errorf("workers %d: peak BatchWriteItem calls in flight = %d, want %d", workers, p, workers)
		}
		if worst > bound {
			t.Errorf("workers %d: up to %d items handed over and not yet written, want at most %d", workers, worst, bound)
		}
		t.Logf("workers %d: peak %d calls in flight, at most %d items pending (bound %d)", workers, u.peakInFlight(), worst, bound)
	}
}

// TestDynamoPublishKeepsFailing: a publish whose items the table never
// takes stops after BatchWriteAttempts with an Unavailable error that says
// so, the version served before stays served, whole, and the failed
// version's items are deleted.
func TestDynamoPublishKeepsFailing(t *testing.T) {
	client := newMinidyn(t)
	table := newTable(t, client)
	ctx := t.Context()
	good := dynamokv.New(client, table, dynamokv.Options{Timeout: 30 * time.Second})
	if _, err := publishWells(ctx, good, 1, 500); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name     string
		throttle float64
		want     string
	}{
		{"unprocessed", 0, "still unprocessed after 4 attempts"},
		{"throttled", 1, "still throttled after 4 attempts"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			u := newUnreliable(client, 0, 0)
			u.failPK = "wells@" // every put of a dataset item; deletes and the control items go through
			s := dynamokv.New(u, table, dynamokv.Options{Timeout: 30 * time.Second, WriteConcurrency: 4,
				BatchWriteAttempts: 4, MaxBackoff: 20 * time.Millisecond})
			if tc.throttle > 0 {
				u.failPK, u.throttle = "", 1 // every batch write
			}
			start := time.Now()
			v, err := publishWells(ctx, s, 2, 2000)
			took := time.Since(start)
			e := apierr.As(err)
			if v != 0 || e == nil || e.Kind != apierr.Unavailable || !errors.Is(err, kv.ErrUnavailable) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Publish that keeps failing = %d, %v; want an Unavailable error saying %q", v, err, tc.want)
			}
			if took > 10*time.Second {
				t.Errorf("Publish that keeps failing took %v", took)
			}
			// Stopped at the first failed batch: far fewer calls than the 80
			// batches of the version.
			if c := u.calls.Load(); c > 4*(4+2*4) {
				t.Errorf("Publish that keeps failing made %d BatchWriteItem calls, want it to stop at the first failed batch", c)
			}
			checkWells(t, good, 1, 500)
			if tc.throttle == 0 {
				// Deletes went through: nothing of the failed version is left.
				if keys := versionKeys(t, good, "wells"); len(keys) != 1 || keys["wells@1#"] != 500 {
					t.Errorf("items by version after the failed publish = %v, want only version 1's 500", keys)
				}
			}
			t.Logf("%v after %d calls in %v", err, u.calls.Load(), took.Round(time.Millisecond))
		})
	}
}

// versionKeys counts the stored items of dataset name by version prefix.
func versionKeys(t *testing.T, s kv.Store, name string) map[string]int {
	t.Helper()
	got := map[string]int{}
	err := s.ScanKeys(t.Context(), name+"@", func(keys []kv.Key) error {
		for _, k := range keys {
			v, _, _ := strings.Cut(k.PK, "#")
			got[v+"#"]++
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// TestDynamoPublishCanceled: canceling a publish's context stops its
// writes promptly with an error wrapping context.Canceled, and the
// version served stays served.
func TestDynamoPublishCanceled(t *testing.T) {
	client := newMinidyn(t)
	table := newTable(t, client)
	good := dynamokv.New(client, table, dynamokv.Options{Timeout: 30 * time.Second})
	if _, err := publishWells(t.Context(), good, 1, 300); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	u := newUnreliable(client, 0, 0)
	u.delay = 2 * time.Millisecond
	u.onCall = func(n int64) {
		if n == 10 {
			cancel()
		}
	}
	s := dynamokv.New(u, table, dynamokv.Options{Timeout: 30 * time.Second, WriteConcurrency: 4})
	start := time.Now()
	v, err := publishWells(ctx, s, 2, 5000)
	if v != 0 || !errors.Is(err, context.Canceled) {
		t.Fatalf("canceled Publish = %d, %v; want context.Canceled", v, err)
	}
	if c := u.calls.Load(); c > 10+4+2 {
		// 10 calls, then at most one more per worker racing the
		// cancellation; the rest are the cleanup's deletes, which
		// run after the caller is gone (bounded by their own timeout).
		t.Logf("%d calls in all (the cleanup's deletes included)", c)
	}
	if took := time.Since(start); took > 10*time.Second {
		t.Errorf("canceled Publish took %v", took)
	}
	checkWells(t, good, 1, 300)
}

// TestDynamoWriterLastWins: a key written twice by a Writer, in batches
// that could be in flight at once, holds the last data.
func TestDynamoWriterLastWins(t *testing.T) {
	client := newMinidyn(t)
	u := newUnreliable(client, 0, 0)
	// A batch holding an earlier write of key "k" is slow: were the next
	// one sent while it is in flight, it would land first.
	u.delayFor = func(reqs []types.WriteRequest) time.Duration {
		for _, r := range reqs {
			sk := r.PutRequest.Item["sk"].(*types.AttributeValueMemberS).Value
			data := r.PutRequest.Item["data"].(*types.AttributeValueMemberB).Value
			if sk == "k" && string(data) != "390" {
				return 20 * time.Millisecond
			}
		}
		return 0
	}
	s := dynamokv.New(u, newTable(t, client), dynamokv.Options{Timeout: 30 * time.Second, WriteConcurrency: 8})
	_, err := kv.Publish(t.Context(), s, kv.DatasetInfo{Name: "dup"}, func(w *kv.Writer) error {
		for i := range 400 {
			// Key "k" every 30 items: each in another batch, with the
			// previous one usually still in flight.
			sk := fmt.Sprintf("%04d", i)
			if i%30 == 0 {
				sk = "k"
			}
			if err := w.PutRaw("P", sk, fmt.Appendf(nil, "%d", i)); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	d, _, err := kv.Open(t.Context(), s, "dup")
	if err != nil {
		t.Fatal(err)
	}
	if it, ok, err := d.Get(t.Context(), "P", "k"); err != nil || !ok || string(it.Data) != "390" {
		t.Errorf("Get(P, k) = %q, %v, %v; want the last write, 390", it.Data, ok, err)
	}
}
