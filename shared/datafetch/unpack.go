package datafetch

import (
	"archive/zip"
	"bytes"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// Unpacking limits: a download is refused, not truncated, past them.
const (
	maxZipEntries = 100_000
	maxZipDepth   = 2 // a zip inside a zip (Petrinex), no deeper
)

// unpack places the download at file (saved as name) into dir, flat: a
// zip archive's files (and those of the zips inside it) by their base
// names, anything else as itself. Entry names that climb out of the
// archive (zip-slip), links, more than maxZipEntries entries, a file
// expanding past the compression ratio limit or the archive past
// maxBytes are refused. Memory: the archive's directory (bounded by
// maxZipEntries) and one copy buffer.
func unpack(file, name, dir string, maxBytes, maxRatio int64) ([]string, error) {
	budget := maxBytes
	var out []string
	if err := unpackInto(file, name, dir, &budget, maxRatio, 0, &out); err != nil {
		return nil, err
	}
	return out, nil
}

func isZip(file string) (bool, error) {
	f, err := os.Open(file)
	if err != nil {
		return false, err
	}
	defer f.Close()
	var head [4]byte
	n, _ := io.ReadFull(f, head[:])
	return n == 4 && bytes.Equal(head[:], []byte("PK\x03\x04")), nil
}

func unpackInto(file, name, dir string, budget *int64, maxRatio int64, depth int, out *[]string) error {
	z, err := isZip(file)
	if err != nil {
		return err
	}
	if !z || zipBasedFormat(name) {
		target := filepath.Join(dir, safeName(name))
		if err := claim(target, out); err != nil {
			return err
		}
		return linkOrCopy(file, target)
	}
	if depth >= maxZipDepth {
		return fmt.Errorf("%s: zip archives nested more than %d deep", name, maxZipDepth)
	}
	r, err := zip.OpenReader(file)
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	defer r.Close()
	if len(r.File) > maxZipEntries {
		return fmt.Errorf("%s: %d entries, over the limit of %d", name, len(r.File), maxZipEntries)
	}
	for _, zf := range r.File {
		n := strings.ReplaceAll(zf.Name, "\\", "/")
		if !filepath.IsLocal(filepath.FromSlash(n)) || path.IsAbs(n) || strings.Contains(n, ":") {
			return fmt.Errorf("%s: entry %q points outside the archive: refused", name, zf.Name)
		}
		mode := zf.Mode()
		if mode.IsDir() || strings.HasSuffix(n, "/") {
			continue
		}
		if !mode.IsRegular() {
			return fmt.Errorf("%s: entry %q is not a regular file (%v): refused", name, zf.Name, mode.Type())
		}
		base := path.Base(n)
		if strings.HasPrefix(n, "__MACOSX/") || strings.HasPrefix(base, "._") {
			continue
		}
		usize := int64(zf.UncompressedSize64)
		if zf.UncompressedSize64 > uint64(*budget) || usize > *budget {
			return fmt.Errorf("%s: entry %q expands past the limit of the download's unpacked size", name, zf.Name)
		}
		if csize := int64(zf.CompressedSize64); usize > 1<<20 && (csize == 0 || usize/max(csize, 1) > maxRatio) {
			return fmt.Errorf("%s: entry %q expands %d to %d bytes, a ratio over %d: refused", name, zf.Name, csize, usize, maxRatio)
		}
		*budget -= usize
		if strings.EqualFold(path.Ext(base), ".zip") {
			tmp, err := os.CreateTemp(dir, ".inner-*.zip")
			if err != nil {
				return err
			}
			tmp.Close()
			os.Remove(tmp.Name()) // extract creates it afresh (O_EXCL)
			err = extract(zf, tmp.Name(), usize)
			if err == nil {
				err = unpackInto(tmp.Name(), base, dir, budget, maxRatio, depth+1, out)
			}
			os.Remove(tmp.Name())
			if err != nil {
				return fmt.Errorf("%s: %w", name, err)
			}
			continue
		}
		target := filepath.Join(dir, safeName(base))
		if err := claim(target, out); err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		if err := extract(zf, target, usize); err != nil {
			return fmt.Errorf("%s: entry %q: %w", name, zf.Name, err)
		}
	}
	return nil
}

// zipBasedFormat reports whether name is a file format that is itself a
// zip (an XLSX spreadsheet, a KMZ):
// kept whole for its reader.
func zipBasedFormat(name string) bool {
	switch strings.ToLower(filepath.Ext(name)) {
	case ".xlsx", ".xlsm", ".docx", ".ods", ".kmz":
		return true
	}
	return false
}

// claim records target as a file of the version, refusing a second file
// of the same name.
func claim(target string, out *[]string) error {
	b := filepath.Base(target)
	for _, o := range *out {
		if strings.EqualFold(o, b) {
			return fmt.Errorf("two files named %s in one download", b)
		}
	}
	*out = append(*out, b)
	return nil
}

// extract streams zf to target, refusing more bytes than the entry
// declares (archive/zip checks the size and CRC at the end).
func extract(zf *zip.File, target string, size int64) error {
	rc, err := zf.Open()
	if err != nil {
		return err
	}
	defer rc.Close()
	w, err := os.OpenFile(target, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	n, err := io.CopyBuffer(w, io.LimitReader(rc, size+1), make([]byte, copyBuffer))
	if cerr := w.Close(); err == nil {
		err = cerr
	}
	if err == nil && n != size {
		err = fmt.Errorf("%d bytes, the archive declares %d", n, size)
	}
	return err
}

// linkOrCopy hard-links src to dst, copying where links are refused.
func linkOrCopy(src, dst string) error {
	if err := os.Link(src, dst); err == nil {
		return nil
	}
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	if _, err := io.CopyBuffer(out, in, make([]byte, copyBuffer)); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
