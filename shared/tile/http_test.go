package tile_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/binary"
	"encoding/hex"
	"io"
	"strings"
	"testing"

	"github.com/cespare/xxhash/v2"

	"meridian/shared/tile"
)

// fakeArchive answers every tile with data in encoding; plain: it is not a
// tile.EncodedArchive.
type fakeArchive struct {
	data     []byte
	encoding string
}

func (a fakeArchive) Tile(ctx context.Context, z uint8, x, y uint32) ([]byte, bool, error) {
	return a.data, a.data != nil, nil
}

type encodedArchive struct{ fakeArchive }

func (a encodedArchive) EncodedTile(ctx context.Context, z uint8, x, y uint32) ([]byte, string, bool, error) {
	return a.data, a.encoding, a.data != nil, nil
}

type oneArchive struct{ a tile.Archive }

func (o oneArchive) Archive(ctx context.Context, l tile.Layer) (tile.Archive, error) { return o.a, nil }

func gz(t testing.TB, s string) []byte {
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	zw.Write([]byte(s))
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestArchiveTileEncoding checks that the Content-Encoding of an archive
// tile follows the archive's header, that a body that does not decompress
// is a 503 upstream_unavailable that nothing may cache (issue 15), and that
// the cache headers of a good tile are there.
func TestArchiveTileEncoding(t *testing.T) {
	good := gz(t, "an mvt tile")
	truncated := good[:len(good)-5] // CRC-32 and length trailer cut
	corrupt := bytes.Clone(good)    // the data of another version at these offsets
	corrupt[len(corrupt)-6] ^= 0xff // CRC no longer matches
	for _, tc := range []struct {
		name     string
		a        tile.Archive
		gzipOK   bool
		code     int
		wantBody string // decompressed when Content-Encoding is gzip
	}{
		{"gzip archive", encodedArchive{fakeArchive{good, "gzip"}}, true, 200, "an mvt tile"},
		{"gzip archive, client without gzip", encodedArchive{fakeArchive{good, "gzip"}}, false, 200, "an mvt tile"},
		{"uncompressed archive", encodedArchive{fakeArchive{[]byte("raw mvt"), ""}}, true, 200, "raw mvt"},
		{"uncompressed archive, client without gzip", encodedArchive{fakeArchive{[]byte("raw mvt"), ""}}, false, 200, "raw mvt"},
		{"plain Archive is gzip", fakeArchive{good, ""}, true, 200, "an mvt tile"},
		{"truncated gzip", encodedArchive{fakeArchive{truncated, "gzip"}}, true, 503, ""},
		{"corrupt gzip", encodedArchive{fakeArchive{corrupt, "gzip"}}, true, 503, ""},
		{"not gzip at all", encodedArchive{fakeArchive{[]byte("raw mvt"), "gzip"}}, false, 503, ""},
		{"plain Archive, not gzip", fakeArchive{[]byte("raw mvt"), ""}, true, 503, ""},
		{"unknown encoding", encodedArchive{fakeArchive{good, "br"}}, true, 503, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := tile.NewHandler(tile.Options{Archives: oneArchive{tc.a}})
			hdr := map[string]string{}
			if tc.gzipOK {
				hdr["Accept-Encoding"] = "gzip"
			}
			w := serve(t, h, "/tiles/energy/mineral_tenure/5/7/11.mvt?api_key=k", hdr)
			if w.Code != tc.code {
				t.Fatalf("status %d, want %d; body %s", w.Code, tc.code, w.Body)
			}
			cc, etag := w.Header().Get("Cache-Control"), w.Header().Get("ETag")
			if tc.code != 200 {
				if cc != "no-store" || etag != "" || !strings.Contains(w.Body.String(), `"code":"upstream_unavailable"`) {
					t.Errorf("Cache-Control %q, ETag %q, body %s; want no-store, no ETag, upstream_unavailable", cc, etag, w.Body)
				}
				return
			}
			if !strings.Contains(cc, "max-age") || etag == "" || w.Header().Get("Content-Type") != tile.ContentType {
				t.Errorf("headers %v; want a cacheable MVT with an ETag", w.Header())
			}
			body := w.Body.Bytes()
			switch enc := w.Header().Get("Content-Encoding"); {
			case tc.gzipOK && enc == "gzip":
				zr, err := gzip.NewReader(bytes.NewReader(body))
				if err != nil {
					t.Fatal(err)
				}
				if body, err = io.ReadAll(zr); err != nil {
					t.Fatal(err)
				}
			case !tc.gzipOK && enc == "":
			default:
				t.Fatalf("Content-Encoding %q with Accept-Encoding gzip %v", enc, tc.gzipOK)
			}
			if string(body) != tc.wantBody {
				t.Errorf("body %q, want %q", body, tc.wantBody)
			}
		})
	}
}

// BenchmarkArchiveTile serves one archive tile of about 24 KiB of MVT
// (a busy z14 energy tile) through the handler, gzip accepted: the cost of
// checking the gzip body before serving it is in this figure.
func BenchmarkArchiveTile(b *testing.B) {
	var raw strings.Builder
	for i := 0; raw.Len() < 24<<10; i++ {
		raw.WriteString("feature ")
		raw.WriteString(strings.Repeat(string(rune('a'+i%26)), i%40))
	}
	h := tile.NewHandler(tile.Options{Archives: oneArchive{encodedArchive{fakeArchive{gz(b, raw.String()), "gzip"}}}})
	for b.Loop() {
		if w := serve(b, h, "/tiles/energy/mineral_tenure/5/7/11.mvt?api_key=k", map[string]string{"Accept-Encoding": "gzip"}); w.Code != 200 {
			b.Fatal(w.Code)
		}
	}
}

// swapArchive answers every tile with *data, gzip: the test changes the
// bytes between requests.
type swapArchive struct{ data *[]byte }

func (a swapArchive) Tile(ctx context.Context, z uint8, x, y uint32) ([]byte, bool, error) {
	return *a.data, true, nil
}

func (a swapArchive) EncodedTile(ctx context.Context, z uint8, x, y uint32) ([]byte, string, bool, error) {
	return *a.data, "gzip", true, nil
}

// TestArchiveTileCheckedOnce: a tile whose gzip checked is not decompressed
// again when served again, but other bytes at the same address (another
// version's, or corrupt ones) are checked and refused; the ETag is the
// xxHash64 of the bytes served, in hex.
func TestArchiveTileCheckedOnce(t *testing.T) {
	good := gz(t, "an mvt tile, served twice")
	corrupt := bytes.Clone(good)
	corrupt[len(corrupt)-6] ^= 0xff
	data := good
	h := tile.NewHandler(tile.Options{Archives: oneArchive{swapArchive{&data}}})
	wantTag := `"` + hex.EncodeToString(binary.BigEndian.AppendUint64(nil, xxhash.Sum64(good))) + `"`
	const path = "/tiles/energy/mineral_tenure/5/7/11.mvt?api_key=k"
	for i, step := range []struct {
		data []byte
		code int
	}{{good, 200}, {good, 200}, {corrupt, 503}, {corrupt, 503}, {good, 200}} {
		data = step.data
		w := serve(t, h, path, map[string]string{"Accept-Encoding": "gzip"})
		if w.Code != step.code {
			t.Fatalf("request %d: %d, want %d", i, w.Code, step.code)
		}
		if step.code == 200 && (w.Header().Get("ETag") != wantTag || tile.ETag(good) != wantTag || !bytes.Equal(w.Body.Bytes(), good)) {
			t.Errorf("request %d: ETag %s (ETag() %s), want %s; body %d bytes", i, w.Header().Get("ETag"), tile.ETag(good), wantTag, w.Body.Len())
		}
		if step.code == 503 && w.Header().Get("Cache-Control") != "no-store" {
			t.Errorf("request %d: Cache-Control %q on a corrupt tile", i, w.Header().Get("Cache-Control"))
		}
	}
	// The Vary of a request with the key in a header adds X-API-Key; the
	// next request's Vary must not have kept it.
	data = good
	withKey := serve(t, h, "/tiles/energy/mineral_tenure/5/7/11.mvt", map[string]string{"Accept-Encoding": "gzip", "X-API-Key": "k"})
	plain := serve(t, h, path, map[string]string{"Accept-Encoding": "gzip"})
	if got := withKey.Header().Values("Vary"); len(got) != 2 || got[1] != "X-API-Key" {
		t.Errorf("Vary with the key in a header: %q", got)
	}
	if got := plain.Header().Values("Vary"); len(got) != 1 || got[0] != "Accept-Encoding" {
		t.Errorf("Vary of the next request: %q, want just Accept-Encoding", got)
	}
}
