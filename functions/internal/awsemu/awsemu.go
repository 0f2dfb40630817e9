// Package awsemu runs the Lambdas on this machine as AWS runs them, for the
// commands that measure and check them there: the S3 and DynamoDB
// emulators (s3rver and dynoxide, from npm) as processes, a deployment's
// bucket and table in them with meridian-publish's copy of a data
// directory, and a function's bootstrap under AWS's Lambda Runtime
// Interface Emulator (aws-lambda-rie), invoked over HTTP, with its init
// time and peak memory.
//
// make bench-aws (functions/benchaws: latency, round trips) and make
// test-lambda (functions/lambdatest: every function over every recorded
// event, checked) both use it; it lives under functions/internal so that
// nothing served links it.
package awsemu

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"syscall"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"meridian/shared/blob/s3blob"
	"meridian/shared/kv/dynamokv"
)

// Creds is the emulators' access key and secret: s3rver checks SigV4
// signatures with these, dynoxide takes any.
const Creds = "S3RVER"

// Region is the region the emulated deployment is in.
const Region = "us-east-1"

// Procs are processes started for a run, stopped at its end, and servers
// of this process serving them.
type Procs struct {
	cmds    []*exec.Cmd
	servers []*http.Server
}

// Start starts bin with args, its output in dir/name.log, with env (nil:
// this process's). The process dies with this one.
func (ps *Procs) Start(ctx context.Context, dir, name string, env []string, bin string, args ...string) (*exec.Cmd, error) {
	logf, err := os.Create(filepath.Join(dir, name+".log"))
	if err != nil {
		return nil, err
	}
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Stdout, cmd.Stderr = logf, logf
	if env != nil {
		cmd.Env = env
	}
	DieWithParent(cmd)
	err = cmd.Start()
	logf.Close() // the child holds its own descriptor
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	ps.cmds = append(ps.cmds, cmd)
	return cmd, nil
}

// Stop ends cmd, one of ps's: SIGTERM, then SIGKILL after grace.
func (ps *Procs) Stop(cmd *exec.Cmd, grace time.Duration) {
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-done:
	case <-time.After(grace):
		cmd.Process.Kill()
		<-done
	}
	for i, c := range ps.cmds {
		if c == cmd {
			ps.cmds = append(ps.cmds[:i], ps.cmds[i+1:]...)
			break
		}
	}
}

// StopAll kills every process of ps still running and closes its servers.
func (ps *Procs) StopAll() {
	for _, c := range ps.cmds {
		c.Process.Kill()
		c.Wait()
	}
	for _, s := range ps.servers {
		s.Close()
	}
	ps.cmds, ps.servers = nil, nil
}

// serve serves h on a free loopback port until StopAll, and returns its
// URL.
func (ps *Procs) serve(h http.Handler) (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	go srv.Serve(ln)
	ps.servers = append(ps.servers, srv)
	return "http://" + ln.Addr().String(), nil
}

// EmulatorOptions say which emulators to start.
type EmulatorOptions struct {
	Work     string // s3rver's directory and the logs go here
	S3rver   string // the s3rver executable (npm s3rver)
	Dynoxide string // the dynoxide executable (npm @dynoxide/linux-x64)
	// S3Endpoint and DynamoEndpoint, when set, are emulators already
	// running: none is started in their place.
	S3Endpoint, DynamoEndpoint string
}

// StartEmulators starts s3rver and dynoxide, each on a free loopback port,
// unless o names emulators already running, and returns their URLs once
// they accept connections. The s3rver it starts is reached through a
// proxy that makes it read-after-write consistent, as S3 is
// (consistentS3).
func StartEmulators(ctx context.Context, procs *Procs, o EmulatorOptions) (s3URL, dynamoURL string, err error) {
	s3URL, dynamoURL = o.S3Endpoint, o.DynamoEndpoint
	if s3URL == "" {
		addr, err := FreeAddr()
		if err != nil {
			return "", "", err
		}
		dir := filepath.Join(o.Work, "s3")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return "", "", err
		}
		host, port, _ := net.SplitHostPort(addr)
		if _, err := procs.Start(ctx, o.Work, "s3rver", nil, o.S3rver, "-d", dir, "-a", host, "-p", port, "--silent"); err != nil {
			return "", "", err
		}
		if err := WaitTCP(ctx, addr); err != nil {
			return "", "", fmt.Errorf("s3rver: %w", err)
		}
		if s3URL, err = procs.serve(newConsistentS3(&url.URL{Scheme: "http", Host: addr})); err != nil {
			return "", "", err
		}
	}
	if dynamoURL == "" {
		addr, err := FreeAddr()
		if err != nil {
			return "", "", err
		}
		host, port, _ := net.SplitHostPort(addr)
		if _, err := procs.Start(ctx, o.Work, "dynoxide", nil, o.Dynoxide, "serve", "--host", host, "--port", port); err != nil {
			return "", "", err
		}
		if err := WaitTCP(ctx, addr); err != nil {
			return "", "", fmt.Errorf("dynoxide: %w", err)
		}
		dynamoURL = "http://" + addr
	}
	return s3URL, dynamoURL, nil
}

// CreateBucketAndTable makes a deployment's data bucket and report table
// in the emulators, as the stack does in AWS.
func CreateBucketAndTable(ctx context.Context, s3URL, dynamoURL, bucket, table string) error {
	sc, err := s3blob.NewClient(ctx, s3blob.ClientOptions{Region: Region, Endpoint: s3URL, PathStyle: true, AccessKeyID: Creds, SecretAccessKey: Creds})
	if err != nil {
		return err
	}
	if _, err := sc.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String(bucket)}); err != nil {
		return fmt.Errorf("create bucket: %w", err)
	}
	return CreateTable(ctx, dynamoURL, table)
}

// CreateTable makes a table of the stack's design (pk/sk) in the
// DynamoDB emulator: the report table, the watches' table.
func CreateTable(ctx context.Context, dynamoURL, table string) error {
	dc, err := dynamokv.NewClient(ctx, dynamokv.ClientOptions{Region: Region, Endpoint: dynamoURL, AccessKeyID: Creds, SecretAccessKey: Creds})
	if err != nil {
		return err
	}
	return dynamokv.CreateTable(ctx, dc, table)
}

// Publish copies the data directory data into the deployment with the
// meridian-publish binary at bin, as make deploy users do; its output goes
// to log.
func Publish(ctx context.Context, bin, data, s3URL, dynamoURL, bucket, table string, log io.Writer) error {
	pub := exec.CommandContext(ctx, bin, "-data", data, "-bucket", bucket, "-table", table,
		"-s3-endpoint", s3URL, "-dynamodb-endpoint", dynamoURL, "-region", Region, "-dynamodb-workers", "16")
	pub.Env = append(os.Environ(), "AWS_ACCESS_KEY_ID="+Creds, "AWS_SECRET_ACCESS_KEY="+Creds)
	pub.Stdout, pub.Stderr = log, log
	DieWithParent(pub)
	if err := pub.Run(); err != nil {
		return fmt.Errorf("meridian-publish: %w", err)
	}
	return nil
}

// GridIndexes lists the grid index files of a data directory (its
// grid/*.mgix), sorted: what GRID_INDEXES names once they are published.
func GridIndexes(data string) ([]string, error) {
	m, err := filepath.Glob(filepath.Join(data, "grid", "*.mgix"))
	if err != nil {
		return nil, err
	}
	if len(m) == 0 {
		return nil, fmt.Errorf("%s: no grid indexes in grid/", data)
	}
	var names []string
	for _, p := range m {
		names = append(names, filepath.Base(p))
	}
	sort.Strings(names)
	return names, nil
}

// FreeAddr returns a loopback address no one listens on (yet).
func FreeAddr() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer ln.Close()
	return ln.Addr().String(), nil
}

// WaitTCP waits until addr accepts connections, for up to about a minute
// on a loaded machine.
func WaitTCP(ctx context.Context, addr string) error {
	deadline := time.Now().Add(time.Minute)
	for time.Now().Before(deadline) {
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			c.Close()
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
	}
	return fmt.Errorf("nothing answers on %s", addr)
}
