package main

import (
	"io"

	"github.com/s3lease/s3lease/simrun"
)

// Exit statuses the tests expect.
const (
	exitOK    = 0
	exitUsage = 2
)

// run runs the project's simrun with args.
func run(args []string, stdout, stderr io.Writer) int {
	return simrun.Run(args, stdout, stderr, options()...)
}
