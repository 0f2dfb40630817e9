package energyingest_test

import (
	"bytes"
	"io"
	"strings"
	"testing"

	"meridian/shared/demo/energydemo"
	"meridian/shared/energy/energyingest"
)

// repeatReader yields head once and then body n times, without holding
// the whole input: a large file of real shape at no memory cost.
type repeatReader struct {
	head, body []byte
	n          int
	cur        []byte
}

func (r *repeatReader) Read(p []byte) (int, error) {
	for len(r.cur) == 0 {
		switch {
		case r.head != nil:
			r.cur, r.head = r.head, nil
		case r.n > 0:
			r.cur = r.body
			r.n--
		default:
			return 0, io.EOF
		}
	}
	k := copy(p, r.cur)
	r.cur = r.cur[k:]
	return k, nil
}

func demoBody(t testing.TB, name string, skipHeader bool) []byte {
	t.Helper()
	b := demoFile(t, name)
	if skipHeader {
		b = b[bytes.IndexByte(b, '\n')+1:]
	}
	return b
}

func BenchmarkReadWellList(b *testing.B) {
	body := demoBody(b, "WellList_2026-11.txt", false)
	const copies = 1000 // 120,000 rows
	b.SetBytes(int64(len(body) * copies))
	rows := 0
	for b.Loop() {
		err := energyingest.ReadWellList(&repeatReader{body: body, n: copies}, "WellList.txt", func(energyingest.Well) error {
			rows++
			return nil
		})
		if err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(rows)/b.Elapsed().Seconds(), "rows/s")
}

func BenchmarkReadVolumetrics(b *testing.B) {
	head := []byte(strings.SplitAfter(string(demoFile(b, "Vol_2026-10-AB.csv")), "\n")[0])
	var body []byte
	for _, m := range demoMonths() {
		body = append(body, demoBody(b, "Vol_"+m+"-AB.csv", true)...)
	}
	const copies = 25 // ~95,000 rows
	b.SetBytes(int64(len(head) + len(body)*copies))
	rows := 0
	for b.Loop() {
		err := energyingest.ReadVolumetrics(&repeatReader{head: head, body: body, n: copies}, "Vol.csv", func(energyingest.Volumetric) error {
			rows++
			return nil
		})
		if err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(rows)/b.Elapsed().Seconds(), "rows/s")
}

func BenchmarkGenerateDemo(b *testing.B) {
	for b.Loop() {
		if _, err := energydemo.Generate(); err != nil {
			b.Fatal(err)
		}
	}
}

// benchGeoJSON reads a demo GeoJSON file repeated 20 times with read.
func benchGeoJSON[T any](b *testing.B, name string, read func(io.Reader, string, func(T) error) error) {
	in := repeatFeatures(demoFile(b, name), 20)
	b.SetBytes(int64(len(in)))
	b.ReportAllocs()
	for b.Loop() {
		if err := read(bytes.NewReader(in), name, func(T) error { return nil }); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkReadPipelinesGeoJSON(b *testing.B) {
	benchGeoJSON(b, "Pipelines_GCS_NAD83.geojson", func(r io.Reader, file string, fn func(energyingest.Pipeline) error) error {
		return energyingest.ReadPipelinesGeoJSON(r, file, energyingest.ReadOptions{}, fn)
	})
}

func BenchmarkReadDispositionsGeoJSON(b *testing.B) {
	benchGeoJSON(b, "Crown_Dispositions_AB.geojson", energyingest.ReadDispositionsGeoJSON)
}

// repeatFeatures returns a FeatureCollection, "features" its last member,
// with its features repeated n times: a large file of real shape.
func repeatFeatures(file []byte, n int) []byte {
	s := strings.TrimSpace(string(file))
	i, j := strings.Index(s, "[")+1, strings.LastIndex(s, "]")
	body := strings.TrimSpace(s[i:j])
	return []byte(s[:i] + strings.Repeat(body+",\n", n-1) + body + s[j:])
}
