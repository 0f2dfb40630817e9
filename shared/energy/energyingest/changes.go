package energyingest

import (
	"meridian/shared/energy/changefeed"
)

// track adds a row's record to the change feed's snapshot, when the
// ingest keeps one.
func (in *ingester) track(r changefeed.Record) error {
	if in.snap == nil {
		return nil
	}
	return in.snap.Add(r)
}

// writeChanges writes the change feed's items of this version: the
// changes since the previous version and those retained before it
// (package changefeed), and leaves the new state for the caller to commit
// once the version is served.
func (in *ingester) writeChanges() error {
	if in.snap == nil {
		return nil
	}
	st := in.o.Changes
	v := changefeed.Version{Version: st.NextVersion(int64(in.w.Version())), AsOf: in.asOf(), Demo: in.o.Demo, Sources: map[string]string{}}
	for section, s := range in.sources {
		v.Sources[section] = s.Name
	}
	stats, err := st.Build(in.w, in.snap, v)
	in.sum.Changes = stats
	if err != nil {
		return err
	}
	if _, ok := st.Previous(); !ok {
		in.progress("changes: none, the first version the change feed sees (%d records kept)", stats.Records)
		return nil
	}
	in.progress("changes: %d found, %d retained from earlier versions (%d records compared)", stats.Found, stats.Retained, stats.Records)
	return nil
}

// asOf is the version's as-of date: the day of a demo ingest (the demo
// describes Options.Now), else the latest as-of date of the sources
// (a month's file as its first day), else the day of the ingest.
func (in *ingester) asOf() string {
	day := in.o.Now.Format("2006-01-02")
	if in.o.Demo {
		return day
	}
	latest := ""
	for _, s := range in.sources {
		d := s.AsOf
		if len(d) == len("2006-01") {
			d += "-01"
		}
		if len(d) == len(day) && d > latest {
			latest = d
		}
	}
	if latest == "" {
		return day
	}
	return latest
}
