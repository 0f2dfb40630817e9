package coldstart_test

import (
	"log/slog"
	"strings"
	"testing"

	"meridian/shared/lambdafn/coldstart"
)

func TestEnvCollectsEveryProblem(t *testing.T) {
	t.Parallel()
	vars := map[string]string{"LOG_LEVEL": "loud", "PER_PAGE": "500", "NAME": "  x  "}
	r := coldstart.NewEnv(func(k string) string { return vars[k] })
	if got := r.String("NAME", "d"); got != "x" {
		t.Errorf("String = %q", got)
	}
	if got := r.String("UNSET", "d"); got != "d" {
		t.Errorf("String default = %q", got)
	}
	if got := r.LogLevel("LOG_LEVEL"); got != slog.LevelInfo {
		t.Errorf("LogLevel fallback = %v", got)
	}
	if got := r.Int("PER_PAGE", 50, 1, 200); got != 50 {
		t.Errorf("Int fallback = %d", got)
	}
	r.Required("GRID_BUCKET", "the S3 bucket of grid indexes")
	err := r.Err()
	if err == nil {
		t.Fatal("no error")
	}
	for _, name := range []string{"LOG_LEVEL", "PER_PAGE", "GRID_BUCKET"} {
		if !strings.Contains(err.Error(), name) {
			t.Errorf("error %q does not name %s", err, name)
		}
	}
	ok := coldstart.NewEnv(func(k string) string { return map[string]string{"LOG_LEVEL": "debug"}[k] })
	if ok.LogLevel("LOG_LEVEL") != slog.LevelDebug || ok.Err() != nil {
		t.Errorf("valid environment: %v", ok.Err())
	}
}

func TestURL(t *testing.T) {
	t.Parallel()
	vars := map[string]string{"GOOD": "https://cdn.example.com/tiles/", "BAD": "cdn.example.com", "FTP": "ftp://x/y"}
	r := coldstart.NewEnv(func(k string) string { return vars[k] })
	if got := r.URL("GOOD", ""); got != "https://cdn.example.com/tiles" {
		t.Errorf("GOOD = %q", got)
	}
	if got := r.URL("UNSET", "d"); got != "d" {
		t.Errorf("UNSET = %q", got)
	}
	r.URL("BAD", "")
	r.URL("FTP", "")
	if err := r.Err(); err == nil || !strings.Contains(err.Error(), "BAD") || !strings.Contains(err.Error(), "FTP") {
		t.Errorf("Err = %v, want both bad URLs named", err)
	}
}
