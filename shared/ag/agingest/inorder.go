package agingest

import (
	"context"
	"errors"
	"sync"
)

// inOrder maps jobs to results on workers goroutines and hands the
// results to emit on the caller's goroutine in the order of the jobs, so
// that what emit writes is the same whatever the goroutines' timing. each
// produces the jobs (on a goroutine of its own, batch at a time); newWork
// returns one worker's function (it may keep scratch space between jobs).
// The first error stops everything and is returned. Memory: the batches in
// flight, at most 3 per worker.
func inOrder[J, R any](ctx context.Context, workers, batch int, each func(yield func(J) error) error,
	newWork func() func(J) (R, error), emit func(R) error) error {
	type chunk struct {
		jobs []J
		out  []R
		err  error
		done chan struct{}
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	work := make(chan *chunk)
	order := make(chan *chunk, 2*workers)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			do := newWork()
			for c := range work {
				for _, j := range c.jobs {
					r, err := do(j)
					if err != nil {
						c.err = err
						break
					}
					c.out = append(c.out, r)
				}
				close(c.done)
			}
		}()
	}
	var eachErr error
	go func() {
		defer close(order)
		defer close(work)
		c := &chunk{done: make(chan struct{})}
		send := func() error {
			// To a worker first: a chunk in order is always worked on.
			select {
			case work <- c:
			case <-ctx.Done():
				return ctx.Err()
			}
			select {
			case order <- c:
			case <-ctx.Done():
				return ctx.Err()
			}
			c = &chunk{done: make(chan struct{})}
			return nil
		}
		eachErr = each(func(j J) error {
			c.jobs = append(c.jobs, j)
			if len(c.jobs) == batch {
				return send()
			}
			return nil
		})
		if eachErr == nil && len(c.jobs) > 0 {
			eachErr = send()
		}
	}()
	var err error
	for c := range order {
		if err != nil {
			continue // drain: the producer stops at its next send
		}
		<-c.done
		if err = c.err; err == nil {
			for _, r := range c.out {
				if err = emit(r); err != nil {
					break
				}
			}
		}
		if err != nil {
			cancel()
		}
	}
	wg.Wait()
	if err != nil {
		return err
	}
	if eachErr != nil && !errors.Is(eachErr, context.Canceled) {
		return eachErr
	}
	return ctx.Err()
}
