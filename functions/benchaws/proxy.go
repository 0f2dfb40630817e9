package main

import (
	"math/rand/v2"
	"net/http"
	"net/http/httputil"
	"net/url"
	"sync"
	"time"
)

// latencyProxy stands between a function and an emulator (S3 or DynamoDB)
// and makes it answer as the real service does: every response's first
// byte waits Delay (spread by Jitter) after the emulator's answer, and every
// request is counted, so that the round trips a function makes per request
// can be read between two invocations (a Lambda serves one at a time).
//
// It also counts busy periods: stretches during which at least one
// request is in flight. Requests made concurrently overlap and count as
// one; requests made one after another count one each. Between two
// invocations the busy periods are the sequential round trips: what the
// latency of the service costs the request at least.
type latencyProxy struct {
	// Delay is the added time to first byte; Jitter spreads it uniformly
	// over Delay × [1-Jitter, 1+Jitter].
	Delay  time.Duration
	Jitter float64

	rp    *httputil.ReverseProxy
	sleep func(time.Duration) // time.Sleep; tests record instead

	mu       sync.Mutex
	rng      *rand.Rand
	hits     int64 // requests received
	busy     int64 // busy periods begun
	inFlight int
	spans    []span // requests since the last take, when recording
	record   bool
	now      func() time.Time // time.Now; tests set it
}

// span is one proxied request: when it arrived and when its response was
// written (the added latency included).
type span struct {
	start, end time.Time
	what       string // method, path and Range, or the DynamoDB operation
}

// newLatencyProxy returns a proxy to target. The Host header is passed
// through as the client sent it: SigV4 signs it.
func newLatencyProxy(target *url.URL, delay time.Duration, jitter float64, seed uint64) *latencyProxy {
	p := &latencyProxy{Delay: delay, Jitter: jitter, sleep: time.Sleep, now: time.Now, rng: rand.New(rand.NewPCG(seed, 0x5eed))}
	p.rp = &httputil.ReverseProxy{
		Rewrite: func(r *httputil.ProxyRequest) {
			r.SetURL(target)
			r.Out.Host = r.In.Host
		},
		ModifyResponse: func(*http.Response) error {
			p.sleep(p.delay())
			return nil
		},
		ErrorHandler: func(w http.ResponseWriter, _ *http.Request, err error) {
			http.Error(w, "latency proxy: "+err.Error(), http.StatusBadGateway)
		},
	}
	return p
}

// delay draws one added latency.
func (p *latencyProxy) delay() time.Duration {
	if p.Delay <= 0 {
		return 0
	}
	p.mu.Lock()
	f := 1 + p.Jitter*(2*p.rng.Float64()-1)
	p.mu.Unlock()
	return time.Duration(float64(p.Delay) * f)
}

func (p *latencyProxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p.mu.Lock()
	p.hits++
	if p.inFlight == 0 {
		p.busy++
	}
	p.inFlight++
	start := p.now()
	p.mu.Unlock()
	defer func() {
		end := p.now()
		p.mu.Lock()
		p.inFlight--
		if p.record {
			p.spans = append(p.spans, span{start, end, describe(r)})
		}
		p.mu.Unlock()
	}()
	p.rp.ServeHTTP(w, r)
}

// proxyCount is what a proxy counted up to a moment.
type proxyCount struct{ hits, busy int64 }

// count returns the counts so far; the difference of two is what happened
// between them.
func (p *latencyProxy) count() proxyCount {
	p.mu.Lock()
	defer p.mu.Unlock()
	return proxyCount{p.hits, p.busy}
}

func (c proxyCount) sub(o proxyCount) proxyCount { return proxyCount{c.hits - o.hits, c.busy - o.busy} }

// startRecording begins recording the spans of the requests (the cold
// invocation's), which take returns.
func (p *latencyProxy) startRecording() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.record, p.spans = true, nil
}

// take stops recording and returns the spans recorded, in order of their
// end.
func (p *latencyProxy) take() []span {
	p.mu.Lock()
	defer p.mu.Unlock()
	s := p.spans
	p.record, p.spans = false, nil
	return s
}

// describe names a request in the cold start's log: "GET /bucket/key
// bytes=0-16383", or "POST DynamoDB_20120810.Query".
func describe(r *http.Request) string {
	if t := r.Header.Get("X-Amz-Target"); t != "" {
		return r.Method + " " + t
	}
	d := r.Method + " " + r.URL.Path
	if rg := r.Header.Get("Range"); rg != "" {
		d += " " + rg
	}
	return d
}
