package main

import (
	"fmt"
	"strings"

	"meridian/shared/datafetch"
)

// stackFunction is what infra/stack.go and infra/refresh.go give one
// function: its memory, its timeout and which of its variables it gets.
// infra is a module of its own (the CDK), so its values are written here
// again; the names are those of infra (GridPrefix, TilesPrefix,
// RefreshPrefix, functionMemoryMB, authorizerMemoryMB, refreshMemoryMB,
// the products' TimeoutSeconds).
type stackFunction struct {
	memoryMB, timeoutS int
	grid, tiles        bool // GRID_* and TILES_* variables (Product.Grid, Product.Tiles)
	reports            bool // REPORTS_TABLE (Product.Reports)
	refresh            bool // the refresh job's variables (refreshEnv)
	watches            bool // WATCHES_TABLE (infra/watches.go)
	queue              bool // DELIVERY_QUEUE_URL (infra/watches.go)
}

var stack = map[string]stackFunction{
	"search":       {memoryMB: 256, timeoutS: 10, grid: true},
	"autocomplete": {memoryMB: 256, timeoutS: 10, grid: true},
	"batch":        {memoryMB: 256, timeoutS: 20, grid: true},
	"tiles":        {memoryMB: 256, timeoutS: 20, grid: true, tiles: true},
	"ag":           {memoryMB: 256, timeoutS: 10, grid: true, reports: true},
	"energy":       {memoryMB: 256, timeoutS: 10, grid: true, reports: true},
	"changes":      {memoryMB: 256, timeoutS: 10, grid: true, reports: true},
	"authorizer":   {memoryMB: 128, timeoutS: 3},
	"refresh":      {memoryMB: 3008, timeoutS: 900, refresh: true},
	"watches":      {memoryMB: 256, timeoutS: 10, watches: true},
	"deliver":      {memoryMB: 256, timeoutS: 120, watches: true, reports: true, queue: true},
}

// publicTilesURL stands for the stack's PUBLIC_TILES_URL, the CloudFront
// distribution's https://<domain>/tiles.
const publicTilesURL = "https://d111111abcdef8.cloudfront.net/tiles"

// deployment is what the functions' environment points at.
type deployment struct {
	s3URL, dynamoURL string
	bucket, table    string
	watchesTable     string // the watches table (infra's WatchesTable)
	queueURL         string // the delivery queue, in this process's SQS (sqsemu)
	sqsURL           string // that SQS' endpoint
	gridIndexes      []string
	scratch          string // the refresh job's SCRATCH_DIR (the stack's /tmp/meridian-refresh, here one of this run's)
	fetchBaseURL     string // MERIDIAN_FETCH_BASE_URL of the refresh job: the demo publisher
	path, home       string
}

// env is function fn's environment as the stack sets it, pointed at the
// emulators, plus what Lambda itself sets (region, credentials, the
// function's name, memory and timeout; the emulator reads the last two).
func (d deployment) env(fn string) ([]string, error) {
	sf, ok := stack[fn]
	if !ok {
		return nil, fmt.Errorf("%s: not a function of the stack (%s)", fn, strings.Join(functionNames(), ", "))
	}
	env := []string{
		"LOG_LEVEL=info",
		"AWS_REGION=us-east-1", "AWS_ACCESS_KEY_ID=S3RVER", "AWS_SECRET_ACCESS_KEY=S3RVER",
		"AWS_ENDPOINT_URL_S3=" + d.s3URL, "AWS_ENDPOINT_URL_DYNAMODB=" + d.dynamoURL,
		"AWS_LAMBDA_FUNCTION_NAME=meridian-" + fn,
		fmt.Sprintf("AWS_LAMBDA_FUNCTION_MEMORY_SIZE=%d", sf.memoryMB),
		fmt.Sprintf("AWS_LAMBDA_FUNCTION_TIMEOUT=%d", sf.timeoutS),
		"PATH=" + d.path, "HOME=" + d.home,
	}
	if sf.grid {
		env = append(env, "GRID_BUCKET="+d.bucket, "GRID_PREFIX=grid/", "GRID_INDEXES="+strings.Join(d.gridIndexes, ","))
	}
	if sf.tiles {
		env = append(env, "TILES_BUCKET="+d.bucket, "TILES_PREFIX=tiles/", "PUBLIC_TILES_URL="+publicTilesURL)
	}
	if sf.reports {
		env = append(env, "REPORTS_TABLE="+d.table)
	}
	if sf.watches {
		env = append(env, "WATCHES_TABLE="+d.watchesTable)
	}
	if sf.queue {
		env = append(env, "DELIVERY_QUEUE_URL="+d.queueURL, "AWS_ENDPOINT_URL_SQS="+d.sqsURL)
	}
	if sf.refresh {
		env = append(env, "DATA_BUCKET="+d.bucket, "REPORTS_TABLE="+d.table, "REFRESH_PREFIX=refresh/", "SCRATCH_DIR="+d.scratch,
			"REFRESH_DATASETS="+strings.Join(lambdaRefreshDatasets(), ","), "MERIDIAN_FETCH_BASE_URL="+d.fetchBaseURL)
	}
	return env, nil
}

// lambdaRefreshDatasets are the refresh Lambda's REFRESH_DATASETS: the
// grid datasets without a hand step (infra.RefreshGroups' Grids, the one
// group not on Fargate).
func lambdaRefreshDatasets() []string {
	var out []string
	for _, e := range datafetch.Manifest() {
		if e.Ingest.Kind == "grid" && e.Access.Unattended() {
			out = append(out, e.Key)
		}
	}
	return out
}

func functionNames() []string {
	var n []string
	for _, p := range eventPrefixes {
		n = append(n, p.function)
	}
	return n
}
