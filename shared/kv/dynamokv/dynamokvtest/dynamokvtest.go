// Package dynamokvtest starts a DynamoDB emulator for tests of code that
// runs on dynamokv. It lives beside the adapter so that the contract kit,
// kvtest, depends on no adapter.
package dynamokvtest

import (
	"context"
	"net/http/httptest"
	"testing"

	"meridian/shared/kv/dynamokv"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/truora/minidyn/server"
)

// Minidyn starts an in-process DynamoDB emulator (minidyn) for the test,
// with table created, and returns a client for it and its endpoint (for a
// function process's AWS_ENDPOINT_URL_DYNAMODB). minidyn sends no valid
// CRC32, so the client does not check it.
func Minidyn(tb testing.TB, table string) (*dynamodb.Client, string) {
	tb.Helper()
	ts := httptest.NewServer(server.NewServer())
	tb.Cleanup(ts.Close)
	ctx := context.Background()
	client, err := dynamokv.NewClient(ctx, dynamokv.ClientOptions{Region: "us-east-1", Endpoint: ts.URL,
		AccessKeyID: "test", SecretAccessKey: "test", DisableResponseChecksum: true})
	if err != nil {
		tb.Fatal(err)
	}
	if err := dynamokv.CreateTable(ctx, client, table); err != nil {
		tb.Fatal(err)
	}
	return client, ts.URL
}
