package tile

import (
	"errors"
	"testing"
	"time"
)

// A generation that panics releases the requests waiting for it with an
// error, and the next request for the tile generates it again (they used
// to wait for ever). The generation panics once the waiter has joined it
// (flight.joined), so the waiter always gets the panic's error.
func TestFlightPanicReleasesWaiters(t *testing.T) {
	joined := make(chan struct{})
	f := flight{joined: func(string) { close(joined) }}
	started := make(chan struct{})
	go func() {
		defer func() { recover() }() // the request's own recovery
		f.do("ab/lsd/12/1/2", func() ([]byte, error) {
			close(started)
			<-joined
			panic("generator bug")
		})
	}()
	<-started
	res := make(chan error, 1)
	go func() {
		_, err := f.do("ab/lsd/12/1/2", func() ([]byte, error) { return []byte("second"), nil })
		res <- err
	}()
	select {
	case err := <-res:
		if err == nil || err.Error() != "tile: generating ab/lsd/12/1/2 failed (panic)" {
			t.Errorf("waiter of the panicked generation: %v, want its error", err)
		}
	case <-time.After(time.Minute):
		t.Fatal("a waiter of a panicked generation still waits after a minute")
	}
	f.joined = nil
	data, err := f.do("ab/lsd/12/1/2", func() ([]byte, error) { return []byte("fresh"), nil })
	if err != nil || string(data) != "fresh" {
		t.Errorf("after the panic: %q, %v; want a fresh generation", data, err)
	}
	if _, err := f.do("k", func() ([]byte, error) { return nil, errors.New("plain") }); err == nil || err.Error() != "plain" {
		t.Errorf("a plain error: %v", err)
	}
}
