package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	minidyn "github.com/truora/minidyn/server"

	"meridian/shared/ag/agapi"
	"meridian/shared/api"
	"meridian/shared/api/apigw"
	"meridian/shared/dataingest"
	"meridian/shared/energy/energyapi"
	"meridian/shared/gridstore"
	"meridian/shared/kv"
	"meridian/shared/kv/dynamokv"
	"meridian/shared/lambdafn"
	"meridian/shared/publish"
	"meridian/shared/survey/grid"
)

// readMeter counts the reads a store makes through it, as DynamoDB bills
// them: per GetItem or Query call, the size of the items returned rounded
// up to 4 KB, one read unit per 4 KB when strongly consistent and half a
// unit otherwise. settledRU is the same reads as they are once a version
// is older than kv.SettleWindow: eventually consistent but for the dataset
// pointer, which is always read strongly.
type readMeter struct {
	dynamokv.API
	mu                  sync.Mutex
	calls, items, bytes int64
	ru, settledRU       float64
}

func avSize(av map[string]types.AttributeValue) int64 {
	var n int64
	for name, v := range av {
		n += int64(len(name))
		switch v := v.(type) {
		case *types.AttributeValueMemberS:
			n += int64(len(v.Value))
		case *types.AttributeValueMemberB:
			n += int64(len(v.Value))
		}
	}
	return n
}

// note records one call. always marks a read that stays strongly
// consistent once the version settled (the dataset pointer).
func (m *readMeter) note(consistent, always bool, items ...map[string]types.AttributeValue) {
	var size int64
	for _, it := range items {
		size += avSize(it)
	}
	units := math.Max(1, math.Ceil(float64(size)/4096))
	m.mu.Lock()
	defer m.mu.Unlock()
	m.calls++
	m.items += int64(len(items))
	m.bytes += size
	if always {
		m.settledRU += units
	} else {
		m.settledRU += units / 2
	}
	if consistent {
		m.ru += units
	} else {
		m.ru += units / 2
	}
}

func (m *readMeter) GetItem(ctx context.Context, in *dynamodb.GetItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.GetItemOutput, error) {
	out, err := m.API.GetItem(ctx, in, opts...)
	if err == nil {
		pk, _ := in.Key["pk"].(*types.AttributeValueMemberS)
		always := pk != nil && (pk.Value == kv.DatasetPK || pk.Value == kv.LastVersionPK)
		if len(out.Item) > 0 {
			m.note(aws.ToBool(in.ConsistentRead), always, out.Item)
		} else {
			m.note(aws.ToBool(in.ConsistentRead), always)
		}
	}
	return out, err
}

func (m *readMeter) Query(ctx context.Context, in *dynamodb.QueryInput, opts ...func(*dynamodb.Options)) (*dynamodb.QueryOutput, error) {
	out, err := m.API.Query(ctx, in, opts...)
	if err == nil {
		m.note(aws.ToBool(in.ConsistentRead), false, out.Items...)
	}
	return out, err
}

func (m *readMeter) take() (calls, items, bytes int64, ru, settledRU float64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	calls, items, bytes, ru, settledRU = m.calls, m.items, m.bytes, m.ru, m.settledRU
	m.calls, m.items, m.bytes, m.ru, m.settledRU = 0, 0, 0, 0, 0
	return
}

// datasetSizes returns the items of the served version of dataset name and
// their total size as DynamoDB counts it (attribute names and values, the
// partition key namespaced by dataset and version).
func datasetSizes(t *testing.T, s kv.Store, name string) (items, bytes int64) {
	t.Helper()
	ctx := t.Context()
	d, ok, err := kv.Open(ctx, s, name)
	if err != nil || !ok {
		t.Fatalf("Open(%s) = %v, %v", name, ok, err)
	}
	prefix := fmt.Sprintf("%s@%d#", name, d.Version)
	err = s.ScanKeys(ctx, prefix, func(keys []kv.Key) error {
		for _, k := range keys {
			it, _, err := s.Get(ctx, k.PK, k.SK)
			if err != nil {
				return err
			}
			items++
			bytes += int64(len("pk") + len(it.PK) + len("sk") + len(it.SK) + len("data") + len(it.Data))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return items, bytes
}

// TestDynamoReportLatency publishes the demo energy and agriculture
// datasets to a DynamoDB emulator with `meridian-publish`'s copy, pads the
// table to MERIDIAN_LATENCY_ITEMS items (100,000 by default) with a third
// dataset, then serves the energy and agriculture reports and two lists
// through the report functions' handlers (as on Lambda, API Gateway event
// in, response out) and prints p50/p99 over MERIDIAN_LATENCY_REQUESTS
// requests each (500), with the DynamoDB calls, items and read units each
// request costs. It is a measurement, not a timed test: opt in with
// MERIDIAN_DYNAMO_LATENCY=1. The emulator is MERIDIAN_DYNAMODB_ENDPOINT
// (dynoxide: see package kv's doc) when set, else in-process minidyn,
// whose every Query walks the whole table: on minidyn the figures measure
// minidyn, so keep MERIDIAN_LATENCY_ITEMS small there.
func TestDynamoReportLatency(t *testing.T) {
	if os.Getenv("MERIDIAN_DYNAMO_LATENCY") == "" {
		t.Skip("a measurement: MERIDIAN_DYNAMO_LATENCY=1 runs it")
	}
	ctx := context.Background()
	total := envInt("MERIDIAN_LATENCY_ITEMS", 100_000)
	requests := envInt("MERIDIAN_LATENCY_REQUESTS", 500)

	endpoint, emulator := os.Getenv("MERIDIAN_DYNAMODB_ENDPOINT"), "dynoxide/external"
	if endpoint == "" {
		ts := httptest.NewServer(minidyn.NewServer())
		t.Cleanup(ts.Close)
		endpoint, emulator = ts.URL, "minidyn (in-process)"
	}
	client, err := dynamokv.NewClient(ctx, dynamokv.ClientOptions{Region: "us-east-1", Endpoint: endpoint,
		AccessKeyID: "test", SecretAccessKey: "test", DisableResponseChecksum: true})
	if err != nil {
		t.Fatal(err)
	}
	table := fmt.Sprintf("latency-%d", time.Now().UnixNano())
	if err := dynamokv.CreateTable(ctx, client, table); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		client.DeleteTable(context.Background(), &dynamodb.DeleteTableInput{TableName: aws.String(table)})
	})
	meter := &readMeter{API: client}
	remote := dynamokv.New(meter, table, dynamokv.Options{Timeout: 30 * time.Second, WriteConcurrency: publish.DefaultWorkers})

	// The demo datasets, ingested as `meridian serve` does, then copied
	// as `meridian-publish` does.
	local := kv.NewMem()
	published := 0
	for _, domain := range reportDomains {
		if _, err := dataingest.IngestDemo(ctx, domain, local, grid.New()); err != nil {
			t.Fatal(err)
		}
		items, bytes := datasetSizes(t, local, domain)
		start := time.Now()
		if err := publish.Dataset(ctx, local, remote, domain, false, io.Discard); err != nil {
			t.Fatal(err)
		}
		took := time.Since(start)
		published += int(items)
		t.Logf("dataset %s: %d items, %.0f bytes on average as DynamoDB counts them (%d bytes in all); published in %v (%.0f items/s)",
			domain, items, float64(bytes)/float64(items), bytes, took.Round(time.Millisecond), float64(items)/took.Seconds())
	}
	if pad := total - published; pad > 0 {
		start := time.Now()
		_, err := kv.Publish(ctx, remote, kv.DatasetInfo{Name: "padding", Source: "latency test"}, func(w *kv.Writer) error {
			data := []byte(strings.Repeat("x", 200))
			for i := range pad {
				if err := w.PutRaw(fmt.Sprintf("PAD#%05d", i/50), fmt.Sprintf("%07d", i), data); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("padding: %d items published in %v (%.0f items/s, %d workers)", pad, time.Since(start).Round(time.Millisecond),
			float64(pad)/time.Since(start).Seconds(), publish.DefaultWorkers)
	}
	meter.take()

	logger := slog.New(slog.DiscardHandler)
	energyH := lambdafn.Reports(nil, func(s kv.Store, svc *grid.Service) []api.Route {
		return energyapi.NewHandler(s, svc, time.Now).Routes()
	}).Handler(logger, lambdafn.Config{}, remote, gridstore.Fixed(nil))
	agH := lambdafn.Reports(nil, func(s kv.Store, svc *grid.Service) []api.Route {
		return agapi.NewHandler(s, svc).Routes()
	}).Handler(logger, lambdafn.Config{}, remote, gridstore.Fixed(nil))
	cases := []struct {
		event string
		h     http.Handler
	}{
		{"energy-report", energyH},
		{"ag-report", agH},
		{"energy-operator", energyH},        // an operator's wells, a list
		{"energy-tenure-expiring", energyH}, // tenure expiring within 365 days, a list
	}
	t.Logf("%d items in the table, emulator %s, %d requests per case", max(total, published), emulator, requests)
	t.Logf("| request | p50 | p99 | DynamoDB calls | items read | bytes read | read units (settled) |")
	t.Logf("|---|---|---|---|---|---|---|")
	for _, tc := range cases {
		ev, err := apigw.ReadEvent(filepath.Join("..", "..", "events", tc.event+".json"))
		if err != nil {
			t.Fatal(err)
		}
		lat := make([]time.Duration, 0, requests)
		for range requests {
			start := time.Now()
			resp, err := apigw.Invoke(ctx, tc.h, ev)
			lat = append(lat, time.Since(start))
			if err != nil || resp.StatusCode != 200 {
				t.Fatalf("%s: %d %.300s %v", tc.event, resp.StatusCode, resp.Body, err)
			}
		}
		calls, items, bytes, _, settled := meter.take()
		slices.Sort(lat)
		n := float64(requests)
		t.Logf("| %s | %v | %v | %.1f | %.1f | %.0f | %.1f |", tc.event, lat[len(lat)/2].Round(10*time.Microsecond),
			lat[len(lat)*99/100].Round(10*time.Microsecond), float64(calls)/n, float64(items)/n, float64(bytes)/n, settled/n)
	}
}

func envInt(name string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil && v > 0 {
		return v
	}
	return def
}
