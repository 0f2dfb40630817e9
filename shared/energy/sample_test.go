package energy_test

import (
	"fmt"
	"os"
	"testing"

	"meridian/shared/energy"
	src "meridian/shared/energy/energyingest"
	"meridian/shared/teamdata"
)

// The buckets of the real ST37 excerpt (April 2017, 2,500 wells). The
// licence status alone gives active 741, suspended 401, abandoned 297,
// reclaimed 1,061 (the parser's test counts the statuses); the mode moves
// 124 wells whose licence is still Issued, Amended or Re-Entered to
// suspended and 121 to abandoned.
func TestBucketsOfTheRealWellList(t *testing.T) {
	t.Parallel()
	f, err := os.Open(teamdata.Path(t, "samples/aer-st37/WellList_2017-04_excerpt.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	got := map[energy.Bucket]int{}
	err = src.ReadWellList(f, "WellList_2017-04_excerpt.txt", func(w src.Well) error {
		got[energy.WellBucket(w.LicenceStatus, fmt.Sprintf("%02d", w.Status.Mode), false)]++
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	want := map[energy.Bucket]int{energy.Active: 496, energy.Suspended: 525, energy.Abandoned: 418, energy.ReclamationCertified: 1061}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("buckets %v, want %v", got, want)
	}
}
