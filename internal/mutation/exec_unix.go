//go:build unix

package mutation

import (
	"os/exec"
	"strconv"
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

// limitMemory returns the command that runs name with args under a bound
// of bytes on its data segment (which counts the anonymous memory a Go
// heap maps): sh's ulimit -d, then exec. 0 bytes is no bound.
func limitMemory(bytes int64, name string, args []string) (string, []string) {
	if bytes <= 0 {
		return name, args
	}
	script := "ulimit -d " + strconv.FormatInt(bytes/1024, 10) + ` && exec "$0" "$@"`
	return "sh", append([]string{"-c", script, name}, args...)
}
