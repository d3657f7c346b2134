package comparison

import (
	"fmt"
	"time"

	"github.com/s3lease/s3lease/faults"
	"github.com/s3lease/s3lease/harness"
	"github.com/s3lease/s3lease/harness/elector"
	"github.com/s3lease/s3lease/scenarios"
	"github.com/s3lease/s3lease/sim"
)

// Workload is what both sides of the comparison run: how many electors,
// for how long, with which settings, against which latencies, and how often
// a leader's application writes to the fenced resource.
type Workload struct {
	// Nodes is the number of electors; Duration how much (fake or
	// simulated) time a run lasts.
	Nodes    int
	Duration time.Duration
	// Bucket and Key name the lock object.
	Bucket, Key string
	// S3Request and S3Response are the latencies of the two legs of every
	// S3 request; FenceRequest and FenceResponse those of a fenced write.
	S3Request, S3Response       sim.Latency
	FenceRequest, FenceResponse sim.Latency
	// WriteInterval is how long a leader's application waits, on its
	// monotonic clock, after one fenced write is answered before it sends
	// the next.
	WriteInterval time.Duration
	// Elector holds the settings every elector's protocol.Config is built
	// with.
	Elector elector.Settings
}

// Reference returns the workload of the reference scenario
// (scenarios.Reference) without its faults: its world (nodes, duration,
// latencies, write interval) as harness.World builds it, and the settings
// of its candidate, elector.DefaultSettings.
func Reference() Workload {
	c := scenarios.Reference.Build(1).Config
	return Workload{
		Nodes:         c.Nodes,
		Duration:      c.Duration,
		Bucket:        c.Bucket,
		Key:           c.Key,
		S3Request:     c.S3Request,
		S3Response:    c.S3Response,
		FenceRequest:  c.FenceRequest,
		FenceResponse: c.FenceResponse,
		WriteInterval: c.WriteInterval,
		Elector:       elector.DefaultSettings,
	}
}

// SimSetup is the simulator's run for seed: scenarios.Reference.Build(seed)
// with its fault plan removed (no clock offsets or drift, no restarts),
// so that it runs the workload Reference describes. It fails if the
// reference scenario no longer matches w, which would make the comparison
// compare different work.
func (w Workload) SimSetup(seed uint64) (harness.Setup, error) {
	s := scenarios.Reference.Build(seed)
	s.Plan = &faults.Plan{}
	c := s.Config
	switch {
	case c.Nodes != w.Nodes, c.Duration != w.Duration, c.Bucket != w.Bucket, c.Key != w.Key,
		c.S3Request != w.S3Request, c.S3Response != w.S3Response,
		c.FenceRequest != w.FenceRequest, c.FenceResponse != w.FenceResponse,
		c.WriteInterval != w.WriteInterval:
		return s, fmt.Errorf("comparison: the reference scenario's world (%d nodes, %v, write every %v) is not the workload's (%d nodes, %v, write every %v)",
			c.Nodes, c.Duration, c.WriteInterval, w.Nodes, w.Duration, w.WriteInterval)
	case c.Clocks != nil, c.S3ClientTimeout != 0, c.S3Attempts > 1, c.S3ClockOffset != 0, c.Dialect != sim.DialectAWS, c.NewFence != nil:
		return s, fmt.Errorf("comparison: the reference scenario's world has clocks, client timeouts, retries, an S3 clock offset, a dialect or a fence the synctest side does not model")
	case w.Elector != elector.DefaultSettings,
		s.Protocol.Assumptions != w.electorProtocol().Assumptions,
		s.Protocol.LivenessBound != w.electorProtocol().LivenessBound:
		return s, fmt.Errorf("comparison: the workload's elector settings %+v are not the reference scenario's candidate's (elector.DefaultSettings %+v)",
			w.Elector, elector.DefaultSettings)
	}
	return s, nil
}

// electorProtocol is the elector with w's settings as the harness
// describes it: its assumptions, liveness bound and fencing tokens.
func (w Workload) electorProtocol() harness.Protocol { return elector.Protocol(w.Elector) }
