package elector

import (
	"context"
	"encoding/json"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/s3lease/s3lease/faults"
	"github.com/s3lease/s3lease/linearizability"
	"github.com/s3lease/s3lease/protocol"
	"github.com/s3lease/s3lease/sim"
)

// Settings are the production elector's knobs that a scenario sets.
type Settings struct {
	LeaseDuration, RenewDeadline, RetryPeriod, RequestTimeout time.Duration
	ClockDriftPPM                                             int64
	ReleaseOnCancel                                           bool
}

// DefaultSettings are the settings of the reference scenario: a
// lease short enough that a minute of simulated time sees several terms.
var DefaultSettings = Settings{
	LeaseDuration:   6 * time.Second,
	RenewDeadline:   4 * time.Second,
	RetryPeriod:     1 * time.Second,
	RequestTimeout:  1500 * time.Millisecond,
	ClockDriftPPM:   1000,
	ReleaseOnCancel: true,
}

// Config is the elector's configuration with these settings, for a node
// whose simulated parts are env (zero for a configuration that is only
// asked for its assumptions): the configuration Candidate runs,
// for a candidate of one's own that adds hooks (Metrics, callbacks) to it.
// In a run (env from the simulator), its Metrics.Transition hook reports
// the first transition of the incarnation that protocol.Transitions()
// does not declare (through env.Report: the TransitionsCheck violation);
// in a run whose protocol declares coverage (env.Coverage set: Protocol
// declares Coverage), its Metrics hooks also mark the elector's
// transitions and answers there. A candidate that adds Metrics hooks of
// its own must call these from them (chain them); one that replaces them
// is neither checked nor covered, and one that declares other coverage
// sets must not use this configuration's hooks.
func (s Settings) Config(env sim.Env) protocol.Config {
	cfg := s.config(env)
	if env.Coverage != nil || env.Report != nil {
		withHooks(&cfg, env)
	}
	return cfg
}

func (s Settings) config(env sim.Env) protocol.Config {
	return protocol.Config{
		Store:           env.Store,
		Clock:           env.Clock,
		Entropy:         env.Entropy,
		Bucket:          env.Bucket,
		Key:             env.Key,
		Identity:        env.Identity,
		LeaseDuration:   s.LeaseDuration,
		RenewDeadline:   s.RenewDeadline,
		RetryPeriod:     s.RetryPeriod,
		RequestTimeout:  s.RequestTimeout,
		ClockDriftPPM:   s.ClockDriftPPM,
		ReleaseOnCancel: s.ReleaseOnCancel,
		Callbacks: protocol.LeaderCallbacks{
			OnStartedLeading: func(ctx context.Context, lease protocol.Lease) {
				env.Lead(ctx, lease.Token)
			},
			OnNewLeader: env.NewLeader,
		},
	}
}

// Assumptions are the elector's own (protocol.Config.Assumptions): clock
// rates within ClockDriftPPM, pauses no longer than its pause bound, and no
// stalled monotonic clocks, foreign writes of the lock object or lingering
// applications.
func (s Settings) Assumptions() protocol.Assumptions {
	return s.Config(sim.Env{}).Assumptions()
}

// LivenessBound is the elector's own (protocol.Config.LivenessBound): how
// long after faults heal a leader must be in place.
func (s Settings) LivenessBound() time.Duration {
	return s.Config(sim.Env{}).LivenessBound()
}

// electorBurst is the most S3 requests the elector sends without a wait in
// between: a read, a conditional write, and the read that checks a write
// whose outcome is unknown (an acquisition, a renewal or a release).
const electorBurst = 3

// RequestRate is the elector's bound on one node's S3 requests, by its
// design: every wait between bursts of requests is at least a tenth of
// RetryPeriod (the back-off after a 409 or an unknown outcome is 10-20% of
// it; a follower polls once per RetryPeriod, and a leader renews once per
// renew interval, at least the smaller of RetryPeriod and half of
// RenewDeadline, so above 0.6 RetryPeriod), so a window of one RetryPeriod
// holds at most eleven bursts. Swarm runs of the
// production elector stay far below it (15 at most over seeds 1..30,000);
// a loop that forgets a wait goes far beyond it.
func (s Settings) RequestRate() linearizability.RequestRate {
	return linearizability.RequestRate{Window: s.RetryPeriod, Max: 11 * electorBurst}
}

// SettingsOf are the elector settings of a plan's settings for a node.
func SettingsOf(s faults.Settings) Settings {
	return Settings{
		LeaseDuration:   s.Lease.D(),
		RenewDeadline:   s.RenewDeadline.D(),
		RetryPeriod:     s.RetryPeriod.D(),
		RequestTimeout:  s.RequestTimeout.D(),
		ClockDriftPPM:   s.DriftPPM,
		ReleaseOnCancel: s.ReleaseOnCancel,
	}
}

// Plan returns the settings as a plan gives them to node.
func (s Settings) Plan(node int) faults.Settings {
	return faults.Settings{
		Node:            node,
		Lease:           faults.Duration(s.LeaseDuration),
		RenewDeadline:   faults.Duration(s.RenewDeadline),
		RetryPeriod:     faults.Duration(s.RetryPeriod),
		RequestTimeout:  faults.Duration(s.RequestTimeout),
		DriftPPM:        s.ClockDriftPPM,
		ReleaseOnCancel: s.ReleaseOnCancel,
	}
}

// EncodeRecord writes a plan's record as the elector writes its own
// (protocol.Record.Encode): the record's nonce, a lease of the record's or
// else these settings', S3's epoch as its times, its watermark and
// updates, and its link to a previous term (that term's nonce derived
// from the link, faults.Previous.Nonce). A record with a watermark,
// updates or a link that the elector would not encode (a link it
// refuses, updates over the limit) is written in the same form by
// encoding/json, whose bytes Encode writes for a valid record, for the
// elector to refuse; any other record the elector cannot encode (no
// holder, token 0) is written in the generic form, which the elector
// reads as no record.
func (s Settings) EncodeRecord(r faults.Record) []byte {
	lease := r.Lease.D()
	if lease <= 0 {
		lease = s.LeaseDuration
	}
	rec := protocol.Record{
		Holder:          r.Holder,
		Token:           r.Token,
		LeaseDurationMS: statedMillis(lease),
		AcquireTime:     sim.Epoch,
		RenewTime:       sim.Epoch,
		Nonce:           r.Nonce(),
		Released:        r.Released,
		Watermark:       r.Watermark,
		Updates:         r.Updates,
	}
	if p := r.Previous; p != nil {
		rec.Previous = &protocol.PreviousTerm{Holder: p.Holder, Token: p.Token, Nonce: p.Nonce(), Ended: protocol.Ending(p.Ended),
			Watermark: p.Watermark, Updates: p.Updates}
	}
	b, err := rec.Encode()
	if err == nil {
		return b
	}
	if !r.Watermark.IsZero() || r.Updates != "" || r.Previous != nil {
		if b, err := json.Marshal(rec); err == nil {
			return b
		}
	}
	return faults.EncodeRecord(r)
}

// Validate reports whether protocol.NewElector accepts these settings.
func (s Settings) Validate() error {
	c := s.Config(sim.Env{Store: (*s3.Client)(nil), Bucket: "b", Key: "k", Identity: "n"})
	_, err := protocol.NewElector(c)
	return err
}
