//go:build !unix

package main

import "os"

// maxRSS is unknown here: the scale test reports 0.
func maxRSS(*os.ProcessState) int64 { return 0 }
