package kv

import "errors"

// The merge of a load or a scan's sort, one goroutine ahead of its
// consumer: reading the runs and ordering them runs on one core while
// bbolt's puts (a load) or the scan's callback run on another. At
// province size the energy ingest's final merge was 14 s of reading and
// ordering before 29 s of puts, all on the ingest's goroutine; with the
// merge's own heap, the agriculture layers' load took 0.97 of its time
// (PERFORMANCE.md, fourteenth session).

const (
	// aheadBatchBytes is the most bytes of items a batch handed over
	// holds (one item larger than it has a batch of its own); a sort of a
	// smaller budget hands over batches of a 64th of it (aheadBytes).
	aheadBatchBytes = 1 << 20
	// aheadBatches is how many filled batches may wait for the consumer:
	// with the one it empties and the one being filled, at most
	// aheadBatches+2 batches (and any larger item) are held.
	aheadBatches = 2
)

// aheadBatch is a run of merged items, copied: keys and data one after
// another in buf.
type aheadBatch struct {
	buf  []byte
	ents []aheadEnt
	err  error // the merge's error, in its last batch
}

type aheadEnt struct{ klen, dlen int }

// errConsumerStopped ends the merge when its consumer returned an error.
var errConsumerStopped = errors.New("kv: merge: the consumer stopped")

// aheadBytes is the batch size of a sort of budget bytes: a 64th of it,
// from 4 KiB to aheadBatchBytes.
func aheadBytes(budget int) int { return min(aheadBatchBytes, max(4<<10, budget/64)) }

// mergeAhead is merge with srcs read and ordered on a goroutine of its
// own, a few batches of batchBytes ahead of emit, which runs on the
// caller's goroutine. The slices emit gets are valid until it returns. It
// returns once that goroutine has ended: srcs are never read after it.
// Memory: aheadBatches+2 batches of batchBytes at most (those handed
// over, the one emitted from and the one being filled: a batch is made
// only when none is free), plus an item larger than that.
func mergeAhead(srcs []mergeSource, emit func(k, d []byte) error, batchBytes int) error {
	full := make(chan *aheadBatch, aheadBatches)
	free := make(chan *aheadBatch, aheadBatches+1)
	stop := make(chan struct{})
	stopped := false
	halt := func() { // the merge stops at its next batch
		if !stopped {
			stopped = true
			close(stop)
		}
	}
	defer halt() // emit panicked: the merge must not wait for a reader
	go func() {
		defer close(full)
		b := &aheadBatch{}
		send := func() error {
			select {
			case <-stop: // checked first: full may have room too
				return errConsumerStopped
			default:
			}
			select {
			case full <- b:
			case <-stop:
				return errConsumerStopped
			}
			select {
			case b = <-free:
				b.buf, b.ents = b.buf[:0], b.ents[:0]
			default:
				b = &aheadBatch{}
			}
			return nil
		}
		err := merge(srcs, func(k, d []byte) error {
			if len(b.ents) > 0 && len(b.buf)+len(k)+len(d) > batchBytes {
				if err := send(); err != nil {
					return err
				}
			}
			b.buf = append(b.buf, k...)
			b.buf = append(b.buf, d...)
			b.ents = append(b.ents, aheadEnt{len(k), len(d)})
			return nil
		})
		if errors.Is(err, errConsumerStopped) {
			return
		}
		b.err = err
		if len(b.ents) > 0 || err != nil {
			select {
			case full <- b:
			case <-stop:
			}
		}
	}()
	var err error
	for b := range full {
		if err == nil {
			if err = emitBatch(b, emit); err != nil {
				halt() // full is drained until the merge has ended
			}
		}
		select {
		case free <- b:
		default:
		}
	}
	return err
}

// emitBatch calls emit with each item of b, then returns b's error.
func emitBatch(b *aheadBatch, emit func(k, d []byte) error) error {
	off := 0
	for _, e := range b.ents {
		k := b.buf[off : off+e.klen : off+e.klen]
		off += e.klen
		d := b.buf[off : off+e.dlen : off+e.dlen]
		off += e.dlen
		if err := emit(k, d); err != nil {
			return err
		}
	}
	return b.err
}
