package energyingest

import (
	"io"
	"sort"
	"strings"

	"github.com/paulmach/orb"

	"meridian/shared/energy"
	"meridian/shared/energy/changefeed"
	"meridian/shared/ingest"
	"meridian/shared/lld"
	"meridian/shared/survey"
)

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
		c, prov, ok := in.centroid(l)
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
		if err := in.track(changefeed.DispositionRecord(k, prov, "tenure", row.IssueDate, r)); err != nil {
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
