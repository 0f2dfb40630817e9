package energyingest

import (
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"

	"github.com/paulmach/orb"
	"github.com/paulmach/orb/clip"
	"github.com/paulmach/orb/geo"

	"meridian/shared/energy"
	"meridian/shared/energy/changefeed"
	"meridian/shared/ingest"
	"meridian/shared/lld"
	"meridian/shared/survey"
)

func (in *ingester) readPipelines() error {
	for _, p := range in.files.Pipelines {
		read := func(fn func(Pipeline) error) error {
			if strings.HasSuffix(strings.ToLower(p), ".shp") {
				return readShapefile(p, in.o.Notices, fn)
			}
			return withFile(p, func(r io.Reader, name string) error {
				return ReadPipelinesGeoJSON(r, name, ReadOptions{Notices: in.o.Notices}, fn)
			})
		}
		err := read(func(pl Pipeline) error {
			in.sum.Read["pipeline_segments"]++
			return in.addPipeline(pl)
		})
		if err != nil {
			return err
		}
		in.source("pipelines", "AER pipelines", p)
	}
	in.progress("pipeline segments: %d", in.sum.Read["pipeline_segments"])
	return nil
}

func readShapefile(p string, notices *ingest.Notices, fn func(Pipeline) error, layout ...func(ingest.Layout)) error {
	base := strings.TrimSuffix(p, filepath.Ext(p))
	shp, err := os.Open(p)
	if err != nil {
		return err
	}
	defer shp.Close()
	dbf, err := os.Open(base + ".dbf")
	if err != nil {
		return err
	}
	defer dbf.Close()
	prj, _ := os.ReadFile(base + ".prj")
	opt := ReadOptions{Notices: notices}
	if len(layout) > 0 {
		opt.Layout = layout[0]
	}
	return ReadPipelinesShapefile(shp, dbf, string(prj), filepath.Base(p), opt, fn)
}

func optional(a Amount) *float64 {
	if !a.Known() {
		return nil
	}
	v := a.Value
	return &v
}

func (in *ingester) addPipeline(pl Pipeline) error {
	substance := strings.Join(nonEmpty(pl.Substances[:]), ", ")
	row := energy.PipelineRow{ID: pl.SegmentID, Href: "/energy/pipelines/" + pl.Licence, LicenceNumber: pl.Licence, SegmentID: pl.SegmentID,
		SegmentLineNumber: pl.LineNo, Operator: in.party(pl.BA, pl.Company), Status: strings.ToLower(pl.Status), SegmentStatusRaw: pl.Status,
		Substance: substance, OutsideDiameterMM: optional(pl.OutsideDiameterMM), MaxOperatingPressureKPa: optional(pl.MAOPkPa),
		ClassLocation: pl.ClassLocation, PipelineEnvironment: pl.Environment, SegmentLengthKM: optional(pl.LengthKM),
		FromFacility: pl.FromFacility, ToFacility: pl.ToFacility}
	h2s := 0.0
	if pl.H2SContent.Known() {
		h2s = H2SPct(pl.H2SContent.Value)
		row.H2SPct = &h2s
	}
	if pl.H2SReleaseLevel != "" {
		lv := pl.H2SReleaseLevel
		row.H2SReleaseLevel = &lv
	}
	if pl.Geometry != nil {
		c := pl.Geometry.Bound().Center()
		row.Centroid = &energy.Point{Lat: survey.Round6(c[1]), Lng: survey.Round6(c[0])}
	}
	if err := in.w.Put(energy.PipelineKey(pl.Licence), energy.SegmentSK(pl.LineNo, pl.SegmentID), row); err != nil {
		return err
	}
	if lines := asLines(pl.Geometry); len(lines) > 0 {
		g := energy.PipelineGeometry{Licence: pl.Licence, LineNo: pl.LineNo, SegmentID: pl.SegmentID, Status: row.Status,
			Substance: substance, H2SPct: row.H2SPct, Lines: lines}
		if err := in.w.Put(energy.PipelineKey(pl.Licence), energy.SKPipelineGeometry+pl.LineNo+"#"+pl.SegmentID, g); err != nil {
			return err
		}
	}
	// The LSDs the segment crosses, with its length on each.
	crossings := map[string]float64{}
	mids := map[string]orb.Point{}
	if pl.Geometry != nil {
		err := in.svc.Blocks(in.ctx, lld.DLS, lld.LSD, pl.Geometry.Bound(), func(b survey.Block) error {
			piece := clip.Geometry(b.Geometry.Bound(), pl.Geometry)
			if piece == nil {
				return nil
			}
			if m := geo.LengthHaversine(piece); m > 0 {
				crossings[b.Location.String()] = m
				mids[b.Location.String()] = piece.Bound().Center()
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	if len(crossings) == 0 { // no geometry: the ends' LSDs, no length
		for _, end := range []lld.Location{pl.From, pl.To} {
			if end.Unit == lld.LSD {
				crossings[end.String()] = 0
			}
		}
	}
	for lsdKey, m := range crossings {
		l, err := lld.Parse(lsdKey)
		if err != nil {
			continue
		}
		r := row
		length := math.Round(m*10) / 10
		r.LengthMOnParcel, r.Centroid = &length, nil
		if mid, ok := mids[lsdKey]; ok {
			r.OverlapPoint = &energy.Point{Lat: survey.Round6(mid[1]), Lng: survey.Round6(mid[0])}
		}
		s := in.lsd(l)
		s.segments++
		s.pipelineM += length
		if err := in.w.Put(energy.LSDKey(lsdKey), energy.PipeSK(h2s, pl.SegmentID), r); err != nil {
			return err
		}
		if in.snap != nil {
			_, prov, _ := in.centroid(l)
			if err := in.track(changefeed.PipelineRecord(lsdKey, prov, "pipelines", r)); err != nil {
				return err
			}
		}
	}
	return nil
}

func asLines(g orb.Geometry) orb.MultiLineString {
	switch g := g.(type) {
	case orb.LineString:
		return orb.MultiLineString{g}
	case orb.MultiLineString:
		return g
	}
	return nil
}

func nonEmpty(ss []string) []string {
	var out []string
	for _, s := range ss {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}
