package main

import (
	"fmt"
	"io"
	"log"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// A fault is what the proxy does instead of passing a request on.
type fault int

const (
	throttle    fault = iota // S3: 503 SlowDown; DynamoDB: 400 ThrottlingException
	provisioned              // DynamoDB: 400 ProvisionedThroughputExceededException; S3: 503 ServiceUnavailable
	internal                 // 500 InternalError (S3 XML) or InternalServerError (DynamoDB JSON)
	reset                    // the connection is closed with a TCP RST, no answer
	stall                    // the request waits stallFor before it is passed on
	numFaults
)

var faultNames = [numFaults]string{"throttle", "provisioned", "internal", "reset", "stall"}

func (f fault) String() string { return faultNames[f] }

// service is the protocol of the upstream, for the shape of error bodies.
type service int

const (
	serviceS3 service = iota
	serviceDynamoDB
)

// stallFor is a stall's wait before the first byte.
const stallFor = 2 * time.Second

// faultProxy is a reverse proxy in front of an emulator that, at rate,
// answers a request with a fault instead: the service's throttling and
// server errors with their real bodies, a reset connection, or a stall
// before the request is passed on. The faults are drawn from a seeded
// source, so a run that sends the same requests in the same order meets
// the same faults.
type faultProxy struct {
	svc     service
	forward http.Handler
	stall   time.Duration

	mu    sync.Mutex
	rng   *rand.Rand
	rate  float64
	kinds []fault // the faults drawn from; all when empty

	requests atomic.Int64
	counts   [numFaults]atomic.Int64
}

func newFaultProxy(svc service, target *url.URL, seed uint64, rate float64) *faultProxy {
	rp := httputil.NewSingleHostReverseProxy(target)
	rp.ErrorLog = log.New(io.Discard, "", 0) // a stalled request's client gave up: counted, not logged
	return &faultProxy{svc: svc, forward: rp, stall: stallFor, rng: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)), rate: rate}
}

// setRate changes the share of requests that meet a fault (0 to 1).
func (p *faultProxy) setRate(r float64) {
	p.mu.Lock()
	p.rate = r
	p.mu.Unlock()
}

// draw decides a request's fate: -1 passes it on.
func (p *faultProxy) draw() fault {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.rate <= 0 || p.rng.Float64() >= p.rate {
		return -1
	}
	if len(p.kinds) > 0 {
		return p.kinds[p.rng.IntN(len(p.kinds))]
	}
	return fault(p.rng.IntN(int(numFaults)))
}

// setKinds limits the faults drawn to kinds (all when empty).
func (p *faultProxy) setKinds(kinds []fault) {
	p.mu.Lock()
	p.kinds = kinds
	p.mu.Unlock()
}

// parseFaults reads a comma-separated list of fault names ("" or "all":
// every kind).
func parseFaults(s string) ([]fault, error) {
	if s == "" || s == "all" {
		return nil, nil
	}
	var out []fault
	for _, name := range strings.Split(s, ",") {
		i := slices.Index(faultNames[:], strings.TrimSpace(name))
		if i < 0 {
			return nil, fmt.Errorf("unknown fault %q (want %s)", name, strings.Join(faultNames[:], ", "))
		}
		out = append(out, fault(i))
	}
	return out, nil
}

// injected is the number of faults of kind f so far; total is all of them.
func (p *faultProxy) injected(f fault) int64 { return p.counts[f].Load() }

func (p *faultProxy) total() int64 {
	var n int64
	for i := range p.counts {
		n += p.counts[i].Load()
	}
	return n
}

func (p *faultProxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p.requests.Add(1)
	f := p.draw()
	if f < 0 {
		p.forward.ServeHTTP(w, r)
		return
	}
	p.counts[f].Add(1)
	switch f {
	case stall:
		t := time.NewTimer(p.stall)
		select {
		case <-t.C:
			p.forward.ServeHTTP(w, r)
		case <-r.Context().Done():
			t.Stop()
		}
	case reset:
		resetConn(w)
	default:
		status, ctype, body := p.errorAnswer(f)
		w.Header().Set("Content-Type", ctype)
		w.Header().Set("X-Amz-Request-Id", "chaos")
		w.WriteHeader(status)
		w.Write([]byte(body))
	}
}

// errorAnswer is the status and body the real service sends for f.
func (p *faultProxy) errorAnswer(f fault) (status int, contentType, body string) {
	if p.svc == serviceS3 {
		code, msg, status := "SlowDown", "Please reduce your request rate.", http.StatusServiceUnavailable
		switch f {
		case provisioned:
			code, msg = "ServiceUnavailable", "Reduce your request rate."
		case internal:
			code, msg, status = "InternalError", "We encountered an internal error. Please try again.", http.StatusInternalServerError
		}
		return status, "application/xml", fmt.Sprintf(`<?xml version="1.0" encoding="UTF-8"?>`+"\n"+
			`<Error><Code>%s</Code><Message>%s</Message><RequestId>CHAOS</RequestId><HostId>chaos</HostId></Error>`, code, msg)
	}
	typ, msg, status := "com.amazon.coral.availability#ThrottlingException", "Rate of requests exceeds the allowed throughput.", http.StatusBadRequest
	switch f {
	case provisioned:
		typ, msg = "com.amazonaws.dynamodb.v20120810#ProvisionedThroughputExceededException", "The level of configured provisioned throughput for the table was exceeded."
	case internal:
		typ, msg, status = "com.amazonaws.dynamodb.v20120810#InternalServerError", "Internal server error", http.StatusInternalServerError
	}
	return status, "application/x-amz-json-1.0", fmt.Sprintf(`{"__type":%q,"message":%q}`, typ, msg)
}

// resetConn closes the request's connection with a TCP RST (linger 0), so
// the client reads "connection reset by peer" with no answer.
func resetConn(w http.ResponseWriter) {
	hj, ok := w.(http.Hijacker)
	if !ok {
		panic(http.ErrAbortHandler)
	}
	conn, _, err := hj.Hijack()
	if err != nil {
		panic(http.ErrAbortHandler)
	}
	if tc, ok := conn.(*net.TCPConn); ok {
		tc.SetLinger(0)
	}
	conn.Close()
}

// summary is the proxy's counts, e.g. "1200 requests, 61 faults (throttle 12, ...)".
func (p *faultProxy) summary() string {
	var parts []string
	for f := range numFaults {
		parts = append(parts, fmt.Sprintf("%s %d", f, p.injected(f)))
	}
	return fmt.Sprintf("%d requests, %d faults (%s)", p.requests.Load(), p.total(), strings.Join(parts, ", "))
}
