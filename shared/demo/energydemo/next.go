package energydemo

import (
	"fmt"
	"time"

	"meridian/shared/energy/energyingest"
)

// NextChanges names what the demo's second version changes (GenerateNext):
// exactly four things, so that the change feed between the two versions
// is known.
type NextChanges struct {
	// StatusChanged is the UWI (display form) of the well whose status
	// became Abandoned.
	StatusChanged, StatusChangedLSD string
	// Licensed is the UWI of the well licensed in the second version, on
	// LSD LicensedLSD.
	Licensed, LicensedLSD string
	// Transferred is the id (energyingest.DispositionID) of the
	// disposition whose holder changed, from TransferredFrom to
	// TransferredTo (names).
	Transferred, TransferredFrom, TransferredTo string
	// Expired is the id of the disposition whose status became Expired.
	Expired string
}

// GenerateNext builds the files of a second version of the demo energy
// data: Generate's files with four differences, and what they are. One
// well's status becomes Abandoned (the producing gas well of 3-6 in
// 24-1-W5, in this month's ST37), a well is licensed (in 2-24-1-W5, in
// this month's ST37 only), the PNG licence of 24-1-W5 moves to another
// holder, and the PNG lease of 5-6-W1 (Manitoba) is listed as expired.
// Everything else is byte for byte Generate's.
func GenerateNext() ([]File, NextChanges, error) {
	w := newDemoWorld()
	ch, err := w.next()
	if err != nil {
		return nil, ch, err
	}
	files, err := w.files()
	return files, ch, err
}

// WriteNext writes the files of GenerateNext into dir (created if
// needed), over those of Write.
func WriteNext(dir string) (NextChanges, error) {
	files, ch, err := GenerateNext()
	if err != nil {
		return ch, err
	}
	return ch, writeFiles(dir, files)
}

// next applies the second version's differences to the world.
func (w *demoWorld) next() (NextChanges, error) {
	var ch NextChanges
	t := w.townships[0] // AB 24-1-W5
	var drilled, undrilled *demoWell
	for _, d := range w.wells {
		if d.t == t && d.role == 0 {
			drilled = d
		}
		if d.t == t && d.role == 5 {
			undrilled = d
		}
	}
	if drilled == nil || undrilled == nil {
		return ch, fmt.Errorf("energydemo: the wells of the second version are not in 24-1-W5")
	}
	drilled.status, drilled.stat = "Abandoned", "0102000000"
	var err error
	if ch.StatusChanged, err = drilled.u.Display(); err != nil {
		return ch, err
	}
	ch.StatusChangedLSD = drilled.loc().String()

	// A well licensed this month in section 2, where no other is: a copy
	// of the township's licensed-but-undrilled well, a licence of its own.
	nw := *undrilled
	nw.role = len(abRoles)
	nw.u = energyingest.DLSUWI{LE: "00", LSD: 3, Section: 2, Township: t.Twp, Range: t.Rge, Meridian: t.Mer}
	nw.issue = demoDate(2026, time.November, 18)
	nw.statDate = nw.issue
	nw.prevStatus, nw.prevStat = "", ""
	nw.licence = fmt.Sprintf("%07d", 100000+(2026-1950)*5500+t.index*37+len(abRoles)*3)
	nw.name = wellName(&nw)
	w.wells = append(w.wells, &nw)
	if ch.Licensed, err = nw.u.Display(); err != nil {
		return ch, err
	}
	ch.LicensedLSD = nw.loc().String()

	for _, d := range w.dispositions {
		switch {
		case d.prov == "AB" && d.typ == "PNG Licence" && ch.Transferred == "":
			ch.Transferred, ch.TransferredFrom = energyingest.DispositionID(d.kind, d.typ, d.number), d.holder
			d.holder = op(t.Ops[2]).Name
			ch.TransferredTo = d.holder
		case d.prov == "MB" && d.typ == "PNG Lease" && ch.Expired == "":
			ch.Expired = energyingest.DispositionID(d.kind, d.typ, d.number)
			d.status = "Expired"
		}
	}
	if ch.Transferred == "" || ch.Expired == "" {
		return ch, fmt.Errorf("energydemo: the dispositions of the second version are missing")
	}
	return ch, nil
}
