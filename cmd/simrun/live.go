package main

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/s3lease/s3lease/harness"
	"github.com/s3lease/s3lease/internal/cmdline"
	"github.com/s3lease/s3lease/internal/htmlreport"
	"github.com/s3lease/s3lease/internal/live"
	"github.com/s3lease/s3lease/internal/schema"
	"github.com/s3lease/s3lease/simrun"
)

const liveUsage = `usage:
  simrun live [-duration D] [-nodes N] [-phases LIST] [-faults=false] [-restart-every D] [-seed S]
              [-endpoint URL[,URL...] -bucket B [-create-bucket]] [-json] [-html FILE]

Runs N production electors for real: the real aws-sdk-go-v2 client, real
time, and a real S3 endpoint, through a fault-injecting proxy on loopback,
and judges the recorded history with the simulator's checkers
(linearizability of the S3 history, one holder per token, increasing
tokens, fencing, no overlap of leaders, reads that are not torn, a leader at
the end).

By default the run stresses the store's conditional semantics in phases:
creation races (every elector starts at once on a fresh key), restart races
(every elector stops and starts again at once, racing to take the released
lease over), takeovers after crashes (the leader crashes, every elector
starts again at once and they race to take the abandoned lease over a lease
later), and renewals under contention (the proxy's faults: latency,
409/500/503 answers, answers dropped after the write applied, connections
cut). -phases names others, in order, sharing the duration equally;
"steady" is the proxy's faults with the leader restarted every
-restart-every. The output says what each phase exercised: creation races,
contested If-Match writes, reads racing a write, torn reads.

By default the endpoint is an embedded gofakes3 server on loopback, so it
runs with nothing set up; -endpoint names any other (MinIO, LocalStack,
versitygw, AWS), or several gateways of one store (comma-separated or
repeated), over which the electors are spread as a multi-gateway deployment
runs them; credentials come from AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY,
AWS_SESSION_TOKEN and the region from AWS_REGION. Credentials are never
printed or recorded. A live run is not deterministic; only the proxy's
fault draw is seeded.

Exit status: the verdict's (0 pass, 1 unsafe, 3 liveness), 2 for bad usage.

flags:
`

// liveTool is `simrun live`.
var liveTool = simrun.Tool{Name: "live", Run: runLive,
	Usage: "simrun live   [-duration D] [-nodes N] [-phases LIST] [-faults=false] [-endpoint URL[,URL]] [-bucket B] [-json] [-html FILE]"}

// endpointList is a flag that collects URLs, comma-separated or repeated.
type endpointList []string

func (l *endpointList) String() string { return strings.Join(*l, ",") }

func (l *endpointList) Set(v string) error {
	for _, e := range strings.Split(v, ",") {
		if e = strings.TrimSpace(e); e == "" {
			return errors.New("empty endpoint")
		}
		*l = append(*l, strings.TrimSpace(e))
	}
	return nil
}

// livePhases is the schedule -phases names within d: none (live's
// default) if list is empty, else the named phases sharing d equally.
func livePhases(list string, d time.Duration) ([]live.Phase, error) {
	if list == "" {
		return nil, nil
	}
	names := strings.Split(list, ",")
	out := make([]live.Phase, 0, len(names))
	var given time.Duration
	for i, name := range names {
		k, err := live.ParsePhaseKind(strings.TrimSpace(name))
		if err != nil {
			return nil, err
		}
		p := d / time.Duration(len(names))
		if i == len(names)-1 {
			p = d - given
		}
		given += p
		out = append(out, live.Phase{Kind: k, Duration: p})
	}
	return out, nil
}

// runLive runs `simrun live`.
func runLive(env simrun.Env, args []string) (int, error) {
	stdout := env.Stdout
	fs := cmdline.NewFlagsUsage("live", env.Stderr, liveUsage)
	duration := fs.Duration("duration", live.DefaultDuration, "how long the electors run, all phases together")
	nodes := fs.Int("nodes", 3, "number of electors")
	phases := fs.String("phases", "", "the phases to run, comma-separated, in order (default: creation-races,restart-races,crash-takeovers,contention)")
	withFaults := fs.Bool("faults", true, "inject the proxy's default fault mix (in the contention and steady phases)")
	restart := fs.Duration("restart-every", 3*time.Second, "in a steady phase, stop or crash the leader of the moment at this interval (0: never)")
	seed := fs.Uint64("seed", 1, "seed of the proxy's fault draws")
	var endpoints endpointList
	fs.Var(&endpoints, "endpoint", "S3 endpoint `URL`; several (comma-separated or repeated) spread the electors over gateways of one store (default: an embedded gofakes3 on loopback)")
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
	case len(endpoints) > 0 && *bucket == "":
		return 0, fmt.Errorf("%w: -endpoint needs -bucket", simrun.ErrUsage)
	}
	if err := cmdline.CheckOutputDir(*page); err != nil {
		return 0, fmt.Errorf("%w: -html: %v", simrun.ErrUsage, err)
	}
	sched, err := livePhases(*phases, *duration)
	if err != nil {
		return 0, fmt.Errorf("%w: -phases: %v", simrun.ErrUsage, err)
	}
	cfg := live.Config{Nodes: *nodes, Duration: *duration, Phases: sched, Seed: *seed, Endpoints: endpoints, Bucket: *bucket,
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
