// Package apigwtest replays recorded API Gateway REST proxy events
// (events/*.json) through a function's real handler in tests.
package apigwtest

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"meridian/shared/api/apigw"
	"meridian/shared/internal/heaptest"
)

// Want is what one event's response must be.
type Want struct {
	Status      int
	ContentType string   // checked when set
	Contains    []string // substrings of the body
	Binary      bool     // the body is base64 (tiles)
	// Check, when set, inspects the headers and the (decoded) body.
	Check func(h map[string][]string, body []byte) error
}

// Replay runs every event file matching pattern through h as the Lambda
// runtime would, and checks it against want, keyed by the file's base name
// without .json. Events without an expectation, and expectations without
// an event, fail the test.
func Replay(t *testing.T, h http.Handler, pattern string, want map[string]Want) {
	t.Helper()
	files, err := filepath.Glob(pattern)
	if err != nil || len(files) == 0 {
		t.Fatalf("no events match %s: %v", pattern, err)
	}
	left := make(map[string]bool, len(want))
	for name := range want {
		left[name] = true
	}
	for _, file := range files {
		name := strings.TrimSuffix(filepath.Base(file), ".json")
		w, ok := want[name]
		if !ok {
			t.Errorf("event %s has no expectation", name)
			continue
		}
		delete(left, name)
		t.Run(name, func(t *testing.T) {
			ev, err := apigw.ReadEvent(file)
			if err != nil {
				t.Fatal(err)
			}
			resp, err := apigw.Invoke(context.Background(), h, ev)
			if err != nil {
				t.Fatal(err)
			}
			check(t, w, resp, ev.RequestContext.RequestID)
		})
	}
	for name := range left {
		t.Errorf("expectation %s has no event file", name)
	}
}

// check compares one response with its expectation.
func check(t *testing.T, w Want, resp events.APIGatewayProxyResponse, requestID string) {
	t.Helper()
	body := resp.Body
	if resp.IsBase64Encoded {
		b, err := base64.StdEncoding.DecodeString(body)
		if err != nil {
			t.Fatalf("base64 body: %v", err)
		}
		body = string(b)
	}
	if resp.StatusCode != w.Status {
		t.Fatalf("status %d, want %d: %.300s", resp.StatusCode, w.Status, body)
	}
	if resp.IsBase64Encoded != w.Binary {
		t.Errorf("IsBase64Encoded = %v, want %v", resp.IsBase64Encoded, w.Binary)
	}
	if resp.StatusCode == http.StatusNoContent {
		if body != "" {
			t.Errorf("204 with a body: %.300s", body)
		}
	} else if !w.Binary && !json.Valid([]byte(body)) {
		t.Errorf("body is not JSON: %.300s", body)
	}
	if w.ContentType != "" {
		if got := resp.MultiValueHeaders["Content-Type"]; len(got) != 1 || got[0] != w.ContentType {
			t.Errorf("Content-Type = %v, want %s", got, w.ContentType)
		}
	}
	if got := resp.MultiValueHeaders["X-Request-Id"]; len(got) != 1 || got[0] != requestID {
		t.Errorf("X-Request-Id = %v, want API Gateway's request id %s", got, requestID)
	}
	for _, s := range w.Contains {
		if !strings.Contains(body, s) {
			t.Errorf("body lacks %s:\n%.500s", s, body)
		}
	}
	if w.Check != nil {
		if err := w.Check(resp.MultiValueHeaders, []byte(body)); err != nil {
			t.Error(err)
		}
	}
}

// MaxLambdaRSS is the memory a function gets (256 MB); its process must
// peak well below it.
const MaxLambdaRSS = 256 << 20

// CheckBootstrap builds the function in dir, runs it as the Lambda service
// would (a separate process polling the Runtime API, with env added to its
// environment) over every event matching pattern, checks each answer
// against want, and checks that a bad environment (LOG_LEVEL=loud) stops it
// at cold start. It returns the process's peak resident memory. Built with
// the heaptest tag (make test-heap) it also checks that memory against
// MaxLambdaRSS/4, the lowest of up to three runs.
func CheckBootstrap(t *testing.T, dir, pattern string, want map[string]Want, env ...string) int64 {
	t.Helper()
	bin := BuildBootstrap(t, dir)
	files, err := filepath.Glob(pattern)
	if err != nil || len(files) == 0 {
		t.Fatalf("no events match %s: %v", pattern, err)
	}
	run := RunBootstrap(t, bin, files, env...)
	if run.InitError != "" {
		t.Fatalf("cold start failed: %s", run.InitError)
	}
	if fi, err := os.Stat(bin); err == nil {
		abs, _ := filepath.Abs(dir)
		t.Logf("cold start of %s (%.1f MB, this machine's build): init %s, first answer %s", filepath.Base(abs), float64(fi.Size())/1e6,
			run.Init.Round(time.Millisecond), run.FirstAnswer.Round(time.Millisecond))
	}
	if len(run.Invocations) != len(files) {
		t.Fatalf("%d answers for %d events", len(run.Invocations), len(files))
	}
	for _, inv := range run.Invocations {
		name := strings.TrimSuffix(filepath.Base(inv.Event), ".json")
		t.Run(name, func(t *testing.T) {
			if inv.Error != "" {
				t.Fatalf("invocation error: %s", inv.Error)
			}
			ev, err := apigw.ReadEvent(inv.Event)
			if err != nil {
				t.Fatal(err)
			}
			check(t, want[name], inv.Response, ev.RequestContext.RequestID)
		})
	}
	if run.PeakRSS <= 0 {
		t.Errorf("peak RSS %d bytes: not measured", run.PeakRSS)
	}
	if checkRSS {
		first := true
		rss := heaptest.Lowest(MaxLambdaRSS/4, func() int64 {
			if first {
				first = false
				return run.PeakRSS
			}
			return RunBootstrap(t, bin, files, env...).PeakRSS
		})
		if rss > MaxLambdaRSS/4 {
			t.Errorf("peak RSS %d bytes: want under a quarter of the 256 MB a function gets", rss)
		}
	}
	bad := RunBootstrap(t, bin, files[:1], append(slices.Clone(env), "LOG_LEVEL=loud")...)
	if !strings.Contains(bad.InitError, "LOG_LEVEL") {
		t.Errorf("with LOG_LEVEL=loud the function should stop at cold start naming LOG_LEVEL; got %q", bad.InitError)
	}
	return run.PeakRSS
}
