//go:build !unix

package atomicfile

// Lock does nothing where flock does not exist: run one writer at a time.
func Lock(path string) (unlock func(), err error) { return func() {}, nil }
