package main

import (
	"github.com/s3lease/s3lease/internal/mutation"
	"github.com/s3lease/s3lease/simrun"
)

// mutateTool is `simrun mutate`, with its own flags, exit statuses and
// messages (package mutation).
var mutateTool = simrun.Tool{Name: "mutate",
	Usage: "simrun mutate [-seeds N] [-tests=false] [-sample K/M] [-only IDS] [-o REPORT] [-json] [-list]",
	Run: func(env simrun.Env, args []string) (int, error) {
		return mutation.Main(args, env.Stdout, env.Stderr), nil
	}}
