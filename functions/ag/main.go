// Command ag is the agriculture Lambda: GET /ag/report, behind an API
// Gateway REST API whose usage plan holds the agriculture product. It reads
// the agriculture dataset of the report store, a DynamoDB table
// (REPORTS_TABLE), and places quarter sections with the survey models (the
// same grid the ingest placed them with).
package main

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"os"

	"meridian/shared/agri/agapi"
	"meridian/shared/api"
	"meridian/shared/api/apigw"
	"meridian/shared/convert"
	"meridian/shared/env"
	"meridian/shared/kv"
)

// config is the function's environment, checked at cold start.
type config struct {
	LogLevel slog.Level // LOG_LEVEL: debug, info (default), warn, error
	Table    string     // REPORTS_TABLE: the report store's DynamoDB table
}

func loadConfig(getenv func(string) string) (config, error) {
	r := env.New(getenv)
	c := config{
		LogLevel: r.LogLevel("LOG_LEVEL"),
		Table:    r.Required("REPORTS_TABLE", "the DynamoDB table of the report store"),
	}
	return c, r.Err()
}

// newHandler builds the function's handler over the report store, once,
// before the Lambda starts; tests pass an in-memory store.
func newHandler(logger *slog.Logger, store kv.Store) http.Handler {
	mux := api.NewMux()
	mux.Mount(agapi.NewHandler(store, convert.New()).Routes()...)
	return apigw.Wrap(mux, logger)
}

func main() {
	c, err := loadConfig(os.Getenv)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	logger := slog.New(slog.NewJSONHandler(os.Stdout, &slog.HandlerOptions{Level: c.LogLevel}))
	client, err := kv.NewDynamoClient(context.Background(), kv.DynamoClientOptions{})
	if err != nil {
		logger.Error("cold start", "err", err)
		os.Exit(1)
	}
	apigw.Start(newHandler(logger, kv.NewDynamo(client, c.Table, kv.DynamoOptions{})))
}
