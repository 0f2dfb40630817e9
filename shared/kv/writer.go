package kv

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
)

// writerBuffer is the number of items a Writer buffers before a Put, on a
// store that does not stream.
const writerBuffer = 1000

// Streamer is implemented by stores that take a dataset's items best as a
// stream: DynamoDB's (package dynamokv) writes batches concurrently, Bolt
// sorts runs on disk and loads them at the end. A Writer hands each item
// over as it comes, instead of buffering writerBuffer items and waiting for
// their Put. Wrappers of a Store hide it, and their Writer falls back to
// Put.
type Streamer interface {
	PutStream(ctx context.Context) ItemStream
}

// ItemStream is a stream of puts. Put may block while the store is
// behind; it returns the stream's first error. Close writes what remains
// (or, with abort, drops it), waits for every write in flight and returns
// the first error.
type ItemStream interface {
	Put(it Item) error
	Close(abort bool) error
}

// Writer writes the items of a dataset version being published. It is not
// safe for concurrent use.
type Writer struct {
	ctx    context.Context
	s      Store
	stream ItemStream // nil: buffered Puts
	prefix string
	v      Version // the version being written
	buf    []Item
	n      int
	err    error // sticky: the first store error
}

func newWriter(ctx context.Context, s Store, prefix string) *Writer {
	w := &Writer{ctx: ctx, s: s, prefix: prefix}
	if st, ok := s.(Streamer); ok {
		w.stream = st.PutStream(ctx)
	}
	return w
}

// Put JSON-encodes v and writes it as the item (pk, sk) of the version.
// The encoding does not escape & < > (json.Marshal would write \u0026
// \u003c \u003e): it is the encoding of the API's responses
// (api.WriteJSON), so an endpoint can send a stored row as it is.
func (w *Writer) Put(pk, sk string, v any) error {
	data, err := MarshalItem(v)
	if err != nil {
		return fmt.Errorf("kv: encode item %q/%q: %w", pk, sk, err)
	}
	return w.PutRaw(pk, sk, data)
}

// MarshalItem is the JSON of an item's value as Writer.Put writes it:
// json.Marshal without HTML escaping.
func MarshalItem(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	// An exact copy, without the newline Encode ends the value with: the
	// Writer may hold many items, and the buffer's spare capacity with
	// them (json.Marshal copies too).
	return bytes.Clone(b.Bytes()[:b.Len()-1]), nil
}

// PutRaw writes data as the item (pk, sk) of the version. The Writer keeps
// data until it is written: do not modify it. On DynamoDB it may block
// while the table is behind (a bounded number of batches in flight).
func (w *Writer) PutRaw(pk, sk string, data []byte) error {
	if w.err != nil {
		return w.err
	}
	if err := checkPK(pk); err != nil {
		return err
	}
	it := Item{PK: w.prefix + pk, SK: sk, Data: data}
	if err := CheckItem(it); err != nil {
		return err
	}
	w.n++
	if w.stream != nil {
		if err := w.stream.Put(it); err != nil {
			w.err = err
			return err
		}
		return nil
	}
	w.buf = append(w.buf, it)
	if len(w.buf) >= writerBuffer {
		return w.flush()
	}
	return nil
}

// Version is the version the Writer writes: what Publish returns once it
// succeeds.
func (w *Writer) Version() Version { return w.v }

// Len returns the number of items written so far (a key written twice
// counts twice).
func (w *Writer) Len() int { return w.n }

func (w *Writer) flush() error {
	if w.err != nil || len(w.buf) == 0 {
		return w.err
	}
	if err := w.s.Put(w.ctx, w.buf); err != nil {
		w.err = err
		return err
	}
	w.buf = w.buf[:0]
	return nil
}

// finish writes what the Writer holds and waits for every write in flight;
// with abort set it drops what is not yet written. It returns the first
// store error (none when aborting).
func (w *Writer) finish(abort bool) error {
	if w.stream != nil {
		err := w.stream.Close(abort)
		w.stream = nil
		if err != nil && w.err == nil {
			w.err = err
		}
		if abort {
			return nil
		}
		return w.err
	}
	if abort {
		w.buf = nil
		return nil
	}
	return w.flush()
}
