package energyingest

import (
	"time"

	"meridian/shared/energy"
	"meridian/shared/lld"
)

// lsdID is a DLS LSD packed in an integer (meridian, range, township,
// section, LSD a byte each): the key of the ingest's per-LSD roll-ups,
// which a province holds a million of.
type lsdID uint64

// lsdIDOf packs l, false for anything but a DLS LSD.
func lsdIDOf(l lld.Location) (lsdID, bool) {
	if l.System != lld.DLS || l.Unit != lld.LSD || l.Aliquot != 0 {
		return 0, false
	}
	return lsdID(uint64(l.Meridian)<<32 | uint64(l.Range)<<24 | uint64(l.Township)<<16 | uint64(l.Section)<<8 | uint64(l.LSD)), true
}

func (id lsdID) location() lld.Location {
	return lld.Location{System: lld.DLS, Unit: lld.LSD, Meridian: lld.Meridian(id >> 32), Range: uint8(id >> 24),
		Township: uint8(id >> 16), Section: uint8(id >> 8), LSD: uint8(id)}
}

// lsdAcc is what an ingest counts for one LSD, written as an
// energy.LSDSummary at the end (summary): a slice where the summary has
// maps, counters of 32 bits, the last activity as a number.
type lsdAcc struct {
	wells        energy.Liability
	byOp         []opCount // operators of the wells, in the order met
	categories   []string  // facility categories, sorted
	prod         *energy.Production
	pipelineM    float64
	lastActivity int32 // YYYYMMDD, 0 for none
	segments     int32
	facilities   int32
	producing    int32
	name         string // the location's text when it is not a DLS LSD (no lsdID)
}

type opCount struct {
	ba string // the operator's own copy of its code
	n  int32
}

func (a *lsdAcc) countOperator(ba string) {
	for i := range a.byOp {
		if a.byOp[i].ba == ba {
			a.byOp[i].n++
			return
		}
	}
	a.byOp = append(a.byOp, opCount{ba, 1})
}

func (a *lsdAcc) activity(t time.Time) {
	if t.IsZero() {
		return
	}
	if d := int32(t.Year()*10000 + int(t.Month())*100 + t.Day()); d > a.lastActivity {
		a.lastActivity = d
	}
}

// summary is the roll-up as the store holds it.
func (a *lsdAcc) summary(lsd string) *energy.LSDSummary {
	s := &energy.LSDSummary{LSD: lsd, Wells: a.wells, Segments: int(a.segments), PipelineLengthM: a.pipelineM,
		Facilities: int(a.facilities), Categories: a.categories, ProducingWells: int(a.producing)}
	if len(a.byOp) > 0 {
		s.WellsByOperator = make(map[string]int, len(a.byOp))
		for _, o := range a.byOp {
			s.WellsByOperator[o.ba] = int(o.n)
		}
	}
	if a.lastActivity > 0 {
		d := int(a.lastActivity)
		s.LastActivityDate = time.Date(d/10000, time.Month(d/100%100), d%100, 0, 0, 0, 0, time.UTC).Format("2006-01-02")
	}
	if a.prod != nil {
		s.Production = *a.prod
	}
	return s
}

// lsd returns the roll-up of l, created empty.
func (in *ingester) lsd(l lld.Location) *lsdAcc {
	id, ok := lsdIDOf(l)
	if !ok {
		k := l.String()
		a := in.otherLSDs[k]
		if a == nil {
			a = &lsdAcc{name: k}
			in.otherLSDs[k] = a
		}
		return a
	}
	a := in.lsds[id]
	if a == nil {
		a = &lsdAcc{}
		in.lsds[id] = a
	}
	return a
}
