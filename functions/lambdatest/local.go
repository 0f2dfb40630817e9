package main

import (
	"bufio"
	"context"
	"encoding/base64"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"meridian/functions/internal/awsemu"
)

// localServer is `meridian serve` over the demo data directory: what
// make run serves, and the answer each API event is checked against.
type localServer struct {
	cmd       *exec.Cmd
	done      chan struct{}
	base, key string
	client    *http.Client
}

// startLocal starts `meridian serve` on data (which it fills with the
// demo data when empty) and waits for its base_url= and api_key= lines.
func startLocal(ctx context.Context, bin, data, logPath string) (*localServer, error) {
	logf, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	cmd := exec.CommandContext(ctx, bin, "serve", "-addr", "127.0.0.1:0", "-data", data, "-log-level", "warn")
	cmd.Stderr = logf
	out, err := cmd.StdoutPipe()
	if err != nil {
		logf.Close()
		return nil, err
	}
	awsemu.DieWithParent(cmd)
	if err := cmd.Start(); err != nil {
		logf.Close()
		return nil, err
	}
	s := &localServer{cmd: cmd, done: make(chan struct{}),
		// No transparent gzip: the event's Accept-Encoding is sent as it is.
		client: &http.Client{Transport: &http.Transport{DisableCompression: true}, Timeout: 2 * time.Minute}}
	// The reader copies the output to the log, says when both lines were
	// seen (or the output ended first), and waits for the process once its
	// output ends (exec: Wait after the last read of the pipe).
	ready := make(chan [2]string, 1)
	go func(ready chan<- [2]string) {
		var base, key string
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			line := sc.Text()
			fmt.Fprintln(logf, line)
			if v, ok := strings.CutPrefix(line, "base_url="); ok {
				base = v
			}
			if v, ok := strings.CutPrefix(line, "api_key="); ok {
				key = v
			}
			if base != "" && key != "" && ready != nil {
				ready <- [2]string{base, key}
				ready = nil
			}
		}
		io.Copy(logf, out)
		if ready != nil {
			close(ready)
		}
		cmd.Wait()
		logf.Close()
		close(s.done)
	}(ready)
	select {
	case v, ok := <-ready:
		if !ok {
			<-s.done
			return nil, fmt.Errorf("meridian serve stopped before it listened (%v; log: %s)", cmd.ProcessState, logPath)
		}
		s.base, s.key = v[0], v[1]
	case <-ctx.Done():
		s.stop()
		return nil, ctx.Err()
	}
	return s, nil
}

// stop ends the server as Ctrl-C does (it flushes its quota counts), or
// kills it after a minute.
func (s *localServer) stop() {
	s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-s.done:
	case <-time.After(time.Minute):
		s.cmd.Process.Kill()
		<-s.done
	}
}

// request is ev as the same request to the local server: its method, path,
// query, headers (Host too) and body, with the local demo key in place of
// the event's (or added, as the authorizer lets nothing keyless through).
func (s *localServer) request(ctx context.Context, ev events.APIGatewayProxyRequest) (*http.Request, error) {
	q := url.Values{}
	for k, vs := range ev.MultiValueQueryStringParameters {
		q[k] = append([]string(nil), vs...)
	}
	if len(q) == 0 {
		for k, v := range ev.QueryStringParameters {
			q.Set(k, v)
		}
	}
	if q.Has("api_key") {
		q.Set("api_key", s.key)
	}
	u := s.base + ev.Path
	if len(q) > 0 {
		u += "?" + q.Encode()
	}
	body := []byte(ev.Body)
	if ev.IsBase64Encoded {
		b, err := base64.StdEncoding.DecodeString(ev.Body)
		if err != nil {
			return nil, fmt.Errorf("event body: base64: %w", err)
		}
		body = b
	}
	r, err := http.NewRequestWithContext(ctx, ev.HTTPMethod, u, strings.NewReader(string(body)))
	if err != nil {
		return nil, err
	}
	set := func(k, v string) {
		switch http.CanonicalHeaderKey(k) {
		case "Host":
			r.Host = v
		case "Content-Length":
		default:
			r.Header.Add(k, v)
		}
	}
	if len(ev.MultiValueHeaders) > 0 {
		for k, vs := range ev.MultiValueHeaders {
			for _, v := range vs {
				set(k, v)
			}
		}
	} else {
		for k, v := range ev.Headers {
			set(k, v)
		}
	}
	if r.Header.Get("X-API-Key") != "" || !q.Has("api_key") {
		r.Header.Set("X-API-Key", s.key)
	}
	return r, nil
}

// answer sends ev to the local server.
func (s *localServer) answer(ctx context.Context, ev events.APIGatewayProxyRequest) (answer, error) {
	r, err := s.request(ctx, ev)
	if err != nil {
		return answer{}, err
	}
	resp, err := s.client.Do(r)
	if err != nil {
		return answer{}, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return answer{}, err
	}
	a := answer{status: resp.StatusCode, header: resp.Header, body: b}
	return a, a.gunzip()
}
