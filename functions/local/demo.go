package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"meridian/shared/demo"
	"meridian/shared/demo/agdemo"
	"meridian/shared/demo/energydemo"
	"meridian/shared/demo/griddemo"
	"meridian/shared/scale"
)

const demoUsage = `usage: meridian demo [flags] [grid|energy|ag ...]

Writes invented data in the publishers' real layouts into OUT/<domain>/,
ready for meridian ingest (grid: the official grid files of AB, SK, MB and
ON; energy and ag: the report datasets), with OUT/<domain>/SCALE.json saying
what was written and how to ingest it. Every company is an invented "(demo)"
one; ingest the files with -invented so their answers say so.

  -scale demo      the small demo the server starts with (the default)
  -scale province  the published sizes: Alberta's energy datasets, the three
                   prairie provinces' agriculture and grids; -fraction scales
                   every count, -seed changes the data. Streams: memory stays
                   bounded whatever the size.
  -next            energy only: the next version of the same data, with known
                   differences, for the change feed (demo: one well abandoned,
                   one licensed, one disposition transferred, one expired;
                   province: a few thousand of the first three at full size)

  meridian demo -scale province -fraction 0.05 -o /tmp/scale energy
  meridian ingest energy -invented -data DATA /tmp/scale/energy

flags:
`

// demoDomains are the domains meridian demo writes, in order.
var demoDomains = []string{"grid", "energy", "ag"}

// demoManifest is OUT/<domain>/SCALE.json.
type demoManifest struct {
	Scale    string       `json:"scale"`
	Seed     uint64       `json:"seed,omitempty"`
	Fraction float64      `json:"fraction,omitempty"`
	Rows     int64        `json:"rows"`
	Bytes    int64        `json:"bytes"`
	Files    []scale.File `json:"files"`
	Grids    []demoGrid   `json:"grids,omitempty"`
	AsOf     string       `json:"as_of,omitempty"`
}

// demoGrid is one `meridian ingest grid -format F FILES...` of the grid
// domain.
type demoGrid struct {
	Format string   `json:"format"`
	Files  []string `json:"files"`
}

func demoCommand(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("demo", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, demoUsage); fs.PrintDefaults() }
	size := fs.String("scale", "demo", "demo or province")
	fraction := fs.Float64("fraction", 1, "with -scale province: the share of the published size, in (0, 1]")
	seed := fs.Uint64("seed", 1, "with -scale province: the seed of the generated data")
	out := fs.String("o", "demo-data", "output directory")
	next := fs.Bool("next", false, "energy only: write the next version of the data, with known differences (the change feed's)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	o := scale.Options{Seed: *seed, Fraction: *fraction}
	switch *size {
	case "demo":
	case "province":
		if err := o.Check(); err != nil {
			fmt.Fprintf(stderr, "meridian demo: %v\n", err)
			return 2
		}
	default:
		fmt.Fprintf(stderr, "meridian demo: -scale %q: want demo or province\n", *size)
		return 2
	}
	domains := fs.Args()
	if len(domains) == 0 {
		domains = demoDomains
	}
	if *next && !slices.Equal(domains, []string{"energy"}) {
		fmt.Fprintln(stderr, "meridian demo: -next writes the energy domain only: meridian demo -next energy")
		return 2
	}
	for _, d := range domains {
		if !slices.Contains(demoDomains, d) {
			fmt.Fprintf(stderr, "meridian demo: %q: want grid, energy or ag\n", d)
			return 2
		}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	for _, d := range domains {
		dir := filepath.Join(*out, d)
		start := time.Now()
		var m demoManifest
		var err error
		switch {
		case *next && *size == "province":
			var rep scale.Report
			rep, err = energydemo.WriteScaleNext(ctx, dir, o)
			m = demoManifest{Files: rep.Files, AsOf: demo.AsOf().Format("2006-01-02"), Seed: o.Seed, Fraction: o.Fraction}
		case *size == "demo":
			m, err = writeDemoDomain(d, dir, *next)
		default:
			m, err = writeProvinceDomain(ctx, d, dir, o)
			m.Seed, m.Fraction = o.Seed, o.Fraction
		}
		if err != nil {
			fmt.Fprintf(stderr, "meridian demo: %s: %v\n", d, err)
			return 1
		}
		m.Scale = *size
		for _, f := range m.Files {
			m.Rows += f.Rows
			m.Bytes += f.Bytes
		}
		b, _ := json.MarshalIndent(m, "", "  ")
		if err := os.WriteFile(filepath.Join(dir, "SCALE.json"), append(b, '\n'), 0o644); err != nil {
			fmt.Fprintf(stderr, "meridian demo: %v\n", err)
			return 1
		}
		fmt.Fprintf(stdout, "%s: %d files, %d records, %d bytes in %s\n", dir, len(m.Files), m.Rows, m.Bytes, time.Since(start).Round(time.Millisecond))
		for _, g := range m.Grids {
			fmt.Fprintf(stdout, "  meridian ingest grid -format %s %s\n", g.Format, strings.Join(g.Files, " "))
		}
	}
	return 0
}

// writeDemoDomain writes the small demo of domain into dir. Its records are
// the lines of its text files (a header line included).
// writeDemoDomain writes domain's demo into dir; with next, energy's next
// version (energydemo.WriteNext).
func writeDemoDomain(domain, dir string, next bool) (demoManifest, error) {
	var m demoManifest
	var err error
	switch {
	case domain == "grid":
		err = griddemo.Generate(dir)
		for _, d := range griddemo.Datasets() {
			m.Grids = append(m.Grids, demoGrid{Format: string(d.Format), Files: d.Files})
		}
	case domain == "energy" && next:
		_, err = energydemo.WriteNext(dir)
		m.AsOf = demo.AsOf().Format("2006-01-02")
	case domain == "energy":
		err = energydemo.Write(dir)
		m.AsOf = demo.AsOf().Format("2006-01-02")
	case domain == "ag":
		err = agdemo.Write(dir)
	}
	if err != nil {
		return m, err
	}
	return m, filepath.WalkDir(dir, func(p string, e os.DirEntry, err error) error {
		if err != nil || e.IsDir() || e.Name() == "SCALE.json" {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		m.Files = append(m.Files, demoFile(filepath.ToSlash(rel), b))
		return nil
	})
}

func demoFile(name string, b []byte) scale.File {
	f := scale.File{Name: name, Bytes: int64(len(b))}
	switch strings.ToLower(filepath.Ext(name)) {
	case ".csv", ".txt", ".seq":
		f.Rows = int64(bytes.Count(b, []byte{'\n'}))
	}
	return f
}

// writeProvinceDomain writes domain at the published size into dir.
func writeProvinceDomain(ctx context.Context, domain, dir string, o scale.Options) (demoManifest, error) {
	return provinceWriters[domain](ctx, dir, o)
}

// provinceWriters are the province-size generators, by domain.
var provinceWriters = map[string]func(ctx context.Context, dir string, o scale.Options) (demoManifest, error){
	"grid": func(ctx context.Context, dir string, o scale.Options) (demoManifest, error) {
		rep, grids, err := griddemo.WriteScale(ctx, dir, o)
		m := demoManifest{Files: rep.Files}
		for _, g := range grids {
			m.Grids = append(m.Grids, demoGrid{Format: string(g.Format), Files: g.Files})
		}
		return m, err
	},
	"energy": func(ctx context.Context, dir string, o scale.Options) (demoManifest, error) {
		rep, err := energydemo.WriteScale(ctx, dir, o)
		return demoManifest{Files: rep.Files, AsOf: demo.AsOf().Format("2006-01-02")}, err
	},
	"ag": func(ctx context.Context, dir string, o scale.Options) (demoManifest, error) {
		rep, err := agdemo.WriteScale(ctx, dir, o)
		return demoManifest{Files: rep.Files}, err
	},
}
