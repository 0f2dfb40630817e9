//go:build !unix

package datafetch

// Lock does nothing where flock does not exist: run one fetch at a time.
func (f *Fetcher) Lock() (unlock func(), err error) { return func() {}, nil }
