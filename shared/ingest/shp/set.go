package shp

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// A Sink receives the files of a shapefile set. Dir writes them to a
// directory, Files keeps them in memory.
type Sink interface {
	// Create starts the file called name (slash-separated, extension
	// included). The set writes it, seeking back to patch headers, and
	// closes it when done.
	Create(name string) (SinkFile, error)
}

// SinkFile is one file being written to a Sink.
type SinkFile interface {
	io.WriteSeeker
	io.Closer
}

// Dir is a Sink writing each file to the directory of that name, creating
// the directories a slash-separated name needs. The files stream: only
// the headers are written twice.
type Dir string

// Create creates (or truncates) name under d.
func (d Dir) Create(name string) (SinkFile, error) {
	p := filepath.Join(string(d), filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return nil, err
	}
	return os.Create(p)
}

// Files is a Sink keeping each file in memory, by name. A file appears
// in the map when it is closed.
type Files map[string][]byte

// Create starts name in memory.
func (m Files) Create(name string) (SinkFile, error) {
	return &memFile{m: m, name: name}, nil
}

type memFile struct {
	Buffer
	m    Files
	name string
}

func (f *memFile) Close() error {
	f.m[f.name] = f.Bytes()
	return nil
}

// SetOptions configures a SetWriter.
type SetOptions struct {
	WriterOptions
	// PRJ, when not empty, is the ESRI WKT written as the .prj file.
	PRJ string
	// CPG writes a .cpg file naming the .dbf's encoding
	// (WriterOptions.Encoding.CPG()).
	CPG bool
}

// SetWriter writes a shapefile set: base.shp, base.shx and base.dbf,
// then base.prj and base.cpg when the options ask for them; or, made by
// NewTableWriter, a dBASE table on its own.
type SetWriter struct {
	*Writer
	sink  Sink
	base  string
	opts  SetOptions
	files []SinkFile // the files to close, in the order of w's .shp, .shx, .dbf
	table bool
	done  bool
}

// NewSetWriter starts the set base.shp, .shx and .dbf in sink (base is the
// path without an extension) with records of shapeType and the given .dbf
// fields, as NewWriter.
func NewSetWriter(sink Sink, base string, shapeType ShapeType, fields []Field, opts SetOptions) (*SetWriter, error) {
	return newSetWriter(sink, base, shapeType, fields, opts, false)
}

// NewTableWriter starts a dBASE table on its own, name (extension
// included) in sink: a set of Null shapes whose .shp and .shx are not
// kept, and no .prj or .cpg. Write records with a nil geometry.
func NewTableWriter(sink Sink, name string, fields []Field, opts WriterOptions) (*SetWriter, error) {
	return newSetWriter(sink, name, Null, fields, SetOptions{WriterOptions: opts}, true)
}

func newSetWriter(sink Sink, base string, t ShapeType, fields []Field, opts SetOptions, table bool) (*SetWriter, error) {
	if sink == nil {
		return nil, errors.New("shp: a shapefile set needs a sink")
	}
	s := &SetWriter{sink: sink, base: base, opts: opts, table: table}
	var ws [3]io.WriteSeeker
	if table {
		ws[0], ws[1] = &Buffer{}, &Buffer{}
		f, err := sink.Create(base)
		if err != nil {
			return nil, err
		}
		s.files = append(s.files, f)
		ws[2] = f
	} else {
		for i, ext := range []string{".shp", ".shx", ".dbf"} {
			f, err := sink.Create(base + ext)
			if err != nil {
				s.Abort()
				return nil, err
			}
			s.files = append(s.files, f)
			ws[i] = f
		}
	}
	w, err := NewWriter(ws[0], ws[1], ws[2], t, fields, opts.WriterOptions)
	if err != nil {
		s.Abort()
		return nil, err
	}
	s.Writer = w
	return s, nil
}

// Records is the number of records written so far.
func (s *SetWriter) Records() int { return s.records }

// Close finishes the files (see Writer.Close), closes them, and writes the
// .prj and .cpg the options ask for.
func (s *SetWriter) Close() error {
	if s.done {
		return errors.New("shp: Close of a finished set")
	}
	err := s.Writer.Close()
	if cerr := s.closeFiles(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	if s.table {
		return nil
	}
	if s.opts.PRJ != "" {
		if err := s.writeFile(s.base+".prj", s.opts.PRJ); err != nil {
			return err
		}
	}
	if s.opts.CPG {
		return s.writeFile(s.base+".cpg", s.Writer.opts.Encoding.CPG())
	}
	return nil
}

// Abort closes the files without finishing them (a Dir sink is left
// with partial files) and writes no .prj or .cpg. It is for a set
// abandoned after an error; it does nothing after Close.
func (s *SetWriter) Abort() {
	if !s.done {
		s.closeFiles()
	}
}

func (s *SetWriter) closeFiles() error {
	s.done = true
	var err error
	for _, f := range s.files {
		if cerr := f.Close(); err == nil && cerr != nil {
			err = fmt.Errorf("shp: close: %w", cerr)
		}
	}
	return err
}

func (s *SetWriter) writeFile(name, text string) error {
	f, err := s.sink.Create(name)
	if err != nil {
		return err
	}
	_, err = io.WriteString(f, text)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
