package awsconf_test

import (
	"context"
	"testing"
	"time"

	"meridian/shared/awsconf"
)

func TestBackoff(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		base    time.Duration
		attempt int
		ceil    time.Duration
	}{{100 * time.Millisecond, 1, 100 * time.Millisecond}, {100 * time.Millisecond, 3, 400 * time.Millisecond},
		{100 * time.Millisecond, 4, awsconf.MaxBackoff}, {50 * time.Millisecond, 2, 100 * time.Millisecond}, {50 * time.Millisecond, 99, awsconf.MaxBackoff}} {
		for range 200 {
			if d := awsconf.Backoff(c.base, c.attempt); d < 0 || d >= c.ceil {
				t.Fatalf("Backoff(%s, %d) = %s, want in [0, %s)", c.base, c.attempt, d, c.ceil)
			}
		}
	}
}

func TestLoad(t *testing.T) {
	t.Parallel()
	cfg, err := awsconf.Load(context.Background(), awsconf.Options{AccessKeyID: "a", SecretAccessKey: "b", MaxAttempts: 3, BaseBackoff: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Region == "" || cfg.Retryer().MaxAttempts() != 3 {
		t.Errorf("region %q, attempts %d", cfg.Region, cfg.Retryer().MaxAttempts())
	}
	creds, err := cfg.Credentials.Retrieve(context.Background())
	if err != nil || creds.AccessKeyID != "a" {
		t.Errorf("credentials %+v %v", creds, err)
	}
}
