package delivery

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"meridian/functions/internal/awsemu"
	"meridian/shared/energy"
	"meridian/shared/energy/energytest"
	"meridian/shared/kv"
	"meridian/shared/kv/dynamokv"
	"meridian/shared/kv/dynamokv/dynamokvtest"
)

// reportTable is a report table in a DynamoDB emulator: dynoxide when
// MERIDIAN_DYNOXIDE names its executable (make aws-emulators installs it
// under .build/aws-emulators), one already running at
// MERIDIAN_DYNAMODB_ENDPOINT, else minidyn in this process, so that go
// test needs nothing installed.
func reportTable(t *testing.T) (kv.Store, string) {
	t.Helper()
	ctx := context.Background()
	endpoint, emulator := os.Getenv("MERIDIAN_DYNAMODB_ENDPOINT"), "external"
	if bin := os.Getenv("MERIDIAN_DYNOXIDE"); bin != "" && endpoint == "" {
		var procs awsemu.Procs
		t.Cleanup(procs.StopAll)
		// No S3 here: a placeholder keeps s3rver from being started.
		_, ep, err := awsemu.StartEmulators(ctx, &procs, awsemu.EmulatorOptions{Work: t.TempDir(), Dynoxide: bin, S3Endpoint: "http://127.0.0.1:1"})
		if err != nil {
			t.Fatal(err)
		}
		endpoint, emulator = ep, "dynoxide"
	}
	var client *dynamodb.Client
	table := fmt.Sprintf("reports-%d", time.Now().UnixNano())
	if endpoint == "" {
		client, _ = dynamokvtest.Minidyn(t, table)
		emulator = "minidyn"
	} else {
		var err error
		client, err = dynamokv.NewClient(ctx, dynamokv.ClientOptions{Region: awsemu.Region, Endpoint: endpoint,
			AccessKeyID: awsemu.Creds, SecretAccessKey: awsemu.Creds, DisableResponseChecksum: true})
		if err != nil {
			t.Fatal(err)
		}
		if err := dynamokv.CreateTable(ctx, client, table); err != nil {
			t.Fatal(err)
		}
	}
	// Writes wait on a loaded machine as long as they need (the Lambda's
	// 3 s per call is for reads).
	return dynamokv.New(client, table, dynamokv.Options{Timeout: time.Minute}), emulator
}

// The schedule follows the energy dataset's pointer in the report table
// on DynamoDB: nothing before a publish, the demo's version after it,
// each new version once.
func TestDispatchFollowsThePointer(t *testing.T) {
	r := newRig(t)
	store, emulator := reportTable(t)
	t.Logf("report table on %s", emulator)
	r.h.Reports = store
	if got := r.schedule(t); got != (DispatchResult{}) {
		t.Errorf("before any publish: %+v, want nothing", got)
	}
	energytest.IngestDemo(t, store)
	ds, ok, err := kv.Open(context.Background(), store, energy.Dataset)
	if err != nil || !ok {
		t.Fatal(ok, err)
	}
	r.book.deliveries[ds.Version] = []Message{{Watch: "w1", Delivery: "d1"}}
	if got := r.schedule(t); got != (DispatchResult{Version: int64(ds.Version), Dispatched: true, Deliveries: 1}) {
		t.Errorf("after the demo's publish: %+v", got)
	}
	if got := r.schedule(t); got.Dispatched {
		t.Errorf("the same version again: %+v", got)
	}
	v2, err := kv.Publish(context.Background(), store, kv.DatasetInfo{Name: energy.Dataset, Source: "test"}, func(w *kv.Writer) error {
		c := energy.Change{Kind: energy.WellLicensed, LegalLocation: "9-10-60-22-W5", EntityID: "00/09-10-060-22W5/0", AsOf: "2026-11-28"}
		return w.Put(energy.PKChangesNew, energy.ChangeNewSK(c), c)
	})
	if err != nil {
		t.Fatal(err)
	}
	r.book.deliveries[v2] = []Message{{Watch: "w1", Delivery: "d2"}, {Watch: "w2", Delivery: "d3"}}
	if got := r.schedule(t); got != (DispatchResult{Version: int64(v2), Dispatched: true, Deliveries: 2}) {
		t.Errorf("after a second publish: %+v", got)
	}
	if n := len(r.sqs.Messages("delivery")); n != 3 {
		t.Errorf("%d messages queued, want 3", n)
	}
}
