package awsemu

import (
	"os/exec"
	"syscall"
)

// DieWithParent has the kernel kill cmd when this process ends, however it
// ends: no emulator, server or runtime outlives a killed run.
func DieWithParent(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
