package main

import (
	"os/exec"
	"syscall"
)

// dieWithParent has the kernel kill cmd when this process ends, however it
// ends: no emulator or runtime outlives a killed benchmark.
func dieWithParent(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
