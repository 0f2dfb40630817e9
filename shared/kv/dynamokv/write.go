package dynamokv

// The write side of Store: Put, Delete and the Writer of a Publish all go
// through a write stream, which sends batches of 25 requests with
// BatchWriteItem from a bounded number of workers, and retries what
// DynamoDB leaves unwritten.
//
// Memory: a stream holds the batch being filled, a queue of at most
// WriteConcurrency batches and the WriteConcurrency batches being written:
// (2*WriteConcurrency+1)*25 requests at most, whatever the number written
// (425 items with 8 workers; with report records of a few hundred bytes,
// well under a megabyte). The caller blocks while the queue is full, so a
// publish reads its source no faster than DynamoDB takes the items.

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"meridian/shared/kv"
)

// WriteStats counts the BatchWriteItem work of a Store since New.
type WriteStats struct {
	Calls       int64 // BatchWriteItem calls, retries included
	Written     int64 // requests DynamoDB acknowledged as written
	Unprocessed int64 // requests returned as UnprocessedItems (each was sent again or failed the write)
	Throttled   int64 // calls refused with a throttling error (each was retried or failed the write)
}

type writeCounters struct {
	calls, written, unprocessed, throttled atomic.Int64
}

// WriteStats returns the counts of the store's batch writes so far.
func (d *Store) WriteStats() WriteStats {
	return WriteStats{
		Calls:       d.stats.calls.Load(),
		Written:     d.stats.written.Load(),
		Unprocessed: d.stats.unprocessed.Load(),
		Throttled:   d.stats.throttled.Load(),
	}
}

// Put implements kv.Store with BatchWriteItem calls of 25 items, up to
// WriteConcurrency at once, retrying UnprocessedItems and throttled calls
// (BatchWriteAttempts). It is not atomic: on an error some batches may
// have been written. Within the call the last item with a key wins: a
// batch never carries a key twice, and a key is not sent again while an
// earlier write of it is in flight.
func (d *Store) Put(ctx context.Context, items []kv.Item) error {
	if err := kv.CheckItems(items); err != nil {
		return err
	}
	return writeAll(ctx, d, "put", items, kv.DedupeItems, putReq)
}

// Delete implements kv.Store like Put.
func (d *Store) Delete(ctx context.Context, keys []kv.Key) error {
	if err := kv.CheckKeys(keys); err != nil {
		return err
	}
	return writeAll(ctx, d, "delete", keys, kv.DedupeKeys, deleteReq)
}

// writeAll writes xs (items or keys) as op: one BatchWriteItem when they
// fit one batch (deduplicated: DynamoDB refuses a batch with a key twice),
// else through a write stream.
func writeAll[T any](ctx context.Context, d *Store, op string, xs []T, dedupe func([]T) []T, req func(T) writeReq) error {
	if len(xs) <= batchSize {
		xs = dedupe(xs)
		if len(xs) == 0 {
			return nil
		}
		reqs := make([]writeReq, len(xs))
		for i, x := range xs {
			reqs[i] = req(x)
		}
		return d.writeBatch(ctx, op, reqs)
	}
	s := d.newWriteStream(ctx, op)
	for _, x := range xs {
		if s.add(req(x)) != nil {
			break
		}
	}
	return s.close(false)
}

// PutStream implements kv.Streamer: a Publish's Writer hands its items to
// a write stream as they come.
func (d *Store) PutStream(ctx context.Context) kv.ItemStream {
	return putStream{d.newWriteStream(ctx, "put")}
}

type putStream struct{ s *writeStream }

func (p putStream) Put(it kv.Item) error   { return p.s.add(putReq(it)) }
func (p putStream) Close(abort bool) error { return p.s.close(abort) }

// writeReq is one request of a BatchWriteItem, with its key.
type writeReq struct {
	key kv.Key
	req types.WriteRequest
}

func putReq(it kv.Item) writeReq {
	return writeReq{kv.Key{PK: it.PK, SK: it.SK}, types.WriteRequest{PutRequest: &types.PutRequest{Item: encodeItem(it)}}}
}

func deleteReq(k kv.Key) writeReq {
	return writeReq{k, types.WriteRequest{DeleteRequest: &types.DeleteRequest{Key: dynamoKey(k.PK, k.SK)}}}
}

// writeStream writes requests in batches of 25 from up to WriteConcurrency
// workers, which take the batches from a queue of WriteConcurrency. The
// first error stops it: the workers write nothing more, and add and close
// return that error. It is used by one goroutine (add, close).
type writeStream struct {
	d       *Store
	op      string
	parent  context.Context
	ctx     context.Context // canceled at the first error
	cancel  context.CancelCauseFunc
	queue   chan []writeReq
	wg      sync.WaitGroup
	workers int
	aborted atomic.Bool // close(true): queued batches are dropped

	cur    []writeReq     // the batch being filled
	curIdx map[kv.Key]int // index in cur by key

	mu       sync.Mutex
	done     *sync.Cond     // signalled when a batch leaves the workers
	inflight map[kv.Key]int // keys of batches queued or being written
	err      error          // the first error
}

func (d *Store) newWriteStream(ctx context.Context, op string) *writeStream {
	sctx, cancel := context.WithCancelCause(ctx)
	s := &writeStream{
		d: d, op: op, parent: ctx, ctx: sctx, cancel: cancel,
		queue:    make(chan []writeReq, d.opts.WriteConcurrency),
		cur:      make([]writeReq, 0, batchSize),
		curIdx:   make(map[kv.Key]int, batchSize),
		inflight: map[kv.Key]int{},
	}
	s.done = sync.NewCond(&s.mu)
	return s
}

// add queues r; it blocks while the queue is full, and returns the
// stream's first error, if any.
func (s *writeStream) add(r writeReq) error {
	if i, ok := s.curIdx[r.key]; ok {
		s.cur[i] = r // the last request of a key wins
		return nil
	}
	s.mu.Lock()
	busy := s.inflight[r.key] > 0
	s.mu.Unlock()
	if busy {
		// An earlier request of the key is queued or being written: it
		// must land first, so wait for it (rare: a key written twice).
		if err := s.send(); err != nil {
			return err
		}
		s.mu.Lock()
		for s.inflight[r.key] > 0 {
			s.done.Wait()
		}
		s.mu.Unlock()
	}
	s.curIdx[r.key] = len(s.cur)
	s.cur = append(s.cur, r)
	if len(s.cur) == batchSize {
		return s.send()
	}
	return nil
}

// send queues the batch being filled, starting a worker if fewer than
// WriteConcurrency run.
func (s *writeStream) send() error {
	if len(s.cur) == 0 {
		return s.result()
	}
	b := s.cur
	s.cur = make([]writeReq, 0, batchSize)
	clear(s.curIdx)
	s.mu.Lock()
	for _, r := range b {
		s.inflight[r.key]++
	}
	s.mu.Unlock()
	if s.ctx.Err() != nil {
		s.release(b)
		return s.result()
	}
	if s.workers < cap(s.queue) {
		s.workers++
		s.wg.Go(s.work)
	}
	select {
	case s.queue <- b:
		return nil
	case <-s.ctx.Done():
		s.release(b)
		return s.result()
	}
}

func (s *writeStream) work() {
	for b := range s.queue {
		if s.ctx.Err() == nil && !s.aborted.Load() {
			if err := s.d.writeBatch(s.ctx, s.op, b); err != nil {
				s.fail(err)
			}
		}
		s.release(b)
	}
}

// release marks the keys of b as no longer in flight.
func (s *writeStream) release(b []writeReq) {
	s.mu.Lock()
	for _, r := range b {
		if s.inflight[r.key]--; s.inflight[r.key] <= 0 {
			delete(s.inflight, r.key)
		}
	}
	s.done.Broadcast()
	s.mu.Unlock()
}

func (s *writeStream) fail(err error) {
	s.mu.Lock()
	if s.err == nil {
		s.err = err
	}
	s.mu.Unlock()
	s.cancel(err)
}

// result returns the stream's first error, or the caller's cancellation.
func (s *writeStream) result() error {
	s.mu.Lock()
	err := s.err
	s.mu.Unlock()
	if err != nil {
		return err
	}
	if err := s.parent.Err(); err != nil {
		return s.d.wrap(s.parent, s.op, err)
	}
	return nil
}

// close writes what remains (unless abort is set, which drops what is not
// yet sent), waits for the workers and returns the first error. Writes in
// flight when it is called complete, so that once it returns nothing more
// lands (Publish then deletes what the failed version wrote). A stream is
// closed once.
func (s *writeStream) close(abort bool) error {
	var err error
	if abort {
		s.aborted.Store(true)
	} else {
		err = s.send()
	}
	close(s.queue)
	s.wg.Wait()
	s.cancel(nil)
	if abort {
		return nil
	}
	if err != nil {
		return err
	}
	return s.result()
}

// throttle reports whether err is DynamoDB (or the SDK) refusing a call
// for its rate: ProvisionedThroughputExceededException,
// ThrottlingException, RequestLimitExceeded and the like.
func throttle(err error) bool {
	return retry.IsErrorThrottles(retry.DefaultThrottles).IsErrorThrottle(err) == aws.TrueTernary
}

// writeBatch writes up to 25 requests with one BatchWriteItem, then sends
// again the UnprocessedItems, or the whole batch after a throttling error,
// with backoff, BatchWriteAttempts times in all.
func (d *Store) writeBatch(ctx context.Context, op string, batch []writeReq) error {
	reqs := make([]types.WriteRequest, len(batch))
	for i, r := range batch {
		reqs[i] = r.req
	}
	for attempt := 1; ; attempt++ {
		cctx, cancel := context.WithTimeout(ctx, d.opts.Timeout)
		out, err := d.client.BatchWriteItem(cctx, &dynamodb.BatchWriteItemInput{
			RequestItems: map[string][]types.WriteRequest{d.table: reqs},
		})
		cancel()
		d.stats.calls.Add(1)
		switch {
		case err != nil && (!throttle(err) || ctx.Err() != nil):
			return d.wrap(ctx, op, err)
		case err != nil:
			d.stats.throttled.Add(1)
			if attempt == d.opts.BatchWriteAttempts {
				return d.wrap(ctx, op, fmt.Errorf("batch of %d items still throttled after %d attempts: %w", len(reqs), attempt, err))
			}
		default:
			left := out.UnprocessedItems[d.table]
			d.stats.written.Add(int64(len(reqs) - len(left)))
			reqs = left
			if len(reqs) == 0 {
				return nil
			}
			d.stats.unprocessed.Add(int64(len(reqs)))
			if attempt == d.opts.BatchWriteAttempts {
				return d.wrap(ctx, op, fmt.Errorf("%d of a batch's items still unprocessed after %d attempts (throttled)", len(reqs), attempt))
			}
		}
		t := time.NewTimer(kv.Backoff(attempt, d.opts.MaxBackoff))
		select {
		case <-ctx.Done():
			t.Stop()
			return d.wrap(ctx, op, ctx.Err())
		case <-t.C:
		}
	}
}
