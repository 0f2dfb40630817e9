package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"time"
)

// served is a `meridian serve` child process that listens.
type served struct {
	cmd       *exec.Cmd
	base, key string // base_url= and api_key= of its first lines
	done      chan struct{}
}

// startServe runs `bin serve args...` and returns once it prints its
// base_url= and api_key= lines. Its standard error, and its standard output
// after those lines, go to log (nil: discarded).
func startServe(ctx context.Context, bin string, log io.Writer, args ...string) (*served, error) {
	return startServeEnv(ctx, bin, log, nil, args...)
}

// startServeEnv is startServe with env added to this process's
// environment.
func startServeEnv(ctx context.Context, bin string, log io.Writer, env []string, args ...string) (*served, error) {
	if log == nil {
		log = io.Discard
	}
	cmd := exec.CommandContext(ctx, bin, append([]string{"serve"}, args...)...)
	if env != nil {
		cmd.Env = append(os.Environ(), env...)
	}
	cmd.Stderr = log
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("%s serve: %w", bin, err)
	}
	s := &served{cmd: cmd, done: make(chan struct{})}
	sc := bufio.NewScanner(stdout)
	for (s.key == "" || s.base == "") && sc.Scan() {
		line := sc.Text()
		fmt.Fprintln(log, line)
		if v, ok := strings.CutPrefix(line, "api_key="); ok {
			s.key = v
		}
		if v, ok := strings.CutPrefix(line, "base_url="); ok {
			s.base = v
		}
	}
	go func() {
		io.Copy(log, stdout)
		cmd.Wait()
		close(s.done)
	}()
	if s.key == "" || s.base == "" {
		s.stop()
		return nil, fmt.Errorf("%s serve %s: the server did not start", bin, strings.Join(args, " "))
	}
	return s, nil
}

// stop interrupts the server, as Ctrl-C does, and kills it when it has
// not ended within 10 seconds; it returns the exited process's state.
func (s *served) stop() *os.ProcessState {
	s.cmd.Process.Signal(os.Interrupt)
	select {
	case <-s.done:
	case <-time.After(10 * time.Second):
		s.cmd.Process.Kill()
		<-s.done
	}
	return s.cmd.ProcessState
}
