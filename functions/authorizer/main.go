// Command authorizer is the REQUEST Lambda authorizer of every product's API
// Gateway REST API. It finds the caller's key (X-API-Key header or api_key
// query parameter, as the local gateway does) and returns it as the usage
// identifier key, so API Gateway checks the key and applies its usage plan:
// rate, burst and monthly quota. See authorizer for what callers see.
//
// Environment: LOG_LEVEL (debug, info, warn, error; default info).
//
// It serves no routes and reads no store, so it shares only the
// standard-library part of the cold start (package coldstart), not
// lambdafn's, which links the AWS SDK and would double its size.
package main

import (
	"log/slog"

	"github.com/aws/aws-lambda-go/lambda"

	"meridian/shared/lambdafn/coldstart"
)

// config is the function's environment, checked at cold start.
type config struct {
	LogLevel slog.Level // LOG_LEVEL
}

func loadConfig(getenv func(string) string) (config, error) {
	r := coldstart.NewEnv(getenv)
	c := config{LogLevel: r.LogLevel("LOG_LEVEL")}
	return c, r.Err()
}

func main() {
	_, logger := coldstart.Setup(loadConfig, func(c config) slog.Level { return c.LogLevel })
	lambda.Start(newHandler(logger))
}
