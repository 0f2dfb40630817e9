package grid

import (
	"context"
	"sort"
	"strings"

	"github.com/paulmach/orb"

	"meridian/shared/lld"
	"meridian/shared/survey"
)

// Completing Ontario lots and Manitoba river lots: they exist only as
// ingested data, so their completions come from the indexes. The input is
// read as "Lot <lot> Con <concession> <township>" (any part unfinished,
// township words as a prefix) or "RL|PL|OT|SL|WL <lot> <parish>".

// lotQuery is a reading of the input.
type lotQuery struct {
	system     lld.System
	kind       string // RL, PL, ... (Manitoba)
	lot, con   string // prefixes, upper case
	hasLot     bool
	hasCon     bool
	placeWords string // normalised prefix of the township or parish name
}

// normName upper-cases s and keeps only letters and digits, so "St Norbert"
// matches "ST. NORBERT".
func normName(s string) string {
	var b strings.Builder
	for _, r := range strings.ToUpper(s) {
		if (r >= 'A' && r <= 'Z') || (r >= '0' && r <= '9') || r > 127 {
			b.WriteRune(r)
		}
	}
	return b.String()
}

func readLotQuery(input string) (lotQuery, bool) {
	f := strings.FieldsFunc(strings.ToUpper(input), func(r rune) bool { return r == ' ' || r == ',' || r == '-' || r == '\u00a0' })
	if len(f) == 0 {
		return lotQuery{}, false
	}
	var q lotQuery
	var place []string
	switch f[0] {
	case "RL", "PL", "OT", "SL", "WL", "RIVER", "PARISH":
		q.system, q.kind = lld.RiverLot, f[0]
		i := 1
		if f[0] == "RIVER" || f[0] == "PARISH" {
			q.kind = map[string]string{"RIVER": "RL", "PARISH": "PL"}[f[0]]
			if i < len(f) && f[i] == "LOT" {
				i++
			}
		}
		if i < len(f) {
			q.lot, q.hasLot = f[i], true
			i++
		}
		for _, w := range f[i:] {
			if w != "PARISH" && w != "OF" {
				place = append(place, w)
			}
		}
	default:
		q.system = lld.GeoTownship
		for i := 0; i < len(f); i++ {
			switch w := f[i]; {
			case w == "LOT" && i+1 < len(f):
				q.lot, q.hasLot = f[i+1], true
				i++
			case (w == "CON" || w == "CONC" || w == "CONC." || w == "CONCESSION") && i+1 < len(f):
				q.con, q.hasCon = f[i+1], true
				i++
			case w == "LOT" || w == "CON" || w == "CONCESSION":
			case w == "TOWNSHIP" || w == "OF" || w == "TWP":
			default:
				place = append(place, w)
			}
		}
		if !q.hasLot && !q.hasCon {
			return lotQuery{}, false
		}
	}
	q.placeWords = normName(strings.Join(place, ""))
	return q, true
}

// maxLotGroups bounds the townships or parishes read for one request.
const maxLotGroups = 20

// completeLots appends completions from the loaded Ontario and Manitoba
// lot data, nearest the bias point first.
func (s *Service) completeLots(ctx context.Context, input string, limit int, bias orb.Point, out []survey.Block) ([]survey.Block, error) {
	q, ok := readLotQuery(input)
	if !ok {
		return out, nil
	}
	prefix := "ON:"
	if q.system == lld.RiverLot {
		prefix = "MB:"
	}
	m := metric{p: bias, kx: cosDeg(bias[1])}
	type cand struct {
		b survey.Block
		d float64
	}
	var cands []cand
	seen := map[string]bool{}
	for _, b := range out {
		seen[b.Location.String()] = true
	}
	for _, ix := range s.indexes() {
		if !holdsSystem(ix, q.system) {
			continue
		}
		keys, err := ix.GroupKeys(ctx, prefix, 10000)
		if err != nil {
			return nil, unavailable(err)
		}
		groups := 0
		for _, k := range keys {
			if !strings.HasPrefix(normName(strings.TrimPrefix(k, prefix)), q.placeWords) {
				continue
			}
			if groups++; groups > maxLotGroups {
				break
			}
			recs, err := ix.GroupByKey(ctx, k)
			if err != nil {
				return nil, unavailable(err)
			}
			for _, r := range recs {
				if !q.matches(r.Location) {
					continue
				}
				b := blockFrom(r, ix.Meta())
				if key := b.Location.String(); !seen[key] {
					seen[key] = true
					cands = append(cands, cand{b, m.toPoint(b.Centroid)})
				}
			}
		}
	}
	sort.SliceStable(cands, func(i, j int) bool { return cands[i].d < cands[j].d })
	for _, c := range cands {
		if len(out) == limit {
			break
		}
		out = append(out, c.b)
	}
	return out, nil
}

// matches reports whether l completes the query: the unit the query
// reaches (a lot when a lot is given, else a concession), with each given
// label as a prefix.
func (q lotQuery) matches(l lld.Location) bool {
	if l.System != q.system {
		return false
	}
	if q.system == lld.RiverLot {
		return (q.kind == "" || l.LotKind == q.kind) && (!q.hasLot || strings.HasPrefix(l.Lot, q.lot))
	}
	switch {
	case q.hasLot:
		return l.Unit == lld.Lot && strings.HasPrefix(l.Lot, q.lot) && (!q.hasCon || strings.HasPrefix(l.Concession, romanless(q.con)))
	case q.hasCon:
		return l.Unit == lld.Concession && strings.HasPrefix(l.Concession, romanless(q.con))
	}
	return false
}

// romanless turns a Roman-numeral concession label into the arabic form
// the canonical location uses ("IV" → "4"); other labels pass through.
func romanless(s string) string {
	if l, err := lld.Parse("Con " + s + " X"); err == nil {
		return l.Concession
	}
	return s
}
