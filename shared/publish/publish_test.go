package publish

import (
	"bytes"
	"context"
	"errors"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"meridian/shared/blob"
	"meridian/shared/blob/s3blob"
	"meridian/shared/blob/s3blob/s3blobtest"
	"meridian/shared/datadir"
	"meridian/shared/demo/griddemo"
	"meridian/shared/gridstore"
	"meridian/shared/kv/dynamokv/dynamokvtest"
	"meridian/shared/release"
	"meridian/shared/survey/gridindex"
)

// An index opened from a published release keeps reading the bytes it
// opened after the file is published again with other content: publish
// writes new objects and a new manifest, never over the old object. A new
// open reads the new release.
func TestKeepsOpenIndexes(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	files, err := griddemo.Indexes(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	names := slices.Sorted(maps.Keys(files))
	first, second := files[names[0]], files[names[1]]

	dir := datadir.Dir(t.TempDir())
	if err := os.MkdirAll(dir.Grid(), 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir.Grid(), "served"+datadir.GridExt)
	const bucket = "meridian-data"
	s3c := s3blobtest.FakeS3(t, bucket)
	_, ddbURL := dynamokvtest.Minidyn(t, "reports")
	o := Options{Data: dir, Bucket: bucket, Table: "reports", S3Endpoint: *s3c.Options().BaseEndpoint,
		DynamoEndpoint: ddbURL, Region: "us-east-1", AccessKey: "test", SecretKey: "test", Progress: io.Discard}
	store := s3blob.New(s3c, bucket, "grid/", s3blob.Options{})
	open := func() *gridindex.Index {
		t.Helper()
		ixs, err := gridstore.OpenIndexes(ctx, store, []string{"served" + datadir.GridExt}, "test:")
		if err != nil {
			t.Fatal(err)
		}
		return ixs[0]
	}

	if err := os.WriteFile(path, first, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := Run(ctx, o); err != nil {
		t.Fatal(err)
	}
	held := open()
	if err := os.WriteFile(path, second, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := Run(ctx, o); err != nil {
		t.Fatal(err)
	}

	// What the held index reads now (its first reads past the header)
	// against the same reads of the first file, from memory.
	mem := blob.NewMem()
	mem.Put(ctx, "x", bytes.NewReader(first))
	ref, err := gridindex.Open(ctx, mem, "x", gridindex.Options{})
	if err != nil {
		t.Fatal(err)
	}
	want, err := ref.GroupKeys(ctx, "", 50)
	if err != nil || len(want) == 0 {
		t.Fatalf("GroupKeys of the first file = %v, %v", want, err)
	}
	got, err := held.GroupKeys(ctx, "", 50)
	if err != nil || !slices.Equal(got, want) {
		t.Errorf("index held across a publish reads %v, %v; want the first file's %v", got, err, want)
	}
	if m := open().Meta(); m.Name == held.Meta().Name {
		t.Errorf("a new open after the second publish reads %q, the first file's dataset", m.Name)
	}
}

// Two publishes that overlap: the second to write the manifest finds it
// changed since it started and fails, leaving the first one's release.
func TestManifestConflict(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	const bucket = "meridian-data"
	client := s3blobtest.FakeS3(t, bucket)
	mine := release.Manifest{Files: map[string]release.File{"a.mgix": {Key: "v/01/a.mgix", Size: 1}}}
	theirs := release.Manifest{Files: map[string]release.File{"a.mgix": {Key: "v/02/a.mgix", Size: 2}}}
	read := func() manifestBase {
		t.Helper()
		b, err := readManifestBase(ctx, client, bucket, "grid/")
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	served := func() string {
		t.Helper()
		m, _, err := release.Read(ctx, s3blob.New(client, bucket, "grid/", s3blob.Options{}))
		if err != nil {
			t.Fatal(err)
		}
		key, _ := m.Resolve("a.mgix")
		return key
	}

	myBase, theirBase := read(), read() // both start with no manifest
	if ok, err := writeManifest(ctx, client, theirBase, theirs); !ok || err != nil {
		t.Fatalf("first manifest write = %v, %v", ok, err)
	}
	if ok, err := writeManifest(ctx, client, myBase, mine); ok || !errors.Is(err, errReleaseConflict) {
		t.Errorf("manifest write over one written meanwhile (none at start) = %v, %v; want errReleaseConflict", ok, err)
	}
	if got := served(); got != "v/02/a.mgix" {
		t.Errorf("manifest after the lost race names %q, want the winner's", got)
	}

	myBase, theirBase = read(), read()
	if ok, err := writeManifest(ctx, client, theirBase, mine); !ok || err != nil {
		t.Fatalf("manifest write with the current ETag = %v, %v", ok, err)
	}
	third := release.Manifest{Files: map[string]release.File{"a.mgix": {Key: "v/03/a.mgix", Size: 3}}}
	if ok, err := writeManifest(ctx, client, myBase, third); ok || !errors.Is(err, errReleaseConflict) {
		t.Errorf("manifest write with a stale ETag = %v, %v; want errReleaseConflict", ok, err)
	}
	if got := served(); got != "v/01/a.mgix" {
		t.Errorf("manifest after the second lost race names %q, want v/01/a.mgix", got)
	}
	if ok, err := writeManifest(ctx, client, read(), mine); ok || err != nil {
		t.Errorf("manifest write of the same files = %v, %v; want skipped", ok, err)
	}
}

// -merge publishes a directory holding part of the data (what the refresh
// job ingested into scratch storage): the manifest keeps naming the files
// the directory lacks, and a directory without a report store publishes
// its files alone.
func TestMerge(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	const bucket = "meridian-merge"
	s3c := s3blobtest.FakeS3(t, bucket)
	write := func(dir, name, body string) {
		t.Helper()
		p := filepath.Join(datadir.Dir(dir).Grid(), name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	full, part := t.TempDir(), t.TempDir()
	write(full, "a.mgix", "index a, first")
	write(full, "b.mgix", "index b, first")
	write(part, "b.mgix", "index b, second")
	o := Options{Domains: []string{"energy", "ag"}, Bucket: bucket, Table: "unused", S3Endpoint: *s3c.Options().BaseEndpoint,
		Region: "us-east-1", AccessKey: "test", SecretKey: "test", Merge: true}
	grid := s3blob.New(s3c, bucket, "grid/", s3blob.Options{})
	var out bytes.Buffer
	o.Progress = &out
	for _, dir := range []string{full, part} {
		o.Data = datadir.Dir(dir)
		if err := Run(ctx, o); err != nil {
			t.Fatalf("publish -merge %s: %v\n%s", dir, err, out.String())
		}
	}
	if !strings.Contains(out.String(), "dataset energy: never ingested here, not published") {
		t.Errorf("no word about the missing report store:\n%s", out.String())
	}
	m, ok, err := release.Read(ctx, grid)
	if err != nil || !ok {
		t.Fatalf("grid manifest: %v %v", ok, err)
	}
	if got := slices.Sorted(maps.Keys(m.Files)); !slices.Equal(got, []string{"a.mgix", "b.mgix"}) {
		t.Fatalf("manifest names %v, want a.mgix (kept) and b.mgix (new)", got)
	}
	for name, want := range map[string]string{"a.mgix": "index a, first", "b.mgix": "index b, second"} {
		key, _ := m.Resolve(name)
		b, err := grid.ReadRange(ctx, key, 0, int64(len(want)))
		if err != nil || string(b) != want {
			t.Errorf("%s at %s: %q, %v; want %q", name, key, b, err, want)
		}
	}
}

// A data directory that still holds the report file of an earlier release
// (which the local server adopts at its start) is refused rather than
// published without its reports; one that never had reports publishes its
// files alone.
func TestOpenServedLegacy(t *testing.T) {
	dir := datadir.Dir(t.TempDir())
	if s, ok, err := openServed(dir, "energy"); s != nil || ok || err != nil {
		t.Errorf("no report store: %v, %v, %v; want nothing and no error", s, ok, err)
	}
	if err := os.WriteFile(dir.LegacyReports(), []byte("bolt"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, ok, err := openServed(dir, "energy"); ok || err == nil || !strings.Contains(err.Error(), "earlier release") {
		t.Errorf("legacy reports.db: ok %v, err %v; want an error saying to start the server once", ok, err)
	}
}
