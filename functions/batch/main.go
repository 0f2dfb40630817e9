// Command batch is the batch Lambda. Batch: POST /batch/legal-location and POST /batch/coordinates,
// behind an API Gateway REST API whose usage plan holds the batch product.
package main

import (
	"fmt"
	"log/slog"
	"net/http"
	"os"

	"meridian/shared/api"
	"meridian/shared/api/apigw"
	"meridian/shared/convert"
)

func main() {
	cfg, err := loadConfig(os.Getenv)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	logger := slog.New(slog.NewJSONHandler(os.Stdout, &slog.HandlerOptions{Level: cfg.logLevel}))
	apigw.Start(newHandler(cfg, logger))
}

// newHandler builds the function's handler once, before lambda.Start.
func newHandler(cfg config, logger *slog.Logger) http.Handler {
	h := convert.NewHandler(convert.New())
	mux := api.NewMux()
	mux.Mount(h.BatchRoutes()...)
	return apigw.Wrap(mux, logger)
}
