package main

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"meridian/shared/ag"
	"meridian/shared/blob"
	"meridian/shared/datadir"
	"meridian/shared/energy"
	"meridian/shared/kv"
	"meridian/shared/kv/boltdir"
	"meridian/shared/lld"
	"meridian/shared/survey/gridindex"
)

// LoadSample is what meridian-bench scale -prepare writes: where the data is and
// what a load over it asks for (the same draws as the served load's).
type LoadSample struct {
	Data      string              `json:"data"`
	LSDs      []string            `json:"lsds"`      // LSDs with energy data
	Quarters  []string            `json:"quarters"`  // quarter sections with agriculture data
	Operators []string            `json:"operators"` // the operators with the most wells
	Tiles     map[string][][3]int `json:"tiles"`     // by layer (ab/sec): z, x, y of tiles the archive holds
	// GridParcels are quarters and LSDs the official grid indexes hold,
	// and GridPoints (lng, lat) points inside their townships: at a
	// reduced fraction the indexes cover part of each province, and a
	// lookup elsewhere is the model's, which reads no index.
	GridParcels []string     `json:"grid_parcels"`
	GridPoints  [][2]float64 `json:"grid_points"`
}

// sampleTileLayers are the archives whose tiles the load reads: an energy
// and an agriculture data layer and the grid's sections.
var sampleTileLayers = []string{"energy/og_activity_lsd", "ag/ag_summary_qs", "ab/sec"}

// writeLoadSample writes the LoadSample of data to path.
func writeLoadSample(ctx context.Context, path, data string) error {
	abs, err := filepath.Abs(data)
	if err != nil {
		return err
	}
	keys, err := sampleKeys(ctx, data, 2000)
	if err != nil {
		return err
	}
	s := LoadSample{Data: abs, LSDs: keys.lsds, Quarters: keys.quarters, Operators: keys.operators, Tiles: map[string][][3]int{}}
	for _, l := range sampleTileLayers {
		p := datadir.TileArchive(datadir.Dir(data).Tiles(), l+".pmtiles")
		if _, err := os.Stat(p); err != nil {
			return fmt.Errorf("load sample: %w", err)
		}
		ts, err := sampleArchive(ctx, p, 2048)
		if err != nil {
			return err
		}
		for _, t := range ts.tiles {
			s.Tiles[ts.layer] = append(s.Tiles[ts.layer], [3]int{int(t.Z), int(t.X), int(t.Y)})
		}
	}
	if s.GridParcels, s.GridPoints, err = sampleGrid(ctx, data, 2000); err != nil {
		return err
	}
	b, err := json.Marshal(s)
	if err != nil {
		return err
	}
	return os.WriteFile(path, b, 0o644)
}

// sampleGrid draws up to n quarters and LSDs of the DLS townships the
// grid indexes of data hold, and n points inside those townships.
func sampleGrid(ctx context.Context, data string, n int) ([]string, [][2]float64, error) {
	dir := filepath.Join(data, "grid")
	files, err := filepath.Glob(filepath.Join(dir, "*.mgix"))
	if err != nil || len(files) == 0 {
		return nil, nil, fmt.Errorf("load sample: no grid indexes in %s (%v)", dir, err)
	}
	rng := rand.New(rand.NewPCG(13, 17))
	var parcels []string
	var points [][2]float64
	for _, f := range files {
		ix, err := gridindex.Open(ctx, blob.NewDir(dir), filepath.Base(f), gridindex.Options{CacheBytes: 1})
		if err != nil {
			return nil, nil, err
		}
		groups, err := ix.GroupKeys(ctx, "", 1<<20)
		if err != nil {
			return nil, nil, err
		}
		rng.Shuffle(len(groups), func(i, j int) { groups[i], groups[j] = groups[j], groups[i] })
		for _, g := range groups[:min(len(groups), 64)] {
			recs, err := ix.GroupByKey(ctx, g)
			if err != nil {
				return nil, nil, err
			}
			for _, r := range recs {
				if r.Location.System != lld.DLS || (r.Location.Unit != lld.QuarterSection && r.Location.Unit != lld.LSD) {
					continue
				}
				parcels = append(parcels, r.Location.String())
				if r.Geometry != nil {
					b := r.Geometry.Bound()
					points = append(points, [2]float64{b.Min[0] + rng.Float64()*(b.Max[0]-b.Min[0]), b.Min[1] + rng.Float64()*(b.Max[1]-b.Min[1])})
				}
			}
		}
	}
	rng.Shuffle(len(parcels), func(i, j int) { parcels[i], parcels[j] = parcels[j], parcels[i] })
	rng.Shuffle(len(points), func(i, j int) { points[i], points[j] = points[j], points[i] })
	if len(parcels) == 0 || len(points) == 0 {
		return nil, nil, fmt.Errorf("load sample: the grid indexes in %s hold no DLS quarters or LSDs", dir)
	}
	return parcels[:min(n, len(parcels))], points[:min(n, len(points))], nil
}

// benchDomains are the report domains, each with its own store and data
// archives.
var benchDomains = []string{energy.Dataset, ag.Dataset}

// openServed opens domain's served report version of data read-only.
func openServed(data datadir.Dir, domain string) (*kv.Bolt, bool, error) {
	store, _, ok, err := data.Reports(domain).OpenCurrent(boltdir.ScanRelease)
	return store, ok, err
}

// keySample is a random sample of the parcels and operators that have
// report data: what the report and list scenarios ask for.
type keySample struct {
	lsds, quarters, operators []string
	// changeTownships are townships with energy changes (CHG#), after
	// the scale test's second energy ingest.
	changeTownships []string
}

// sampleKeys draws up to n LSDs with energy data, n quarters with
// agriculture data and the operators with the most wells (the largest
// lists), from the versions served in data.
func sampleKeys(ctx context.Context, data string, n int) (keySample, error) {
	var s keySample
	draw := func(domain, dataset, pkPrefix string, into *[]string) error {
		store, ok, err := openServed(datadir.Dir(data), domain)
		if err != nil || !ok {
			return fmt.Errorf("%s report store: ok %v, %v", domain, ok, err)
		}
		defer store.Close()
		ds, ok, err := kv.Open(ctx, store, dataset)
		if err != nil || !ok {
			return fmt.Errorf("%s dataset: ok %v, %v", domain, ok, err)
		}
		rng := rand.New(rand.NewPCG(3, 5))
		seen, last := 0, ""
		return ds.ScanKeys(ctx, pkPrefix, func(keys []kv.Key) error {
			for _, k := range keys {
				id := strings.TrimPrefix(k.PK, pkPrefix)
				if id == last { // a partition's items come together (key order)
					continue
				}
				last = id
				seen++ // reservoir sampling: every partition equally likely
				if len(*into) < n {
					*into = append(*into, id)
				} else if j := rng.IntN(seen); j < n {
					(*into)[j] = id
				}
			}
			return nil
		})
	}
	if err := draw("energy", energy.Dataset, energy.LSDKey(""), &s.lsds); err != nil {
		return s, err
	}
	if err := draw("ag", ag.Dataset, ag.QuarterKey(""), &s.quarters); err != nil {
		return s, err
	}
	if err := draw("energy", energy.Dataset, energy.PKChangesPrefix, &s.changeTownships); err != nil {
		return s, err
	}
	store, _, err := openServed(datadir.Dir(data), "energy")
	if err != nil {
		return s, err
	}
	defer store.Close()
	ds, _, err := kv.Open(ctx, store, energy.Dataset)
	if err != nil {
		return s, err
	}
	p, err := ds.Query(ctx, kv.Query{PK: energy.PKOperators, Limit: kv.MaxLimit})
	if err != nil {
		return s, err
	}
	type op struct {
		ba    string
		wells int
	}
	var ops []op
	for _, it := range p.Items {
		var row energy.OperatorRow
		if json.Unmarshal(it.Data, &row) == nil {
			ops = append(ops, op{row.BACode, row.ActiveWells + row.AbandonedWells + row.OrphanWells})
		}
	}
	for i := range ops { // the 20 largest: the worst lists
		for j := i + 1; j < len(ops); j++ {
			if ops[j].wells > ops[i].wells {
				ops[i], ops[j] = ops[j], ops[i]
			}
		}
		if i == 19 {
			break
		}
	}
	for _, o := range ops[:min(20, len(ops))] {
		s.operators = append(s.operators, o.ba)
	}
	if len(s.lsds) == 0 || len(s.quarters) == 0 || len(s.operators) == 0 {
		return s, fmt.Errorf("no report data to sample: %d LSDs, %d quarters, %d operators", len(s.lsds), len(s.quarters), len(s.operators))
	}
	return s, nil
}

// scenarios are the report and list requests over the sample.
func (s keySample) scenarios() []scenario {
	get := func(name string, ids []string, path func(id string) string) scenario {
		return scenario{name, 1, func(base string, rng *rand.Rand) (*http.Request, error) {
			return http.NewRequest("GET", base+path(ids[rng.IntN(len(ids))]), nil)
		}}
	}
	q := url.QueryEscape
	out := []scenario{
		get("energy report", s.lsds, func(id string) string { return "/energy/report?legal_location=" + q(id) }),
		get("energy wells list", s.lsds, func(id string) string { return "/energy/wells?legal_location=" + q(id) }),
		get("energy tenure list", s.lsds, func(id string) string { return "/energy/tenure?legal_location=" + q(id) }),
		get("ag report", s.quarters, func(id string) string { return "/ag/report?legal_location=" + q(id) }),
		get("operators list", []string{"orphan", "active", "name"}, func(id string) string { return "/energy/operators?sort=" + id }),
		get("largest operators' wells, page 1", s.operators, func(id string) string { return "/energy/operators/" + q(id) + "?view=wells" }),
		get("largest operators' dispositions", s.operators, func(id string) string { return "/energy/operators/" + q(id) + "?view=dispositions" }),
		get("tenure expiring, 10 years", []string{"3650"}, func(id string) string { return "/energy/tenure/expiring?expires_within_days=" + id }),
		get("tenure expiring, 10 years, page 20", []string{"3650"}, func(id string) string {
			return "/energy/tenure/expiring?expires_within_days=" + id + "&page=20&per_page=200"
		}),
	}
	// A township's changes (issue 37's feed): the endpoint is another
	// helper's; until it is merged the route answers 404, which the load
	// counts as an answer (runScenario), so the row then measures a 404.
	if len(s.changeTownships) > 0 {
		out = append(out, get("energy changes, a township", s.changeTownships, func(id string) string {
			return "/energy/changes?legal_location=" + q(id)
		}))
	}
	return out
}
