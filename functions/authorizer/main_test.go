package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"meridian/shared/api/apigw/apigwtest"
)

// eventFiles are the recorded REQUEST authorizer events API Gateway sends
// this function; `sam local invoke -e` can replay them elsewhere.
const eventFiles = "../../events/authorizer-*.json"

// want is the answer to each event, keyed by file name without .json: the
// usage identifier key and principal, or the error API Gateway maps to 401.
type want struct {
	Key       string
	Principal string
	Resource  string
	Error     string
}

var wantEvents = map[string]want{
	"authorizer-header-key": {Key: "mk_t3vq4n2kx5wc7hfj4rmp6yd3bg2zs4la", Principal: "t3vq4n2k",
		Resource: "arn:aws:execute-api:ca-central-1:123456789012:a1b2c3d4e5/v1/*"},
	"authorizer-header-lowercase": {Key: "tc_live_4f9a2c7e1b8d3f6a0c5e9b2d7f1a4c8e", Principal: "1f752188",
		Resource: "arn:aws:execute-api:ca-central-1:123456789012:b2c3d4e5f6/v1/*"},
	"authorizer-query-key": {Key: "mk_p5mz2c7wq4ke6tjx3nh2ra7vds5gyb4u", Principal: "p5mz2c7w",
		Resource: "arn:aws:execute-api:ca-central-1:123456789012:c3d4e5f6g7/v1/*"},
	"authorizer-no-key": {Error: "Unauthorized"},
}

func eventNames(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob(eventFiles)
	if err != nil || len(files) == 0 {
		t.Fatalf("no events match %s: %v", eventFiles, err)
	}
	seen := map[string]bool{}
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".json")
		if _, ok := wantEvents[name]; !ok {
			t.Errorf("event %s has no expectation", name)
		}
		seen[name] = true
	}
	for name := range wantEvents {
		if !seen[name] {
			t.Errorf("expectation %s has no event file", name)
		}
	}
	return files
}

// check compares an answer (the JSON response, or the error message) with
// the expectation.
func (w want) check(t *testing.T, resp events.APIGatewayCustomAuthorizerResponse, errMsg string) {
	t.Helper()
	if w.Error != "" {
		if errMsg != w.Error {
			t.Errorf("error %q, want %q", errMsg, w.Error)
		}
		return
	}
	if errMsg != "" {
		t.Fatalf("error %q, want an Allow policy", errMsg)
	}
	if resp.UsageIdentifierKey != w.Key || resp.PrincipalID != w.Principal {
		t.Errorf("usageIdentifierKey %q, principalId %q; want %q, %q", resp.UsageIdentifierKey, resp.PrincipalID, w.Key, w.Principal)
	}
	st := resp.PolicyDocument.Statement
	if resp.PolicyDocument.Version != "2012-10-17" || len(st) != 1 || st[0].Effect != "Allow" ||
		strings.Join(st[0].Action, ",") != "execute-api:Invoke" || strings.Join(st[0].Resource, ",") != w.Resource {
		t.Errorf("policy %+v, want Allow execute-api:Invoke on %s", resp.PolicyDocument, w.Resource)
	}
}

// TestReplayEvents runs every events/authorizer-*.json through the handler.
func TestReplayEvents(t *testing.T) {
	t.Parallel()
	h := newHandler(slog.New(slog.DiscardHandler))
	for _, file := range eventNames(t) {
		name := strings.TrimSuffix(filepath.Base(file), ".json")
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			var req events.APIGatewayCustomAuthorizerRequestTypeRequest
			if err := json.Unmarshal(data, &req); err != nil {
				t.Fatal(err)
			}
			if req.Type != "REQUEST" || req.MethodArn == "" {
				t.Fatalf("%s is not a REQUEST authorizer event", file)
			}
			resp, err := h(context.Background(), req)
			msg := ""
			if err != nil {
				msg = err.Error()
			}
			wantEvents[name].check(t, resp, msg)
		})
	}
}

// TestBootstrap runs the built function as Lambda would, a process polling
// the Runtime API, over every event. apigwtest builds it; its runner reads
// proxy responses only, so authorizer answers go through the small runtime
// below.
func TestBootstrap(t *testing.T) {
	t.Parallel()
	files := eventNames(t)
	bin := apigwtest.BuildBootstrap(t, ".")
	answers, initErr := runBootstrap(t, bin, files)
	if initErr != "" {
		t.Fatalf("cold start failed: %s", initErr)
	}
	for i, file := range files {
		name := strings.TrimSuffix(filepath.Base(file), ".json")
		t.Run(name, func(t *testing.T) {
			a := answers[i]
			var resp events.APIGatewayCustomAuthorizerResponse
			msg := ""
			if a.isError {
				var e struct {
					ErrorMessage string `json:"errorMessage"`
				}
				if err := json.Unmarshal(a.body, &e); err != nil {
					t.Fatalf("error body %s: %v", a.body, err)
				}
				msg = e.ErrorMessage
			} else if err := json.Unmarshal(a.body, &resp); err != nil {
				t.Fatalf("response %s: %v", a.body, err)
			}
			wantEvents[name].check(t, resp, msg)
		})
	}
	if _, initErr := runBootstrap(t, bin, files[:1], "LOG_LEVEL=loud"); !strings.Contains(initErr, "LOG_LEVEL") {
		t.Errorf("with LOG_LEVEL=loud the function should stop at cold start naming LOG_LEVEL; got %q", initErr)
	}
}

// answer is what the function posted for one event.
type answer struct {
	body    []byte
	isError bool
}

// runBootstrap starts bin against a fake Lambda Runtime API (2018-06-01),
// hands it each event in turn and returns its answers in event order, or
// why it did not start.
func runBootstrap(t *testing.T, bin string, files []string, env ...string) ([]answer, string) {
	t.Helper()
	answers := make([]answer, len(files))
	var mu sync.Mutex
	next, got := 0, 0
	done := make(chan struct{})
	initErr := make(chan string, 1)
	mux := http.NewServeMux()
	mux.HandleFunc("GET /2018-06-01/runtime/invocation/next", func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		i := next
		next++
		mu.Unlock()
		if i >= len(files) {
			<-r.Context().Done() // idle, as the service holds the poll
			return
		}
		data, err := os.ReadFile(files[i])
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		w.Header().Set("Lambda-Runtime-Aws-Request-Id", strconv.Itoa(i))
		w.Header().Set("Lambda-Runtime-Deadline-Ms", strconv.FormatInt(time.Now().Add(10*time.Second).UnixMilli(), 10))
		w.Header().Set("Lambda-Runtime-Invoked-Function-Arn", "arn:aws:lambda:ca-central-1:123456789012:function:authorizer")
		w.Write(data)
	})
	mux.HandleFunc("POST /2018-06-01/runtime/invocation/{id}/{kind}", func(w http.ResponseWriter, r *http.Request) {
		i, err := strconv.Atoi(r.PathValue("id"))
		body, _ := io.ReadAll(r.Body)
		if err != nil || i < 0 || i >= len(files) {
			http.Error(w, "unknown request id", http.StatusBadRequest)
			return
		}
		mu.Lock()
		answers[i] = answer{body: body, isError: r.PathValue("kind") == "error"}
		got++
		if got == len(files) {
			close(done)
		}
		mu.Unlock()
		w.WriteHeader(http.StatusAccepted)
	})
	mux.HandleFunc("POST /2018-06-01/runtime/init/error", func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		initErr <- string(body)
		w.WriteHeader(http.StatusAccepted)
	})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: mux}
	go srv.Serve(ln)
	defer srv.Close()

	cmd := exec.Command(bin)
	cmd.Env = append([]string{
		"AWS_LAMBDA_RUNTIME_API=" + ln.Addr().String(),
		"AWS_LAMBDA_FUNCTION_NAME=authorizer",
		"AWS_LAMBDA_FUNCTION_MEMORY_SIZE=128",
		"AWS_REGION=ca-central-1",
		"_HANDLER=bootstrap",
	}, env...)
	var stderr strings.Builder
	cmd.Stdout = io.Discard
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	defer func() {
		cmd.Process.Kill()
		<-exited
	}()
	select {
	case <-done:
		return answers, ""
	case msg := <-initErr:
		return nil, msg
	case err := <-exited:
		exited <- err // for the deferred wait
		return nil, fmt.Sprintf("exited: %v: %s", err, strings.TrimSpace(stderr.String()))
	case <-time.After(30 * time.Second):
		t.Fatalf("no answer to %d events in 30 s; stderr:\n%s", len(files), stderr.String())
		return nil, ""
	}
}
