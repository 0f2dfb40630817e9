package agingest

// CheckSweepRasters is checkSweepRasters for the external tests, which
// can write its input with the generator (demo/agdemo).
var CheckSweepRasters = checkSweepRasters
