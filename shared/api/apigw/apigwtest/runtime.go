package apigwtest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
)

// Invocation is one event sent through the fake Lambda Runtime API and what
// the function answered.
type Invocation struct {
	Event    string // file
	Response events.APIGatewayProxyResponse
	Error    string // body of an invocation error
}

// Run is the outcome of RunBootstrap.
type Run struct {
	Invocations []Invocation
	PeakRSS     int64 // bytes, VmHWM of the function process
	InitError   string
	// Init is the time from starting the process to its first poll for
	// work (the cold start: package init and the function's own set-up),
	// and FirstAnswer to its answer to the first event.
	Init, FirstAnswer time.Duration
}

// BuildBootstrap compiles the function in dir (a main package) for this
// machine with the Lambda build tags, as `make build` does for arm64.
func BuildBootstrap(t *testing.T, dir string) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the function binary")
	}
	out := filepath.Join(t.TempDir(), "bootstrap")
	cmd := exec.Command("go", "build", "-tags", "lambda.norpc", "-trimpath", "-o", out, ".")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build %s: %v\n%s", dir, err, b)
	}
	return out
}

// RunBootstrap starts the function binary against a fake Lambda Runtime
// API (the 2018-06-01 interface the real service and aws-lambda-go speak),
// sends it each event file in turn, and collects the answers and the
// process's peak resident memory. env is added to the function's
// environment.
func RunBootstrap(t *testing.T, bin string, eventFiles []string, env ...string) Run {
	t.Helper()
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc for peak memory")
	}
	rt := &fakeRuntime{events: eventFiles, done: make(chan struct{}), initErr: make(chan string, 1)}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: rt}
	go srv.Serve(ln)
	defer srv.Close()

	cmd := exec.Command(bin)
	cmd.Env = append([]string{
		"AWS_LAMBDA_RUNTIME_API=" + ln.Addr().String(),
		"AWS_LAMBDA_FUNCTION_NAME=" + filepath.Base(filepath.Dir(bin)),
		"AWS_LAMBDA_FUNCTION_MEMORY_SIZE=256",
		"AWS_LAMBDA_FUNCTION_VERSION=$LATEST",
		"AWS_REGION=ca-central-1",
		"_HANDLER=bootstrap",
		"PATH=" + os.Getenv("PATH"),
	}, env...)
	var stderr bytes.Buffer
	cmd.Stdout = io.Discard
	cmd.Stderr = &stderr
	rt.start = time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()

	var run Run
	select {
	case <-rt.done:
		run.PeakRSS = peakRSS(cmd.Process.Pid)
		cmd.Process.Kill()
		<-exited
	case msg := <-rt.initErr:
		run.InitError = msg
		cmd.Process.Kill()
		<-exited
	case err := <-exited:
		run.InitError = fmt.Sprintf("exited: %v: %s", err, strings.TrimSpace(stderr.String()))
	case <-time.After(60 * time.Second):
		cmd.Process.Kill()
		t.Fatalf("function did not finish %d events in 60 s; stderr:\n%s", len(eventFiles), stderr.String())
	}
	rt.mu.Lock()
	run.Invocations, run.Init, run.FirstAnswer = rt.results, rt.firstPoll, rt.firstAnswer
	rt.mu.Unlock()
	return run
}

// peakRSS reads VmHWM of pid in bytes.
func peakRSS(pid int) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return -1
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return kb << 10
		}
	}
	return -1
}

// fakeRuntime serves /2018-06-01/runtime/... for one function process.
type fakeRuntime struct {
	events  []string
	mu      sync.Mutex
	next    int
	results []Invocation
	done    chan struct{}
	initErr chan string
	closed  bool

	start                  time.Time
	firstPoll, firstAnswer time.Duration
}

const runtimePrefix = "/2018-06-01/runtime/"

func (f *fakeRuntime) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	path := strings.TrimPrefix(r.URL.Path, runtimePrefix)
	body, _ := io.ReadAll(r.Body)
	switch {
	case r.Method == "GET" && path == "invocation/next":
		f.mu.Lock()
		i := f.next
		f.next++
		if f.firstPoll == 0 {
			f.firstPoll = time.Since(f.start)
		}
		f.mu.Unlock()
		if i >= len(f.events) {
			// No more work: hold the poll, as the real service does while idle.
			<-r.Context().Done()
			return
		}
		data, err := os.ReadFile(f.events[i])
		if err != nil {
			http.Error(w, err.Error(), 500)
			return
		}
		h := w.Header()
		h.Set("Lambda-Runtime-Aws-Request-Id", strconv.Itoa(i))
		h.Set("Lambda-Runtime-Deadline-Ms", strconv.FormatInt(time.Now().Add(30*time.Second).UnixMilli(), 10))
		h.Set("Lambda-Runtime-Invoked-Function-Arn", "arn:aws:lambda:ca-central-1:123456789012:function:test")
		h.Set("Lambda-Runtime-Trace-Id", "Root=1-00000000-000000000000000000000000")
		w.Write(data)
	case r.Method == "POST" && path == "init/error":
		f.initErr <- string(body)
		w.WriteHeader(http.StatusAccepted)
	case r.Method == "POST" && strings.HasPrefix(path, "invocation/"):
		rest := strings.TrimPrefix(path, "invocation/")
		id, kind, _ := strings.Cut(rest, "/")
		i, err := strconv.Atoi(id)
		if err != nil || i >= len(f.events) {
			http.Error(w, "unknown request id", 400)
			return
		}
		inv := Invocation{Event: f.events[i]}
		if kind == "error" {
			inv.Error = string(body)
		} else if err := json.Unmarshal(body, &inv.Response); err != nil {
			inv.Error = "response is not an API Gateway proxy response: " + err.Error()
		}
		f.mu.Lock()
		if f.firstAnswer == 0 {
			f.firstAnswer = time.Since(f.start)
		}
		f.results = append(f.results, inv)
		finished := len(f.results) == len(f.events) && !f.closed
		if finished {
			f.closed = true
		}
		f.mu.Unlock()
		w.WriteHeader(http.StatusAccepted)
		if finished {
			close(f.done)
		}
	default:
		http.Error(w, "not found", 404)
	}
}
