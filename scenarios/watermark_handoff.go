package scenarios

import (
	"context"
	"encoding/json"
	"maps"
	"slices"
	"time"

	"github.com/s3lease/s3lease/faults"
	"github.com/s3lease/s3lease/harness"
	"github.com/s3lease/s3lease/harness/elector"
	"github.com/s3lease/s3lease/linearizability"
	"github.com/s3lease/s3lease/protocol"
	"github.com/s3lease/s3lease/sim"
)

// Seed 003 (relaxed logs under strict leases) under the harness: the
// application writes timestamped entries to a bag of messages that readers
// order by timestamp alone, and the lock record carries each holder's
// timestamp watermark to the next (protocol.Elector.SetWatermark,
// protocol.Lease.Previous). The watermark checker
// (linearizability.CheckWatermarks) judges every hand-over.

// Timing of the watermark application.
const (
	// watermarkEvery is how often the application writes an entry.
	watermarkEvery = 250 * time.Millisecond
	// watermarkAhead is how far ahead of its clock the application
	// publishes: two renewals, so that the renewal that makes a watermark
	// durable comes before the writes need it.
	watermarkAhead = 2 * time.Second
	// watermarkStep is how far every wall clock steps back after the crash.
	watermarkStep = -10 * time.Second
)

// WatermarkHandoff is seed 003's hand-off done right.
var WatermarkHandoff = harness.Scenario{
	Name: "watermark-handoff",
	Doc: "Seed 003's watermark hand-off: each leader's application writes entries stamped with timestamps, publishes a watermark ahead of them " +
		"through the lock record, and writes only at or below what is published and above what it was handed. " +
		"Every node stops at 8 s (the leader releases: a hand-over with the last watermark set) and restarts; every node crashes at 18 s " +
		"(a hand-over after a lease, with the last watermark renewed), and at 20 s every wall clock steps back 10 s, " +
		"so the next holder's clock reads below the watermark it is handed. No entry of a new holder is at or below its predecessors' watermarks.",
	Expect: harness.Survives,
	Build:  func(seed uint64) harness.Setup { return watermarkSetup(seed, false) },
}

// WatermarkIgnored is the same story with a broken application: it stamps
// its entries with its wall clock and ignores the watermark it is handed.
// Right after a release, and after the clocks stepped back, its entries
// fall below its predecessor's watermark: the checker catches it.
var WatermarkIgnored = harness.Scenario{
	Name: "watermark-ignored",
	Doc: "watermark-handoff with a broken application that stamps entries with its wall clock and ignores the watermark handed over: " +
		"after the release its first entries are below the watermark its predecessor published ahead, and after the crash its clock, stepped back, is below it too",
	Expect: harness.Caught,
	Build:  func(seed uint64) harness.Setup { return watermarkSetup(seed, true) },
}

// watermarkSetup builds a run of the watermark story; ignore breaks the
// application.
func watermarkSetup(seed uint64, ignore bool) harness.Setup {
	s, _ := watermarkSetupRun(seed, ignore)
	return s
}

// watermarkSetupRun is watermarkSetup with the state its runs fill in.
func watermarkSetupRun(seed uint64, ignore bool) (harness.Setup, *watermarkRun) {
	s := elector.DefaultSettings
	p := elector.Protocol(s)
	run := &watermarkRun{}
	p.Candidate = watermarkCandidate(s, run, ignore)
	cfg := harness.World(seed)
	cfg.Nodes = 3
	cfg.Duration = 45 * time.Second
	cfg.Setup = run.start
	plan := &faults.Plan{HealAt: faults.Duration(21 * time.Second)}
	for i := range cfg.Nodes {
		plan.Events = append(plan.Events,
			faults.Event{Kind: faults.Stop, At: faults.Duration(8 * time.Second), Node: i},
			faults.Event{Kind: faults.Restart, At: faults.Duration(8500 * time.Millisecond), Node: i},
			faults.Event{Kind: faults.Crash, At: faults.Duration(18 * time.Second), Node: i},
			faults.Event{Kind: faults.Restart, At: faults.Duration(18500 * time.Millisecond), Node: i},
			faults.Event{Kind: faults.ClockJump, At: faults.Duration(20 * time.Second), Node: i, By: faults.Duration(watermarkStep)},
		)
	}
	return harness.Setup{Config: cfg, Plan: plan, Protocol: p, Watermarks: run.watermarks}, run
}

// watermarkRun is the state of one run: the entries written. Config.Setup
// resets it at the start of each run.
type watermarkRun struct {
	w       *sim.World
	entries []watermarkEntry
}

// watermarkEntry is one entry written, with its writer's wall clock then.
type watermarkEntry struct {
	linearizability.StampedWrite
	Wall time.Time
}

func (r *watermarkRun) start(w *sim.World) {
	r.w, r.entries = w, nil
}

// watermarkCandidate runs the production elector with settings s and the
// watermark application.
func watermarkCandidate(s elector.Settings, run *watermarkRun, ignore bool) sim.Candidate {
	return electorBeside(s, func(ctx context.Context, env sim.Env, e *protocol.Elector, lease protocol.Lease) {
		run.write(ctx, env, e, lease, ignore)
	})
}

// electorBeside runs the production elector with settings s, and app beside
// the simulator's application (Env.Lead) for every term, with the term's
// context; OnStartedLeading returns once both are done (app within a lease
// of the term's end).
func electorBeside(s elector.Settings, app func(ctx context.Context, env sim.Env, e *protocol.Elector, lease protocol.Lease)) sim.Candidate {
	return func(ctx context.Context, env sim.Env) error {
		cfg := s.Config(env)
		var e *protocol.Elector
		cfg.Callbacks.OnStartedLeading = func(ctx context.Context, lease protocol.Lease) {
			done, finished := context.WithCancel(context.Background())
			env.Clock.Go(func() {
				defer finished()
				app(ctx, env, e, lease)
			})
			env.Lead(ctx, lease.Token) // the term, as the simulator's application records it
			_ = env.Clock.Sleep(done, s.LeaseDuration)
		}
		var err error
		if e, err = protocol.NewElector(cfg); err != nil {
			return err
		}
		elector.ReportLease(env, e)
		return e.Run(ctx)
	}
}

// write is the application of one term: every watermarkEvery it publishes
// a watermark watermarkAhead of its clock and writes one entry, stamped
// with its clock but above what it was handed and above its last entry,
// if that stamp is at or below the watermark already published; until ctx
// ends. Ignoring the hand-over, it stamps with its clock alone.
func (r *watermarkRun) write(ctx context.Context, env sim.Env, e *protocol.Elector, lease protocol.Lease, ignore bool) {
	last := lease.Previous.At
	if ignore {
		last = time.Time{}
	}
	for {
		now := env.Clock.Now()
		base := now
		if last.After(base) {
			base = last
		}
		if e.SetWatermark(lease.Token, protocol.Watermark{At: base.Add(watermarkAhead), Updates: "entries/" + env.Identity}) != nil {
			return
		}
		published, err := e.PublishedWatermark(lease.Token)
		if err != nil {
			return
		}
		stamp := now
		if !ignore && !stamp.After(last) {
			stamp = last.Add(time.Nanosecond)
		}
		if !stamp.After(published.At) {
			r.entries = append(r.entries, watermarkEntry{
				StampedWrite: linearizability.StampedWrite{Node: env.Node, Token: lease.Token, Stamp: stamp, At: r.w.Now()},
				Wall:         now,
			})
			if stamp.After(last) {
				last = stamp
			}
		}
		if env.Clock.Sleep(ctx, watermarkEvery) != nil {
			return
		}
	}
}

// history is the run's watermark history: the entries, and every record of
// an elector that S3 applied (by the ETag of its body), known applied at
// the earliest of its answer, a read that returned it, or a write
// conditioned on it that succeeded.
func (r *watermarkRun) history(h *sim.History) linearizability.WatermarkHistory {
	records := map[string]protocol.Record{}
	for _, op := range h.S3 {
		if _, ok := records[op.BodyETag]; ok || op.Op != "PutObject" || op.Node < 0 || op.Body == "" {
			continue
		}
		// Decoded by encoding/json, not by the elector's own codec: the
		// judge of what the records carried must not share the code it
		// judges.
		var rec protocol.Record
		if err := json.Unmarshal([]byte(op.Body), &rec); err == nil && rec.Token > 0 {
			records[op.BodyETag] = rec
		}
	}
	known := map[string]time.Duration{}
	note := func(etag string, at time.Duration) {
		if k, ok := known[etag]; etag != "" && at >= 0 && (!ok || at < k) {
			known[etag] = at
		}
	}
	for _, op := range h.S3 {
		if op.Status != 200 {
			continue
		}
		switch op.Op {
		case "PutObject":
			note(op.BodyETag, op.Return)
			note(op.IfMatch, op.Return)
		case "GetObject":
			note(op.ETag, op.Return)
		}
	}
	var wh linearizability.WatermarkHistory
	for _, etag := range slices.Sorted(maps.Keys(known)) { // in an order of ours, not the map's
		if rec, ok := records[etag]; ok {
			wh.Publications = append(wh.Publications, linearizability.Publication{Token: rec.Token, Watermark: rec.Watermark, Known: known[etag], ETag: etag})
		}
	}
	for _, e := range r.entries {
		wh.Writes = append(wh.Writes, e.StampedWrite)
	}
	return wh
}

// watermarks is the scenario's Setup.Watermarks: the run's watermark
// history, for the watermark checker.
func (r *watermarkRun) watermarks(res *sim.Result) linearizability.WatermarkHistory {
	return r.history(res.History)
}
