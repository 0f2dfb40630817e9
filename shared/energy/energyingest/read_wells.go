package energyingest

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"meridian/shared/energy"
	"meridian/shared/energy/changefeed"
	"meridian/shared/ingest"
	"meridian/shared/lld"
)

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
	if err := in.track(changefeed.WellRecord(prov, in.wellSection, row)); err != nil {
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
	in.wellSection = "wells"
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
	in.wellSection = "wells_petrinex"
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
