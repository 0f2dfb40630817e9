package main

import (
	"archive/zip"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/s3"

	"meridian/shared/datadir"
	"meridian/shared/datafetch/datafetchtest"
	"meridian/shared/demo/energydemo"
	"meridian/shared/energy"
	"meridian/shared/energy/changefeed"
	"meridian/shared/kv"
	"meridian/shared/kv/dynamokv"
)

// stateHeader reads the header of a change feed state object.
func stateHeader(t *testing.T, s3c *s3.Client, bucket, key string) changefeed.Header {
	t.Helper()
	b, ok := object(t, s3c, bucket, key)
	if !ok {
		t.Fatalf("no s3://%s/%s", bucket, key)
	}
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	line, _, _ := strings.Cut(readAll(t, zr), "\n")
	var h changefeed.Header
	if err := json.Unmarshal([]byte(line), &h); err != nil {
		t.Fatalf("%s: header %q: %v", key, line, err)
	}
	return h
}

func readAll(t *testing.T, r io.Reader) string {
	t.Helper()
	b, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// withNextWellLists replaces, in every zip the publisher serves, the
// members named as energydemo.GenerateNext's well lists by its content:
// the second demo version's ST37 (one well abandoned, one licensed).
func withNextWellLists(t *testing.T, pub *datafetchtest.Publisher) (energydemo.NextChanges, int) {
	t.Helper()
	files, next, err := energydemo.GenerateNext()
	if err != nil {
		t.Fatal(err)
	}
	lists := map[string][]byte{}
	for _, f := range files {
		if strings.HasPrefix(f.Name, "WellList") {
			lists[f.Name] = f.Data
		}
	}
	pub.Lock()
	defer pub.Unlock()
	replaced := 0
	for path, body := range pub.Files {
		zr, err := zip.NewReader(bytes.NewReader(body), int64(len(body)))
		if err != nil {
			continue
		}
		var out bytes.Buffer
		zw := zip.NewWriter(&out)
		changed := false
		for _, m := range zr.File {
			rc, err := m.Open()
			if err != nil {
				t.Fatal(err)
			}
			data := []byte(readAll(t, rc))
			rc.Close()
			if b, ok := lists[filepath.Base(m.Name)]; ok && !bytes.Equal(b, data) {
				data, changed = b, true
			}
			w, err := zw.Create(m.Name)
			if err != nil {
				t.Fatal(err)
			}
			w.Write(data)
		}
		if err := zw.Close(); err != nil {
			t.Fatal(err)
		}
		if changed {
			pub.Files[path] = out.Bytes()
			replaced++
		}
	}
	return next, replaced
}

// checkEnergyChanges is the third run of TestRefreshEnergyEndToEnd: the
// ST37 changed, the energy ingest compares it with the state the first
// run pushed, publishes the two changes of the well list and pushes the
// state of version 2.
func checkEnergyChanges(t *testing.T, job *Job, s3c *s3.Client, remote *dynamokv.Store, pub *datafetchtest.Publisher, keys []string) {
	t.Helper()
	ctx := context.Background()
	if h := stateHeader(t, s3c, job.Bucket, job.changesKey(changefeed.SnapshotFile)); h.Version != 1 {
		t.Fatalf("state after the first run: version %d, want 1", h.Version)
	}
	next, n := withNextWellLists(t, pub)
	if n == 0 {
		t.Fatal("no download of the publisher holds the well list")
	}
	res, err := job.Run(ctx, Request{Datasets: keys})
	if err != nil || !res.Published {
		t.Fatalf("third run: %+v, %v", res, err)
	}
	ds, _, err := kv.Open(ctx, remote, energy.Dataset)
	if err != nil {
		t.Fatal(err)
	}
	page, err := ds.Query(ctx, kv.Query{PK: energy.PKChangesNew})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, it := range page.Items {
		var c energy.Change
		if err := json.Unmarshal(it.Data, &c); err != nil {
			t.Fatal(err)
		}
		got = append(got, string(c.Kind)+" "+c.EntityID)
		if c.Version != 2 || c.Demo {
			t.Errorf("change %+v: want version 2 (the state's next), not demo", c)
		}
	}
	want := []string{string(energy.WellStatusChanged) + " " + next.StatusChanged, string(energy.WellLicensed) + " " + next.Licensed}
	if strings.Join(got, ",") != strings.Join(want, ",") && strings.Join(got, ",") != want[1]+","+want[0] {
		t.Errorf("third run's new changes: %v, want %v", got, want)
	}
	if h := stateHeader(t, s3c, job.Bucket, job.changesKey(changefeed.SnapshotFile)); h.Version != 2 {
		t.Errorf("state after the third run: version %d, want 2", h.Version)
	}
	if h := stateHeader(t, s3c, job.Bucket, job.changesKey(changefeed.LogFile)); h.Version != 2 {
		t.Errorf("change log after the third run: version %d, want 2", h.Version)
	}
}

// The change feed's state goes to <prefix>changes/energy/ and comes back
// byte for byte into an empty scratch directory; none is pulled before
// the first push, and a push without the files the ingest leaves fails.
func TestRefreshChangeStateRoundTrip(t *testing.T) {
	ctx := context.Background()
	job, s3c, _ := testJob(t, "http://127.0.0.1:1")
	dir := datadir.Dir(job.Scratch).EnergyChanges()
	if err := job.pullChanges(ctx); err != nil {
		t.Fatal(err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Fatalf("pulled %d files from an empty bucket", len(entries))
	}
	if err := job.pushChanges(ctx); err == nil {
		t.Fatal("pushed a state the ingest did not leave")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	want := map[string][]byte{changefeed.LogFile: []byte("log bytes"), changefeed.SnapshotFile: []byte("snapshot bytes")}
	for name, b := range want {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := job.pushChanges(ctx); err != nil {
		t.Fatal(err)
	}
	for name, b := range want {
		if got, ok := object(t, s3c, job.Bucket, "refresh/changes/energy/"+name); !ok || !bytes.Equal(got, b) {
			t.Errorf("s3 %s: %q, %v", name, got, ok)
		}
	}
	if err := os.RemoveAll(job.Scratch); err != nil {
		t.Fatal(err)
	}
	if err := job.pullChanges(ctx); err != nil {
		t.Fatal(err)
	}
	for name, b := range want {
		if got, err := os.ReadFile(filepath.Join(dir, name)); err != nil || !bytes.Equal(got, b) {
			t.Errorf("pulled %s: %q, %v", name, got, err)
		}
	}
}
