//go:build unix

package mutation

import (
	"os/exec"
	"syscall"
)

// killGroup makes cmd start its own process group and makes the end of its
// context kill the whole group: go test and go build leave children (test
// binaries, compilers) that killing the go command alone would orphan.
func killGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error {
		if cmd.Process == nil {
			return nil
		}
		return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}
