package dynamokv_test

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"meridian/shared/kv"
	"meridian/shared/kv/dynamokv"
	"meridian/shared/kv/kvtest"
)

// sinkBatches answers BatchWriteItem after delay without storing anything,
// as a table that takes every item with a fixed round trip would; the
// other calls go to the emulator beneath.
type sinkBatches struct {
	dynamokv.API
	delay time.Duration
}

func (s sinkBatches) BatchWriteItem(ctx context.Context, in *dynamodb.BatchWriteItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.BatchWriteItemOutput, error) {
	if s.delay == 0 {
		return &dynamodb.BatchWriteItemOutput{}, nil
	}
	t := time.NewTimer(s.delay)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-t.C:
	}
	return &dynamodb.BatchWriteItemOutput{}, nil
}

// BenchmarkDynamoPublish publishes a dataset of MERIDIAN_BENCH_PUBLISH_ITEMS
// report-like items (about 230 bytes each; skipped when unset) into a
// fresh table with 1, 4, 8 and 16 write workers, and reports items/s of
// the whole Publish and of its write phase (the Writer callback, which
// returns when all but at most (2*workers+1)*25 items are written):
//
//   - Minidyn: the in-process emulator, through the SDK and HTTP. minidyn
//     serializes every call behind one lock and re-sorts its keys on each
//     insert, so this shows our overhead plus minidyn's, not DynamoDB's.
//   - Sink0: batch writes answered at once and dropped: our own ceiling
//     (JSON encoding, the stream, the SDK's request building), no I/O.
//   - Sink10ms: batch writes answered after 10 ms and dropped (a round
//     trip of BatchWriteItem on AWS from the same region is of that
//     order): what the worker count buys against a real table's latency.
//   - External: the emulator at MERIDIAN_DYNAMODB_ENDPOINT (dynoxide in
//     CI; see the package doc), when set.
//
// Run it once per case:
//
//	MERIDIAN_BENCH_PUBLISH_ITEMS=100000 go test -run '^$' -bench DynamoPublish -benchtime 1x ./shared/kv/dynamokv
//
// At 100,000 items minidyn takes minutes per case (it re-sorts its keys on
// every insert); add MERIDIAN_DYNAMODB_ENDPOINT for dynoxide.
func BenchmarkDynamoPublish(b *testing.B) {
	n, err := strconv.Atoi(os.Getenv("MERIDIAN_BENCH_PUBLISH_ITEMS"))
	if err != nil || n <= 0 {
		// Minutes per case on the emulators: not part of make bench.
		b.Skip("a measurement: MERIDIAN_BENCH_PUBLISH_ITEMS=100000 runs it")
	}
	targets := []string{"Minidyn", "Sink0", "Sink10ms"}
	if os.Getenv("MERIDIAN_DYNAMODB_ENDPOINT") != "" {
		targets = append(targets, "External")
	}
	rec := kvtest.BenchRecord{Licence: "0123456", Operator: "A1B2 (demo)", Status: "Pumping", Depth: 1234.5, Spud: "2024-01-02", Fluid: "crude oil"}
	for _, target := range targets {
		for _, workers := range []int{1, 4, 8, 16} {
			b.Run(fmt.Sprintf("%s/workers=%d", target, workers), func(b *testing.B) {
				var api dynamokv.API
				var table string
				switch target {
				case "External":
					client := newClient(b, os.Getenv("MERIDIAN_DYNAMODB_ENDPOINT"), envOr("MERIDIAN_DYNAMODB_ACCESS_KEY", "test"), envOr("MERIDIAN_DYNAMODB_SECRET_KEY", "test"), false)
					api, table = client, newTable(b, client)
				default:
					client := newMinidyn(b)
					api, table = client, newTable(b, client)
					switch target {
					case "Sink0":
						api = sinkBatches{API: client}
					case "Sink10ms":
						api = sinkBatches{API: client, delay: 10 * time.Millisecond}
					}
				}
				var write, total time.Duration
				for b.Loop() {
					s := dynamokv.New(api, table, dynamokv.Options{Timeout: time.Minute, WriteConcurrency: workers})
					start := time.Now()
					_, err := kv.Publish(b.Context(), s, kv.DatasetInfo{Name: "wells"}, func(w *kv.Writer) error {
						for i := range n {
							rec.LSD = fmt.Sprintf("%02d-%02d-%03d-%02d-W4", i%16+1, i/16%36+1, i/576%126+1, i/72576%30+1)
							if err := w.Put("LSD#"+rec.LSD, fmt.Sprintf("WELL#%07d", i), rec); err != nil {
								return err
							}
						}
						write += time.Since(start)
						return nil
					})
					total += time.Since(start)
					if err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(n*b.N)/total.Seconds(), "items/s")
				b.ReportMetric(float64(n*b.N)/write.Seconds(), "write_items/s")
				b.ReportMetric(0, "ns/op")
			})
		}
	}
}
