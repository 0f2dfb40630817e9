package energyingest

import "meridian/shared/energy"

// writeListCounts writes the roll-ups that give the list endpoints their
// totals and their deep pages without reading the lists (package energy,
// rollups.go): the number of operators of each sort order's partition,
// the cumulative tally of the EXPIRING partition by day, and the rank
// items of every ranked list. Extra items: one per sort order of the
// operators, one per distinct expiry day, one per energy.RankEvery rows
// of the ranked lists.
func (in *ingester) writeListCounts() error {
	if err := energy.PutOperatorCounts(in.w, len(in.ops)); err != nil {
		return err
	}
	err := in.expiring.Cumulative(func(day string, d energy.ExpiringDay) error {
		return in.w.Put(energy.PKExpiringDays, day, d)
	})
	if err != nil {
		return err
	}
	return in.writeRanks()
}

// putRanked writes a row of a ranked list (the list of partition pk and
// sort-key prefix) and keeps its key for the list's rank items.
func (in *ingester) putRanked(pk, prefix, sk string, row any) error {
	if err := in.w.Put(pk, sk, row); err != nil {
		return err
	}
	return in.ranks.Add(pk, prefix, sk)
}

// writeRanks writes a rank item for every energy.RankEvery-th row of each
// ranked list, from its first (the keys sorted on disk: memory is
// Options.RankSortBudget).
func (in *ingester) writeRanks() error {
	n, err := in.ranks.Write(in.w)
	in.sum.Derived["rank_items"] = n
	return err
}
