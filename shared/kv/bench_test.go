package kv_test

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"meridian/shared/kv"
	"meridian/shared/kv/dynamokv"
	"meridian/shared/kv/dynamokv/dynamokvtest"
	"meridian/shared/kv/kvtest"
)

// Benchmark data: benchPKs partitions of benchPerPK items of about 200
// bytes of JSON, like report records.
const (
	benchPKs   = 50
	benchPerPK = 100
)

func benchItems() []kv.Item {
	var items []kv.Item
	for p := range benchPKs {
		for i := range benchPerPK {
			pk, sk := fmt.Sprintf("LSD#%d-%d-45-3-W5", p%16+1, p), fmt.Sprintf("2024-%02d-%02d#W%05d", i%12+1, i%28+1, i)
			data := fmt.Appendf(nil, `{"lsd":%q,"licence":"%07d","operator":"A1B2","status":"Pumping","depth_m":%d.5,"spud_date":"2024-01-02","fluid":"crude oil"}`, pk, p*1000+i, 1000+i)
			items = append(items, kv.Item{PK: pk, SK: sk, Data: data})
		}
	}
	return items
}

// benchStores returns the stores the read benchmarks compare, loaded with
// benchItems.
func benchStores(b *testing.B) map[string]kv.Store {
	stores := map[string]kv.Store{
		"Bolt": openBolt(b, filepath.Join(b.TempDir(), "bench.db"), kv.BoltOptions{}),
	}
	client, _ := dynamokvtest.Minidyn(b, "bench")
	stores["Minidyn"] = dynamokv.New(client, "bench", dynamokv.Options{})
	items := benchItems()
	for _, s := range stores {
		if err := s.Put(b.Context(), items); err != nil {
			b.Fatal(err)
		}
	}
	return stores
}

func BenchmarkGet(b *testing.B) {
	items := benchItems()
	for _, name := range []string{"Bolt", "Minidyn"} {
		b.Run(name, func(b *testing.B) {
			s := benchStores(b)[name]
			r := rand.New(rand.NewPCG(1, 2))
			b.ResetTimer()
			for b.Loop() {
				it := items[r.IntN(len(items))]
				if _, ok, err := s.Get(b.Context(), it.PK, it.SK); err != nil || !ok {
					b.Fatalf("Get(%s, %s) = %v, %v", it.PK, it.SK, ok, err)
				}
			}
		})
	}
}

func BenchmarkQuery50(b *testing.B) {
	items := benchItems()
	for _, name := range []string{"Bolt", "Minidyn"} {
		b.Run(name, func(b *testing.B) {
			s := benchStores(b)[name]
			r := rand.New(rand.NewPCG(1, 2))
			b.ResetTimer()
			for b.Loop() {
				pk := items[r.IntN(len(items))].PK
				page, err := s.Query(b.Context(), kv.Query{PK: pk, Limit: 50, Reverse: r.IntN(2) == 0})
				if err != nil || len(page.Items) != 50 || page.Next == "" {
					b.Fatalf("Query(%s) = %d items, Next %q, %v", pk, len(page.Items), page.Next, err)
				}
			}
		})
	}
}

// BenchmarkPublishBolt publishes a dataset of 20,000 items per iteration,
// each replacing the previous version (whose items are deleted).
func BenchmarkPublishBolt(b *testing.B) {
	const n = 20_000
	s := openBolt(b, filepath.Join(b.TempDir(), "bench.db"), kv.BoltOptions{})
	rec := kvtest.BenchRecord{Licence: "0123456", Operator: "A1B2", Status: "Pumping", Depth: 1234.5, Spud: "2024-01-02", Fluid: "crude oil"}
	b.ResetTimer()
	for b.Loop() {
		_, err := kv.Publish(b.Context(), s, kv.DatasetInfo{Name: "wells"}, func(w *kv.Writer) error {
			for i := range n {
				rec.LSD = fmt.Sprintf("%d-%d-45-3-W5", i%16+1, i/16%36+1)
				if err := w.Put("LSD#"+rec.LSD, fmt.Sprintf("W%06d", i), rec); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "items/s")
}

// hiddenStream wraps a Store so that a Publish's Writer falls back to
// buffered Puts of 1,000 items (the path of a Bolt before the sorted
// load).
type hiddenStream struct{ kv.Store }

// BenchmarkBoltLoad publishes 200,000 items of about 200 bytes in random
// key order into a fresh file (NoSync, as boltdir.Publish opens it) per
// iteration, through the sorted load (Sorted) and through buffered Puts of
// 1,000 items (Put), and reports items/s and the file's size.
func BenchmarkBoltLoad(b *testing.B) {
	const n = 200_000
	for _, name := range []string{"Sorted", "Put"} {
		b.Run(name, func(b *testing.B) {
			var size int64
			for b.Loop() {
				path := filepath.Join(b.TempDir(), "load.db")
				bolt := openBolt(b, path, kv.BoltOptions{NoSync: true})
				var s kv.Store = bolt
				if name == "Put" {
					s = hiddenStream{bolt}
				}
				r := rand.New(rand.NewPCG(1, 2))
				_, err := kv.Publish(b.Context(), s, kv.DatasetInfo{Name: "energy"}, func(w *kv.Writer) error {
					for i := range n {
						lsd := fmt.Sprintf("%02d-%02d-%03d-%02d-W%d", r.IntN(16)+1, r.IntN(36)+1, r.IntN(126)+1, r.IntN(30)+1, r.IntN(3)+4)
						data := fmt.Appendf(nil, `{"lsd":%q,"licence":"%07d","operator":"A1B2","status":"Pumping","depth_m":%d.5,"spud_date":"2024-01-02","fluid":"crude oil","n":%d}`, lsd, i, 1000+i%3000, i)
						if err := w.PutRaw("LSD#"+lsd, fmt.Sprintf("WELL#%07d", i), data); err != nil {
							return err
						}
					}
					return nil
				})
				if err != nil {
					b.Fatal(err)
				}
				if err := bolt.Close(); err != nil {
					b.Fatal(err)
				}
				fi, err := os.Stat(path)
				if err != nil {
					b.Fatal(err)
				}
				size = fi.Size()
			}
			b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "items/s")
			b.ReportMetric(float64(size)/(1<<20), "file-MiB")
		})
	}
}
