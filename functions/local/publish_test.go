package main

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"net/http/httptest"
	"strings"
	"testing"

	minidyn "github.com/truora/minidyn/server"

	"meridian/shared/blob"
	"meridian/shared/blob/blobtest"
	"meridian/shared/energy"
	"meridian/shared/gateway"
	"meridian/shared/kv"
	"meridian/shared/tile/datalayers"
)

// publish copies a data directory (fixture grids, demo reports) into an S3
// and a DynamoDB emulator; a second run skips everything; the copy reads
// back as the original.
func TestPublishToEmulators(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	gateway.EnsureDemoKey(dir)
	srv, err := newServer(serverConfig{dataDir: dir, logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	srv.Close() // publish reads reports.db, which a server holds

	const bucket = "meridian-data"
	s3c := blobtest.FakeS3(t, bucket)
	ddb := httptest.NewServer(minidyn.NewServer())
	t.Cleanup(ddb.Close)
	o := publishOptions{dataDir: dir, bucket: bucket, table: "reports", s3Endpoint: *s3c.Options().BaseEndpoint,
		dynamoEndpoint: ddb.URL, region: "us-east-1", accessKey: "test", secretKey: "test"}
	dc, err := kv.NewDynamoClient(ctx, kv.DynamoClientOptions{Region: "us-east-1", Endpoint: ddb.URL, AccessKeyID: "test", SecretAccessKey: "test", DisableResponseChecksum: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := kv.CreateTable(ctx, dc, o.table); err != nil {
		t.Fatal(err)
	}

	var out bytes.Buffer
	o.progress = &out
	if err := publish(ctx, o); err != nil {
		t.Fatalf("publish: %v\n%s", err, out.String())
	}
	// The four fixture grid indexes and the data archives the first start built.
	files := 4 + len(datalayers.Names())
	if !strings.Contains(out.String(), fmt.Sprintf("files: %d uploaded, 0 already there", files)) || !strings.Contains(out.String(), "dataset energy: version 1 published") ||
		!strings.Contains(out.String(), "dataset ag: version 1 published") {
		t.Errorf("first run:\n%s", out.String())
	}
	grid := blob.NewS3(s3c, bucket, "grid/", blob.S3Options{})
	if info, err := grid.Stat(ctx, "fixture-altalis-ats-v4.1.mgix"); err != nil || info.Size == 0 {
		t.Errorf("grid index not in the bucket: %v", err)
	}

	local, _ := kv.OpenBolt(reportsPath(dir), kv.BoltOptions{ReadOnly: true})
	defer local.Close()
	remote := kv.NewDynamo(dc, o.table, kv.DynamoOptions{})
	want, _, _ := kv.Open(ctx, local, energy.Dataset)
	got, ok, err := kv.Open(ctx, remote, energy.Dataset)
	if err != nil || !ok || got.Info.Source != want.Info.Source || !got.Info.Demo {
		t.Fatalf("remote energy dataset %+v %v %v", got, ok, err)
	}
	for _, pk := range []string{energy.PKOperators, energy.PKExpiring, energy.PKSources} {
		a, _ := want.Query(ctx, kv.Query{PK: pk})
		b, err := got.Query(ctx, kv.Query{PK: pk})
		if err != nil || len(a.Items) == 0 || len(a.Items) != len(b.Items) || string(a.Items[0].Data) != string(b.Items[0].Data) {
			t.Errorf("%s: local %d items, remote %d (%v)", pk, len(a.Items), len(b.Items), err)
		}
	}

	out.Reset()
	if err := publish(ctx, o); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), fmt.Sprintf("files: 0 uploaded, %d already there", files)) || !strings.Contains(out.String(), "dataset energy: version 1 already published") {
		t.Errorf("second run should skip everything:\n%s", out.String())
	}
}
