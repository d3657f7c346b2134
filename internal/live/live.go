package live

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/s3lease/s3lease/internal/schema"
	"github.com/s3lease/s3lease/sim"
)

// ErrElectorsDidNotStop is wrapped by the error Run returns when an elector
// had not returned StopTimeout after the run ended. The Result is complete
// all the same: the history was closed at the end of the run.
var ErrElectorsDidNotStop = errors.New("live: electors did not stop")

// Result is a judged live run.
type Result struct {
	// Header begins the result's JSON document (command live).
	schema.Header
	// Target names the store the run talked to (never its credentials).
	Target string `json:"target"`
	// Bucket and Key name the lock object; Keys are every key the run
	// elected on (Key, and those of creation races), in order of first use.
	Bucket string   `json:"bucket"`
	Key    string   `json:"key"`
	Keys   []string `json:"keys"`
	// Seed seeded the fault draws.
	Seed uint64 `json:"seed"`
	// Faults are the fault probabilities the proxy drew from.
	Faults Faults `json:"faultConfig"`
	// Started is the wall-clock time at which the run's time 0 was taken.
	Started time.Time `json:"started"`

	// History is the run as the simulator's checkers see it, in real
	// time since Started. Encode it with encoding/json for the same
	// document a simulated run's history gives.
	History *sim.History `json:"history"`
	// Size counts the history.
	Size Size `json:"size"`
	// Proxy is what passed through the proxy, and the faults it injected.
	Proxy ProxyStats `json:"proxy"`

	// Checks holds one verdict per checker, in a fixed order:
	// unique-holder, monotonic-tokens, fencing, overlap, s3-linearizable,
	// torn-reads, liveness.
	Checks []Check `json:"checks"`
	// Overlaps are the intervals in which two nodes both led.
	Overlaps []Overlap `json:"overlaps,omitempty"`
	// S3 is the porcupine check of History.S3.
	S3 S3Check `json:"s3"`
	// Verdict sums the checks up as the harness does.
	Verdict Verdict `json:"verdict"`
	// Violations are the violations that decided the verdict.
	Violations []Violation `json:"violations,omitempty"`

	// Phases says what each phase of the run exercised, in order.
	Phases []PhaseStats `json:"phases"`
	// Restarts is the number of electors restarted, by the rounds of
	// simultaneous starts and by Config.RestartLeaderEvery. Each appears
	// in History.Faults as a "stop" (a leader among them released its
	// lease) or a "crash" (it could not), then a "restart".
	Restarts int `json:"restarts,omitempty"`

	// ElectorErrors lists what electors' Run returned other than the
	// cancellation that ends every run.
	ElectorErrors []string `json:"electorErrors,omitempty"`
}

// Size counts a history.
type Size struct {
	// S3Ops is the number of S3 requests (HTTP attempts) recorded;
	// Unanswered how many of them got no answer (their outcome is
	// unknown), Failed how many were answered 409 or 5xx.
	S3Ops      int `json:"s3Ops"`
	Unanswered int `json:"unanswered"`
	Failed     int `json:"failed"`
	// Terms is the number of leadership terms, Tokens the number of
	// distinct tokens among them.
	Terms  int `json:"terms"`
	Tokens int `json:"tokens"`
	// FencedWrites is the number of writes to the fenced resource,
	// Accepted how many it accepted.
	FencedWrites int `json:"fencedWrites"`
	Accepted     int `json:"accepted"`
}

// Run runs cfg.Nodes production electors (protocol.NewElector with
// protocol.RealClock and a real *s3.Client each) against the store for
// cfg.Duration, through the fault-injecting proxy, records the history and
// judges it. If ctx ends first, the run ends then, and Run returns the
// judged result together with ctx's error. A Config it cannot run is an
// error wrapping ErrInvalidConfig; a failure to set up the store or the
// proxy is returned without a result.
func Run(ctx context.Context, cfg Config) (*Result, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	tgt, err := startTarget(cfg)
	if err != nil {
		return nil, err
	}
	defer tgt.close()
	direct := tgt.client(cfg, 0, nil)
	if tgt.embedded || cfg.CreateBucket {
		if err := tgt.createBucket(ctx, direct, cfg.Bucket); err != nil {
			return nil, err
		}
	}
	px, err := startProxy(tgt.urls, cfg.Faults, cfg.Seed, log)
	if err != nil {
		return nil, err
	}
	defer px.close()

	c := newCluster(cfg, log, tgt, px)
	defer c.stopAll()
	c.res = &Result{Header: schema.NewHeader(schema.CommandLive), Target: tgt.desc, Bucket: cfg.Bucket, Key: cfg.Key, Seed: cfg.Seed, Faults: cfg.Faults}
	c.start()
	c.run(ctx)
	h := c.rec.stop()
	c.res.History = h
	c.res.Proxy = px.freeze(h.End)
	stopErr := c.stop()
	if !tgt.embedded && !cfg.KeepObject && stopErr == nil {
		for _, key := range c.res.Keys {
			dctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			if _, err := direct.DeleteObject(dctx, &s3.DeleteObjectInput{Bucket: aws.String(cfg.Bucket), Key: aws.String(key)}); err != nil {
				log.Warn("live: could not delete a lock object after the run", "bucket", cfg.Bucket, "key", key, "err", err)
			}
			cancel()
		}
	}
	for i := range c.res.Phases {
		c.res.Phases[i].count(h)
	}
	judge(c.res, cfg)
	if stopErr == nil {
		stopErr = ctx.Err()
	}
	return c.res, stopErr
}
