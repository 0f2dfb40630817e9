package main

import "testing"

// The last line is what CI and the README quote; the exit status follows
// the bounds.
func TestResultLineAndBounds(t *testing.T) {
	t.Parallel()
	r := result{requests: 2000, faults: 180, unavailable: 20, publishesOK: 9, publishes: 10}
	if got, want := r.line(), "chaos: 2000 requests, 180 faults injected, 0 wrong or 500, 20 503 with Retry-After, 9 publishes ok of 10"; got != want {
		t.Errorf("line = %q\nwant   %q", got, want)
	}
	if r.failed(0.01) {
		t.Error("20 503s of 2000 (1%) failed the 1% bound")
	}
	for name, bad := range map[string]result{
		"a wrong answer":                      {requests: 2000, wrong: 1},
		"503s over 1%":                        {requests: 2000, unavailable: 21},
		"a failed publish changed the served": {requests: 2000, servedChanged: 1},
		"the refresh test failed":             {requests: 2000, refreshFailed: true},
	} {
		if !bad.failed(0.01) {
			t.Errorf("%s passed", name)
		}
	}
}

// Answers are compared byte for byte but for the request id.
func TestAnswerEqual(t *testing.T) {
	t.Parallel()
	a := answer{status: 404, contentType: "application/json", body: requestID.ReplaceAllString(`{"error":{"code":"not_found","request_id":"abc"}}`, `"request_id":""`)}
	b := answer{status: 404, contentType: "application/json", body: requestID.ReplaceAllString(`{"error":{"code":"not_found","request_id":"xyz"}}`, `"request_id":""`)}
	if !a.equal(b) {
		t.Errorf("answers differing by request id: %q, %q", a.body, b.body)
	}
	c := b
	c.body = b.body[:len(b.body)-1]
	if a.equal(c) || a.equal(answer{status: 200, contentType: a.contentType, body: a.body}) {
		t.Error("a cut body or another status compared equal")
	}
}
