package awsemu

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// FunctionOptions say how to run one function under the emulator.
type FunctionOptions struct {
	RIE       string // the aws-lambda-rie binary
	Bootstrap string // the function's bootstrap, built for this machine
	// Env is the emulator's environment, which it passes on to the
	// function; AWS_LAMBDA_FUNCTION_TIMEOUT (seconds) and
	// AWS_LAMBDA_FUNCTION_MEMORY_SIZE (MB) are also the emulator's own
	// settings.
	Env []string
	Log string // the emulator's and the function's output go to this file
}

// Function is one function running under the Runtime Interface Emulator.
// The emulator starts the runtime process at the first invocation (the
// cold start) and keeps it for the next ones, one at a time.
type Function struct {
	cmd    *exec.Cmd
	url    string
	logf   *os.File
	client *http.Client
	// Log is the file of the emulator's and the function's output.
	Log string
}

// StartFunction starts the emulator for o's bootstrap and waits until it
// accepts invocations.
func StartFunction(ctx context.Context, o FunctionOptions) (*Function, error) {
	bootstrap, err := filepath.Abs(o.Bootstrap)
	if err != nil {
		return nil, err
	}
	if _, err := os.Stat(bootstrap); err != nil {
		return nil, err
	}
	rie, err := filepath.Abs(o.RIE)
	if err != nil {
		return nil, err
	}
	rieAddr, err := FreeAddr()
	if err != nil {
		return nil, err
	}
	apiAddr, err := FreeAddr()
	if err != nil {
		return nil, err
	}
	logf, err := os.Create(o.Log)
	if err != nil {
		return nil, err
	}
	cmd := exec.CommandContext(ctx, rie, "--runtime-interface-emulator-address", rieAddr, "--runtime-api-address", apiAddr, "--log-level", "warn", bootstrap)
	cmd.Env = o.Env
	cmd.Dir = filepath.Dir(bootstrap) // the function's /var/task
	cmd.Stdout, cmd.Stderr = logf, logf
	DieWithParent(cmd)
	if err := cmd.Start(); err != nil {
		logf.Close()
		return nil, err
	}
	f := &Function{cmd: cmd, url: "http://" + rieAddr + "/2015-03-31/functions/function/invocations", logf: logf, client: &http.Client{}, Log: o.Log}
	if err := WaitTCP(ctx, rieAddr); err != nil {
		f.Stop()
		return nil, fmt.Errorf("aws-lambda-rie: %w (log: %s)", err, o.Log)
	}
	return f, nil
}

// Invoke sends one event and returns the emulator's answer: status 200 and
// the function's response, or the error it returned as
// {"errorMessage":...,"errorType":...}; other statuses when the runtime
// failed (a cold start that exited, a timeout).
func (f *Function) Invoke(ctx context.Context, event []byte) (status int, body []byte, err error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, f.url, bytes.NewReader(event))
	if err != nil {
		return 0, nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := f.client.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	body, err = io.ReadAll(resp.Body)
	return resp.StatusCode, body, err
}

// InitDuration is the cold start the emulator reported for the first
// invocation (Init Duration in its REPORT line: from starting the runtime
// process to the runtime's first request for work, the function's whole
// init); false before one was reported.
func (f *Function) InitDuration() (time.Duration, bool) {
	b, err := os.ReadFile(f.Log)
	if err != nil {
		return 0, false
	}
	return ParseInitDuration(b)
}

// ParseInitDuration finds the first "Init Duration: N ms" of an emulator
// log's REPORT lines.
func ParseInitDuration(log []byte) (time.Duration, bool) {
	sc := bufio.NewScanner(bytes.NewReader(log))
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, "REPORT RequestId:") {
			continue
		}
		_, rest, ok := strings.Cut(line, "Init Duration: ")
		if !ok {
			continue
		}
		v, _, ok := strings.Cut(rest, " ms")
		ms, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
		if !ok || err != nil || ms < 0 {
			continue
		}
		return time.Duration(ms * float64(time.Millisecond)), true
	}
	return 0, false
}

// PeakRSS is the peak resident memory (VmHWM) of the function's runtime
// process, the emulator's child, in bytes; 0 where /proc does not say or
// before the first invocation started it.
func (f *Function) PeakRSS() int64 { return ChildRSS(f.cmd.Process.Pid) }

// Stop ends the emulator and the function.
func (f *Function) Stop() {
	f.cmd.Process.Kill()
	f.cmd.Wait()
	f.logf.Close()
}

// ChildRSS returns the largest peak resident memory (VmHWM) among the
// children of process pid, in bytes; 0 where /proc does not say.
func ChildRSS(pid int) int64 {
	tasks, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/children", pid))
	var kids []string
	for _, t := range tasks {
		if b, err := os.ReadFile(t); err == nil {
			kids = append(kids, strings.Fields(string(b))...)
		}
	}
	var peak int64
	for _, k := range kids {
		st, err := os.ReadFile("/proc/" + k + "/status")
		if err != nil {
			continue
		}
		for _, line := range strings.Split(string(st), "\n") {
			if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
				var kb int64
				fmt.Sscanf(strings.TrimSpace(v), "%d", &kb)
				peak = max(peak, kb<<10)
			}
		}
	}
	return peak
}
