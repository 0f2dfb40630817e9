package reportfn_test

import (
	"log/slog"
	"strings"
	"testing"

	"meridian/shared/reportfn"
)

func TestLoadConfig(t *testing.T) {
	t.Parallel()
	_, err := reportfn.LoadConfig(func(k string) string {
		return map[string]string{"LOG_LEVEL": "loud", "GRID_BUCKET": "grids"}[k]
	})
	for _, name := range []string{"LOG_LEVEL", "REPORTS_TABLE", "GRID_INDEXES"} {
		if err == nil || !strings.Contains(err.Error(), name) {
			t.Errorf("error %v does not name %s", err, name)
		}
	}
	c, err := reportfn.LoadConfig(func(k string) string { return map[string]string{"REPORTS_TABLE": "reports"}[k] })
	if err != nil || c.Table != "reports" || c.LogLevel != slog.LevelInfo || c.Grid.Bucket != "" {
		t.Errorf("LoadConfig = %+v, %v", c, err)
	}
}
