package demo

// Rand is the generators' pseudo-random source: SplitMix64, a few lines
// whose streams never change (math/rand promises no stream across Go
// releases), so a generator writes the same bytes for the same seed
// forever, and each value can be derived from its own key.
type Rand struct{ s uint64 }

// NewRand returns the stream seeded with seed.
func NewRand(seed uint64) *Rand { return &Rand{s: seed} }

// Mix64 is one SplitMix64 step from state z: the value a Rand seeded with
// z gives first. It also hashes a number into a seed.
func Mix64(z uint64) uint64 {
	z += 0x9e3779b97f4a7c15
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// Next returns the next 64 random bits.
func (r *Rand) Next() uint64 {
	v := Mix64(r.s)
	r.s += 0x9e3779b97f4a7c15
	return v
}

// Fold folds v into the state and steps once: a stream derived from
// several numbers in turn.
func (r *Rand) Fold(v uint64) {
	r.s = r.s*0x100000001b3 ^ v
	r.Next()
}

// Intn returns a number in [0, n).
func (r *Rand) Intn(n int) int { return int(r.Next() % uint64(n)) }

// Float returns a number in [0, 1).
func (r *Rand) Float() float64 { return float64(r.Next()>>11) / (1 << 53) }

// Between returns a number in [lo, hi).
func (r *Rand) Between(lo, hi float64) float64 {
	return lo + (hi-lo)*float64(r.Next()>>11)/(1<<53)
}
