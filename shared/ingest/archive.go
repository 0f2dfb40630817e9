package ingest

import (
	"archive/zip"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// Publishers ship many datasets zipped (AER's ST37 as WellList.zip, Petrinex's
// volumetrics as a zip of monthly CSVs, AAFC's rasters in a zip inside a
// zip), and a user hands the folder to the ingest as downloaded. Unpack
// and OpenFolder list a download's files with every .zip replaced by its
// members, extracted to a temporary directory so that memory stays bounded
// (a reader opens a member as any other file, shapefile companions stay
// beside each other). A member is named in messages after its archive,
// "WellList.zip!WellList.txt", "outer.zip!inner.zip!aci_2023_ab.tif": its
// extracted copy has that base name, so the readers, which name a file by
// its base name, say where it came from without knowing about zips.

// ArchiveSep joins an archive's name and a member's in the name of an
// extracted member: "WellList.zip!WellList.txt".
const ArchiveSep = "!"

// Limits bound what Unpack extracts: a zip bomb (a small archive that
// inflates to terabytes, or nests itself without end) is refused with an
// *Error naming the member, before the disk fills.
type Limits struct {
	MaxBytes int64 // bytes extracted in all; default 64 GiB (a province's volumetrics are a few GiB)
	MaxFiles int   // members extracted in all; default 100,000
	MaxDepth int   // zips inside zips; default 4
	// MaxRatio bounds how many times a member over 1 MiB may expand;
	// default 1,000 (the refresh job's limit, datafetch: text data
	// compresses 5 to 50 times).
	MaxRatio int64
	TempDir  string // where members are extracted; default os.TempDir() ($TMPDIR)
}

const (
	defaultMaxBytes = 64 << 30
	defaultMaxFiles = 100_000
	defaultMaxDepth = 4
	defaultMaxRatio = 1000
)

// FolderFile is one file of a download.
type FolderFile struct {
	Path string // on disk: the file itself, or a member's extracted copy
	Name string // its base name, after its archives: "WellList.zip!WellList.txt"
}

// Folder is a download's files, its archives opened. Close removes the
// extracted copies.
type Folder struct {
	Files []FolderFile
	tmp   string // "" when nothing was extracted
}

// Paths are the files' paths on disk, in the order of Files.
func (f *Folder) Paths() []string {
	out := make([]string, len(f.Files))
	for i, x := range f.Files {
		out[i] = x.Path
	}
	return out
}

// Close removes the members extracted. A nil Folder is closed.
func (f *Folder) Close() error {
	if f == nil || f.tmp == "" {
		return nil
	}
	err := os.RemoveAll(f.tmp)
	f.tmp = ""
	return err
}

// MemberName returns the last part of a file's base name after its
// archives: "WellList.txt" for "WellList.zip!WellList.txt". Readers that
// recognise files by the publishers' names match this.
func MemberName(path string) string {
	n := filepath.Base(path)
	return n[strings.LastIndex(n, ArchiveSep)+1:]
}

// IsZip reports whether path names a zip archive (by its extension, as
// the publishers name them).
func IsZip(path string) bool { return strings.EqualFold(filepath.Ext(path), ".zip") }

// OpenFolder lists the regular files of dir (not its subdirectories), by
// name, each zip replaced by its members (Unpack).
func OpenFolder(dir string, lim Limits) (*Folder, error) {
	paths, err := DirFiles(dir)
	if err != nil {
		return nil, err
	}
	return Unpack(paths, lim)
}

// DirFiles returns the paths of the files of dir, by name, leaving out its
// subdirectories.
func DirFiles(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var paths []string
	for _, e := range entries {
		if !e.IsDir() {
			paths = append(paths, filepath.Join(dir, e.Name()))
		}
	}
	return paths, nil
}

// Unpack returns paths as a Folder, each .zip among them replaced by its
// members, and a zip among the members by its own, down to lim.MaxDepth.
// Members are extracted to a new temporary directory, each archive
// directory's members together (a shapefile's .shp, .dbf and .prj stay
// beside each other) under the names FolderFile.Name gives. Directories and
// macOS resource forks (__MACOSX/, ._name) in an archive are not files of
// the download and are left out. A member whose name climbs out of the
// archive ("../x", "/etc/x", "C:x"), a link, an archive that does not read,
// or more than the limits allow rejects the whole folder with an *Error
// naming the member; what was extracted is removed. The sizes a zip
// declares are checked as the members are read (archive/zip refuses a
// member longer than declared), and the bytes extracted are counted.
func Unpack(paths []string, lim Limits) (*Folder, error) {
	if lim.MaxBytes <= 0 {
		lim.MaxBytes = defaultMaxBytes
	}
	if lim.MaxFiles <= 0 {
		lim.MaxFiles = defaultMaxFiles
	}
	if lim.MaxDepth <= 0 {
		lim.MaxDepth = defaultMaxDepth
	}
	if lim.MaxRatio <= 0 {
		lim.MaxRatio = defaultMaxRatio
	}
	u := &unpacker{lim: lim, f: &Folder{}}
	for _, p := range paths {
		if !IsZip(p) {
			u.f.Files = append(u.f.Files, FolderFile{Path: p, Name: filepath.Base(p)})
			continue
		}
		if err := u.archive(p, filepath.Base(p), 1); err != nil {
			u.f.Close()
			return nil, err
		}
	}
	sort.SliceStable(u.f.Files, func(i, j int) bool { return u.f.Files[i].Name < u.f.Files[j].Name })
	return u.f, nil
}

type unpacker struct {
	lim   Limits
	f     *Folder
	bytes int64 // extracted so far
	files int
	dirs  int // subdirectories of f.tmp made
}

// archive extracts the members of the zip at p, named name in messages.
func (u *unpacker) archive(p, name string, depth int) error {
	if depth > u.lim.MaxDepth {
		return Errorf(name, 0, "zips nested more than %d deep: refused", u.lim.MaxDepth)
	}
	zr, err := zip.OpenReader(p)
	if err != nil {
		return Errorf(name, 0, "not a zip archive that reads: %v", err)
	}
	defer zr.Close()
	if u.f.tmp == "" {
		if u.f.tmp, err = os.MkdirTemp(u.lim.TempDir, "meridian-unzip-*"); err != nil {
			return err
		}
	}
	dirs := map[string]string{} // member directory → its extraction directory
	for _, m := range zr.File {
		clean := path.Clean(strings.ReplaceAll(m.Name, `\`, "/"))
		if strings.HasSuffix(m.Name, "/") || m.FileInfo().IsDir() || clean == "__MACOSX" || strings.HasPrefix(clean, "__MACOSX/") ||
			strings.HasPrefix(path.Base(clean), "._") {
			continue
		}
		member := name + ArchiveSep + path.Base(clean)
		usize, csize := m.UncompressedSize64, m.CompressedSize64
		switch {
		case path.IsAbs(clean) || !filepath.IsLocal(filepath.FromSlash(clean)) || strings.Contains(clean, ":"):
			return Errorf(member, 0, "member path %q leads out of the archive: refused", m.Name)
		case !m.Mode().IsRegular():
			return Errorf(member, 0, "member %q is not a regular file (%v): refused", m.Name, m.Mode().Type())
		case usize > 1<<20 && usize/max(csize, 1) > uint64(u.lim.MaxRatio):
			return Errorf(member, 0, "expands %d bytes to %d, more than %d times: refused (a zip bomb)", csize, usize, u.lim.MaxRatio)
		}
		if u.files++; u.files > u.lim.MaxFiles {
			return Errorf(name, 0, "more than %d files in the archives: refused", u.lim.MaxFiles)
		}
		dir, ok := dirs[path.Dir(clean)]
		if !ok {
			u.dirs++
			dir = filepath.Join(u.f.tmp, strconv.Itoa(u.dirs))
			if err := os.Mkdir(dir, 0o700); err != nil {
				return err
			}
			dirs[path.Dir(clean)] = dir
		}
		out := filepath.Join(dir, filepath.Base(member))
		if err := u.extract(m, out, member); err != nil {
			return err
		}
		if IsZip(clean) {
			if err := u.archive(out, member, depth+1); err != nil {
				return err
			}
			os.Remove(out) // its members are what the download holds
			continue
		}
		u.f.Files = append(u.f.Files, FolderFile{Path: out, Name: filepath.Base(member)})
	}
	return nil
}

// errTooBig is the sentinel of a member larger than what is left of MaxBytes.
var errTooBig = errors.New("too big")

// extract copies member m to out, counting its bytes against MaxBytes as
// they come (the sizes in a zip's directory can lie).
func (u *unpacker) extract(m *zip.File, out, member string) error {
	rc, err := m.Open()
	if err != nil {
		return Errorf(member, 0, "does not read from the archive: %v", err)
	}
	defer rc.Close()
	w, err := os.OpenFile(out, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if errors.Is(err, os.ErrExist) {
		return Errorf(member, 0, "the archive holds %q twice: refused", m.Name)
	}
	if err != nil {
		return err
	}
	left := u.lim.MaxBytes - u.bytes
	n, err := io.Copy(w, &limitReader{r: rc, n: left})
	u.bytes += n
	if cerr := w.Close(); err == nil {
		err = cerr
	}
	switch {
	case errors.Is(err, errTooBig):
		return Errorf(member, 0, "inflates past %d bytes, the limit of what a download may extract: refused (a zip bomb, or raise the limit)", u.lim.MaxBytes)
	case errors.Is(err, zip.ErrChecksum) || errors.Is(err, zip.ErrFormat) || errors.Is(err, io.ErrUnexpectedEOF):
		return Errorf(member, 0, "damaged in the archive: %v", err)
	case err != nil:
		return fmt.Errorf("%s: extracting: %w", member, err)
	}
	return nil
}

// limitReader is io.LimitReader that fails, rather than ends, past n bytes.
type limitReader struct {
	r io.Reader
	n int64
}

func (l *limitReader) Read(p []byte) (int, error) {
	if l.n <= 0 {
		// One byte more tells a member of exactly the limit from a larger one.
		var b [1]byte
		k, err := l.r.Read(b[:])
		if k > 0 {
			return 0, errTooBig
		}
		return 0, err
	}
	if int64(len(p)) > l.n {
		p = p[:l.n]
	}
	k, err := l.r.Read(p)
	l.n -= int64(k)
	return k, err
}
