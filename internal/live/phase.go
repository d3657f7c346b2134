package live

import (
	"fmt"
	"strings"
	"time"
)

// PhaseKind names what a phase of a live run does to the electors.
type PhaseKind string

// The phases. The three kinds of rounds run without the proxy's faults,
// which would spread apart the requests they mean to race; the other two
// inject Config.Faults.
const (
	// PhaseCreationRaces: rounds in which every elector starts at the
	// same instant on a fresh key (Config.Key, ".create-", the round's
	// number), so that all of them create it at once with If-None-Match: *.
	PhaseCreationRaces PhaseKind = "creation-races"
	// PhaseRestartRaces: rounds in which every elector stops (the leader
	// releases its lease) and starts again at the same instant, so that
	// all of them take the released record over at once with If-Match:
	// its ETag.
	PhaseRestartRaces PhaseKind = "restart-races"
	// PhaseCrashTakeovers: rounds in which the leader crashes (it is cut
	// off from the store first, so its lease is abandoned) and every
	// elector starts again at that instant, so that all of them time the
	// abandoned lease from the same read and take it over at once, a lease
	// later, with If-Match: its ETag.
	PhaseCrashTakeovers PhaseKind = "crash-takeovers"
	// PhaseContention: renewals under contention: the leader renews while
	// every follower reads, through the proxy's faults (Config.Faults); a
	// leader whose renewals fail long enough is taken over.
	PhaseContention PhaseKind = "contention"
	// PhaseSteady: the proxy's faults, and the leader of the moment
	// restarted every Config.RestartLeaderEvery.
	PhaseSteady PhaseKind = "steady"
)

// Steady is the schedule of a single PhaseSteady of d.
func Steady(d time.Duration) []Phase { return []Phase{{Kind: PhaseSteady, Duration: d}} }

// phaseKinds lists the kinds in the order DefaultPhases runs them.
var phaseKinds = []PhaseKind{PhaseCreationRaces, PhaseRestartRaces, PhaseCrashTakeovers, PhaseContention, PhaseSteady}

func (k PhaseKind) valid() bool {
	for _, v := range phaseKinds {
		if k == v {
			return true
		}
	}
	return false
}

// rounds reports whether the phase is made of rounds of simultaneous
// starts.
func (k PhaseKind) rounds() bool {
	return k == PhaseCreationRaces || k == PhaseRestartRaces || k == PhaseCrashTakeovers
}

// faults reports whether the proxy injects Config.Faults during the phase.
func (k PhaseKind) faults() bool { return !k.rounds() }

func phaseKindList() string {
	names := make([]string, len(phaseKinds))
	for i, k := range phaseKinds {
		names[i] = string(k)
	}
	return strings.Join(names, ", ")
}

// ParsePhaseKind returns the phase kind named s.
func ParsePhaseKind(s string) (PhaseKind, error) {
	if k := PhaseKind(s); k.valid() {
		return k, nil
	}
	return "", fmt.Errorf("%w: unknown phase %q (want one of %s)", ErrInvalidConfig, s, phaseKindList())
}

// Phase is one part of a live run.
type Phase struct {
	Kind     PhaseKind
	Duration time.Duration
}

// defaultShares are the parts of a run's duration DefaultPhases gives each
// phase, in per cent.
var defaultShares = []struct {
	kind  PhaseKind
	share int64
}{
	{PhaseCreationRaces, 30},
	{PhaseRestartRaces, 40},
	{PhaseCrashTakeovers, 15},
	{PhaseContention, 15},
}

// DefaultPhases is the schedule that stresses the store's conditional
// semantics within d: creation races, then restart races, then takeovers
// after crashes, then renewals under contention with the proxy's faults.
// The races get the largest shares: racing creates and racing If-Match
// takeovers of one record are where a store that does not serialize
// conditional writes (several gateways without a shared lock) lets two
// writers win, a few times in a hundred races; a round lasts a fraction of
// a second. A crash takeover waits a lease out (a round of DefaultDuration's
// share).
func DefaultPhases(d time.Duration) []Phase {
	out := make([]Phase, 0, len(defaultShares))
	var given time.Duration
	for i, s := range defaultShares {
		p := d * time.Duration(s.share) / 100
		if i == len(defaultShares)-1 {
			p = d - given // the rounding goes to the last
		}
		given += p
		out = append(out, Phase{Kind: s.kind, Duration: p})
	}
	return out
}

// PhaseStats is what one phase of a run exercised, counted from the
// history: requests are the phase's by the instant they were sent. Two
// requests were in flight at once when their intervals from call to answer
// (to the end of the run if none came) overlap.
type PhaseStats struct {
	Kind PhaseKind
	// From and To delimit the phase in the history's time.
	From, To time.Duration
	// Rounds counts the rounds of simultaneous starts, Restarts the
	// electors started again (each a new incarnation), Crashes the
	// leaders crashed.
	Rounds, Restarts, Crashes int
	// Requests counts the S3 requests sent in the phase.
	Requests int
	// CreationRaces counts the keys on which creates (PutObject
	// If-None-Match: *) of two or more electors were in flight at once;
	// RacingCreates the creates among them.
	CreationRaces, RacingCreates int
	// IfMatchContests counts the ETags that PutObject If-Match requests of
	// two or more electors named while in flight at once (a takeover race,
	// or a takeover racing a renewal); ContestedIfMatch the writes among
	// them.
	IfMatchContests, ContestedIfMatch int
	// ReadsRacingWrites counts the GetObject requests answered 200 while a
	// PutObject of the same key was in flight; TornReads those whose body
	// and ETag belong to different versions (sim.S3Op.TornBodyETag).
	ReadsRacingWrites, TornReads int
	// Terms counts the terms that began in the phase.
	Terms int
	// Faults counts what the proxy injected during the phase.
	Faults FaultCounts
}

// String says in one line what the phase exercised.
func (p PhaseStats) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%-15s %6.2f-%6.2f s:", p.Kind, p.From.Seconds(), p.To.Seconds())
	if p.Rounds > 0 {
		fmt.Fprintf(&b, " %d rounds,", p.Rounds)
	}
	if p.Crashes > 0 {
		fmt.Fprintf(&b, " %d leaders crashed,", p.Crashes)
	}
	fmt.Fprintf(&b, " %d creation races (%d creates at once), %d contested If-Match writes (%d ETags contested), %d terms, %d requests, %d reads racing a write (%d torn), %d faults",
		p.CreationRaces, p.RacingCreates, p.ContestedIfMatch, p.IfMatchContests, p.Terms, p.Requests, p.ReadsRacingWrites, p.TornReads, p.Faults.Total())
	return b.String()
}
