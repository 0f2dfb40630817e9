package agingest

import (
	"context"
	"errors"
	"math/rand/v2"
	"testing"
	"time"
)

// jobsUpTo yields 0..n-1.
func jobsUpTo(n int) func(yield func(int) error) error {
	return func(yield func(int) error) error {
		for i := range n {
			if err := yield(i); err != nil {
				return err
			}
		}
		return nil
	}
}

// TestInOrderKeepsOrder: the results reach emit in the jobs' order
// whatever order the workers finish them in (random delays), across
// batches and a last partial batch.
func TestInOrderKeepsOrder(t *testing.T) {
	for _, n := range []int{0, 1, 7, 1000} {
		var got []int
		err := inOrder(context.Background(), 3, 7, jobsUpTo(n), func() func(int) (int, error) {
			r := rand.New(rand.NewPCG(uint64(n), 1))
			return func(j int) (int, error) {
				if r.IntN(50) == 0 {
					time.Sleep(time.Millisecond)
				}
				return j * j, nil
			}
		}, func(r int) error { got = append(got, r); return nil })
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != n {
			t.Fatalf("%d jobs: %d results", n, len(got))
		}
		for i, r := range got {
			if r != i*i {
				t.Fatalf("%d jobs: result %d is %d, want %d", n, i, r, i*i)
			}
		}
	}
}

// TestInOrderStops: a worker's error, emit's error and the producer's are
// returned, the results before a failed job are emitted and none after,
// and nothing is left running (the call returns).
func TestInOrderStops(t *testing.T) {
	bad := errors.New("bad")
	work := func() func(int) (int, error) {
		return func(j int) (int, error) {
			if j == 500 {
				return 0, bad
			}
			return j, nil
		}
	}
	last := -1
	err := inOrder(context.Background(), 2, 10, jobsUpTo(100000), work, func(r int) error { last = r; return nil })
	if !errors.Is(err, bad) || last != 499 {
		t.Fatalf("worker error: %v, last emitted %d; want %v after 499", err, last, bad)
	}
	err = inOrder(context.Background(), 2, 10, jobsUpTo(100000), work, func(r int) error {
		if r == 42 {
			return bad
		}
		return nil
	})
	if !errors.Is(err, bad) {
		t.Fatalf("emit error: %v", err)
	}
	each := func(yield func(int) error) error {
		if err := jobsUpTo(30)(yield); err != nil {
			return err
		}
		return bad
	}
	if err := inOrder(context.Background(), 2, 10, each, work, func(int) error { return nil }); !errors.Is(err, bad) {
		t.Fatalf("producer error: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := inOrder(ctx, 2, 10, jobsUpTo(100000), work, func(int) error { return nil }); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled: %v", err)
	}
}
