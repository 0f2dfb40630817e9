// Package gridindextest gives tests the fixture grid indexes, opened from
// memory and staged on an in-process S3 emulator for a function binary.
package gridindextest

import (
	"bytes"
	"context"
	"slices"
	"strings"
	"sync"
	"testing"

	"meridian/shared/blob"
	"meridian/shared/blob/s3blob"
	"meridian/shared/blob/s3blob/s3blobtest"
	"meridian/shared/demo/griddemo"
	"meridian/shared/survey/gridindex"
)

var fixtureIndexes = sync.OnceValues(func() (map[string][]byte, error) {
	return griddemo.Indexes(context.Background(), "")
})

// FixtureGrids returns the fixture grid indexes (built once per test
// binary, as the local server builds them on first start) opened from
// memory, for the in-process handler, and the environment that makes a
// function binary read the same indexes from an in-process S3 emulator
// through gridstore, for the bootstrap run.
func FixtureGrids(t testing.TB) ([]*gridindex.Index, []string) {
	t.Helper()
	files, err := fixtureIndexes()
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	slices.Sort(names)
	mem := blob.NewMem()
	const bucket = "meridian-grids"
	client := s3blobtest.FakeS3(t, bucket)
	s3 := s3blob.New(client, bucket, "grid/", s3blob.Options{})
	var ixs []*gridindex.Index
	for _, n := range names {
		if err := mem.Put(ctx, n, bytes.NewReader(files[n])); err != nil {
			t.Fatal(err)
		}
		if err := s3.Put(ctx, n, bytes.NewReader(files[n])); err != nil {
			t.Fatal(err)
		}
		ix, err := gridindex.Open(ctx, mem, n, gridindex.Options{})
		if err != nil {
			t.Fatal(err)
		}
		ixs = append(ixs, ix)
	}
	endpoint := client.Options().BaseEndpoint
	env := []string{
		"GRID_BUCKET=" + bucket,
		"GRID_PREFIX=grid/",
		"GRID_INDEXES=" + strings.Join(names, ","),
		"AWS_ENDPOINT_URL_S3=" + *endpoint,
		"AWS_ACCESS_KEY_ID=test",
		"AWS_SECRET_ACCESS_KEY=test",
	}
	return ixs, env
}
