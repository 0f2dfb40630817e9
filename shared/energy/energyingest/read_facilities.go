package energyingest

import (
	"io"
	"sort"
	"strings"

	"meridian/shared/energy"
	"meridian/shared/energy/changefeed"
	"meridian/shared/lld"
)

func (in *ingester) readFacilities() error {
	for _, p := range in.files.Facilities {
		err := withFile(p, func(r io.Reader, name string) error {
			return ReadFacilities(r, name, func(f Facility) error {
				in.sum.Read["facilities"]++
				if f.Location.Unit != lld.LSD {
					in.sum.skip("facility without an LSD")
					return nil
				}
				c, prov, ok := in.centroid(f.Location)
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
				if err := in.track(changefeed.FacilityRecord(f.Location.String(), prov, "facilities", row)); err != nil {
					return err
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
