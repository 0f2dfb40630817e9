package main

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/aws/aws-lambda-go/events"

	"meridian/shared/api/apigw"
)

// The requests replayed from events/, and what counts as the same answer.

// request is a recorded API Gateway event and the function it goes to.
type request struct {
	name, function string
	ev             events.APIGatewayProxyRequest
}

// loadEvents reads the events of the functions under test (events/*.json
// but the authorizer's).
func loadEvents(dir string) ([]request, error) {
	paths, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil || len(paths) == 0 {
		return nil, fmt.Errorf("no events in %s (run from the repository's root): %v", dir, err)
	}
	var out []request
	for _, p := range paths {
		name := strings.TrimSuffix(filepath.Base(p), ".json")
		fn, _, _ := strings.Cut(name, "-")
		if _, ok := functionTimeout[fn]; !ok {
			continue
		}
		ev, err := apigw.ReadEvent(p)
		if err != nil {
			return nil, err
		}
		out = append(out, request{name: name, function: fn, ev: ev})
	}
	return out, nil
}

// answer is what a client gets.
type answer struct {
	status      int
	contentType string
	retryAfter  string
	body        string
}

// requestID is the request id in an error body, which differs by request.
var requestID = regexp.MustCompile(`"request_id":"[^"]*"`)

func (a answer) equal(b answer) bool {
	return a.status == b.status && a.contentType == b.contentType && a.body == b.body
}

// invoke runs r through its function as the Lambda runtime would, under
// the function's timeout.
func invoke(ctx context.Context, fns functions, r request) (answer, error) {
	ctx, cancel := context.WithTimeout(ctx, functionTimeout[r.function])
	defer cancel()
	resp, err := apigw.Invoke(ctx, fns[r.function], r.ev)
	if err != nil {
		return answer{}, err
	}
	if ctx.Err() != nil {
		// Lambda would have cut the invocation off: API Gateway answers
		// 504 with none of our body.
		return answer{status: http.StatusGatewayTimeout, body: "function timed out"}, nil
	}
	body := resp.Body
	if resp.IsBase64Encoded {
		b, err := base64.StdEncoding.DecodeString(resp.Body)
		if err != nil {
			return answer{}, err
		}
		body = string(b)
	}
	h := http.Header{}
	for k, v := range resp.Headers {
		h.Set(k, v)
	}
	for k, vs := range resp.MultiValueHeaders {
		for _, v := range vs {
			h.Add(k, v)
		}
	}
	return answer{status: resp.StatusCode, contentType: h.Get("Content-Type"), retryAfter: h.Get("Retry-After"),
		body: requestID.ReplaceAllString(body, `"request_id":""`)}, nil
}

// invokeUntilServed is invoke retried over a 503: without faults an
// in-process emulator on a loaded machine can still be slower than a
// call's timeout.
func invokeUntilServed(ctx context.Context, fns functions, r request) (answer, error) {
	for range 5 {
		a, err := invoke(ctx, fns, r)
		if err != nil || a.status != http.StatusServiceUnavailable {
			return a, err
		}
	}
	return answer{}, errors.New("503 five times without faults")
}

func errorCode(body string) string {
	if i := strings.Index(body, `"code":"`); i >= 0 {
		rest := body[i+8:]
		if j := strings.IndexByte(rest, '"'); j >= 0 {
			return rest[:j]
		}
	}
	return ""
}

func trim(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}
