// Command watches is the Lambda of the /watches routes (issue 37): a key's
// watches of legal locations and their webhook deliveries, over package
// watch's store on a DynamoDB table of their own (WATCHES_TABLE), behind
// the key authorizer of the API of the product that sells the change feed
// (infra/watches.go). The owner of a watch is the key id the authorizer
// names (apigw.WithCaller). Webhook URLs to loopback, private and
// link-local addresses are always refused here: there is no flag on AWS.
//
// Environment: LOG_LEVEL, WATCHES_TABLE; the SDK's (AWS_REGION,
// AWS_ENDPOINT_URL_DYNAMODB for an emulator).
package main

import (
	"context"
	"log/slog"
	"net/http"

	"meridian/shared/api"
	"meridian/shared/api/apigw"
	"meridian/shared/gateway"
	"meridian/shared/kv"
	"meridian/shared/kv/dynamokv"
	"meridian/shared/lambdafn"
	"meridian/shared/lambdafn/coldstart"
	"meridian/shared/watch"
)

// config is the function's environment, checked at cold start.
type config struct {
	LogLevel slog.Level
	Table    string // WATCHES_TABLE
}

func loadConfig(getenv func(string) string) (config, error) {
	r := coldstart.NewEnv(getenv)
	c := config{
		LogLevel: r.LogLevel("LOG_LEVEL"),
		Table:    r.Required("WATCHES_TABLE", "the DynamoDB table of the watches and their deliveries"),
	}
	return c, r.Err()
}

// product is the one /watches belongs to.
func product() gateway.Product {
	if p, ok := gateway.ProductOf("/watches"); ok {
		return p
	}
	return gateway.Energy
}

// newHandler serves watch's routes over store, the caller from the
// authorizer, through the API Gateway adapter.
func newHandler(logger *slog.Logger, store kv.Store) http.Handler {
	mux := api.NewMux()
	mux.Mount(watch.NewHandler(watch.NewStore(store), false).Routes()...) // no private addresses on AWS
	return apigw.WrapMux(lambdafn.WithDeadline(apigw.WithCaller(product(), mux), lambdafn.DeadlineMargin), mux, logger)
}

func main() {
	c, logger := coldstart.Setup(loadConfig, func(c config) slog.Level { return c.LogLevel })
	store, err := dynamokv.Open(context.Background(), c.Table)
	if err != nil {
		coldstart.Fail(logger, "cold start", err)
	}
	apigw.Start(newHandler(logger, store))
}
