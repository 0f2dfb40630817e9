package agingest

import (
	"fmt"
	"math"
	"runtime"
	"strings"

	"github.com/paulmach/orb"

	"meridian/shared/ag"
	"meridian/shared/ingest"
	"meridian/shared/kv"
	"meridian/shared/lld"
	"meridian/shared/survey"
)

// The ingest steps that place each quarter in the vector layers: soil
// ratings (SLC, AGRASID, LSRS), CLI, drought, municipalities, Crown land
// and pastures, hydrology; and the British Columbia map layers.

func ratingOf(r Rating) (ag.Productivity, bool) {
	score, ok := r.Score()
	if !ok {
		return ag.Productivity{}, false
	}
	p := ag.Productivity{Score: float64(score), Class: fmt.Sprint(r.Class())}
	if l, ok := r.Limiter(); ok {
		s := l.String()
		p.Limiter = &s
	}
	return p, true
}

func (in *ingester) readLSRS() error {
	err := readNoting(in, in.f.AGRASIDLSRS, ReadAGRASIDLSRS, func(r LSRSQuarter) error {
		in.sum.Read["lsrs_quarters"]++
		if q := in.q(r.Location); q != nil {
			if p, ok := ratingOf(r.Rating); ok {
				q.sections[ag.SKLSRS] = p
				if q.province != survey.AB {
					in.placed.set(q.loc, in.placed.get(q.loc)|qtLSRS)
				}
				return in.flush(q)
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	in.source("lsrs", "Alberta AGRASID 4.1 dominant LSRS by quarter section; SLC LSRS (SK, MB)", in.f.AGRASIDLSRS)
	return nil
}

func (in *ingester) provincial(q *quarter) *ag.Provincial {
	p, _ := q.sections[ag.SKProvincial].(*ag.Provincial)
	if p == nil {
		p = &ag.Provincial{CrownLand: []ag.CrownLand{}, Soils: []ag.ProvincialSoil{}, Pastures: []ag.Pasture{}}
		q.sections[ag.SKProvincial] = p
	}
	return p
}

func (in *ingester) readCrownLand() error {
	err := readNoting(in, in.f.CrownLand, ReadCrownLand, func(c CrownLand) error {
		in.sum.Read["sk_crown_land"]++
		in.area(ag.PKSKCrown, c.Location.String(), c.Geometry, map[string]string{"lld": c.Location.String(), "lease_type": c.LeaseType, "status": c.Status, "disposition": c.Disposition})
		if q := in.q(c.Location); q != nil && q.province == survey.SK {
			k := qkey(q.loc)
			in.crown[k] = append(in.crown[k], ag.CrownLand{LeaseType: c.LeaseType, Status: c.Status, Disposition: c.Disposition})
		}
		return nil
	})
	if err != nil {
		return err
	}
	in.source("provincial_detail", "Saskatchewan agricultural Crown land and provincial pastures", in.f.CrownLand)
	return nil
}

// readSpatial loads the polygon and line layers and places every quarter
// known so far in them.
func (in *ingester) readSpatial() error {
	var slc []SLCPolygon
	if err := read(in, in.f.SLCPolygons, ReadSLCPolygons, func(p SLCPolygon) error { slc = append(slc, p); return nil }); err != nil {
		return err
	}
	names := map[string]SoilName{}
	if err := read(in, in.f.SoilNames, ReadSoilNames, func(n SoilName) error { names[n.SoilID] = n; return nil }); err != nil {
		return err
	}
	comps := map[int][]Component{}
	if err := read(in, in.f.SLCComponents, ReadPolygonComponents, func(p PolygonSoils) error { comps[p.PolyID] = p.Components; return nil }); err != nil {
		return err
	}
	slcLSRS := map[int]Rating{}
	if err := readNoting(in, in.f.SLCLSRS, ReadSLCLSRS, func(p LSRSPolygon) error { slcLSRS[p.PolyID] = p.Rating; return nil }); err != nil {
		return err
	}
	var cli []CLIPolygon
	if err := readNoting(in, in.f.CLI, ReadCLI, func(p CLIPolygon) error { cli = append(cli, p); return nil }); err != nil {
		return err
	}
	var drought []DroughtArea
	month, latest := latestDrought(in.f.Drought)
	for _, p := range latest {
		if err := readNoting(in, p, ReadDrought, func(d DroughtArea) error { drought = append(drought, d); return nil }); err != nil {
			return err
		}
	}
	if len(latest) > 0 {
		in.source("drought", "Canadian Drought Monitor", latest[0])
		s := in.sources["drought"]
		s.AsOf = month
		in.sources["drought"] = s
	}
	var bodies, courses []WaterFeature
	for _, p := range in.f.WaterBodies {
		l, err := readLayout(in, p, ReadWaterBodies, func(w WaterFeature) error { bodies = append(bodies, w); return nil })
		if err != nil {
			return err
		}
		// The product the file was read as: CanVec and the NHN are both
		// NRCan's, but a user checks the one they downloaded.
		product := "National Hydro Network"
		if l.Dataset == CanVecHydroLayout.Dataset {
			product = "NRCan CanVec Hydro"
		}
		in.source("hydrology", product, p)
		in.source("wetlands", product+" wetlands", p)
	}
	for _, p := range in.f.Watercourses {
		if err := readNoting(in, p, ReadWatercourses, func(w WaterFeature) error { courses = append(courses, w); return nil }); err != nil {
			return err
		}
	}
	var munis []Municipality
	for _, p := range in.f.Municipalities {
		if err := readNoting(in, p, ReadMunicipalities, func(m Municipality) error { munis = append(munis, m); return nil }); err != nil {
			return err
		}
	}
	var pastures []Pasture
	if err := readNoting(in, in.f.Pastures, ReadPastures, func(p Pasture) error { pastures = append(pastures, p); return nil }); err != nil {
		return err
	}
	in.sum.Read["slc_polygons"], in.sum.Read["cli_polygons"], in.sum.Read["drought_areas"] = len(slc), len(cli), len(drought)
	in.sum.Read["water_bodies"], in.sum.Read["watercourses"], in.sum.Read["municipalities"] = len(bodies), len(courses), len(munis)
	in.source("soil", "AAFC Soil Landscapes of Canada v3.2", in.f.SLCPolygons)
	in.source("cli", "Canada Land Inventory, soil capability for agriculture", in.f.CLI)
	if len(in.f.Municipalities) > 0 {
		in.source("parcel_context", "Municipal boundaries", in.f.Municipalities[0])
	}
	met := 0
	in.placed.each(func(lld.Location, survey.Province) error { met++; return nil })
	in.progress("placing %d quarters in %d soil, %d CLI, %d drought polygons", met, len(slc), len(cli), len(drought))
	for _, p := range slc {
		props := map[string]string{"poly_id": fmt.Sprint(p.PolyID)}
		if dom, ok := Dominant(comps[p.PolyID]); ok {
			if n, ok := names[dom.SoilID]; ok {
				if s, err := DescribeSoil(dom, n); err == nil {
					props["soil_name"], props["soil_order"], props["great_group"], props["subgroup"], props["drainage"] = s.Name, s.Order, s.GreatGroup, s.Subgroup, s.Drainage
				}
			}
		}
		in.area(ag.PKSLC, fmt.Sprintf("%08d", p.PolyID), p.Geometry, props)
	}
	for _, p := range pastures {
		in.area(ag.PKSKPasture, p.Name, p.Geometry, map[string]string{"name": p.Name, "program": p.Program})
	}

	slcIx := newBucketIndex(len(slc), func(i int) orb.Bound { return geomBound(slc[i].Geometry) })
	cliIx := newBucketIndex(len(cli), func(i int) orb.Bound { return geomBound(cli[i].Geometry) })
	droughtIx := newBucketIndex(len(drought), func(i int) orb.Bound { return geomBound(drought[i].Geometry) })
	muniIx := newBucketIndex(len(munis), func(i int) orb.Bound { return geomBound(munis[i].Geometry) })
	pastureIx := newBucketIndex(len(pastures), func(i int) orb.Bound { return geomBound(pastures[i].Geometry) })
	bodyIx := newBucketIndex(len(bodies), func(i int) orb.Bound { return geomBound(bodies[i].Geometry) })
	courseIx := newBucketIndex(len(courses), func(i int) orb.Bound { return geomBound(courses[i].Geometry) })
	// Placing a quarter is its own work (its block, the polygons at its
	// centroid, the water near it): workers place the quarters, each with
	// its own copy of the indexes' query state, and their sections are
	// written here in the quarters' order, as one goroutine would.
	type job struct {
		l        lld.Location
		p        survey.Province
		crown    []ag.CrownLand
		hasCrown bool
	}
	each := func(yield func(job) error) error {
		return in.placed.each(func(l lld.Location, p survey.Province) error {
			if err := in.ctx.Err(); err != nil { // Ctrl-C: 2.5 million quarters take minutes
				return err
			}
			k := qkey(l)
			cl, ok := in.crown[k]
			if ok {
				delete(in.crown, k)
			}
			return yield(job{l, p, cl, ok})
		})
	}
	newPlace := func() func(job) (*quarter, error) {
		slcIx, cliIx, droughtIx, muniIx := slcIx.copy(), cliIx.copy(), droughtIx.copy(), muniIx.copy()
		pastureIx, bodyIx, courseIx := pastureIx.copy(), bodyIx.copy(), courseIx.copy()
		var nearBodies, nearCourses []WaterFeature
		return func(j job) (*quarter, error) {
			l := j.l
			q, err := in.located(l, j.p)
			if err != nil {
				return nil, err
			}
			if j.hasCrown {
				in.provincial(q).CrownLand = j.crown
			}
			c := q.centroid
			for _, i := range slcIx.containing(c) {
				p := slc[i]
				if !ingest.ContainsPoint(p.Geometry, c) {
					continue
				}
				if dom, ok := Dominant(comps[p.PolyID]); ok {
					if n, ok := names[dom.SoilID]; ok {
						if s, err := DescribeSoil(dom, n); err == nil {
							var out ag.Soil
							out.Classification.Order, out.Classification.GreatGroup = s.Order, s.GreatGroup
							out.Classification.SubgroupCode = s.Subgroup
							out.DrainageClass, out.SlopeClass, out.SoilName, out.PolyID = s.Drainage, s.Slope.Range, s.Name, p.PolyID
							q.sections[ag.SKSoil] = out
						}
					}
				}
				if in.placed.get(l)&qtLSRS == 0 && q.province != survey.AB {
					if r, ok := slcLSRS[p.PolyID]; ok {
						if pr, ok := ratingOf(r); ok {
							q.sections[ag.SKLSRS] = pr
						}
					}
				}
				if q.province != survey.AB {
					prov := in.provincial(q)
					for _, cmp := range comps[p.PolyID] {
						if n, ok := names[cmp.SoilID]; ok {
							prov.Soils = append(prov.Soils, ag.ProvincialSoil{Name: n.Name, Percent: cmp.Percent, Subgroup: Classify(n).Subgroup})
						}
					}
				}
				break
			}
			for _, i := range cliIx.containing(c) {
				if p := cli[i]; ingest.ContainsPoint(p.Geometry, c) {
					if score, ok := p.Score(); ok {
						prim, _ := p.Primary()
						out := ag.Productivity{Score: float64(score), Class: prim.Class}
						if l, ok := p.Limiter(); ok {
							s := l.String()
							out.Limiter = &s
						}
						q.sections[ag.SKCLI] = out
					}
					break
				}
			}
			worst := -1
			for _, i := range droughtIx.containing(c) {
				if d := drought[i]; int(d.Class) > worst && ingest.ContainsPoint(d.Geometry, c) {
					worst = int(d.Class)
				}
			}
			if worst >= 0 {
				cls := DroughtClass(worst)
				q.sections[ag.SKDrought] = ag.Drought{Class: cls.String(), SeverityLabel: cls.Label(), AsOf: month}
			}
			for _, i := range muniIx.containing(c) {
				if m := munis[i]; ingest.ContainsPoint(m.Geometry, c) {
					q.sections[ag.SKMunicipality] = ag.Municipality{Name: m.Name, Type: m.Type}
					break
				}
			}
			if q.province == survey.SK {
				for _, i := range pastureIx.containing(c) {
					if p := pastures[i]; ingest.ContainsPoint(p.Geometry, c) {
						pr := in.provincial(q)
						pr.Pastures = append(pr.Pastures, ag.Pasture{Name: p.Name, Program: p.Program})
					}
				}
			}
			if len(bodies)+len(courses) > 0 {
				// The features near the quarter, in file order: those farther
				// than the search radius are skipped by hydrology anyway.
				box := searchBox(geomBound(q.geom), ag.SearchRadiusM)
				nearBodies, nearCourses = nearBodies[:0], nearCourses[:0]
				for _, i := range bodyIx.near(box) {
					nearBodies = append(nearBodies, bodies[i])
				}
				for _, i := range courseIx.near(box) {
					nearCourses = append(nearCourses, courses[i])
				}
				in.hydrology(q, nearBodies, nearCourses)
			}
			return q, nil
		}
	}
	if err := inOrder(in.ctx, runtime.GOMAXPROCS(0), placeBatch, each, newPlace, in.flush); err != nil {
		return err
	}
	if q := in.f.Pastures; q != "" {
		in.source("provincial_detail", "Saskatchewan agricultural Crown land and provincial pastures", q)
	}
	return nil
}

// placeBatch is how many quarters a worker places at a time.
const placeBatch = 256

// hydrology finds the nearest watercourse and water body (non-wetland)
// within SearchRadiusM of the quarter, and the wetlands there. Distances are
// from the quarter's edge (0 when on it), in a local plane around the
// quarter; the on-parcel share of a water body is sampled on a 20×20 grid
// of the quarter.
func (in *ingester) hydrology(q *quarter, bodies, courses []WaterFeature) {
	toM := localPlane(q.centroid)
	parcel := toM.geometry(q.geom)
	h := ag.Hydrology{SearchRadiusM: ag.SearchRadiusM}
	wet := ag.Wetlands{}
	nearest := func(fs []WaterFeature, wetland bool, into *ag.Water) {
		best := math.Inf(1)
		var bestF *WaterFeature
		for i := range fs {
			f := &fs[i]
			if f.IsWetland() != wetland {
				continue
			}
			d := distance(parcel, toM.geometry(f.Geometry))
			if d > ag.SearchRadiusM {
				continue
			}
			if wetland {
				wet.Count++
				if wet.NearestM == nil || d < *wet.NearestM {
					dd := math.Round(d)
					wet.NearestM = &dd
				}
				if d == 0 {
					wet.OnParcel = true
					wet.OnParcelPct += sampledShare(q.geom, f.Geometry)
				}
				continue
			}
			if d < best {
				best, bestF = d, f
			}
		}
		if bestF != nil && into != nil {
			dd := math.Round(best)
			into.DistanceM, into.IsOnParcel = &dd, best == 0
			if bestF.Name != "" {
				n := bestF.Name
				into.Name = &n
			}
			if into == &h.WaterBody.Water {
				pct := sampledShare(q.geom, bestF.Geometry)
				h.WaterBody.OnParcelPct = &pct
			}
		}
	}
	nearest(courses, false, &h.Watercourse)
	nearest(bodies, false, &h.WaterBody.Water)
	nearest(bodies, true, nil)
	q.sections[ag.SKHydrology] = h
	wet.OnParcelPct = math.Min(100, math.Round(wet.OnParcelPct*10)/10)
	q.sections[ag.SKWetlands] = wet
}

// readBC streams the British Columbia map layers (agricultural capability,
// the Agricultural Land Reserve, Freshwater Atlas wetlands) to w, one
// polygon at a time: province-wide they are hundreds of thousands of
// polygons, and no report section reads them.
func (in *ingester) readBC(w *kv.Writer) error {
	n := 0
	err := readNoting(in, in.f.BCCapability, ReadCLI, func(p CLIPolygon) error {
		n++
		mp := ingest.MultiPolygon(p.Geometry)
		a, ok := p.Primary()
		if len(mp) == 0 || !ok {
			return nil // land the inventory does not rate: nothing to draw
		}
		props := map[string]string{"class": a.Class, "capability": capability(p)}
		props["class_description"], _ = CLIClass(a.Class)
		if l, ok := p.Limiter(); ok {
			props["limitation"], props["limitation_description"] = l.Code, l.Label
		}
		var nums map[string]float64
		if score, ok := p.Score(); ok {
			nums = map[string]float64{"score": float64(score)}
		}
		return w.Put(ag.PKBCCapability, fmt.Sprintf("%08d", n), ag.Area{Polygons: mp, Properties: props, Numbers: nums})
	})
	if err != nil {
		return err
	}
	in.sum.Read["bc_capability_polygons"] = n
	n = 0
	err = readNoting(in, in.f.ALR, ReadALR, func(a ALRPolygon) error {
		n++
		if mp := ingest.MultiPolygon(a.Geometry); len(mp) > 0 {
			props := map[string]string{"alr_poly_id": a.ID, "status": a.Status}
			if a.FeatureCode != "" {
				props["feature_code"] = a.FeatureCode
			}
			return w.Put(ag.PKBCALR, a.ID, ag.Area{Polygons: mp, Properties: props,
				Numbers: map[string]float64{"area_ha": a.AreaHa}})
		}
		return nil
	})
	if err != nil {
		return err
	}
	in.sum.Read["bc_alr_polygons"] = n
	n = 0
	err = readNoting(in, in.f.FWAWetlands, ReadFWAWetlands, func(wl Wetland) error {
		n++
		if mp := ingest.MultiPolygon(wl.Geometry); len(mp) > 0 {
			return w.Put(ag.PKBCWetland, wl.ID, ag.Area{Polygons: mp, Properties: map[string]string{"waterbody_poly_id": wl.ID, "name": wl.Name, "watershed_group": wl.WatershedGroup},
				Numbers: map[string]float64{"area_ha": wl.AreaHa}})
		}
		return nil
	})
	in.sum.Read["bc_fwa_wetlands"] = n
	return err
}

// capability is a CLI polygon's rating as the maps print it: "4^6W 5^4ST".
func capability(p CLIPolygon) string {
	parts := make([]string, len(p.Components))
	for i, c := range p.Components {
		parts[i] = c.String()
	}
	return strings.Join(parts, " ")
}
