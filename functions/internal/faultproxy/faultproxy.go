// Package faultproxy is a reverse proxy in front of an S3 or DynamoDB
// emulator that fails a share of the requests the way the services do at
// scale: throttling and server errors with the services' own bodies,
// connection resets, answers cut off mid-body, and stalls before the first
// byte. The faults are
// drawn from a seeded source. make chaos (functions/chaos) and the refresh
// job's fault test drive the project's clients through it.
package faultproxy

import (
	"fmt"
	"io"
	"log"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// A Fault is what the proxy does instead of passing a request on.
type Fault int

const (
	Throttle    Fault = iota // S3: 503 SlowDown; DynamoDB: 400 ThrottlingException
	Provisioned              // DynamoDB: 400 ProvisionedThroughputExceededException; S3: 503 ServiceUnavailable
	Internal                 // 500 InternalError (S3 XML) or InternalServerError (DynamoDB JSON)
	Reset                    // the connection is closed with a TCP RST, no answer
	Stall                    // the request waits Proxy.Stall before it is passed on
	Truncate                 // the upstream's answer is sent with half its body, then the connection closes
	NumFaults
)

// Names are the faults' names, by Fault.
var Names = [NumFaults]string{"throttle", "provisioned", "internal", "reset", "stall", "truncate"}

func (f Fault) String() string { return Names[f] }

// Service is the protocol of the upstream, for the shape of error bodies.
type Service int

const (
	S3 Service = iota
	DynamoDB
)

// StallFor is a stall's wait before the first byte, by default.
const StallFor = 2 * time.Second

// Proxy is a reverse proxy in front of an emulator that, at rate,
// answers a request with a fault instead: the service's throttling and
// server errors with their real bodies, a reset connection, an answer cut
// off mid-body, or a stall
// before the request is passed on. The faults are drawn from a seeded
// source, so a run that sends the same requests in the same order meets
// the same faults.
type Proxy struct {
	svc     Service
	forward http.Handler
	// Stall is a stall's wait (StallFor); set it before serving.
	Stall time.Duration

	mu    sync.Mutex
	rng   *rand.Rand
	rate  float64
	kinds []Fault // the faults drawn from; all when empty

	requests atomic.Int64
	counts   [NumFaults]atomic.Int64
}

// New returns a proxy to target that fails rate of the requests (0 to 1),
// drawing from a source seeded with seed.
func New(svc Service, target *url.URL, seed uint64, rate float64) *Proxy {
	rp := httputil.NewSingleHostReverseProxy(target)
	rp.ErrorLog = log.New(io.Discard, "", 0) // a stalled request's client gave up: counted, not logged
	return &Proxy{svc: svc, forward: rp, Stall: StallFor, rng: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)), rate: rate}
}

// SetRate changes the share of requests that meet a fault (0 to 1).
func (p *Proxy) SetRate(r float64) {
	p.mu.Lock()
	p.rate = r
	p.mu.Unlock()
}

// Draw decides a request's fate: -1 passes it on.
func (p *Proxy) Draw() Fault {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.rate <= 0 || p.rng.Float64() >= p.rate {
		return -1
	}
	if len(p.kinds) > 0 {
		return p.kinds[p.rng.IntN(len(p.kinds))]
	}
	return Fault(p.rng.IntN(int(NumFaults)))
}

// SetKinds limits the faults drawn to kinds (all when empty).
func (p *Proxy) SetKinds(kinds []Fault) {
	p.mu.Lock()
	p.kinds = kinds
	p.mu.Unlock()
}

// ParseFaults reads a comma-separated list of fault names ("" or "all":
// every kind).
func ParseFaults(s string) ([]Fault, error) {
	if s == "" || s == "all" {
		return nil, nil
	}
	var out []Fault
	for _, name := range strings.Split(s, ",") {
		i := slices.Index(Names[:], strings.TrimSpace(name))
		if i < 0 {
			return nil, fmt.Errorf("unknown fault %q (want %s)", name, strings.Join(Names[:], ", "))
		}
		out = append(out, Fault(i))
	}
	return out, nil
}

// Injected is the number of faults of kind f so far.
func (p *Proxy) Injected(f Fault) int64 { return p.counts[f].Load() }

// Requests is the number of requests the proxy received.
func (p *Proxy) Requests() int64 { return p.requests.Load() }

// Total is the number of faults injected so far.
func (p *Proxy) Total() int64 {
	var n int64
	for i := range p.counts {
		n += p.counts[i].Load()
	}
	return n
}

// ServeHTTP passes r on or fails it.
func (p *Proxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p.requests.Add(1)
	f := p.Draw()
	if f < 0 {
		p.forward.ServeHTTP(w, r)
		return
	}
	p.counts[f].Add(1)
	switch f {
	case Stall:
		t := time.NewTimer(p.Stall)
		select {
		case <-t.C:
			p.forward.ServeHTTP(w, r)
		case <-r.Context().Done():
			t.Stop()
		}
	case Reset:
		resetConn(w)
	case Truncate:
		truncate(w, r, p.forward)
	default:
		status, ctype, body := p.errorAnswer(f)
		w.Header().Set("Content-Type", ctype)
		w.Header().Set("X-Amz-Request-Id", "chaos")
		w.WriteHeader(status)
		w.Write([]byte(body))
	}
}

// errorAnswer is the status and body the real service sends for f.
func (p *Proxy) errorAnswer(f Fault) (status int, contentType, body string) {
	if p.svc == S3 {
		code, msg, status := "SlowDown", "Please reduce your request rate.", http.StatusServiceUnavailable
		switch f {
		case Provisioned:
			code, msg = "ServiceUnavailable", "Reduce your request rate."
		case Internal:
			code, msg, status = "InternalError", "We encountered an internal error. Please try again.", http.StatusInternalServerError
		}
		return status, "application/xml", fmt.Sprintf(`<?xml version="1.0" encoding="UTF-8"?>`+"\n"+
			`<Error><Code>%s</Code><Message>%s</Message><RequestId>CHAOS</RequestId><HostId>chaos</HostId></Error>`, code, msg)
	}
	typ, msg, status := "com.amazon.coral.availability#ThrottlingException", "Rate of requests exceeds the allowed throughput.", http.StatusBadRequest
	switch f {
	case Provisioned:
		typ, msg = "com.amazonaws.dynamodb.v20120810#ProvisionedThroughputExceededException", "The level of configured provisioned throughput for the table was exceeded."
	case Internal:
		typ, msg, status = "com.amazonaws.dynamodb.v20120810#InternalServerError", "Internal server error", http.StatusInternalServerError
	}
	return status, "application/x-amz-json-1.0", fmt.Sprintf(`{"__type":%q,"message":%q}`, typ, msg)
}

// truncate sends the answer of next with its full Content-Length but half
// its body, then closes the connection: the client reads an unexpected EOF
// mid-body. An answer of under two bytes has no half: it is reset instead.
func truncate(w http.ResponseWriter, r *http.Request, next http.Handler) {
	rec := httptest.NewRecorder()
	next.ServeHTTP(rec, r)
	body := rec.Body.Bytes()
	if len(body) < 2 {
		resetConn(w)
		return
	}
	h := w.Header()
	for k, v := range rec.Header() {
		h[k] = v
	}
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(rec.Code)
	w.Write(body[:len(body)/2])
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
	hj, ok := w.(http.Hijacker)
	if !ok {
		panic(http.ErrAbortHandler)
	}
	conn, buf, err := hj.Hijack()
	if err != nil {
		panic(http.ErrAbortHandler)
	}
	buf.Flush()
	conn.Close()
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

// Summary is the proxy's counts, e.g. "1200 requests, 61 faults (throttle 12, ...)".
func (p *Proxy) Summary() string {
	var parts []string
	for f := range NumFaults {
		parts = append(parts, fmt.Sprintf("%s %d", f, p.Injected(f)))
	}
	return fmt.Sprintf("%d requests, %d faults (%s)", p.requests.Load(), p.Total(), strings.Join(parts, ", "))
}
