package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
)

func TestScaleTable(t *testing.T) {
	demo := &scaleRun{name: "demo", log: &bytes.Buffer{}}
	prov := &scaleRun{name: "province x1", log: &bytes.Buffer{}}
	for _, r := range []*scaleRun{demo, prov} {
		r.add(measure{step: "ingest energy", rows: 1000, unit: "records", note: "20 items", time: 2 * time.Second, rss: 100 << 20})
		r.add(measure{step: helloStep, rows: 4000, unit: "requests", time: time.Second, p50: time.Millisecond, p99: 2 * time.Millisecond})
		r.add(measure{step: "GET search", rows: 3000, unit: "requests", time: time.Second, p50: time.Millisecond, p99: 3 * time.Millisecond})
	}
	prov.add(measure{step: "archive ab/sec", rows: 5, unit: "tiles", time: time.Second, rss: 1 << 30})
	// A route measured with hello-world beside it is a fraction of that,
	// not of the run's first baseline (4,000 req/s): 2,000 of 6,400.
	prov.add(measure{step: "GET reverse", rows: 2000, unit: "requests", time: time.Second, p50: time.Millisecond, p99: 3 * time.Millisecond, hello: 6400})
	var b bytes.Buffer
	printScaleTable(&b, []*scaleRun{demo, prov})
	got := b.String()
	for _, want := range []string{"province x1: count", "1000 records (20 items)", "500", "0.75", "0.31", "1024", "archive ab/sec"} {
		if !strings.Contains(got, want) {
			t.Errorf("table lacks %q:\n%s", want, got)
		}
	}
	if p, step := prov.peak(); p != 1<<30 || step != "archive ab/sec" {
		t.Errorf("peak = %d (%s)", p, step)
	}
	if got := firstInt("x\t457723 tiles\t8 bytes", `\t(\d+) tiles`); got != 457723 {
		t.Errorf("firstInt = %d", got)
	}
}

func TestGridArchiveLayers(t *testing.T) {
	got, err := gridArchiveLayers("ab/sec")
	if err != nil || strings.Join(got, ",") != "ab/sec" {
		t.Errorf("default: %v, %v; want [ab/sec]", got, err)
	}
	got, err = gridArchiveLayers("ab/twp, ab/sec,sk/lsd-label")
	if err != nil || strings.Join(got, ",") != "ab/sec,ab/twp,sk/lsd-label" {
		t.Errorf("a list: %v, %v; want ab/sec first, then the others once", got, err)
	}
	all, err := gridArchiveLayers("all")
	if err != nil {
		t.Fatal(err)
	}
	regions := map[string]int{}
	for _, p := range all {
		r, _, _ := strings.Cut(p, "/")
		regions[r]++
	}
	if all[0] != "ab/sec" || len(regions) != 3 || regions["ab"] != 8 || regions["sk"] != 8 || regions["mb"] != 8 {
		t.Errorf("all: %v (by region %v); want ab/sec first and the 8 grid and label layers of AB, SK and MB", all, regions)
	}
	for _, bad := range []string{"ab/wells", "xx/sec", "sec"} {
		if _, err := gridArchiveLayers(bad); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

// Steps side by side: all run at once, the first failure stops the
// others and is the error returned, and the group's row bounds the memory
// they held together by the sum of their peaks.
func TestSideBySide(t *testing.T) {
	r := &scaleRun{name: "test", log: &bytes.Buffer{}}
	started := make(chan int, 3)
	boom := errors.New("boom")
	err := r.sideBySide(context.Background(), "jobs", 3, func(ctx context.Context, i int) error {
		started <- i
		if i == 1 {
			for len(started) < 3 { // fail once every job runs
				time.Sleep(time.Millisecond)
			}
			return boom
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("job %d: %w", i, ctx.Err())
		case <-time.After(10 * time.Second):
			return fmt.Errorf("job %d was not canceled", i)
		}
	})
	if !errors.Is(err, boom) {
		t.Fatalf("err = %v, want the failing job's", err)
	}
	if err := r.sideBySide(context.Background(), "jobs", 2, func(context.Context, int) error { return nil }); err != nil {
		t.Fatal(err)
	}

	r.addGroup("generate, side by side",
		[]measure{{step: "generate grid", time: 2 * time.Second, rss: 100 << 20}},
		[]measure{{step: "generate energy", time: 5 * time.Second, rss: 120 << 20}})
	if len(r.rows) != 3 {
		t.Fatalf("%d rows, want the 2 steps and their group", len(r.rows))
	}
	g := r.rows[2]
	if count(&g) != "2 side by side" || g.rate != 0 {
		t.Errorf("group row reads %q at %v a second, want \"2 side by side\" and no rate", count(&g), g.rate)
	}
	if g.time != 5*time.Second || g.rss != 220<<20 {
		t.Errorf("group: %s, %d MB; want the longest step's time and the sum of the peaks (5s, 220 MB)", g.time, g.rss>>20)
	}
	if p, step := r.peak(); p != 220<<20 || step != "generate, side by side" {
		t.Errorf("peak = %d MB (%s), want the group's sum", p>>20, step)
	}

	// Lanes of several processes: a lane's time is the sum of its
	// processes', its peak the largest; detail rows (an archive of a
	// build) count for neither.
	r.rows = nil
	r.addGroup("ingest and archives, two lanes",
		[]measure{
			{step: "ingest energy", time: 3 * time.Second, rss: 500 << 20},
			{step: "archive energy/wells", time: 9 * time.Second, rss: 400 << 20, detail: true},
			{step: "archives energy, one process", time: 4 * time.Second, rss: 400 << 20},
		},
		[]measure{
			{step: "ingest ag", time: 2 * time.Second, rss: 300 << 20},
			{step: "archives ag, one process", time: 6 * time.Second, rss: 600 << 20},
		})
	g = r.rows[len(r.rows)-1]
	if len(r.rows) != 6 || g.time != 8*time.Second || g.rss != 1100<<20 {
		t.Errorf("%d rows, group %s and %d MB; want 6 rows, the longest lane's 8s and 500 + 600 MB", len(r.rows), g.time, g.rss>>20)
	}
}

// Each tile archive's row says how it compares with pmtiles serve on the
// same tiles, and says nothing when either was not measured.
func TestAgainstPMTiles(t *testing.T) {
	rows := []measure{
		{step: "GET tiles ab/sec", rate: 11000},
		{step: "GET tiles ab/sec" + pmtilesSuffix, rate: 10000},
		{step: "GET tiles ag/ag_summary_qs", rate: 9000},
	}
	if m := againstPMTiles(rows, "tiles ab/sec"); m.step != "tiles ab/sec against pmtiles serve" || m.note != "1.10x pmtiles serve" {
		t.Errorf("ab/sec: %+v", m)
	}
	if m := againstPMTiles(rows, "tiles ag/ag_summary_qs"); m.note != "-" {
		t.Errorf("ag_summary_qs without pmtiles serve: %+v", m)
	}
}
