package elector

import (
	"context"

	"github.com/s3lease/s3lease/faults"
	"github.com/s3lease/s3lease/harness"
	"github.com/s3lease/s3lease/linearizability"
	"github.com/s3lease/s3lease/protocol"
	"github.com/s3lease/s3lease/sim"
)

// Protocol is the production elector with settings s, as the harness runs
// and judges it: the assumptions and liveness bound its own configuration
// states (protocol.Config.Assumptions), its request rate (RequestRate),
// its record format (EncodeRecord), its coverage (Coverage), and its own
// judges, the record audit (AuditRecords, each node's records held to the
// lease of its own settings) and the pace (Settings.Pace). Configure makes
// it with a plan's settings for a node, so the swarm draws each node's.
func Protocol(s Settings) harness.Protocol {
	return harness.Protocol{
		Name:           "elector",
		Candidate:      Candidate(s),
		Assumptions:    s.Assumptions(),
		LivenessBound:  s.LivenessBound(),
		Configure:      configure,
		EncodeRecord:   s.EncodeRecord,
		Coverage:       coverage,
		RequestRate:    s.RequestRate(),
		MaxIdentityLen: protocol.MaxIdentityLen,
		AuditWrites:    auditWrites,
		Pace:           s.Pace,
		Answers:        s.Answers,
	}
}

// Nodes is the production elector with different settings per node:
// node i runs settings[i%len(settings)] (harness.Protocol.Nodes), its pace
// judged and its records audited by its own settings. Its assumptions are
// the strictest of the settings', its liveness bound the loosest, and
// every node is held to that pause bound and to the first settings'
// request rate.
func Nodes(settings ...Settings) harness.Protocol {
	p := Protocol(settings[0])
	for _, s := range settings[1:] {
		a := s.Assumptions()
		p.Assumptions.MaxDriftPPM = min(p.Assumptions.MaxDriftPPM, a.MaxDriftPPM)
		p.Assumptions.MaxPause = min(p.Assumptions.MaxPause, a.MaxPause)
		p.Assumptions.Lease = max(p.Assumptions.Lease, a.Lease)
		p.Assumptions.Term = max(p.Assumptions.Term, a.Term)
		p.LivenessBound = max(p.LivenessBound, s.LivenessBound())
	}
	for _, s := range settings {
		q := Protocol(s)
		q.Assumptions.MaxPause, q.RequestRate = p.Assumptions.MaxPause, p.RequestRate
		p.Nodes = append(p.Nodes, q)
	}
	p.Candidate = func(ctx context.Context, env sim.Env) error {
		return Candidate(settings[env.Node%len(settings)])(ctx, env)
	}
	p.Pace = func(h *sim.History, node int, clock sim.ClockModel) []linearizability.Violation {
		return settings[node%len(settings)].Pace(h, node, clock)
	}
	p.Answers = func(h *sim.History, node int, clock sim.ClockModel) (wrong, slow []linearizability.Violation) {
		return settings[node%len(settings)].Answers(h, node, clock)
	}
	return p
}

// Candidate is the candidate that runs protocol.Elector, the code
// users ship, with the node's simulated clock, S3 client and entropy. The
// application it leads is the simulator's (Env.Lead), which may ask the
// elector's Lease before each guarded write (Env.ReportLease).
func Candidate(s Settings) sim.Candidate {
	return func(ctx context.Context, env sim.Env) error {
		e, err := protocol.NewElector(s.Config(env))
		if err != nil {
			return err
		}
		ReportLease(env, e)
		return e.Run(ctx)
	}
}

// ReportLease hands e's Lease to the simulator's application (Env.ReportLease),
// for the applications that ask it before each guarded write, and e's
// IsLeader, Lease, Leader and Healthy to the node's callers
// (Env.ReportObserver), whose answers the observation checkers judge
// (Settings.Answers); a candidate of one's own that runs the elector calls
// it before Run.
func ReportLease(env sim.Env, e *protocol.Elector) {
	if env.ReportLease != nil {
		env.ReportLease(func() (uint64, bool) {
			l, ok := e.Lease()
			return l.Token, ok
		})
	}
	if env.ReportObserver != nil {
		env.ReportObserver(Observer(e))
	}
}

// Observer is e's answers to "who leads?" as the simulator's callers ask
// them.
func Observer(e *protocol.Elector) sim.Observer {
	return sim.Observer{
		IsLeader: e.IsLeader,
		Lease: func() (uint64, bool) {
			l, ok := e.Lease()
			return l.Token, ok
		},
		Leader: func() sim.LeaderView {
			i := e.Leader()
			return sim.LeaderView{Identity: i.Identity, Token: i.Token, Self: i.Self, Observed: i.Observed, Age: i.Age}
		},
		Healthy: e.Healthy,
	}
}

// configure is the elector's Protocol.Configure: the elector with a
// plan's settings, if protocol.NewElector accepts them.
func configure(fs faults.Settings) (harness.Protocol, error) {
	s := SettingsOf(fs)
	if err := s.Validate(); err != nil {
		return harness.Protocol{}, err
	}
	return Protocol(s), nil
}
