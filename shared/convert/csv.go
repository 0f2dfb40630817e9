package convert

import (
	"bufio"
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"meridian/shared/apierr"
	"meridian/shared/survey"
	"meridian/shared/survey/grid"
)

// CSVOptions configure ConvertCSV.
type CSVOptions struct {
	// Column names (or 1-based numbers) the legal land description column.
	// Empty: a column named lld, legal_location, location, legal, lsd or
	// uwi, else the only column. Ignored when Lng and Lat are set.
	Column string
	// Lng and Lat name (or number) coordinate columns: the file is then
	// converted point to legal land description. Detected from headers named
	// lng/lon/longitude and lat/latitude when Column finds nothing.
	Lng, Lat string
	// NoHeader: the first row is data; columns are then numbers.
	NoHeader bool
	// GeoJSON writes a FeatureCollection instead of CSV.
	GeoJSON bool
	// Centroids writes points instead of grid polygons in GeoJSON.
	Centroids bool
	// Reverse lookups: survey system and unit (zero: smallest block).
	Reverse grid.ReverseQuery
	// Datum of the coordinate columns read and of the coordinates and
	// geometries written (zero: NAD83).
	Datum Datum
	// Progress, when set, is called now and then with the rows and bytes
	// read so far.
	Progress func(rows, bytes int64)
	// Bad, when set, is called for every row that failed.
	Bad func(line int, input string, err error)
}

// CSVStats sums up a conversion.
type CSVStats struct {
	Rows, Converted, Failed int64
}

// CSV output columns appended to each input row.
var csvColumns = []string{"legal_location", "unit", "survey_system", "province", "lat", "lng", "datum", "accuracy_m", "source", "error"}

// ConvertCSV streams r to w, converting one row at a time: memory stays
// constant whatever the size of the input. Rows that fail are kept (CSV,
// with the error column set) or left out (GeoJSON) and reported to
// opts.Bad; the conversion goes on.
func ConvertCSV(ctx context.Context, g Grid, r io.Reader, w io.Writer, opts CSVOptions) (CSVStats, error) {
	var stats CSVStats
	if opts.Reverse.All {
		return stats, errors.New("convert: unit all gives several blocks per row; choose one unit")
	}
	if err := grid.CheckReverse(opts.Reverse); err != nil {
		return stats, err
	}
	cr := &countingReader{r: r}
	in := csv.NewReader(bufio.NewReaderSize(cr, 64<<10))
	in.ReuseRecord = true
	in.FieldsPerRecord = -1
	in.LazyQuotes = true
	out := bufio.NewWriterSize(w, 64<<10)
	cw := csv.NewWriter(out)

	var header []string
	first, err := in.Read()
	if err == io.EOF {
		return stats, errors.New("convert: input is empty")
	}
	if err != nil {
		return stats, fmt.Errorf("convert: read line 1: %w", err)
	}
	if len(first) > 0 {
		first[0] = strings.TrimPrefix(first[0], "\ufeff")
	}
	if !opts.NoHeader {
		header = append([]string(nil), first...)
	}
	cols, err := pickColumns(header, len(first), opts)
	if err != nil {
		return stats, err
	}

	line := 1
	var buf []byte
	if opts.GeoJSON {
		out.WriteString(`{"type":"FeatureCollection","features":[` + "\n")
	} else {
		hdr := header
		if hdr == nil {
			hdr = make([]string, len(first))
			for i := range hdr {
				hdr[i] = "column_" + strconv.Itoa(i+1)
			}
		}
		cw.Write(append(append([]string(nil), hdr...), csvColumns...))
	}
	written := 0
	row := first
	if !opts.NoHeader {
		row = nil
	}
	for {
		if row == nil {
			line++
			row, err = in.Read()
			if err == io.EOF {
				break
			}
			if err != nil {
				return stats, fmt.Errorf("convert: read line %d: %w", line, err)
			}
		}
		if err := ctx.Err(); err != nil {
			return stats, err
		}
		stats.Rows++
		input, b, cerr := convertRow(ctx, g, row, cols, opts.Reverse, opts.Datum)
		if cerr != nil {
			stats.Failed++
			if opts.Bad != nil {
				opts.Bad(line, input, cerr)
			}
		} else {
			stats.Converted++
		}
		if opts.GeoJSON {
			if cerr == nil {
				if written > 0 {
					out.WriteString(",\n")
				}
				buf = appendRowFeature(buf[:0], &b, input, header, row, opts.Centroids, opts.Datum)
				out.Write(buf)
				written++
			}
		} else {
			rec := append(row, csvRecord(&b, cerr, opts.Datum)...)
			cw.Write(rec)
		}
		if opts.Progress != nil && stats.Rows%4096 == 0 {
			opts.Progress(stats.Rows, cr.n)
		}
		row = nil
	}
	if opts.GeoJSON {
		out.WriteString("\n]}\n")
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		return stats, err
	}
	if opts.Progress != nil {
		opts.Progress(stats.Rows, cr.n)
	}
	return stats, out.Flush()
}

// columns says where a row's input is.
type columns struct {
	lld      int // -1 when converting coordinates
	lng, lat int
}

func pickColumns(header []string, n int, opts CSVOptions) (columns, error) {
	find := func(spec string, names ...string) (int, error) {
		if spec != "" {
			if i, err := strconv.Atoi(spec); err == nil {
				if i < 1 || i > n {
					return -1, fmt.Errorf("convert: column %d does not exist: the file has %d columns", i, n)
				}
				return i - 1, nil
			}
			for i, h := range header {
				if strings.EqualFold(strings.TrimSpace(h), spec) {
					return i, nil
				}
			}
			return -1, fmt.Errorf("convert: no column named %q (columns: %s)", spec, strings.Join(header, ", "))
		}
		for _, name := range names {
			for i, h := range header {
				if strings.EqualFold(strings.TrimSpace(h), name) {
					return i, nil
				}
			}
		}
		return -1, nil
	}
	c := columns{lld: -1, lng: -1, lat: -1}
	var err error
	if opts.Lng == "" && opts.Lat == "" {
		if c.lld, err = find(opts.Column, "lld", "legal_location", "location", "legal", "legal_land_description", "lsd", "uwi"); err != nil {
			return c, err
		}
		if c.lld >= 0 {
			return c, nil
		}
	} else if opts.Lng == "" || opts.Lat == "" {
		return c, errors.New("convert: give both the longitude and the latitude column")
	}
	if c.lng, err = find(opts.Lng, "lng", "lon", "long", "longitude", "x"); err != nil {
		return c, err
	}
	if c.lat, err = find(opts.Lat, "lat", "latitude", "y"); err != nil {
		return c, err
	}
	if c.lng >= 0 && c.lat >= 0 {
		return c, nil
	}
	if n == 1 {
		c.lld = 0
		return c, nil
	}
	return c, errors.New("convert: cannot tell which column to convert: name it with -column (legal land descriptions) or -lng and -lat (coordinates)")
}

// convertRow converts one row; the block it returns is in d.
func convertRow(ctx context.Context, g Grid, row []string, c columns, q grid.ReverseQuery, d Datum) (string, survey.Block, error) {
	field := func(i int) string {
		if i < len(row) {
			return row[i]
		}
		return ""
	}
	if c.lld >= 0 {
		input := field(c.lld)
		b, err := g.Search(ctx, input)
		if err == nil {
			b, err = d.Block(b)
		}
		return input, b, err
	}
	lngS, latS := strings.TrimSpace(field(c.lng)), strings.TrimSpace(field(c.lat))
	input := lngS + "," + latS
	lng, err1 := parseFinite(lngS)
	lat, err2 := parseFinite(latS)
	if err1 != nil || err2 != nil {
		return input, survey.Block{}, apierr.Invalidf("invalid_coordinates", "'%s' is not a coordinate pair of numbers", input)
	}
	pt, err := PointFrom(lng, lat)
	if err == nil {
		pt, err = d.ToNAD83(pt)
	}
	if err != nil {
		return input, survey.Block{}, err
	}
	q.Point = pt
	blocks, err := g.Reverse(ctx, q)
	if err != nil {
		return input, survey.Block{}, err
	}
	b, err := d.Block(blocks[0])
	return input, b, err
}

func csvRecord(b *survey.Block, err error, d Datum) []string {
	if err != nil {
		msg := err.Error()
		if e := apierr.As(err); e != nil {
			msg = e.Code + ": " + e.Message
		}
		return []string{"", "", "", "", "", "", "", "", "", msg}
	}
	return []string{
		b.Location.String(), b.Location.Unit.String(), b.Location.System.String(), b.Province.Code(),
		string(appendCoord(nil, b.Centroid[1])), string(appendCoord(nil, b.Centroid[0])), d.String(),
		strconv.FormatFloat(b.AccuracyM, 'f', 0, 64), b.Source, "",
	}
}

// appendRowFeature writes one GeoJSON feature with the conversion properties
// and the row's own columns under "input".
func appendRowFeature(buf []byte, b *survey.Block, input string, header, row []string, centroid bool, d Datum) []byte {
	buf = append(buf, `{"type":"Feature","geometry":`...)
	if centroid {
		buf = appendPoint(buf, b.Centroid)
	} else {
		buf = appendGeometry(buf, b.Geometry)
	}
	buf = appendProps(buf, b, "", input, false, d)
	// Reopen the properties object to add the input row.
	buf = buf[:len(buf)-1]
	buf = append(buf, `,"input":{`...)
	for i, v := range row {
		if i > 0 {
			buf = append(buf, ',')
		}
		name := "column_" + strconv.Itoa(i+1)
		if i < len(header) && header[i] != "" {
			name = header[i]
		}
		buf = appendString(buf, name)
		buf = append(buf, ':')
		buf = appendString(buf, v)
	}
	return append(buf, "}}}"...)
}

type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}
