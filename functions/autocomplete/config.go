package main

import (
	"log/slog"

	"meridian/shared/env"
	"meridian/shared/gridstore"
)

// config is the function's environment, checked at cold start.
type config struct {
	logLevel slog.Level       // LOG_LEVEL: debug, info (default), warn, error
	grid     gridstore.Config // GRID_BUCKET, GRID_PREFIX, GRID_INDEXES: official grid indexes on S3
}

func loadConfig(getenv func(string) string) (config, error) {
	r := env.New(getenv)
	cfg := config{logLevel: r.LogLevel("LOG_LEVEL"), grid: gridstore.ReadConfig(r)}
	return cfg, r.Err()
}
