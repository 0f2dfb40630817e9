// Package coldstart is the part of the cold start every function of ours on
// AWS shares (the Lambdas and the refresh task) that needs nothing but the
// standard library: read the environment (Env), reporting every problem at
// once, make the JSON logger at its LOG_LEVEL (Setup), and stop the start
// with the reason when something it needs cannot be had (Fail).
//
// Package lambdafn builds the rest of an API function's wiring on it. It is
// a package of its own so that the key authorizer, which serves no routes
// and reads no store, can import it alone: lambdafn links the AWS SDK (S3
// for the grid indexes, DynamoDB for the reports), and the authorizer's
// budget (make size) holds only aws-lambda-go.
package coldstart

import (
	"fmt"
	"log/slog"
	"os"
)

// Setup loads the function's configuration with load, from the process
// environment, and returns it with a JSON logger on stdout at level(c). A
// configuration that does not load ends the process with status 1 and
// every problem on stderr: there is no logger yet.
func Setup[C any](load func(getenv func(string) string) (C, error), level func(C) slog.Level) (C, *slog.Logger) {
	c, err := load(os.Getenv)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	return c, slog.New(slog.NewJSONHandler(os.Stdout, &slog.HandlerOptions{Level: level(c)}))
}

// Fail logs err as the reason the start failed, under msg ("cold start"),
// and ends the process with status 1.
func Fail(logger *slog.Logger, msg string, err error) {
	logger.Error(msg, "err", err)
	os.Exit(1)
}
