//go:build !unix

package mutation

import "os/exec"

// killGroup leaves cmd as it is: the end of its context kills the process
// alone.
func killGroup(cmd *exec.Cmd) {}

// limitMemory returns the command as it is: no bound is set here.
func limitMemory(bytes int64, name string, args []string) (string, []string) { return name, args }
