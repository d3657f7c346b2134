package relaxedlog

import (
	"github.com/s3lease/s3lease/faults"
	"github.com/s3lease/s3lease/harness"
	"github.com/s3lease/s3lease/harness/elector"
	"github.com/s3lease/s3lease/linearizability"
	"github.com/s3lease/s3lease/protocol"
	"github.com/s3lease/s3lease/sim"
)

// Protocol is the design with configuration c as the harness runs and
// judges it, named name: every node runs a process (an elector per domain
// it wants, a writer, a closer, a reader), judged by the elector's
// assumptions and liveness bound on the first domain (whose terms the
// simulator's application leads), the elector's pace on that domain, and
// what holds of the lock objects and the bags whatever the faults
// (Config.AuditWrites). This is what harness.Check runs; the design's
// scenarios also record a Log of each run and judge it (Config.Audit).
func (c Config) Protocol(name string) harness.Protocol { return c.protocol(name, nil) }

// protocol is Protocol watched by w (nil: not watched).
func (c Config) protocol(name string, w *watch) harness.Protocol {
	s := c.Elector
	return harness.Protocol{
		Name:          name,
		Candidate:     c.candidate(w),
		Assumptions:   c.Assumptions(),
		LivenessBound: s.LivenessBound(),
		EncodeRecord:  s.EncodeRecord,
		Coverage:      elector.Coverage(),
		AuditWrites: func(h *sim.History, _ func(int) harness.Protocol) []linearizability.Violation {
			return c.AuditWrites(h)
		},
		Pace: func(h *sim.History, node int, clock sim.ClockModel) []linearizability.Violation {
			keys := c.lockObjects(h)
			if len(keys) == 0 {
				return nil
			}
			return s.Pace(onKey(h, keys[0]), node, clock)
		},
	}
}

// Assumptions are the elector's (protocol.Config.Assumptions), with wall
// clocks within MaxOffset of true time and steps of at most MaxOffset:
// the bound within which commits are not refused. The design's safety
// assumes nothing of wall clocks: outside the bound, bags refuse messages
// (a writer whose clock is behind writes into bags already closed, a
// closer whose clock is ahead closes bags still written), which a safe
// writer reports as not committed. Unlike the elector, the design needs
// S3's ETags to be the MD5s of the bodies (not OpaqueETags): a writer
// recognises its message, after an answer it did not get, by the MD5 of
// what it sent.
func (c Config) Assumptions() protocol.Assumptions {
	a := c.Elector.Assumptions()
	a.MaxOffset, a.MaxWallStep = c.MaxOffset, c.MaxOffset
	a.OpaqueETags = false
	return a
}

// Scenario is the scenario name of c: its runs are drawn by draw (from the
// seed and the stream of choices), with every write of the lock object by
// someone else left out of the plan (withoutForeign), and each run is
// recorded and its log judged (Config.Audit) besides the harness's
// checkers.
func (c Config) Scenario(name, doc string, expect harness.Expectation, draw func(seed uint64, src *faults.Source) harness.Setup) harness.Scenario {
	return c.scenario(name, doc, expect, draw).scenario()
}

// scenario is Scenario as a story without instruments.
func (c Config) scenario(name, doc string, expect harness.Expectation, draw func(seed uint64, src *faults.Source) harness.Setup) story {
	return c.story(name, doc, expect, func(seed uint64, src *faults.Source) (harness.Setup, watch) { return draw(seed, src), watch{} })
}

// observed is s with c's protocol named name watched by a recorder of its
// own, which each run's Config.Setup starts, and its log judged
// (Config.Audit), and by a story's instruments (w's stall and link); its
// plan without foreign writes (withoutForeign).
func (c Config) observed(name string, s harness.Setup, w watch) (harness.Setup, *Recorder) {
	s.Plan = withoutForeign(s.Plan)
	w.rec = NewRecorder(c)
	rec := w.rec
	s.Protocol = c.protocol(name, &w)
	prev := s.Config.Setup
	s.Config.Setup = func(w *sim.World) {
		if prev != nil {
			prev(w)
		}
		rec.Start(w)
	}
	s.Audit = func(res *sim.Result) []linearizability.Violation { return c.Audit(res.History, rec.Log()) }
	return s, rec
}

// Swarm is the swarm campaign of c as the scenario name (harness.Swarm's
// runs, recorded and judged as Scenario says).
func (c Config) Swarm(name, doc string, expect harness.Expectation) harness.Scenario {
	return c.swarm(name, doc, expect).scenario()
}

func (c Config) swarm(name, doc string, expect harness.Expectation) story {
	return c.scenario(name, doc, expect, harness.Swarm(name, c.Protocol(name)).Draw)
}

// withoutForeign is p without the writes of the lock object by someone
// else (deletes, overwrites, restores, content before the run that no
// elector could have written): the record carries the watermark, and a
// record that someone else wrote hands over one that no holder published
// (or none), as protocol's "Handing a watermark over" says, and may start
// the tokens again lower. The seed's lease service keeps its watermarks;
// the design does not defend against a lost one. p is not modified; nil
// stays nil.
func withoutForeign(p *faults.Plan) *faults.Plan {
	if p == nil {
		return nil
	}
	q := *p
	if q.Initial != nil && q.Initial.Foreign() {
		q.Initial = nil
	}
	q.Events = nil
	for _, e := range p.Events {
		switch e.Kind {
		case faults.DeleteLock, faults.Overwrite, faults.Restore, faults.RestoreOwn:
			continue
		}
		q.Events = append(q.Events, e)
	}
	return &q
}

// The swarm scenarios: the naive form, expected to be caught, and the safe
// form, judged as the production elector is and by the design's checkers.
var (
	SwarmNaive = Naive.Swarm("relaxedlog/naive",
		"The relaxed log of docs/sources.md#leases-over-a-blob-store on S3, with a writer that trusts the 200 answered to its message's create, under swarm plans: "+
			"a message that lands in a bag while it is being closed, after the closer's listing, is acknowledged and lost.",
		harness.Caught)
	SwarmSafe = Default.Swarm("relaxedlog/safe",
		"The relaxed log of docs/sources.md#leases-over-a-blob-store on S3, made safe (a writer checks for the prelock after its create and helps close, lock objects by create, "+
			"watermarks below expiry, the maximum over a lease set) under swarm plans, two domains with a lease each.",
		harness.Either)
)

// Naive is Default with a writer that trusts its acknowledgement.
var Naive = func() Config {
	c := Default
	c.Variant = Variant{TrustAck: true}
	return c
}()

// Scenarios is every scenario of the design, for a program's simrun.Main:
// the naive and the safe form under swarm plans, then the stories of the
// essay's sad paths.
func Scenarios() []harness.Scenario {
	return append([]harness.Scenario{SwarmNaive, SwarmSafe}, stories()...)
}
