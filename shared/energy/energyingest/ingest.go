package energyingest

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/paulmach/orb"

	"meridian/shared/energy"
	"meridian/shared/energy/changefeed"
	"meridian/shared/ingest"
	"meridian/shared/kv"
	"meridian/shared/lld"
	"meridian/shared/survey"
)

// Options tune an ingest.
type Options struct {
	Now      time.Time // the day expiry states are computed for; default time.Now
	Demo     bool      // the files are the project's demo data
	Progress io.Writer // one line per file read; nil: quiet
	// Notices collects the values the readers had not seen before but
	// placed (a new status word); nil discards them.
	Notices *ingest.Notices
	// RankSortBudget is the bytes of list keys the ingest holds in memory
	// to write the lists' rank items (package energy, rollups.go) before
	// it spills them to a temporary file: DefaultRankSortBudget when 0.
	// The change feed's snapshot sorts in the same budget.
	RankSortBudget int
	// Changes is the change feed's state (changefeed.Open on the data
	// directory's EnergyChanges): the ingest compares the version it
	// writes with the previous one and writes the changes as items of the
	// new version (package changefeed). The caller commits it once the
	// version is served, or aborts it; a failed Ingest aborts it. nil:
	// no change feed.
	Changes *changefeed.State
}

// DefaultRankSortBudget is Options.RankSortBudget when 0: the keys of the
// ranked lists (an operator's wells, dispositions and LSDs, the expiring
// dispositions, the operators in each order: several times the province's
// wells and dispositions) are sorted in runs of this size on disk.
const DefaultRankSortBudget = 8 << 20

// Summary says what an ingest read, wrote and skipped.
type Summary struct {
	Version kv.Version
	Read    map[string]int // records read, by kind: rows of the files
	// Derived counts what the ingest made of the rows (operators from the
	// wells' BA codes): rows of no file.
	Derived map[string]int
	Skipped map[string]int // records not used, by reason
	Items   int            // store items written
	// Notices are the values the readers had not seen before but could
	// place (ingest.Notices.Lines); NoticeCount counts every occurrence.
	Notices     []string
	NoticeCount int
	// Changes is what the change feed found and kept (Options.Changes).
	Changes changefeed.Stats
}

func (s *Summary) skip(reason string) { s.Skipped[reason]++ }

// Grid is what ingest asks of the grid service (*grid.Service): the block
// of each record, and the blocks of a bound.
type Grid interface {
	Resolve(ctx context.Context, l lld.Location, input string) (survey.Block, error)
	Blocks(ctx context.Context, sys lld.System, u lld.Unit, b orb.Bound, fn func(survey.Block) error) error
}

// Ingest reads files, derives the report rows and publishes them as the
// energy dataset of store, atomically: a bad file is rejected with its
// name, line and reason (an *ingest.Error) and the data already served
// stays. svc places wells and parcels on the grid (official data where
// loaded). Memory holds per-well and per-LSD roll-ups, never a file.
func Ingest(ctx context.Context, store kv.Store, svc Grid, files Files, o Options) (Summary, error) {
	if o.Now.IsZero() {
		o.Now = time.Now()
	}
	in := &ingester{svc: svc, files: files, o: o, sum: Summary{Read: map[string]int{}, Derived: map[string]int{}, Skipped: map[string]int{}},
		baNames: map[string]string{}, orphanLicences: map[string]bool{}, orphanLSDs: map[string]bool{},
		prevLicensee: map[string]string{}, interned: map[string]string{}, lsds: map[lsdID]*lsdAcc{}, otherLSDs: map[string]*lsdAcc{}, ops: map[string]*operatorAcc{},
		centroids: map[string]centroid{}, prod: map[string]*energy.Production{}, sources: map[string]energy.Source{}}
	in.ctx = ctx
	in.notices = &ingest.Notices{}
	in.seenDispositions = map[string]bool{}
	info := kv.DatasetInfo{Name: energy.Dataset, Source: "energy: AER ST37, ST104A, pipelines; Petrinex; Orphan Well Association; Crown dispositions", Demo: o.Demo}
	v, err := kv.Publish(ctx, store, info, in.run)
	if err != nil && o.Changes != nil {
		o.Changes.Abort()
	}
	in.sum.Version = v
	in.sum.Notices, in.sum.NoticeCount = in.notices.Lines(), in.notices.Total()
	return in.sum, err
}

type ingester struct {
	svc   Grid
	files Files
	o     Options
	sum   Summary
	w     *kv.Writer
	ctx   context.Context

	baNames        map[string]string // BA code → name
	orphanLicences map[string]bool   // licence numbers without leading zeros
	orphanLSDs     map[string]bool   // sites in the OWA inventory by LSD
	prevLicensee   map[string]string // licence → licensee BA in the previous well list
	interned       map[string]string
	seenUWIs       map[string]bool
	lsds           map[lsdID]*lsdAcc
	otherLSDs      map[string]*lsdAcc // roll-ups of locations that are not DLS LSDs
	ops            map[string]*operatorAcc
	centroids      map[string]centroid           // LSD → centre and province, at most centroidCacheSize
	prod           map[string]*energy.Production // 16-character UWI → its volumes in the window, summed
	wellLSD        map[string]string             // 16-character UWI → LSD, for production
	windowEnd      string
	sources        map[string]energy.Source

	notices          *ingest.Notices
	seenDispositions map[string]bool      // disposition ids written (an Alberta agreement comes once per tract)
	expiring         energy.ExpiringTally // the EXPIRING items by day, for the list totals (counts.go)
	ranks            *energy.Ranks        // the keys of the ranked lists, for their rank items (counts.go)
	snap             *changefeed.Snapshot // the change feed's records of this version (changes.go); nil: no feed
	wellSection      string               // the meta.sources section of the wells being read
}

type operatorAcc struct {
	row       energy.OperatorRow
	footprint map[string]*energy.FootprintRow
}

// centroid is a resolved block's centre and province code.
type centroid struct {
	pt   orb.Point
	prov string
}

// centroidCacheSize bounds the centroid cache: a province's dispositions
// name over a million LSDs, most of them once. The files list a township's
// records together, so a cache emptied when full still answers most
// repeated blocks (an LSD's wells, facilities and pipeline crossings).
const centroidCacheSize = 1 << 17

func (in *ingester) progress(format string, args ...any) {
	if in.o.Progress != nil {
		fmt.Fprintf(in.o.Progress, format+"\n", args...)
	}
}

func (in *ingester) run(w *kv.Writer) error {
	in.w = w
	in.seenUWIs, in.wellLSD = map[string]bool{}, map[string]string{}
	budget := in.o.RankSortBudget
	if budget <= 0 {
		budget = DefaultRankSortBudget
	}
	in.ranks = energy.NewRanks(in.ctx, budget)
	defer in.ranks.Close()
	if in.o.Changes != nil {
		in.snap = changefeed.NewSnapshot(in.ctx, budget)
		defer in.snap.Close()
	}
	// Per-well state goes as soon as no later step reads it: the wells'
	// maps after the well files (orphans, transfers, UWIs seen), their
	// LSDs and volumes after the volumetrics.
	releaseWells := func() error {
		in.orphanLicences, in.orphanLSDs, in.prevLicensee, in.seenUWIs = nil, nil, nil, nil
		return nil
	}
	releaseProduction := func() error {
		in.wellLSD, in.prod = nil, nil
		return nil
	}
	steps := []func() error{in.readBA, in.readOrphans, in.readPreviousWells, in.readWellLists, in.readPetrinexWells, releaseWells,
		in.readVolumetrics, releaseProduction, in.readFacilities, in.readPipelines, in.readDispositions, in.writeRollups, in.writeChanges}
	for _, step := range steps {
		if err := step(); err != nil {
			return err
		}
	}
	in.sum.Items = w.Len()
	// Everything is handed to the Writer: let the roll-ups go (a few
	// hundred MB at province size) before its last work runs, which on
	// bbolt is the merge of the sorted runs into the file.
	in.lsds, in.otherLSDs, in.ops, in.centroids, in.interned, in.seenDispositions = nil, nil, nil, nil, nil, nil
	return nil
}

// open opens a file for a reader, naming it in errors by its base name.
func withFile(path string, fn func(r io.Reader, name string) error) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	return fn(f, filepath.Base(path))
}

func (in *ingester) source(section, name, path string) {
	asOf := ingest.FileDate(path)
	if asOf == "" {
		asOf = in.o.Now.Format("2006-01-02") // an undated file: the day of the ingest
	}
	if in.o.Demo {
		name = ingest.DemoLabel + ": " + name
	}
	s := energy.Source{Name: name, AsOf: asOf, Demo: in.o.Demo}
	if old, ok := in.sources[section]; !ok || s.AsOf > old.AsOf {
		in.sources[section] = s
	}
}

// centroid returns a block's centre, cached: the official block where an
// index holds it.
func (in *ingester) centroid(l lld.Location) (orb.Point, string, bool) {
	key := l.String()
	if c, ok := in.centroids[key]; ok {
		return c.pt, c.prov, true
	}
	b, err := in.svc.Resolve(in.ctx, l, key)
	if err != nil {
		return orb.Point{}, "", false
	}
	if len(in.centroids) >= centroidCacheSize {
		clear(in.centroids)
	}
	in.centroids[key] = centroid{b.Centroid, b.Province.Code()}
	return b.Centroid, b.Province.Code(), true
}

func point(p orb.Point) energy.Point {
	return energy.Point{Lat: survey.Round6(p[1]), Lng: survey.Round6(p[0])}
}

// intern returns a copy of s shared by every equal string it was given:
// for the few thousand BA codes that per-well maps hold.
func (in *ingester) intern(s string) string {
	if c, ok := in.interned[s]; ok {
		return c
	}
	c := strings.Clone(s)
	in.interned[c] = c
	return c
}

func (in *ingester) operator(ba string) *operatorAcc {
	ba = strings.ToUpper(ba)
	o := in.ops[ba]
	if o == nil {
		ba = strings.Clone(ba) // not the reader's line
		name := in.baNames[ba]
		o = &operatorAcc{row: energy.OperatorRow{BACode: ba, Name: name, Slug: energy.Slug(name)}, footprint: map[string]*energy.FootprintRow{}}
		in.ops[ba] = o
	}
	return o
}

func (in *ingester) party(ba, name string) energy.Party {
	if name == "" {
		name = in.baNames[strings.ToUpper(ba)]
	}
	return energy.NewParty(strings.ToUpper(ba), name)
}
