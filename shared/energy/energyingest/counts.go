package energyingest

import "meridian/shared/energy"

// writeListCounts writes the roll-ups that give the list endpoints their
// totals without reading the lists (package energy, rollups.go): the
// number of operators and the cumulative tally of the EXPIRING partition
// by day. Extra items: one, plus one per distinct expiry day.
func (in *ingester) writeListCounts() error {
	if err := in.w.Put(energy.PKCounts, energy.PKOperators, energy.ListCount{Total: len(in.ops)}); err != nil {
		return err
	}
	return in.expiring.Cumulative(func(day string, d energy.ExpiringDay) error {
		return in.w.Put(energy.PKExpiringDays, day, d)
	})
}
