package kv_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log"

	"meridian/shared/kv"
)

// A dataset is written under a new version and becomes visible at once;
// readers query it by exact partition key and sort key prefix, here the
// wells of one legal subdivision in spud-date order.
func ExamplePublish() {
	ctx := context.Background()
	s := kv.NewMem() // kv.OpenBolt locally, dynamokv.New on AWS
	type well struct {
		Licence string `json:"licence"`
		Spud    string `json:"spud"`
	}
	wells := []well{{"0512345", "2019-03-02"}, {"0498765", "2017-11-20"}, {"0533333", "2021-06-15"}}
	v, err := kv.Publish(ctx, s, kv.DatasetInfo{Name: "ab-wells", Source: "AER ST37", Demo: true}, func(w *kv.Writer) error {
		for _, wl := range wells {
			// One copy per access pattern: by location (sorted by spud
			// date) and by licence.
			if err := w.Put("LSD#4-12-45-3-W5", "SPUD#"+wl.Spud+"#"+wl.Licence, wl); err != nil {
				return err
			}
			if err := w.Put("LICENCE#"+wl.Licence, "WELL", wl); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("published version", v)

	d, ok, err := kv.Open(ctx, s, "ab-wells")
	if err != nil || !ok {
		log.Fatal(ok, err)
	}
	page, err := d.Query(ctx, kv.Query{PK: "LSD#4-12-45-3-W5", SKPrefix: "SPUD#", Reverse: true, Limit: 2})
	if err != nil {
		log.Fatal(err)
	}
	for _, it := range page.Items {
		var wl well
		json.Unmarshal(it.Data, &wl)
		fmt.Println(wl.Spud, wl.Licence)
	}
	fmt.Println("next page after", page.Next)
	// Output:
	// published version 1
	// 2021-06-15 0533333
	// 2019-03-02 0512345
	// next page after SPUD#2019-03-02#0512345
}
