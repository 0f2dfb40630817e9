package main

import (
	"log/slog"

	"meridian/shared/env"
)

// config is the function's environment, checked at cold start.
type config struct {
	logLevel slog.Level // LOG_LEVEL: debug, info (default), warn, error
}

func loadConfig(getenv func(string) string) (config, error) {
	r := env.New(getenv)
	cfg := config{logLevel: r.LogLevel("LOG_LEVEL")}
	return cfg, r.Err()
}
