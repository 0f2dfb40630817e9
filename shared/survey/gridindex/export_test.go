package gridindex

import "fmt"

// DLSSlots returns how many blocks the DLS townships of ix's current
// version keep (dlsGroup.blocks), and an error naming the first one its
// cache does not hold: an evicted block left in a township would be heap
// outside the cache's bound.
func DLSSlots(ix *Index) (int, error) {
	v := ix.cur.Load()
	kept := 0
	for m := range v.dls {
		for r := range v.dls[m] {
			row := v.dls[m][r].Load()
			if row == nil {
				continue
			}
			for t := range row {
				g := row[t].Load()
				if g == nil {
					continue
				}
				for label := range g.blocks {
					e := g.blocks[label].Load()
					if e == nil {
						continue
					}
					kept++
					s := v.pages.shard(e.key)
					s.mu.RLock()
					held := s.items[e.key] == e
					s.mu.RUnlock()
					if !held {
						return kept, fmt.Errorf("township %d-%d, meridian %d, keeps block %d (label %d), which the cache evicted", t, r, m, e.key, label)
					}
				}
			}
		}
	}
	return kept, nil
}
