//go:build !linux

package awsemu

import "os/exec"

// DieWithParent does nothing off Linux: the processes are killed on a
// normal end only.
func DieWithParent(*exec.Cmd) {}
