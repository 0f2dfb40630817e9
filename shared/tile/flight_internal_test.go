package tile

import (
	"errors"
	"testing"
	"time"
)

// A generation that panics releases the requests waiting for it with an
// error, and the next request for the tile generates it again (they used
// to wait for ever).
func TestFlightPanicReleasesWaiters(t *testing.T) {
	var f flight
	started, waiting := make(chan struct{}), make(chan struct{})
	go func() {
		defer func() { recover() }() // the request's own recovery
		f.do("ab/lsd/12/1/2", func() ([]byte, error) {
			close(started)
			<-waiting
			time.Sleep(20 * time.Millisecond) // let the waiter block on the call
			panic("generator bug")
		})
	}()
	<-started
	res := make(chan error, 1)
	go func() {
		close(waiting)
		_, err := f.do("ab/lsd/12/1/2", func() ([]byte, error) { return []byte("second"), nil })
		res <- err
	}()
	select {
	case err := <-res:
		// Either it joined the panicking call (an error) or it came after
		// it (generated afresh): never a hang.
		if err != nil && err.Error() != "tile: generating ab/lsd/12/1/2 failed (panic)" {
			t.Errorf("waiter: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("a waiter of a panicked generation still waits after 5 s")
	}
	data, err := f.do("ab/lsd/12/1/2", func() ([]byte, error) { return []byte("fresh"), nil })
	if err != nil || string(data) != "fresh" {
		t.Errorf("after the panic: %q, %v; want a fresh generation", data, err)
	}
	if _, err := f.do("k", func() ([]byte, error) { return nil, errors.New("plain") }); err == nil || err.Error() != "plain" {
		t.Errorf("a plain error: %v", err)
	}
}
