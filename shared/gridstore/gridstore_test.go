package gridstore_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"testing"

	"github.com/aws/smithy-go"

	"meridian/shared/blob"
	"meridian/shared/gridstore"
	"meridian/shared/release"
)

// OpenIndexes resolves names through the release manifest when there is
// one, and reads the names themselves when there is none. (Opening real
// indexes through a manifest is tested with `meridian-publish`, in
// functions/local.)
func TestOpenIndexesResolves(t *testing.T) {
	ctx := context.Background()
	store := blob.NewMem()
	_, err := gridstore.OpenIndexes(ctx, store, []string{"a.mgix"}, "mem:")
	if !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("no manifest, no object: %v; want fs.ErrNotExist for a.mgix", err)
	}
	store.Put(ctx, release.ManifestKey, bytes.NewReader([]byte(`{"files":{"b.mgix":{"key":"v/00/b.mgix","size":1}}}`)))
	if _, err := gridstore.OpenIndexes(ctx, store, []string{"a.mgix"}, "mem:"); err == nil || !strings.Contains(err.Error(), "does not name a.mgix") {
		t.Errorf("manifest without the index: %v; want an error naming it", err)
	}
	_, err = gridstore.OpenIndexes(ctx, store, []string{"b.mgix"}, "mem:")
	if !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), "v/00/b.mgix") {
		t.Errorf("manifest naming a missing object: %v; want fs.ErrNotExist at v/00/b.mgix", err)
	}
	store.Put(ctx, release.ManifestKey, bytes.NewReader([]byte(`{"files":`)))
	if _, err := gridstore.OpenIndexes(ctx, store, []string{"b.mgix"}, "mem:"); !errors.Is(err, release.ErrCorrupt) {
		t.Errorf("corrupt manifest: %v; want release.ErrCorrupt", err)
	}
}

// failManifest answers reads of the manifest with err.
type failManifest struct {
	*blob.Mem
	err error
}

func (f failManifest) ReadRange(ctx context.Context, key string, off, n int64) ([]byte, error) {
	if key == release.ManifestKey {
		return nil, fmt.Errorf("blob: read %s: %w", key, f.err)
	}
	return f.Mem.ReadRange(ctx, key, off, n)
}

// S3's 403 for a missing manifest (no s3:ListBucket) reads as no
// manifest: the names are opened. Any other failure is an error.
func TestOpenIndexesManifestDenied(t *testing.T) {
	ctx := context.Background()
	denied := failManifest{blob.NewMem(), &smithy.GenericAPIError{Code: "AccessDenied", Message: "Access Denied"}}
	_, err := gridstore.OpenIndexes(ctx, denied, []string{"a.mgix"}, "mem:")
	if !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), "a.mgix") {
		t.Errorf("manifest denied: %v; want the names opened (fs.ErrNotExist for a.mgix)", err)
	}
	down := failManifest{blob.NewMem(), blob.ErrUnavailable}
	if _, err := gridstore.OpenIndexes(ctx, down, []string{"a.mgix"}, "mem:"); !errors.Is(err, blob.ErrUnavailable) {
		t.Errorf("manifest unavailable: %v; want blob.ErrUnavailable", err)
	}
}
