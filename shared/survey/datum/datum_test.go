package datum_test

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"flag"
	"math"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/paulmach/orb"

	"meridian/shared/survey/datum"
	"meridian/shared/teamdata"
)

// canada reads NRCan's grid from the shared directory and checks it is
// the file the team documented.
func canada(t testing.TB) *datum.Grid {
	t.Helper()
	b, err := os.ReadFile(teamdata.Path(t, "datum/ntv1_can.dat"))
	if err != nil {
		t.Fatal(err)
	}
	if sum := sha256.Sum256(b); hex.EncodeToString(sum[:]) != "f27846eca0787c239e69c4c3be6aaf9deef1279e5fefbd9cad25848994e3745a" {
		t.Fatalf("ntv1_can.dat is not the documented file (sha256 %x)", sum)
	}
	g, err := datum.ReadNTv1(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// TestShiftSanity: the figures of the grid's README (shared/datum).
func TestShiftSanity(t *testing.T) {
	t.Parallel()
	g := canada(t)
	for _, c := range []struct {
		p          orb.Point
		dLat, dLon float64 // arc-seconds, longitude east
	}{
		{orb.Point{-121.5, 56.2}, -0.21, -5.34},
		{orb.Point{-114.07, 51.05}, 0.21, -3.56},
	} {
		dLat, dLon, err := g.Shift(c.p)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(dLat-c.dLat) > 0.006 || math.Abs(dLon-c.dLon) > 0.006 {
			t.Errorf("shift at %v = %.3f″, %.3f″; want %.2f″, %.2f″", c.p, dLat, dLon, c.dLat, c.dLon)
		}
	}
}

// TestAgainstPROJ: 60 points over BC and the Prairies, moved by PROJ's
// cs2cs with the same grid (testdata/ntv1_proj.csv, generated once).
func TestAgainstPROJ(t *testing.T) {
	t.Parallel()
	g := canada(t)
	f, err := os.Open("testdata/ntv1_proj.csv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	n, worst := 0, 0.0
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "#") || strings.HasPrefix(line, "lon27") {
			continue
		}
		var v [4]float64
		for i, s := range strings.Split(line, ",") {
			if v[i], err = strconv.ParseFloat(s, 64); err != nil {
				t.Fatal(err)
			}
		}
		got, err := g.ToNAD83(orb.Point{v[0], v[1]})
		if err != nil {
			t.Fatalf("%v: %v", line, err)
		}
		// Metres on the ground.
		dx := (got[0] - v[2]) * 111320 * math.Cos(v[3]*math.Pi/180)
		dy := (got[1] - v[3]) * 110574
		worst = max(worst, math.Hypot(dx, dy))
		back, err := g.ToNAD27(got)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(back[0]-v[0]) > 1e-10 || math.Abs(back[1]-v[1]) > 1e-10 {
			t.Errorf("round trip of %v gives %v", v[:2], back)
		}
		n++
	}
	if n < 50 {
		t.Fatalf("%d reference points", n)
	}
	t.Logf("%d points: worst difference from PROJ %.2g m", n, worst)
	if worst > 0.001 {
		t.Errorf("worst difference from PROJ %.3g m, want under 1 mm", worst)
	}
}

// tiny writes a 2 × 3 node NTv1 grid whose shifts are a plane, so the
// bilinear value at any point is known exactly.
func tiny(t testing.TB, mutate func(head []byte)) []byte {
	var b bytes.Buffer
	rec := func(k string, v []byte) {
		key := make([]byte, 8)
		copy(key, k)
		for i := len(k); i < 8; i++ {
			key[i] = ' '
		}
		b.Write(key)
		b.Write(v)
	}
	f := func(x float64) []byte { return binary.BigEndian.AppendUint64(nil, math.Float64bits(x)) }
	s := func(x string) []byte { return []byte((x + "        ")[:8]) }
	rec("HEADER", append(binary.BigEndian.AppendUint32(nil, 12), 0, 0, 0, 0))
	rec("S LAT", f(50))
	rec("N LAT", f(51))
	rec("E LONG", f(110))
	rec("W LONG", f(112))
	rec("N GRID", f(1))
	rec("W GRID", f(1))
	rec("TYPE", s("SECONDS"))
	rec("FROM", s("NAD27"))
	rec("TO", s("NAD83"))
	rec("FROM SMA", f(6356583.8))
	rec("TO SMA", f(6356752.314))
	if mutate != nil {
		mutate(b.Bytes())
	}
	for row := 0; row < 2; row++ { // south to north
		for col := 0; col < 3; col++ { // east to west
			b.Write(f(0.1 + 0.2*float64(row) + 0.01*float64(col)))
			b.Write(f(3 + 1*float64(row) + 0.5*float64(col)))
		}
	}
	b.Write(make([]byte, 16))
	return b.Bytes()
}

func TestBilinearOnAPlane(t *testing.T) {
	t.Parallel()
	g, err := datum.ReadNTv1(bytes.NewReader(tiny(t, nil)))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []orb.Point{{-110, 50}, {-112, 51}, {-111.3, 50.25}, {-110.5, 50.9}} {
		row, col := p[1]-50, -p[0]-110
		wantLat, wantLon := 0.1+0.2*row+0.01*col, -(3 + row + 0.5*col)
		dLat, dLon, err := g.Shift(p)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(dLat-wantLat) > 1e-6 || math.Abs(dLon-wantLon) > 1e-6 {
			t.Errorf("shift at %v = %v, %v; want %v, %v", p, dLat, dLon, wantLat, wantLon)
		}
	}
	if _, _, err := g.Shift(orb.Point{-109.9, 50.5}); err != datum.ErrOutside {
		t.Errorf("east of the grid: %v, want ErrOutside", err)
	}
	if _, err := g.ToNAD83(orb.Point{-111, 51.01}); err != datum.ErrOutside {
		t.Errorf("north of the grid: %v, want ErrOutside", err)
	}
}

func TestReadNTv1Rejects(t *testing.T) {
	t.Parallel()
	good := tiny(t, nil)
	for name, b := range map[string][]byte{
		"truncated nodes":  good[:len(good)-40],
		"truncated header": good[:100],
		"not NTv1":         tiny(t, func(h []byte) { copy(h, "HEADRR  ") }),
		"NAD83 to NAD27":   tiny(t, func(h []byte) { copy(h[8*16+8:], "NAD83   "); copy(h[9*16+8:], "NAD27   ") }),
		"zero spacing":     tiny(t, func(h []byte) { binary.BigEndian.PutUint64(h[5*16+8:], math.Float64bits(0)) }),
		"uneven extent":    tiny(t, func(h []byte) { binary.BigEndian.PutUint64(h[2*16+8:], math.Float64bits(51.5)) }),
	} {
		if _, err := datum.ReadNTv1(bytes.NewReader(b)); err == nil {
			t.Errorf("%s: read without error", name)
		}
	}
}

func BenchmarkToNAD83(b *testing.B) {
	g := canada(b)
	p := orb.Point{-114.07, 51.05}
	for b.Loop() {
		if _, err := g.ToNAD83(p); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkToNAD27(b *testing.B) {
	g := canada(b)
	p := orb.Point{-114.071, 51.0501}
	for b.Loop() {
		if _, err := g.ToNAD27(p); err != nil {
			b.Fatal(err)
		}
	}
}

// FuzzReadNTv1: any bytes give a grid or an error, never a panic, and a
// grid answers Shift inside its extent.
func FuzzReadNTv1(f *testing.F) {
	f.Add(tiny(f, nil))
	f.Add(tiny(f, func(h []byte) { binary.BigEndian.PutUint64(h[6*16+8:], math.Float64bits(0.5)) }))
	f.Fuzz(func(t *testing.T, b []byte) {
		g, err := datum.ReadNTv1(bytes.NewReader(b))
		if err != nil {
			return
		}
		if _, _, err := g.Shift(orb.Point{-111, 50.5}); err != nil && err != datum.ErrOutside {
			t.Fatal(err)
		}
	})
}

var update = flag.Bool("update", false, "rewrite ntv1_can.compact from the shared directory's ntv1_can.dat")

// TestEmbeddedGrid: the embedded compact grid holds every node of NRCan's
// file to the compact form's rounding (with -update, it is rewritten
// first).
func TestEmbeddedGrid(t *testing.T) {
	src := canada(t)
	if *update {
		var b bytes.Buffer
		if err := src.WriteCompact(&b); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile("ntv1_can.compact", b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("wrote ntv1_can.compact: %d bytes", b.Len())
		b2, _ := os.ReadFile("ntv1_can.compact")
		g, err := datum.ReadCompact(bytes.NewReader(b2))
		if err != nil {
			t.Fatal(err)
		}
		compareGrids(t, src, g)
		return
	}
	compareGrids(t, src, datum.Canada())
}

// compareGrids checks that two grids have the same extent and the same
// shift, to 0.6e-5″, at every node and at the middle of every cell.
func compareGrids(t *testing.T, want, got *datum.Grid) {
	t.Helper()
	wb, gb := want.Bound(), got.Bound()
	if wb != gb {
		t.Fatalf("bound %v, want %v", gb, wb)
	}
	worst, n := 0.0, 0
	for lat := wb.Min[1]; lat <= wb.Max[1]; lat += 0.125 {
		for lng := wb.Min[0]; lng <= wb.Max[0]; lng += 0.125 {
			p := orb.Point{lng, lat}
			a1, o1, err1 := want.Shift(p)
			a2, o2, err2 := got.Shift(p)
			if err1 != nil || err2 != nil {
				t.Fatalf("shift at %v: %v, %v", p, err1, err2)
			}
			worst = max(worst, math.Abs(a1-a2), math.Abs(o1-o2))
			n++
		}
	}
	t.Logf("%d positions, largest difference %.2g″", n, worst)
	if worst > 0.6e-5 || n < 277000 {
		t.Errorf("largest difference %.2g″ over %d positions, want <= 0.6e-5″ over the whole grid (277,105 positions)", worst, n)
	}
}

// TestCanadaSanity: the README's figures from the embedded grid alone, so
// this runs without the shared directory.
func TestCanadaSanity(t *testing.T) {
	t.Parallel()
	p, err := datum.NAD27ToNAD83(orb.Point{-121.5, 56.2})
	if err != nil {
		t.Fatal(err)
	}
	if dLat, dLon := (p[1]-56.2)*3600, (p[0]+121.5)*3600; math.Abs(dLat+0.21) > 0.006 || math.Abs(dLon+5.34) > 0.006 {
		t.Errorf("shift at 56.2 N 121.5 W = %.3f″, %.3f″; want -0.21″, -5.34″", dLat, dLon)
	}
	back, err := datum.NAD83ToNAD27(p)
	if err != nil || math.Abs(back[0]+121.5) > 1e-11 || math.Abs(back[1]-56.2) > 1e-11 {
		t.Errorf("round trip = %v, %v", back, err)
	}
	if _, err := datum.NAD27ToNAD83(orb.Point{-100, 39.9}); err != datum.ErrOutside {
		t.Errorf("39.9 N: err = %v, want ErrOutside", err)
	}
}

func BenchmarkDecodeEmbedded(b *testing.B) {
	raw, err := os.ReadFile("ntv1_can.compact")
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := datum.ReadCompact(bytes.NewReader(raw)); err != nil {
			b.Fatal(err)
		}
	}
}

// TestReadCompactDamaged: a truncated or foreign compact grid is an error,
// never a partial grid.
func TestReadCompactDamaged(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile("ntv1_can.compact")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		b    []byte
	}{
		{"truncated", raw[:len(raw)/2]},
		{"empty", nil},
		{"NTv1 file instead", []byte(strings.Repeat("HEADER  ", 40))},
	} {
		if g, err := datum.ReadCompact(bytes.NewReader(c.b)); err == nil {
			t.Errorf("%s: got a grid %v, want an error", c.name, g.Bound())
		}
	}
}

// TestNodeRing: a box's ring has its corners and one vertex per node line
// an edge crosses, in counter-clockwise order, and moved to NAD83 it is
// the box's exact image: every point of an edge, moved, lies on the moved
// ring's segment between the moved vertices either side of it.
func TestNodeRing(t *testing.T) {
	t.Parallel()
	g := datum.Canada()
	for _, c := range []struct {
		b          orb.Bound
		lngs, lats int // node lines crossed
	}{
		{orb.Bound{Min: orb.Point{-120.2, 55.3}, Max: orb.Point{-120.1, 55.35}}, 0, 0}, // inside a cell
		{orb.Bound{Min: orb.Point{-120.3, 55.2}, Max: orb.Point{-119.6, 55.8}}, 3, 3},  // -120.25, -120, -119.75; 55.25, 55.5, 55.75
		{orb.Bound{Min: orb.Point{-122, 55}, Max: orb.Point{-120, 56}}, 7, 3},          // corners on node lines: not repeated
	} {
		r := g.NodeRing(c.b)
		if len(r) != 5+2*c.lngs+2*c.lats {
			t.Errorf("%v: %d vertices, want %d", c.b, len(r), 5+2*c.lngs+2*c.lats)
		}
		if r[0] != c.b.Min || r[len(r)-1] != c.b.Min || orb.Ring(r).Orientation() != orb.CCW {
			t.Errorf("%v: ring %v is not closed and counter-clockwise from the SW corner", c.b, r)
		}
		moved := make(orb.Ring, len(r))
		for i, p := range r {
			q, err := g.ToNAD83(p)
			if err != nil {
				t.Fatal(err)
			}
			moved[i] = q
		}
		// Points along each segment, moved, stay on the moved segment.
		worst := 0.0
		for i := 0; i+1 < len(r); i++ {
			for f := 0.1; f < 1; f += 0.2 {
				p := orb.Point{r[i][0] + f*(r[i+1][0]-r[i][0]), r[i][1] + f*(r[i+1][1]-r[i][1])}
				q, _ := g.ToNAD83(p)
				want := orb.Point{moved[i][0] + f*(moved[i+1][0]-moved[i][0]), moved[i][1] + f*(moved[i+1][1]-moved[i][1])}
				worst = max(worst, math.Abs(q[0]-want[0]), math.Abs(q[1]-want[1]))
			}
		}
		if worst > 1e-11 {
			t.Errorf("%v: a moved edge point is %.2g° off its moved segment", c.b, worst)
		}
	}
}
