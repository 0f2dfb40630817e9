package gridstore

import (
	"context"
	"log/slog"
	"time"

	"meridian/shared/blob"
	"meridian/shared/gridstore/gridset"
	"meridian/shared/release"
	"meridian/shared/survey/gridindex"
)

// Grids are the grid indexes a warm function serves, kept in step with the
// release manifest: package gridset's mechanism, which the local server
// shares with a directory as its source.
type Grids = gridset.Grids

// Source says where a deployment's indexes are.
type Source struct {
	Indexes  blob.Store    // the index objects, usually behind a blob.Cached
	Manifest release.Store // the manifest, read past any cache (it changes in place)
	Names    []string      // the index file names to serve, in order of preference
	Where    string        // names the store in errors and logs ("s3://bucket/grid/")
	Recheck  time.Duration // how often the manifest is read again; <= 0: on every request
}

// New opens src's indexes, each at the content-addressed key the release
// manifest gives its name (or at the name, before manifests), and returns
// them as Grids that read the manifest again at most every src.Recheck. An
// error here is a cold start that fails: the function has nothing to
// serve.
func New(ctx context.Context, src Source, logger *slog.Logger) (*Grids, error) {
	return newAt(ctx, src, logger, time.Now)
}

// newAt is New with the clock that times the rechecks.
func newAt(ctx context.Context, src Source, logger *slog.Logger, now func() time.Time) (*Grids, error) {
	return gridset.New(ctx, gridset.Source{
		Indexes: src.Indexes,
		List: func(ctx context.Context) ([]gridset.Ref, error) {
			keys, err := resolve(ctx, src.Manifest, src.Names, src.Where)
			if err != nil {
				return nil, err
			}
			refs := make([]gridset.Ref, len(keys))
			for i, k := range keys {
				refs[i] = gridset.Ref{Key: k}
			}
			return refs, nil
		},
		Where:   src.Where,
		Recheck: src.Recheck,
		Now:     now,
	}, logger)
}

// Fixed returns Grids that serve ix and never change (tests, and functions
// without a grid bucket).
func Fixed(ix []*gridindex.Index) *Grids { return gridset.Fixed(ix) }
