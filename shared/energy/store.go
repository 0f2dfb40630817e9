package energy

import (
	"context"
	"encoding/json"
	"fmt"

	"meridian/shared/apierr"
	"meridian/shared/kv"
)

// Reads of the energy dataset that the report and the endpoints of package
// energyapi share.

// Open returns the published energy dataset: 503 while none is.
func Open(ctx context.Context, store kv.Store) (kv.Dataset, error) {
	ds, ok, err := kv.Open(ctx, store, Dataset)
	if err != nil {
		return ds, err
	}
	if !ok {
		return ds, apierr.Unavailablef(nil, "energy data is not loaded yet")
	}
	return ds, nil
}

// ReadOperatorInfo reads the INFO item of the operator with BA code ba.
func ReadOperatorInfo(ctx context.Context, ds kv.Dataset, ba string) (OperatorInfo, bool, error) {
	var info OperatorInfo
	it, ok, err := ds.Get(ctx, OperatorKey(ba), SKInfo)
	if err != nil || !ok {
		return info, ok, err
	}
	return info, true, json.Unmarshal(it.Data, &info)
}

// DecodeRows decodes the JSON of items into rows of T.
func DecodeRows[T any](items []kv.Item) ([]T, error) {
	out := make([]T, len(items))
	for i, it := range items {
		if err := json.Unmarshal(it.Data, &out[i]); err != nil {
			return nil, fmt.Errorf("energy: decode %s %s: %w", it.PK, it.SK, err)
		}
	}
	return out, nil
}
