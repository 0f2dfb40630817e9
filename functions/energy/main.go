// Command energy is the energy Lambda: GET /energy/report and the energy
// lists and details (wells, pipelines, facilities, tenure, operators,
// expiring dispositions), behind an API Gateway REST API whose usage plan
// holds the energy product. It reads the energy dataset of the report store,
// a DynamoDB table (REPORTS_TABLE), and places LSDs with the survey models
// (the same grid the ingest placed them with).
package main

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"time"

	"meridian/shared/api"
	"meridian/shared/api/apigw"
	"meridian/shared/convert"
	"meridian/shared/energy/energyapi"
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
// before the Lambda starts. now is the clock days to expiry are counted
// from: time.Now in the Lambda; tests pass an in-memory store and a fixed
// clock.
func newHandler(logger *slog.Logger, store kv.Store, now func() time.Time) http.Handler {
	mux := api.NewMux()
	mux.Mount(energyapi.NewHandler(store, convert.New(), now).Routes()...)
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
	apigw.Start(newHandler(logger, kv.NewDynamo(client, c.Table, kv.DynamoOptions{}), time.Now))
}
