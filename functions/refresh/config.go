package main

import (
	"log/slog"
	"os"
	"path/filepath"
	"strings"

	"meridian/shared/lambdafn/coldstart"
)

// config is the refresh job's environment, checked at start.
type config struct {
	LogLevel slog.Level // LOG_LEVEL
	Bucket   string     // DATA_BUCKET: grid/, tiles/ and the job's downloads under REFRESH_PREFIX
	Table    string     // REPORTS_TABLE: the report store
	Prefix   string     // REFRESH_PREFIX: where the job keeps its downloads in the bucket; refresh/
	Scratch  string     // SCRATCH_DIR: emptied before and after each run; /tmp/meridian-refresh
	Meridian string     // MERIDIAN_BIN: the meridian binary; beside this program
	Publish  string     // MERIDIAN_PUBLISH_BIN: the meridian-publish binary; beside this program
	// Datasets is REFRESH_DATASETS, the manifest keys a run without any in
	// its event refreshes (the Fargate task's only input).
	Datasets []string
	// URL is REFRESH_URL: with one dataset, its file's link (a hand step);
	// a task runs with it through run-task's container overrides.
	URL string
	// FetchBaseURL is MERIDIAN_FETCH_BASE_URL, which meridian data fetch
	// reads too: every publisher URL's scheme and host replaced by it, so
	// that the job's dry run asks the same server as the fetch. Never set
	// on AWS; make test-lambda points it at the demo files.
	FetchBaseURL string
}

func loadConfig(getenv func(string) string) (config, error) {
	r := coldstart.NewEnv(getenv)
	c := config{
		LogLevel:     r.LogLevel("LOG_LEVEL"),
		Bucket:       r.Required("DATA_BUCKET", "the data bucket (grid/, tiles/, the job's downloads)"),
		Table:        r.Required("REPORTS_TABLE", "the DynamoDB table of the report store"),
		Prefix:       r.String("REFRESH_PREFIX", defaultPrefix),
		Scratch:      r.String("SCRATCH_DIR", filepath.Join(os.TempDir(), "meridian-refresh")),
		Meridian:     r.String("MERIDIAN_BIN", besideExecutable("meridian")),
		Publish:      r.String("MERIDIAN_PUBLISH_BIN", besideExecutable("meridian-publish")),
		Datasets:     splitList(getenv("REFRESH_DATASETS")),
		URL:          r.String("REFRESH_URL", ""),
		FetchBaseURL: r.String("MERIDIAN_FETCH_BASE_URL", ""),
	}
	return c, r.Err()
}

// besideExecutable is name in this program's directory (the Lambda's
// /var/task, the image's /app).
func besideExecutable(name string) string {
	exe, err := os.Executable()
	if err != nil {
		return name
	}
	return filepath.Join(filepath.Dir(exe), name)
}

func splitList(s string) []string {
	var out []string
	for _, k := range strings.Split(s, ",") {
		if k = strings.TrimSpace(k); k != "" {
			out = append(out, k)
		}
	}
	return out
}
