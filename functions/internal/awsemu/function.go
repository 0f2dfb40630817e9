package awsemu

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
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
