package energyingest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/paulmach/orb"
	"github.com/paulmach/orb/clip"
	"github.com/paulmach/orb/geo"

	"meridian/shared/energy"
	"meridian/shared/ingest"
	"meridian/shared/kv"
	"meridian/shared/lld"
	"meridian/shared/survey"
)

// Files are the published files of one energy ingest, by kind. FilesIn
// sorts a directory's files into them by the publishers' names.
type Files struct {
	WellLists    []string // AER ST37 WellList*.txt, oldest first: the last is current, the one before it gives licence transfers
	BACodes      []string // AER ST104A business associate codes or Petrinex PRABAIdentifiers.csv
	Wells        []string // Petrinex Well Infrastructure (SK, MB; AB wells missing from ST37)
	Facilities   []string // Petrinex Facility Infrastructure
	Volumetrics  []string // Petrinex Conventional Volumetrics Vol_YYYY-MM-PP.csv
	Pipelines    []string // AER pipelines, .geojson or .shp (with .dbf and .prj beside it)
	Orphans      []string // Orphan Well Association inventory .xlsx
	Dispositions []string // Crown PNG and mineral dispositions, .geojson or .csv; Alberta GeoView agreement layers (.geojson)
	Unused       []string // recognised but not read by the reports (NGL volumes, ST37 shapefiles, README, PDFs)
	Unrecognised []string
}

// FileNames are the names FilesOf recognises, for messages ("the ingest
// expects ...").
const FileNames = "WellList*.txt (AER ST37); BusinessAssociate_Codes.xlsx, *BusinessAssociate*.xlsx|.csv, ST104*.xlsx|.csv " +
	"or PRABAIdentifiers.csv (business associates); Well Infrastructure*.csv; Facility Infrastructure*.csv; Vol_*.csv; " +
	"Pipelines*.geojson|.shp; *Inventory*.xlsx (OWA); Crown_Dispositions*.geojson|.csv; Mineral_Agreements*|PNG_Agreements*.geojson; " +
	"NGL*, ST37_SH*|ST37_BH*.shp, README.md, SCALE.json, *.pdf (not read); a .zip of any of these"

// FilesIn sorts the files of dir by name (FilesOf), not opening zips:
// ingest.OpenFolder does.
func FilesIn(dir string) (Files, error) {
	paths, err := ingest.DirFiles(dir)
	if err != nil {
		return Files{}, err
	}
	return FilesOf(paths), nil
}

// FilesOf sorts files by the publishers' names: a file's name, or for a
// member of a zip (ingest.Unpack, "WellList.zip!WellList.txt") the
// member's. When a dataset comes both as GeoJSON and as CSV or shapefile
// beside it, the GeoJSON is read. A shapefile's .dbf, .prj, .shx and .cpg
// are read with it and listed nowhere.
func FilesOf(paths []string) Files {
	var f Files
	geojson := map[string]bool{}
	for _, p := range paths {
		if n := filepath.Base(p); strings.HasSuffix(n, ".geojson") {
			geojson[filepath.Join(filepath.Dir(p), strings.TrimSuffix(n, ".geojson"))] = true
		}
	}
	for _, p := range paths {
		n := ingest.MemberName(p)
		ext := strings.ToLower(filepath.Ext(n))
		besideGeoJSON := geojson[strings.TrimSuffix(p, filepath.Ext(p))]
		switch {
		case strings.HasPrefix(n, "WellList") && ext == ".txt":
			f.WellLists = append(f.WellLists, p)
		case (strings.Contains(n, "BusinessAssociate") || strings.HasPrefix(n, "ST104") || strings.HasPrefix(n, "PRABAIdentifiers")) && (ext == ".csv" || ext == ".xlsx"):
			f.BACodes = append(f.BACodes, p)
		case strings.HasPrefix(n, "Well Infrastructure") && ext == ".csv":
			f.Wells = append(f.Wells, p)
		case strings.HasPrefix(n, "Facility Infrastructure") && ext == ".csv":
			f.Facilities = append(f.Facilities, p)
		case strings.HasPrefix(n, "Vol_") && ext == ".csv":
			f.Volumetrics = append(f.Volumetrics, p)
		case strings.HasPrefix(n, "Pipelines") && (ext == ".geojson" || ext == ".shp" && !besideGeoJSON):
			f.Pipelines = append(f.Pipelines, p)
		case strings.HasPrefix(n, "Pipelines") && ext == ".shp": // beside its GeoJSON
			f.Unused = append(f.Unused, p)
		case strings.HasPrefix(n, "Pipelines"): // .dbf, .prj, .shx, .cpg
		case strings.Contains(n, "Inventory") && ext == ".xlsx":
			f.Orphans = append(f.Orphans, p)
		case strings.HasPrefix(n, "Crown_Dispositions") && (ext == ".geojson" || ext == ".csv" && !besideGeoJSON):
			f.Dispositions = append(f.Dispositions, p)
		case strings.HasPrefix(n, "Crown_Dispositions") && ext == ".csv": // beside its GeoJSON
			f.Unused = append(f.Unused, p)
		case strings.HasPrefix(n, "Crown_Dispositions"):
		case (strings.HasPrefix(n, "ST37_SH") || strings.HasPrefix(n, "ST37_BH")) && ext == ".shp":
			// The ST37 well shapefiles (src.ReadWellHoles): WellList.txt
			// carries the same wells with the UWI and status they lack.
			f.Unused = append(f.Unused, p)
		case strings.HasPrefix(n, "ST37_SH") || strings.HasPrefix(n, "ST37_BH"): // .dbf, .prj, .shx, .cpg beside them
		case (strings.HasPrefix(n, "Mineral_Agreements") || strings.HasPrefix(n, "PNG_Agreements")) && ext == ".geojson":
			f.Dispositions = append(f.Dispositions, p)
		case strings.HasPrefix(n, "NGL") || n == "README.md" || n == "SCALE.json" || ext == ".pdf":
			// NGL volumes; a README; the layout PDF a publisher's zip
			// carries beside its data (ST37.zip has one); the report
			// `meridian demo -scale province` writes beside its files.
			f.Unused = append(f.Unused, p)
		default:
			f.Unrecognised = append(f.Unrecognised, p)
		}
	}
	// By the publisher's name: the dates in it order the lists, wherever
	// a zip put them.
	sort.SliceStable(f.WellLists, func(i, j int) bool {
		a, b := ingest.MemberName(f.WellLists[i]), ingest.MemberName(f.WellLists[j])
		return a < b || a == b && f.WellLists[i] < f.WellLists[j]
	})
	return f
}

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
	RankSortBudget int
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
}

// FileLayout is the published layout an ingest recognised for one file.
type FileLayout struct {
	Path   string
	Layout ingest.Layout
}

// Layouts says which layout each file of files is, guessed layouts first,
// then in the order of files. It reads no more of a file than its header
// or first record (a WellList.txt's first line, a disposition GeoJSON's
// first feature); a file its reader refuses before it knows is listed with
// the zero Layout, and the ingest reports why.
func Layouts(files Files) ([]FileLayout, error) {
	var out []FileLayout
	add := func(p string, l ingest.Layout) { out = append(out, FileLayout{p, l}) }
	probe := func(p string, read func(r io.Reader, name string, opt ReadOptions) error) {
		var l ingest.Layout
		withFile(p, func(r io.Reader, name string) error {
			return read(r, name, ReadOptions{Layout: func(got ingest.Layout) { l = got }})
		})
		add(p, l)
	}
	for _, p := range files.WellLists {
		l := ingest.Layout{}
		withFile(p, func(r io.Reader, name string) error {
			return ReadWellList(r, name, func(w Well) error {
				l, _ = WellListLayout(w.Columns)
				return errProbed
			})
		})
		add(p, l)
	}
	for _, p := range files.BACodes {
		var l ingest.Layout
		readBAFile(p, ReadOptions{Layout: func(got ingest.Layout) { l = got }}, func(BA) error { return errProbed })
		add(p, l)
	}
	for _, p := range files.Wells {
		probe(p, func(r io.Reader, name string, opt ReadOptions) error {
			return ReadPetrinexWells(r, name, opt, func(PetrinexWell) error { return errProbed })
		})
	}
	for _, p := range files.Facilities {
		add(p, FacilityLayout)
	}
	for _, p := range files.Volumetrics {
		add(p, VolumetricsLayout)
	}
	for _, p := range files.Pipelines {
		if strings.EqualFold(filepath.Ext(p), ".shp") {
			var l ingest.Layout
			readShapefile(p, nil, func(Pipeline) error { return errProbed }, func(got ingest.Layout) { l = got })
			add(p, l)
			continue
		}
		probe(p, func(r io.Reader, name string, opt ReadOptions) error {
			return ReadPipelinesGeoJSON(r, name, opt, func(Pipeline) error { return errProbed })
		})
	}
	for _, p := range files.Orphans {
		add(p, OWALayout)
	}
	for _, p := range files.Dispositions {
		l, err := dispositionLayout(p)
		if err != nil {
			return nil, err
		}
		add(p, l)
	}
	sort.SliceStable(out, func(i, j int) bool { return !out[i].Layout.Verified && out[j].Layout.Verified })
	return out, nil
}

// errProbed stops a reader once it has said which layout it read.
var errProbed = errors.New("energyingest: layout recognised")

// Banners are the lines an ingest prints first: each file's layout
// banner (ingest.Layout.Banner), guessed layouts first, the file named
// after it.
func Banners(files Files) ([]string, error) {
	ls, err := Layouts(files)
	if err != nil {
		return nil, err
	}
	out := make([]string, len(ls))
	for i, l := range ls {
		out[i] = fmt.Sprintf("%s [%s]", l.Layout.Banner(), filepath.Base(l.Path))
	}
	return out, nil
}

func dispositionLayout(path string) (ingest.Layout, error) {
	var l ingest.Layout
	err := withFile(path, func(r io.Reader, name string) error {
		var err error
		l, err = DispositionLayoutOf(r, name)
		return err
	})
	return l, err
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
		in.readVolumetrics, releaseProduction, in.readFacilities, in.readPipelines, in.readDispositions, in.writeRollups}
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

func licenceKey(l string) string { return strings.TrimLeft(strings.TrimSpace(l), "0") }

func (in *ingester) readBA() error {
	for _, p := range in.files.BACodes {
		dataset := "business associate codes"
		opt := ReadOptions{Notices: in.o.Notices, Layout: func(l ingest.Layout) { dataset = l.Dataset }, Skip: in.sum.skip}
		err := readBAFile(p, opt, func(b BA) error {
			in.baNames[strings.ToUpper(b.Code)] = b.Name
			in.sum.Read["ba_codes"]++
			return nil
		})
		if err != nil {
			return err
		}
		in.source("operators", dataset, p)
	}
	in.progress("business associates: %d", len(in.baNames))
	return nil
}

// readBAFile reads a business associate list, a workbook (.xlsx) or CSV.
func readBAFile(p string, opt ReadOptions, fn func(BA) error) error {
	if !strings.EqualFold(filepath.Ext(p), ".xlsx") {
		return withFile(p, func(r io.Reader, name string) error { return ReadBACodes(r, name, opt, fn) })
	}
	f, err := os.Open(p)
	if err != nil {
		return err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	return ReadBACodesXLSX(f, fi.Size(), filepath.Base(p), opt, fn)
}

func (in *ingester) readOrphans() error {
	for _, p := range in.files.Orphans {
		f, err := os.Open(p)
		if err != nil {
			return err
		}
		fi, err := f.Stat()
		if err == nil {
			err = ReadOrphanInventory(f, fi.Size(), filepath.Base(p), func(s OrphanSite) error {
				in.sum.Read["orphan_sites"]++
				if s.LicenceNumber != "" {
					in.orphanLicences[licenceKey(s.LicenceNumber)] = true
				}
				if s.Location.Unit == lld.LSD && s.IsWell() {
					in.orphanLSDs[s.Location.String()] = true
				}
				return nil
			})
		}
		f.Close()
		if err != nil {
			return err
		}
		in.source("orphans", "Orphan Well Association site inventory", p)
	}
	return nil
}

func (in *ingester) readPreviousWells() error {
	lists := in.files.WellLists
	if len(lists) < 2 {
		return nil
	}
	return withFile(lists[len(lists)-2], func(r io.Reader, name string) error {
		return ReadWellList(r, name, func(w Well) error {
			// Copies: the reader's strings share its line.
			in.prevLicensee[strings.Clone(licenceKey(w.Licence))] = in.intern(w.LicenseeBA)
			return nil
		})
	})
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

// addWell writes a well's rows and counts it.
func (in *ingester) addWell(row energy.WellRow, loc lld.Location, licence, licensee, status, mode string, orphanFlag bool, activity time.Time) error {
	orphan := orphanFlag || in.orphanLicences[licenceKey(licence)] || in.orphanLSDs[loc.String()]
	b := energy.WellBucket(status, mode, orphan)
	c, prov, ok := in.centroid(loc)
	if !ok {
		in.sum.skip("well location outside the grid")
		return nil
	}
	row.Status, row.IsOrphan, row.IsAbandoned, row.IsSuspended = b, b == energy.Orphan, b == energy.Abandoned, b == energy.Suspended
	row.Location, row.LSD = point(c), loc.String()
	if err := in.w.Put(energy.LSDKey(row.LSD), energy.WellSK(b, row.UWI), row); err != nil {
		return err
	}
	s := in.lsd(loc)
	s.wells.Count(b)
	s.activity(activity)
	if licensee == "" {
		return nil
	}
	op := in.operator(licensee)
	// The operator's own copy of the code: licensee is part of the
	// reader's line, which a map key would keep alive.
	s.countOperator(op.row.BACode)
	op.row.Liability.Count(b)
	fp := op.footprint[row.LSD]
	if fp == nil {
		fp = &energy.FootprintRow{LegalLocation: row.LSD, Province: prov, Centroid: point(c)}
		op.footprint[row.LSD] = fp
	}
	fp.TotalWells++
	switch b {
	case energy.Active:
		fp.ActiveWells++
	case energy.Abandoned:
		fp.AbandonedWells++
	case energy.Orphan:
		fp.OrphanWells++
	}
	if prev, ok := in.prevLicensee[licenceKey(licence)]; ok && prev != "" && !strings.EqualFold(prev, licensee) {
		op.row.TransfersIn++
		in.operator(prev).row.TransfersOut++
	}
	return in.putRanked(energy.OperatorKey(licensee), energy.SKWellPrefix, energy.OperatorWellSK(row.UWI), row)
}

func (in *ingester) readWellLists() error {
	lists := in.files.WellLists
	if len(lists) == 0 {
		return nil
	}
	p := lists[len(lists)-1]
	err := withFile(p, func(r io.Reader, name string) error {
		return ReadWellListWith(r, name, ReadOptions{Notices: in.o.Notices, Skip: in.sum.skip}, func(w Well) error {
			in.sum.Read["wells_st37"]++
			in.seenUWIs[w.UWI16()] = true
			in.wellLSD[w.UWI16()] = w.Location.String()
			row := energy.WellRow{ID: w.UWI, UWI: w.UWI, WellName: w.Name, LicenceNumber: w.Licence, LicenceStatusRaw: w.LicenceStatus,
				Operator: in.party(w.LicenseeBA, ""), Fluid: w.Status.Short(Fluid), Mode: w.Status.Short(Mode),
				Type: w.Status.Short(Type), TotalDepthM: w.TotalDepth, StatusDate: isoDate(w.StatusDate)}
			activity := latest(w.StatusDate, w.FinalDrillDate, w.LicenceIssueDate)
			return in.addWell(row, w.Location, w.Licence, w.LicenseeBA, w.LicenceStatus, fmt.Sprintf("%02d", w.Status.Mode), false, activity)
		})
	})
	if err != nil {
		return err
	}
	in.source("wells", "AER ST37 list of wells", p)
	in.progress("ST37 wells: %d", in.sum.Read["wells_st37"])
	return nil
}

func (in *ingester) readPetrinexWells() error {
	for _, p := range in.files.Wells {
		err := withFile(p, func(r io.Reader, name string) error {
			return ReadPetrinexWells(r, name, ReadOptions{Notices: in.o.Notices}, func(w PetrinexWell) error {
				in.sum.Read["wells_petrinex"]++
				if in.seenUWIs[w.Identifier] {
					in.sum.skip("Petrinex well already in ST37")
					return nil
				}
				id := strings.Clone(w.Identifier) // not the reader's record
				in.seenUWIs[id] = true
				in.wellLSD[id] = w.Location.String()
				display, err := DisplayUWI(w.Identifier)
				if err != nil {
					display = w.Identifier
				}
				row := energy.WellRow{ID: display, UWI: display, WellName: w.Name, LicenceNumber: w.LicenceNumber, LicenceStatusRaw: w.LicenceStatus,
					Operator: in.party(w.LicenseeBA, w.LicenseeName), Fluid: w.FluidName, Mode: w.ModeName, Type: w.TypeName,
					TotalDepthM: w.TotalDepth.Value, StatusDate: isoDate(w.StatusDate)}
				if w.LicenseeBA != "" && in.baNames[strings.ToUpper(w.LicenseeBA)] == "" {
					in.baNames[strings.ToUpper(w.LicenseeBA)] = w.LicenseeName
				}
				activity := latest(w.StatusDate, w.FinishedDrillDate, w.SpudDate, w.LicenceIssueDate)
				return in.addWell(row, w.Location, w.LicenceNumber, w.LicenseeBA, w.LicenceStatus, fmt.Sprintf("%02d", w.Status.Mode), w.Orphan, activity)
			})
		})
		if err != nil {
			return err
		}
		in.source("wells_petrinex", "Petrinex well infrastructure", p)
	}
	return nil
}

// readVolumetrics reads the months of every file first (one row each), so
// that only the trailing window is accumulated.
func (in *ingester) readVolumetrics() error {
	errStop := fmt.Errorf("stop")
	for _, p := range in.files.Volumetrics {
		err := withFile(p, func(r io.Reader, name string) error {
			return ReadVolumetrics(r, name, func(v Volumetric) error {
				if v.Month > in.windowEnd {
					in.windowEnd = v.Month
				}
				return errStop
			})
		})
		if err != nil && err != errStop {
			return err
		}
	}
	if in.windowEnd == "" {
		return nil
	}
	start := energy.MonthsBefore(in.windowEnd, 11)
	for _, p := range in.files.Volumetrics {
		err := withFile(p, func(r io.Reader, name string) error {
			return ReadVolumetrics(r, name, func(v Volumetric) error {
				in.sum.Read["volumetric_rows"]++
				uwi, ok := v.WellUWI()
				if !ok || v.Activity != "PROD" {
					return nil
				}
				if v.Month < start || v.Month > in.windowEnd {
					in.sum.skip("volumes outside the 12-month window")
					return nil
				}
				switch energy.Product(v.Product) {
				case energy.Oil, energy.Gas, energy.Condensate, energy.Water:
				default:
					return nil
				}
				wp := in.prod[uwi]
				if wp == nil {
					wp = &energy.Production{WindowMonths: 12}
					in.prod[strings.Clone(uwi)] = wp // not the reader's record
				}
				// The window's volumes summed as they come (energy.Trailing
				// of them, in the same order): no volume is held.
				wp.AddVolume(energy.Volume{Month: v.Month, Product: energy.Product(v.Product), Value: v.Volume.Value, Confidential: v.Volume.Confidential})
				return nil
			})
		})
		if err != nil {
			return err
		}
		in.source("production", "Petrinex conventional volumetrics", p)
	}
	// Per well, then per LSD.
	uwis := make([]string, 0, len(in.prod))
	for u := range in.prod {
		uwis = append(uwis, u)
	}
	sort.Strings(uwis)
	for _, u := range uwis {
		p := *in.prod[u]
		lsdKey, ok := in.wellLSD[u]
		if !ok {
			display, err := DisplayUWI(u)
			if err != nil {
				in.sum.skip("production of a UWI that does not parse")
				continue
			}
			l, err := lld.ParseUWI(display)
			if err != nil {
				in.sum.skip("production of a UWI that does not parse")
				continue
			}
			lsdKey = l.String()
		}
		l, err := lld.Parse(lsdKey)
		if err != nil {
			continue
		}
		s := in.lsd(l)
		if s.prod == nil {
			s.prod = &energy.Production{}
		}
		*s.prod = s.prod.Add(p)
		if p.Producing() {
			s.producing++
		}
		if err := in.w.Put(energy.LSDKey(lsdKey), energy.ProductionWellSK(u), p); err != nil {
			return err
		}
	}
	in.progress("wells with production in %s..%s: %d", start, in.windowEnd, len(uwis))
	return nil
}

// FacilityCategory groups a Petrinex facility type into the report's
// categories.
func FacilityCategory(typ string) string {
	switch strings.ToUpper(typ) {
	case "BT":
		return "battery"
	case "GP":
		return "gas plant"
	case "GS":
		return "gas gathering system"
	case "IF":
		return "injection/disposal"
	case "TM":
		return "terminal"
	case "PL":
		return "pipeline"
	case "MS", "WM":
		return "meter station"
	}
	return "other"
}

func (in *ingester) readFacilities() error {
	for _, p := range in.files.Facilities {
		err := withFile(p, func(r io.Reader, name string) error {
			return ReadFacilities(r, name, func(f Facility) error {
				in.sum.Read["facilities"]++
				if f.Location.Unit != lld.LSD {
					in.sum.skip("facility without an LSD")
					return nil
				}
				c, _, ok := in.centroid(f.Location)
				if !ok {
					in.sum.skip("facility location outside the grid")
					return nil
				}
				row := energy.FacilityRow{ID: f.ID, FacilityName: f.Name, Category: FacilityCategory(f.Type), SubType: f.SubTypeDesc, SubCode: f.SubType,
					Status: strings.ToLower(f.OperationalStatus), FacilityStatusRaw: f.OperationalStatus, LicenceNumber: f.LicenceNumber,
					Operator: in.party(f.OperatorBA, f.OperatorName), Licensee: in.party(f.LicenseeBA, f.LicenseeName), Location: point(c)}
				s := in.lsd(f.Location)
				s.facilities++
				if !contains(s.categories, row.Category) {
					s.categories = append(s.categories, row.Category)
					sort.Strings(s.categories)
				}
				return in.w.Put(energy.LSDKey(f.Location.String()), energy.FacilitySK(energy.FacilityRank(f.OperationalStatus), f.ID), row)
			})
		})
		if err != nil {
			return err
		}
		in.source("facilities", "Petrinex facility infrastructure", p)
	}
	in.progress("facilities: %d", in.sum.Read["facilities"])
	return nil
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

// H2SPct converts the pipelines' H2S content, published in mol/kmol, to
// percent (1 mol/kmol = 0.1 %). The unit is AER's for pipeline licences
// (docs/data-sources.md §3) and unverified against the product metadata.
func H2SPct(molPerKmol float64) float64 { return math.Round(molPerKmol/10*1e4) / 1e4 }

func (in *ingester) readPipelines() error {
	for _, p := range in.files.Pipelines {
		read := func(fn func(Pipeline) error) error {
			if strings.HasSuffix(strings.ToLower(p), ".shp") {
				return readShapefile(p, in.o.Notices, fn)
			}
			return withFile(p, func(r io.Reader, name string) error {
				return ReadPipelinesGeoJSON(r, name, ReadOptions{Notices: in.o.Notices}, fn)
			})
		}
		err := read(func(pl Pipeline) error {
			in.sum.Read["pipeline_segments"]++
			return in.addPipeline(pl)
		})
		if err != nil {
			return err
		}
		in.source("pipelines", "AER pipelines", p)
	}
	in.progress("pipeline segments: %d", in.sum.Read["pipeline_segments"])
	return nil
}

func readShapefile(p string, notices *ingest.Notices, fn func(Pipeline) error, layout ...func(ingest.Layout)) error {
	base := strings.TrimSuffix(p, filepath.Ext(p))
	shp, err := os.Open(p)
	if err != nil {
		return err
	}
	defer shp.Close()
	dbf, err := os.Open(base + ".dbf")
	if err != nil {
		return err
	}
	defer dbf.Close()
	prj, _ := os.ReadFile(base + ".prj")
	opt := ReadOptions{Notices: notices}
	if len(layout) > 0 {
		opt.Layout = layout[0]
	}
	return ReadPipelinesShapefile(shp, dbf, string(prj), filepath.Base(p), opt, fn)
}

func optional(a Amount) *float64 {
	if !a.Known() {
		return nil
	}
	v := a.Value
	return &v
}

func (in *ingester) addPipeline(pl Pipeline) error {
	substance := strings.Join(nonEmpty(pl.Substances[:]), ", ")
	row := energy.PipelineRow{ID: pl.SegmentID, Href: "/energy/pipelines/" + pl.Licence, LicenceNumber: pl.Licence, SegmentID: pl.SegmentID,
		SegmentLineNumber: pl.LineNo, Operator: in.party(pl.BA, pl.Company), Status: strings.ToLower(pl.Status), SegmentStatusRaw: pl.Status,
		Substance: substance, OutsideDiameterMM: optional(pl.OutsideDiameterMM), MaxOperatingPressureKPa: optional(pl.MAOPkPa),
		ClassLocation: pl.ClassLocation, PipelineEnvironment: pl.Environment, SegmentLengthKM: optional(pl.LengthKM),
		FromFacility: pl.FromFacility, ToFacility: pl.ToFacility}
	h2s := 0.0
	if pl.H2SContent.Known() {
		h2s = H2SPct(pl.H2SContent.Value)
		row.H2SPct = &h2s
	}
	if pl.H2SReleaseLevel != "" {
		lv := pl.H2SReleaseLevel
		row.H2SReleaseLevel = &lv
	}
	if pl.Geometry != nil {
		c := pl.Geometry.Bound().Center()
		row.Centroid = &energy.Point{Lat: survey.Round6(c[1]), Lng: survey.Round6(c[0])}
	}
	if err := in.w.Put(energy.PipelineKey(pl.Licence), energy.SegmentSK(pl.LineNo, pl.SegmentID), row); err != nil {
		return err
	}
	if lines := asLines(pl.Geometry); len(lines) > 0 {
		g := energy.PipelineGeometry{Licence: pl.Licence, LineNo: pl.LineNo, SegmentID: pl.SegmentID, Status: row.Status,
			Substance: substance, H2SPct: row.H2SPct, Lines: lines}
		if err := in.w.Put(energy.PipelineKey(pl.Licence), energy.SKPipelineGeometry+pl.LineNo+"#"+pl.SegmentID, g); err != nil {
			return err
		}
	}
	// The LSDs the segment crosses, with its length on each.
	crossings := map[string]float64{}
	mids := map[string]orb.Point{}
	if pl.Geometry != nil {
		err := in.svc.Blocks(in.ctx, lld.DLS, lld.LSD, pl.Geometry.Bound(), func(b survey.Block) error {
			piece := clip.Geometry(b.Geometry.Bound(), pl.Geometry)
			if piece == nil {
				return nil
			}
			if m := geo.LengthHaversine(piece); m > 0 {
				crossings[b.Location.String()] = m
				mids[b.Location.String()] = piece.Bound().Center()
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	if len(crossings) == 0 { // no geometry: the ends' LSDs, no length
		for _, end := range []lld.Location{pl.From, pl.To} {
			if end.Unit == lld.LSD {
				crossings[end.String()] = 0
			}
		}
	}
	for lsdKey, m := range crossings {
		l, err := lld.Parse(lsdKey)
		if err != nil {
			continue
		}
		r := row
		length := math.Round(m*10) / 10
		r.LengthMOnParcel, r.Centroid = &length, nil
		if mid, ok := mids[lsdKey]; ok {
			r.OverlapPoint = &energy.Point{Lat: survey.Round6(mid[1]), Lng: survey.Round6(mid[0])}
		}
		s := in.lsd(l)
		s.segments++
		s.pipelineM += length
		if err := in.w.Put(energy.LSDKey(lsdKey), energy.PipeSK(h2s, pl.SegmentID), r); err != nil {
			return err
		}
	}
	return nil
}

func asLines(g orb.Geometry) orb.MultiLineString {
	switch g := g.(type) {
	case orb.LineString:
		return orb.MultiLineString{g}
	case orb.MultiLineString:
		return g
	}
	return nil
}

func nonEmpty(ss []string) []string {
	var out []string
	for _, s := range ss {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}

// DispositionID is the id a disposition is served under: the number for
// PNG, category:number for mineral tenure.
func DispositionID(kind, category, number string) string {
	if kind == KindMineral {
		return energy.Slug(category) + ":" + number
	}
	return number
}

func (in *ingester) readDispositions() error {
	byName := map[string]string{} // slug of a BA name → code, to give holders a BA code
	for code, name := range in.baNames {
		byName[energy.Slug(name)] = code
	}
	for _, p := range in.files.Dispositions {
		layout, err := dispositionLayout(p)
		if err != nil {
			return err
		}
		read := ReadDispositionsCSV
		switch layout {
		case DispositionGeoJSONLayout:
			read = ReadDispositionsGeoJSON
		case AlbertaAgreementLayout:
			read = func(r io.Reader, name string, fn func(Disposition) error) error {
				return ReadAlbertaAgreements(r, name, in.notices, fn)
			}
		}
		err = withFile(p, func(r io.Reader, name string) error {
			return read(r, name, func(d Disposition) error {
				in.sum.Read["dispositions"]++
				return in.addDisposition(d, byName)
			})
		})
		if err != nil {
			return err
		}
		in.source("tenure", "Crown petroleum and natural gas and mineral dispositions", p)
	}
	in.progress("dispositions: %d; LSDs with wells, facilities or pipelines: %d", in.sum.Read["dispositions"], len(in.lsds)+len(in.otherLSDs))
	return nil
}

func (in *ingester) addDisposition(d Disposition, byName map[string]string) error {
	kind := "png"
	var category *string
	if d.Kind == KindMineral {
		kind = "mineral"
		c := d.Type
		category = &c
	}
	id := DispositionID(d.Kind, d.Type, d.Number)
	if in.seenDispositions[id] {
		in.sum.skip("disposition tract after the first")
		return nil
	}
	in.seenDispositions[strings.Clone(id)] = true // not the reader's record
	ba := byName[energy.Slug(d.Holder)]
	row := energy.TenureRow{ID: id, Href: "/energy/dispositions/" + id, TenureKind: kind, Province: d.Province, DispositionNumber: d.Number,
		MineralCategory: category, DispositionType: strings.ToLower(d.Type), DispositionTypeRaw: d.Type, Holder: in.party(ba, d.Holder),
		Status: strings.ToLower(d.Status), IssueDate: isoDate(d.IssueDate), AreaHa: optional(d.AreaHa), Perpetual: d.Continued}
	if !d.ExpiryDate.IsZero() && !d.Continued {
		e := isoDate(d.ExpiryDate)
		row.ExpiryDate = &e
	}
	state, days, ok := energy.Expiry(d.ExpiryDate, d.Continued, in.o.Now)
	row.ExpiryState = state
	if ok {
		row.DaysToExpiry = &days
	}
	// The LSDs of the land description.
	var lsds []string
	seen := map[string]bool{}
	for _, land := range d.Lands {
		for _, l := range expandToLSDs(land) {
			if k := l.String(); !seen[k] {
				seen[k] = true
				lsds = append(lsds, k)
			}
		}
	}
	// A disposition published with its polygon and no land description
	// (Alberta's GeoView agreements): the LSDs whose centroid it contains,
	// coverage unknown.
	fromGeometry := len(d.Lands) == 0 && d.Geometry != nil
	if fromGeometry {
		err := in.svc.Blocks(in.ctx, lld.DLS, lld.LSD, d.Geometry.Bound(), func(b survey.Block) error {
			if k := b.Location.String(); !seen[k] && ingest.ContainsPoint(d.Geometry, b.Centroid) {
				seen[k] = true
				lsds = append(lsds, k)
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	sort.Strings(lsds)
	expiry := ""
	if row.ExpiryDate != nil {
		expiry = *row.ExpiryDate
	}
	var centre orb.Point
	n := 0
	full := 100.0
	for _, k := range lsds {
		l, _ := lld.Parse(k)
		c, _, ok := in.centroid(l)
		if !ok {
			continue
		}
		centre[0] += c[0]
		centre[1] += c[1]
		n++
		r := row
		r.IssueDate = ""
		r.LSDCoveragePct, r.OverlapPoint = &full, &energy.Point{Lat: survey.Round6(c[1]), Lng: survey.Round6(c[0])}
		if fromGeometry {
			r.LSDCoveragePct = nil
		}
		if err := in.w.Put(energy.LSDKey(k), energy.TenureSK(expiry, id), r); err != nil {
			return err
		}
	}
	if n > 0 {
		row.Centroid = &energy.Point{Lat: survey.Round6(centre[1] / float64(n)), Lng: survey.Round6(centre[0] / float64(n))}
	}
	detail := row
	detail.LSDs = lsds
	if err := in.w.Put(energy.DispositionKey(id), energy.SKInfo, detail); err != nil {
		return err
	}
	if row.ExpiryDate != nil {
		if err := in.putRanked(energy.PKExpiring, "", expiry+"#"+id, row); err != nil {
			return err
		}
		in.expiring.Add(expiry, row.AreaHa)
	}
	if ba != "" {
		op := in.operator(ba)
		op.row.DispositionsCount++
		if kind == "png" {
			op.row.PNGDispositions++
		} else {
			op.row.MineralDispositions++
		}
		if row.AreaHa != nil {
			op.row.TotalAreaHa += *row.AreaHa
		}
		return in.putRanked(energy.OperatorKey(ba), energy.SKDispositionPrefix, energy.OperatorDispositionSK(expiry, id), row)
	}
	return nil
}

// expandToLSDs lists the LSDs of a DLS block: itself, or its sections'
// quarters' LSDs.
func expandToLSDs(l lld.Location) []lld.Location {
	if l.System != lld.DLS {
		return nil
	}
	var out []lld.Location
	add := func(sec uint8, lsds []uint8) {
		for _, n := range lsds {
			x := l
			x.Unit, x.Section, x.LSD, x.Aliquot = lld.LSD, sec, n, 0
			out = append(out, x)
		}
	}
	all := []uint8{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}
	switch l.Unit {
	case lld.LSD:
		return []lld.Location{l}
	case lld.Section:
		add(l.Section, all)
	case lld.QuarterSection:
		add(l.Section, quarterLSDs[l.Aliquot])
	case lld.Township:
		for s := uint8(1); s <= 36; s++ {
			add(s, all)
		}
	}
	return out
}

// quarterLSDs are the LSDs of each quarter (docs/data-sources.md §0.1).
var quarterLSDs = map[lld.Aliquot][]uint8{
	lld.SE: {1, 2, 7, 8}, lld.SW: {3, 4, 5, 6}, lld.NW: {11, 12, 13, 14}, lld.NE: {9, 10, 15, 16},
}

// writeRollups writes what was counted: LSD summaries (and their quarter
// index), operators and their footprints, the operators list and sources.
func (in *ingester) writeRollups() error {
	type named struct {
		name string
		acc  *lsdAcc
	}
	keys := make([]named, 0, len(in.lsds)+len(in.otherLSDs))
	for id, a := range in.lsds {
		keys = append(keys, named{id.location().String(), a})
	}
	for k, a := range in.otherLSDs {
		keys = append(keys, named{k, a})
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i].name < keys[j].name })
	for _, n := range keys {
		k, s := n.name, n.acc.summary(n.name)
		s.Production.WindowMonths = 12
		for ba := range s.WellsByOperator {
			if name := in.operator(ba).row.Name; name != "" {
				if s.OperatorNames == nil {
					s.OperatorNames = map[string]string{}
				}
				s.OperatorNames[ba] = name
			}
		}
		if err := in.w.Put(energy.LSDKey(k), energy.SKProduction, s); err != nil {
			return err
		}
		l, err := lld.Parse(k)
		if err != nil {
			continue
		}
		q := l
		q.Unit, q.LSD, q.Aliquot = lld.QuarterSection, 0, QuarterOf(l.LSD)
		if err := in.w.Put(energy.QuarterKey(q.String()), energy.QuarterLSDSK(k), s); err != nil {
			return err
		}
	}
	refreshed := in.o.Now.UTC().Format(time.RFC3339)
	bas := make([]string, 0, len(in.ops))
	for ba := range in.ops {
		bas = append(bas, ba)
	}
	sort.Strings(bas)
	for _, ba := range bas {
		op := in.ops[ba]
		r := &op.row
		if r.Name == "" {
			r.Name = in.baNames[ba]
			r.Slug = energy.Slug(r.Name)
		}
		r.ActiveWells, r.AbandonedWells, r.OrphanWells = r.Liability.Active, r.Liability.Abandoned, r.Liability.Orphan
		r.ReclamationCertifiedWells, r.RefreshedAt, r.FootprintTotal = r.Liability.ReclamationCertified, refreshed, len(op.footprint)
		if err := in.w.Put(energy.OperatorKey(ba), energy.SKInfo, energy.OperatorInfo{OperatorRow: *r, Liability: r.Liability,
			PNG: r.PNGDispositions, Mineral: r.MineralDispositions, AreaHa: r.TotalAreaHa, In: r.TransfersIn, Out: r.TransfersOut, Footprint: r.FootprintTotal}); err != nil {
			return err
		}
		if err := energy.PutOperatorRow(in.w, in.ranks, *r); err != nil {
			return err
		}
		for _, name := range []string{r.Slug, energy.Squash(r.Name)} {
			if name != "" {
				if err := in.w.Put(energy.OperatorNameKey(name), energy.OperatorNameBASK(ba), map[string]string{"ba_code": ba}); err != nil {
					return err
				}
			}
		}
		for lsd, fp := range op.footprint {
			if err := in.putRanked(energy.OperatorKey(ba), energy.SKFootprintPrefix, energy.FootprintSK(fp.TotalWells, lsd), fp); err != nil {
				return err
			}
		}
	}
	for section, s := range in.sources {
		if err := in.w.Put(energy.PKSources, section, s); err != nil {
			return err
		}
	}
	in.sum.Derived["operators"] = len(in.ops)
	return in.writeListCounts()
}

// QuarterOf returns the quarter section that holds LSD lsd (1-16).
func QuarterOf(lsd uint8) lld.Aliquot {
	for a, ls := range quarterLSDs {
		for _, n := range ls {
			if n == lsd {
				return a
			}
		}
	}
	return 0
}

func latest(ts ...time.Time) time.Time {
	var out time.Time
	for _, t := range ts {
		if t.After(out) {
			out = t
		}
	}
	return out
}
