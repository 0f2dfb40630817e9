package gridstore

import (
	"context"
	"log/slog"
	"time"
)

// NewAt is New with a clock for the rechecks (tests move it by hand).
func NewAt(ctx context.Context, src Source, logger *slog.Logger, now func() time.Time) (*Grids, error) {
	return newAt(ctx, src, logger, now)
}
