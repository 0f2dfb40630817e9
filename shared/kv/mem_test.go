package kv_test

import (
	"testing"

	"meridian/shared/kv"
	"meridian/shared/kv/kvtest"
)

func TestMemContract(t *testing.T) {
	kvtest.Run(t, func(t *testing.T) kv.Store { return kv.NewMem() })
}
