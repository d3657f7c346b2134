package main

import (
	"bytes"
	"errors"
	"fmt"
	"time"

	"github.com/s3lease/s3lease/harness"
	"github.com/s3lease/s3lease/internal/cmdline"
	"github.com/s3lease/s3lease/internal/htmlreport"
	"github.com/s3lease/s3lease/internal/live"
	"github.com/s3lease/s3lease/internal/schema"
	"github.com/s3lease/s3lease/simrun"
)

const liveUsage = `usage:
  simrun live [-duration D] [-nodes N] [-faults=false] [-restart-every D] [-seed S]
              [-endpoint URL -bucket B [-create-bucket]] [-json] [-html FILE]

Runs N production electors for real: the real aws-sdk-go-v2 client, real
time, and a real S3 endpoint, through a fault-injecting proxy on loopback
(latency, 409/500/503 answers, answers dropped after the write applied,
connections cut), and judges the recorded history with the simulator's
checkers (linearizability of the S3 history, one holder per token,
increasing tokens, fencing, no overlap of leaders, a leader at the end).
By default the endpoint is an embedded gofakes3 server on loopback, so it
runs with nothing set up; -endpoint names any other (MinIO, LocalStack,
versitygw, AWS), with credentials from AWS_ACCESS_KEY_ID,
AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN and the region from AWS_REGION.
Credentials are never printed or recorded. A live run is not
deterministic; only the proxy's fault draw is seeded.

Exit status: the verdict's (0 pass, 1 unsafe, 3 liveness), 2 for bad usage.

flags:
`

// liveTool is `simrun live`.
var liveTool = simrun.Tool{Name: "live", Run: runLive,
	Usage: "simrun live   [-duration D] [-nodes N] [-faults=false] [-endpoint URL -bucket B] [-json] [-html FILE]"}

// runLive runs `simrun live`.
func runLive(env simrun.Env, args []string) (int, error) {
	stdout := env.Stdout
	fs := cmdline.NewFlagsUsage("live", env.Stderr, liveUsage)
	duration := fs.Duration("duration", 10*time.Second, "how long the electors run")
	nodes := fs.Int("nodes", 3, "number of electors")
	withFaults := fs.Bool("faults", true, "inject the proxy's default fault mix")
	restart := fs.Duration("restart-every", 3*time.Second, "stop or crash the leader of the moment at this interval (0: never)")
	seed := fs.Uint64("seed", 1, "seed of the proxy's fault draws")
	endpoint := fs.String("endpoint", "", "S3 endpoint `URL` (default: an embedded gofakes3 on loopback)")
	bucket := fs.String("bucket", "", "the bucket of the lock object (with -endpoint)")
	createBucket := fs.Bool("create-bucket", false, "create -bucket at -endpoint first")
	asJSON := fs.Bool("json", false, "print the run and its verdicts as JSON")
	page := fs.String("html", "", "write the run's page to `FILE` (atomically)")
	if err := cmdline.Parse(fs, args); err != nil {
		return 0, err
	}
	switch {
	case *nodes < 1:
		return 0, fmt.Errorf("%w: -nodes must be at least 1, got %d", simrun.ErrUsage, *nodes)
	case *duration <= 0:
		return 0, fmt.Errorf("%w: -duration must be positive, got %v", simrun.ErrUsage, *duration)
	case *restart < 0:
		return 0, fmt.Errorf("%w: -restart-every must not be negative, got %v", simrun.ErrUsage, *restart)
	case *endpoint != "" && *bucket == "":
		return 0, fmt.Errorf("%w: -endpoint needs -bucket", simrun.ErrUsage)
	}
	if err := cmdline.CheckOutputDir(*page); err != nil {
		return 0, fmt.Errorf("%w: -html: %v", simrun.ErrUsage, err)
	}
	cfg := live.Config{Nodes: *nodes, Duration: *duration, Seed: *seed, Endpoint: *endpoint, Bucket: *bucket,
		CreateBucket: *createBucket, RestartLeaderEvery: *restart}
	if *withFaults {
		cfg.Faults = live.DefaultFaults()
	}
	ctx, caught := cmdline.StopOnSignal()
	defer caught.Release()
	res, err := live.Run(ctx, cfg)
	if errors.Is(err, live.ErrInvalidConfig) {
		return 0, fmt.Errorf("%w: %v", simrun.ErrUsage, err)
	}
	if res == nil {
		return 0, err
	}
	if err != nil {
		fmt.Fprintf(env.Stderr, "simrun: live: %v\n", err)
	}
	if *asJSON {
		if err := schema.Write(stdout, res); err != nil {
			return 0, err
		}
	} else if err := res.WriteText(stdout); err != nil {
		return 0, err
	}
	if *page != "" {
		var buf bytes.Buffer
		o := res.Outcome()
		replay := harness.Repro{Program: env.Program, Verb: "live", Flags: args}.Command()
		if err := htmlreport.WriteOptions(&buf, fmt.Sprintf("live run against %s: %s", res.Target, res.Verdict), o, htmlreport.Options{Replay: replay}); err != nil {
			return 0, err
		}
		if err := harness.WriteFileAtomic(*page, buf.Bytes()); err != nil {
			return 0, fmt.Errorf("-html: %w", err)
		}
	}
	if sig := caught.Caught(); sig != nil {
		return cmdline.SignalStatus(sig), nil
	}
	return res.Verdict.ExitCode(), nil
}
