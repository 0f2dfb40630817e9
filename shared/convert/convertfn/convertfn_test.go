package convertfn_test

import (
	"strings"
	"testing"
	"time"

	"meridian/shared/convert/convertfn"
)

func TestLoadConfig(t *testing.T) {
	t.Parallel()
	if _, err := convertfn.LoadConfig(func(string) string { return "" }); err != nil {
		t.Errorf("empty environment: %v", err)
	}
	vars := map[string]string{"LOG_LEVEL": "loud", "GRID_BUCKET": "grids", "GRID_CACHE_MIB": "0", "GRID_RECHECK_SECONDS": "0"}
	_, err := convertfn.LoadConfig(func(k string) string { return vars[k] })
	for _, name := range []string{"LOG_LEVEL", "GRID_INDEXES", "GRID_CACHE_MIB", "GRID_RECHECK_SECONDS"} {
		if err == nil || !strings.Contains(err.Error(), name) {
			t.Errorf("error %v does not name %s", err, name)
		}
	}
	cfg, err := convertfn.LoadConfig(func(k string) string {
		return map[string]string{"GRID_BUCKET": "grids", "GRID_INDEXES": "a.mgix, b.mgix"}[k]
	})
	if err != nil || cfg.Grid.Bucket != "grids" || strings.Join(cfg.Grid.Indexes, "|") != "a.mgix|b.mgix" || cfg.Grid.Prefix != "grid/" || cfg.Grid.Recheck != 300*time.Second {
		t.Errorf("LoadConfig = %+v, %v", cfg, err)
	}
}
