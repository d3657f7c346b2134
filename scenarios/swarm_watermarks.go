package scenarios

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/s3lease/s3lease/faults"
	"github.com/s3lease/s3lease/harness"
	"github.com/s3lease/s3lease/harness/elector"
	"github.com/s3lease/s3lease/linearizability"
	"github.com/s3lease/s3lease/protocol"
	"github.com/s3lease/s3lease/sim"
)

// The swarm's watermark application: on one seed in eight, every node's
// application also uses the elector's watermark hand-off (seed 003) the way
// protocol.Elector.SetWatermark documents it, while the swarm's faults run
// as drawn, and the run is judged by two more checkers: the watermark
// checker (linearizability.CheckWatermarks: no entry at or below a
// predecessor's watermark, none above its own published one), and the
// watermark API's contract as the application saw it (RuleWatermarkAPI).

// RuleWatermarkAPI is the rule of the watermark checker's violations that
// break the watermark API's contract as the swarm's application saw it:
// SetWatermark or PublishedWatermark refusing the token of a term that
// Lease still reports; SetWatermark accepting, or refusing as anything but
// ErrInvalidWatermark, updates longer than MaxUpdatesLen or not UTF-8, or a
// time past the year 9999; a term's
// published watermark below the one it was handed, or going down. They
// are excused by a write of the lock object by someone else while the
// term ran (it replaced the record the published watermark is read from)
// or of the record the term took over.
const RuleWatermarkAPI = "api-contract"

// maxUpdatesLen is protocol.MaxUpdatesLen as its documentation states it
// (a test holds them equal): the application keeps to the published limit,
// so that an elector that drifts from it is seen to.
const maxUpdatesLen = 1024

// swarmWatermarks is the application's draw for a seed: how often it
// publishes, how far ahead, and the updates it names.
type swarmWatermarks struct {
	every, ahead time.Duration
	updates      func(node int) string
}

// drawWatermarks draws the watermark application of a seed, from a
// sub-stream of the seed's own (the application is the world's, not the
// plan's: a reproducer of the seed runs it whatever its plan): none on
// seven seeds in eight (it costs: records that carry updates which JSON
// must escape take the elector's codec off its fast path, and the judge
// reads every record the nodes wrote with encoding/json).
func drawWatermarks(seed uint64) *swarmWatermarks {
	c := faults.NewSource(seed).Sub("watermark-application")
	pick := c.Pick
	if !c.OneIn(8) {
		return nil
	}
	every := time.Duration(100+pick(901)) * time.Millisecond
	d := &swarmWatermarks{every: every, ahead: every + time.Duration(pick(3001))*time.Millisecond}
	switch pick(3) {
	case 0:
		d.updates = func(node int) string { return fmt.Sprintf("log/entries-%d", node) }
	case 1:
		// Exactly MaxUpdatesLen bytes, ending in a character of two.
		d.updates = func(node int) string {
			head := fmt.Sprintf("log/%d/", node)
			return head + strings.Repeat("u", maxUpdatesLen-len(head)-2) + "é"
		}
	default:
		// A few hundred bytes that JSON must escape.
		d.updates = func(node int) string {
			return fmt.Sprintf("log/%d/", node) + strings.Repeat(`"quoted" \ é <&> `, 20+node)
		}
	}
	return d
}

// withWatermarkApps is sc with the watermark application on the seeds
// that draw it (drawWatermarks); the other seeds run sc's Setup as it is.
// Every node runs the production elector with the settings the plan gives
// it (or p's), and the application of sc's plan besides.
func withWatermarkApps(sc harness.Scenario, s elector.Settings) harness.Scenario {
	return withWatermarkApplication(sc, s, false)
}

// withWatermarkApplication is withWatermarkApps; ignore breaks the
// application: it stamps its entries with its clock, ignoring the
// watermark it is handed (as WatermarkIgnored's).
func withWatermarkApplication(sc harness.Scenario, s elector.Settings, ignore bool) harness.Scenario {
	build := sc.Build
	sc.Build = func(seed uint64) harness.Setup {
		st := build(seed)
		d := drawWatermarks(seed)
		if d == nil {
			return st
		}
		run := &swarmWatermarkRun{d: d, wm: &watermarkRun{}, ignore: ignore}
		p := st.Protocol
		p.Candidate = run.candidate(s)
		if configure := p.Configure; configure != nil {
			p.Configure = func(fs faults.Settings) (harness.Protocol, error) {
				q, err := configure(fs)
				if err == nil {
					q.Candidate = run.candidate(elector.SettingsOf(fs))
				}
				return q, err
			}
		}
		st.Protocol = p
		prev := st.Config.Setup
		st.Config.Setup = func(w *sim.World) {
			if prev != nil {
				prev(w)
			}
			run.start(w)
		}
		st.Audit, st.Watermarks = run.audit, run.wm.watermarks
		return st
	}
	return sc
}

// swarmWatermarkRun is the state of one run of the watermark application:
// the entries and records (watermarkRun), and the contract violations the
// applications saw.
type swarmWatermarkRun struct {
	d        *swarmWatermarks
	wm       *watermarkRun
	ignore   bool
	contract []linearizability.Violation
}

func (r *swarmWatermarkRun) start(w *sim.World) {
	r.wm.start(w)
	r.contract = nil
}

// audit is the run's Setup.Audit: the watermark API's contract as the
// applications saw it.
func (r *swarmWatermarkRun) audit(*sim.Result) []linearizability.Violation {
	return r.contract
}

// candidate runs the production elector with settings s, its application
// the simulator's with the watermark application beside it for every term.
func (r *swarmWatermarkRun) candidate(s elector.Settings) sim.Candidate {
	return electorBeside(s, r.term)
}

// term is the application of one term, as SetWatermark documents it:
// every d.every it publishes a watermark d.ahead of its clock (and above
// what it was handed and what it wrote), then writes one entry stamped
// with its clock, above what it was handed and its last entry, if that
// stamp is at or below the watermark already published; until the term
// ends. It also asks, once a term, for updates longer than MaxUpdatesLen or
// not UTF-8 and a time past the year 9999 to be refused, and notes every
// answer that breaks the API's contract.
func (r *swarmWatermarkRun) term(ctx context.Context, env sim.Env, e *protocol.Elector, lease protocol.Lease) {
	token := lease.Token
	leading := func() bool {
		l, ok := e.Lease()
		return ok && l.Token == token
	}
	broke := func(format string, args ...any) {
		r.contract = append(r.contract, linearizability.Violation{Checker: linearizability.WatermarkChecker, Rule: RuleWatermarkAPI, At: r.wm.w.Now(),
			Nodes: []int{env.Node}, Token: token, Message: fmt.Sprintf("n%d (token %d): ", env.Node, token) + fmt.Sprintf(format, args...)})
	}
	// refused reports whether err ends the application: the term is over
	// (ErrNotLeading once Lease no longer reports it), or the contract
	// broke, which is noted.
	refused := func(call string, err error) bool {
		switch {
		case err == nil:
			return false
		case !errors.Is(err, protocol.ErrNotLeading) || leading():
			broke("%s refused a valid call while Lease reports the term: %v", call, err)
		}
		return true
	}
	handed := lease.Previous.At
	pub, err := e.PublishedWatermark(token)
	if refused("PublishedWatermark", err) {
		return
	}
	if pub.At.Before(handed) {
		broke("the published watermark %s is below the one handed over, %s", pub.At, handed)
		return
	}
	for _, invalid := range []protocol.Watermark{
		{At: env.Clock.Now(), Updates: strings.Repeat("x", maxUpdatesLen+1)},
		{At: env.Clock.Now(), Updates: "log/" + strings.Repeat("\xff", 300)}, // JSON would write U+FFFD
		{At: time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)},                   // no RFC 3339 for it
	} {
		if err := e.SetWatermark(token, invalid); !errors.Is(err, protocol.ErrInvalidWatermark) {
			broke("SetWatermark of a watermark at %s with %d bytes of updates answered %v, want ErrInvalidWatermark", invalid.At.Format(time.DateOnly), len(invalid.Updates), err)
			return
		}
	}
	last := handed
	if r.ignore {
		last = time.Time{}
	}
	updates := r.d.updates(env.Node)
	for {
		now := env.Clock.Now()
		base := now
		if last.After(base) {
			base = last
		}
		if refused("SetWatermark", e.SetWatermark(token, protocol.Watermark{At: base.Add(r.d.ahead), Updates: updates})) {
			return
		}
		was := pub.At
		if pub, err = e.PublishedWatermark(token); refused("PublishedWatermark", err) {
			return
		}
		if pub.At.Before(was) {
			broke("the published watermark went down from %s to %s", was, pub.At)
			return
		}
		stamp := now
		if !stamp.After(last) {
			stamp = last.Add(time.Nanosecond)
		}
		if !stamp.After(pub.At) {
			r.wm.entries = append(r.wm.entries, watermarkEntry{
				StampedWrite: linearizability.StampedWrite{Node: env.Node, Token: token, Stamp: stamp, At: r.wm.w.Now()},
				Wall:         now,
			})
			last = stamp
		}
		if env.Clock.Sleep(ctx, r.d.every) != nil {
			return
		}
	}
}
