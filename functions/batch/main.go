// Command batch is the batch Lambda. Batch: POST /batch/legal-location and POST /batch/coordinates,
// behind an API Gateway REST API whose usage plan holds the batch product.
package main

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"os"

	"meridian/shared/api"
	"meridian/shared/api/apigw"
	"meridian/shared/convert"
	"meridian/shared/gridstore"
	"meridian/shared/survey/gridindex"
)

func main() {
	cfg, err := loadConfig(os.Getenv)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	logger := slog.New(slog.NewJSONHandler(os.Stdout, &slog.HandlerOptions{Level: cfg.logLevel}))
	grids, err := gridstore.Open(context.Background(), cfg.grid)
	if err != nil {
		logger.Error("cold start", "err", err)
		os.Exit(1)
	}
	apigw.Start(newHandler(logger, grids))
}

// newHandler builds the function's handler once, before lambda.Start, over
// the official grid indexes (none: the models answer everywhere).
func newHandler(logger *slog.Logger, grids []*gridindex.Index) http.Handler {
	svc := convert.New()
	svc.SetIndexes(grids)
	h := convert.NewHandler(svc)
	mux := api.NewMux()
	mux.Mount(h.BatchRoutes()...)
	return apigw.Wrap(mux, logger)
}
