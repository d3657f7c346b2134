package simrun

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/s3lease/s3lease/harness"
	"github.com/s3lease/s3lease/internal/htmlreport"
	"github.com/s3lease/s3lease/internal/live"
	"github.com/s3lease/s3lease/internal/schema"
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

// cmdLive runs `simrun live`.
func cmdLive(args []string, stdout, stderr io.Writer) (int, error) {
	fs := newFlags("live", stderr)
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
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), liveUsage)
		fs.PrintDefaults()
	}
	if err := parse(fs, args); err != nil {
		return 0, err
	}
	switch {
	case *nodes < 1:
		return 0, fmt.Errorf("%w: -nodes must be at least 1, got %d", errUsage, *nodes)
	case *duration <= 0:
		return 0, fmt.Errorf("%w: -duration must be positive, got %v", errUsage, *duration)
	case *restart < 0:
		return 0, fmt.Errorf("%w: -restart-every must not be negative, got %v", errUsage, *restart)
	case *endpoint != "" && *bucket == "":
		return 0, fmt.Errorf("%w: -endpoint needs -bucket", errUsage)
	}
	if err := checkOutputDir(*page); err != nil {
		return 0, fmt.Errorf("%w: -html: %v", errUsage, err)
	}
	cfg := live.Config{Nodes: *nodes, Duration: *duration, Seed: *seed, Endpoint: *endpoint, Bucket: *bucket,
		CreateBucket: *createBucket, RestartLeaderEvery: *restart}
	if *withFaults {
		cfg.Faults = live.DefaultFaults()
	}
	ctx, caught := stopOnSignal()
	defer caught.release()
	res, err := live.Run(ctx, cfg)
	if errors.Is(err, live.ErrInvalidConfig) {
		return 0, fmt.Errorf("%w: %v", errUsage, err)
	}
	if res == nil {
		return 0, err
	}
	if err != nil {
		fmt.Fprintf(stderr, "simrun: live: %v\n", err)
	}
	if *asJSON {
		if err := writeLiveJSON(stdout, res); err != nil {
			return 0, err
		}
	} else if err := res.WriteText(stdout); err != nil {
		return 0, err
	}
	if *page != "" {
		var buf bytes.Buffer
		o := res.Outcome()
		replay := harness.Command() + " live " + strings.Join(args, " ")
		if err := htmlreport.WriteOptions(&buf, fmt.Sprintf("live run against %s: %s", res.Target, res.Verdict), o, htmlreport.Options{Replay: replay}); err != nil {
			return 0, err
		}
		if err := harness.WriteFileAtomic(*page, buf.Bytes()); err != nil {
			return 0, fmt.Errorf("-html: %w", err)
		}
	}
	if sig := caught.signal(); sig != nil {
		return signalStatus(sig), nil
	}
	return res.Verdict.ExitCode(), nil
}

// writeLiveJSON prints a live run as a document of the schema: the header,
// then the run's own fields (live.Result's encoding).
func writeLiveJSON(w io.Writer, res *live.Result) error {
	body, err := json.Marshal(res)
	if err != nil {
		return err
	}
	head, err := json.Marshal(schema.NewHeader(schema.CommandLive))
	if err != nil {
		return err
	}
	var doc bytes.Buffer
	doc.Write(head[:len(head)-1])
	doc.WriteByte(',')
	doc.Write(body[1:])
	var out bytes.Buffer
	if err := json.Indent(&out, doc.Bytes(), "", "  "); err != nil {
		return err
	}
	out.WriteByte('\n')
	_, err = w.Write(out.Bytes())
	return err
}
