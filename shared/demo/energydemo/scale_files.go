package energydemo

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"

	"meridian/shared/demo"
	"meridian/shared/scale"
)

// The files WriteScale writes: rendered into a buffer, drained to disk
// between townships, counted for the report.

// scaleFile is one output file: rows are rendered into buf, one township
// at a time, then copied to the buffered file.
type scaleFile struct {
	name   string
	f      *os.File
	w      *bufio.Writer
	buf    bytes.Buffer
	header int64 // lines before the first row
	lines  int64 // of a CSV or text file
	bytes  int64
	geo    *demo.FeatureCollection // of a GeoJSON file, writing into buf
}

func (g *scaleGen) create(name string) (*scaleFile, error) {
	f, err := os.Create(filepath.Join(g.dir, name))
	if err != nil {
		return nil, fmt.Errorf("energy: scale: %w", err)
	}
	sf := &scaleFile{name: name, f: f, w: bufio.NewWriterSize(f, scaleFileBuffer)}
	g.open = append(g.open, sf)
	return sf, nil
}

// csvFile creates a file whose first line is the quoted header.
func (g *scaleGen) csvFile(name string, columns []string) (*scaleFile, error) {
	sf, err := g.create(name)
	if err != nil {
		return nil, err
	}
	csvQuoted(&sf.buf, columns...)
	sf.header = 1
	return sf, nil
}

// geoFile creates a GeoJSON file in NAD83, as the team's samples are
// written, with the collection's name when not empty.
func (g *scaleGen) geoFile(name, collection string) (*scaleFile, error) {
	sf, err := g.create(name)
	if err != nil {
		return nil, err
	}
	sf.geo = demo.NewFeatureCollection(&sf.buf, collection, 4269)
	return sf, nil
}

// flush copies what was rendered to the file.
func (sf *scaleFile) flush() error {
	if sf.buf.Len() == 0 {
		return nil
	}
	if sf.geo == nil {
		sf.lines += int64(bytes.Count(sf.buf.Bytes(), []byte{'\n'}))
	}
	sf.bytes += int64(sf.buf.Len())
	_, err := sf.w.Write(sf.buf.Bytes())
	sf.buf.Reset()
	if err != nil {
		return fmt.Errorf("energy: scale: write %s: %w", sf.name, err)
	}
	return nil
}

func (g *scaleGen) flushAll() error {
	for _, sf := range g.open {
		if err := sf.flush(); err != nil {
			return err
		}
	}
	return nil
}

// finish ends a file and records it in the report.
func (g *scaleGen) finish(sf *scaleFile) error {
	if sf == nil || sf.f == nil {
		return nil
	}
	var err error
	if sf.geo != nil {
		err = sf.geo.End()
	}
	if ferr := sf.flush(); err == nil {
		err = ferr
	}
	if err == nil {
		err = sf.w.Flush()
	}
	if cerr := sf.f.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("energy: scale: close %s: %w", sf.name, cerr)
	}
	sf.f = nil
	rows := sf.lines - sf.header
	if sf.geo != nil {
		rows = int64(sf.geo.Len())
	}
	g.report.Files = append(g.report.Files, scale.File{Name: sf.name, Rows: rows, Bytes: sf.bytes})
	return err
}

// closeAll finishes the files still open (all of them after an error).
func (g *scaleGen) closeAll() error {
	var first error
	for _, sf := range g.open {
		if err := g.finish(sf); err != nil && first == nil {
			first = err
		}
	}
	g.open = nil
	return first
}

func (g *scaleGen) writeFile(name string, data []byte, rows int64) error {
	if err := os.WriteFile(filepath.Join(g.dir, name), data, 0o644); err != nil {
		return fmt.Errorf("energy: scale: %w", err)
	}
	g.report.Files = append(g.report.Files, scale.File{Name: name, Rows: rows, Bytes: int64(len(data))})
	return nil
}
