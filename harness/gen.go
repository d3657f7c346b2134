package scenarios

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/s3lease/s3lease/faults"
	"github.com/s3lease/s3lease/protocol"
	"pgregory.net/rapid"
)

// The generator of whole runs shared by the rapid properties
// (property_test.go) and the fuzz targets (fuzz_test.go).
//
// A run is drawn piece by piece from a runSource: the number of nodes, the
// protocol settings (or the defaults), the fault plan's heal instant, each
// node's clock, a list of fault groups of every kind, the S3 knobs and the
// SDK's attempts, and the length of the liveness phase. Every value is
// drawn within a range that makes it valid by construction (every timed
// fault is over by healAt; aimed faults need no end), and drawnRun.check
// confirms it with faults.Plan.Validate and protocol.NewElector's own
// validation, so a generator bug fails loudly instead of testing nothing.
//
// Two sources feed it: rapidSource draws every value with rapid
// (rapid.Int64Range, rapid.Bool, and rapid.SliceOfN for the fault groups),
// so that rapid's shrinker deletes fault groups and pulls every number
// towards the low end of its range (no clock offset, short faults, early
// instants, the default settings); byteSource (fuzz_test.go) reads the same
// choices from the fuzzer's bytes, and reads the low end of every range
// once the bytes run out, so every byte string is a valid run and the
// empty string is the quietest one.
//
// Times are drawn as whole multiples of a grain (instantGrain, lengthGrain,
// milliseconds for settings and clock offsets): rapid favours small
// integers, and a coarse grain lets its draws reach the far end of a range
// often, while most faults stay short and near the elector's assumptions.

// runSource is where a drawn run's choices come from.
type runSource interface {
	// Int draws an integer in [lo, hi] (lo if hi <= lo).
	Int(lo, hi int64, label string) int64
	// Bool draws a boolean.
	Bool(label string) bool
	// Groups draws between 0 and most fault groups, each made by one.
	Groups(most int, label string, one func(runSource) []faults.Event) [][]faults.Event
}

// rapidSource draws from a rapid.T.
type rapidSource struct{ t *rapid.T }

func (s rapidSource) Int(lo, hi int64, label string) int64 {
	if hi <= lo {
		return lo
	}
	return rapid.Int64Range(lo, hi).Draw(s.t, label)
}

func (s rapidSource) Bool(label string) bool { return rapid.Bool().Draw(s.t, label) }

func (s rapidSource) Groups(most int, label string, one func(runSource) []faults.Event) [][]faults.Event {
	group := rapid.Custom(func(t *rapid.T) []faults.Event { return one(rapidSource{t}) })
	return rapid.SliceOfN(group, 0, most).Draw(s.t, label)
}

// drawnRun is one whole run: the simulator's seed, the world's size and
// length, the elector's settings and the fault plan.
type drawnRun struct {
	Seed     uint64          `json:"seed"`
	Nodes    int             `json:"nodes"`
	Duration faults.Duration `json:"duration"`
	// Custom says the settings were drawn; otherwise they are
	// DefaultElectorSettings (those of the swarm campaign and the zoo).
	Custom   bool            `json:"custom"`
	Settings ElectorSettings `json:"settings"`
	Plan     *faults.Plan    `json:"plan"`
}

// maxFaultGroups bounds the fault groups of a drawn plan; a crash or stop
// and its restart are one group of two events.
const maxFaultGroups = 12

// drawRun draws a run with the given simulator seed. It draws whether to
// use the default settings or its own; with fixed set, the run uses fixed
// (a zoo variant's, which cannot change) whatever that draw.
func drawRun(src runSource, seed uint64, fixed *ElectorSettings) drawnRun {
	r := drawnRun{Seed: seed, Settings: DefaultElectorSettings}
	r.Nodes = int(src.Int(2, 5, "nodes"))
	// The choice is drawn even with fixed settings, so that the same
	// choices draw the same run for a zoo variant and for the elector
	// with the default settings.
	custom := src.Bool("custom settings")
	switch {
	case fixed != nil:
		r.Settings = *fixed
	case custom:
		r.Custom, r.Settings = true, drawSettings(src)
	}
	r.Plan = drawPlan(src, r.Nodes, r.Settings)
	// The liveness phase: the protocol's bound and a little more, so that
	// liveness is always judged.
	bound := r.Settings.LivenessBound()
	tail := bound + ms(src.Int(500, 15_000, "liveness slack ms"))
	r.Duration = r.Plan.HealAt + faults.Duration(tail)
	return r
}

func ms(n int64) time.Duration { return time.Duration(n) * time.Millisecond }

// drawSettings draws elector settings that protocol.NewElector accepts:
// a lease of 2 to 20 s; a drift bound of 1 to 5000 ppm; a renew deadline
// between a third of the lease and the lease less the drift margin; a retry
// period whose 1.2 times fits in the renew deadline; a request timeout of
// at most half the renew deadline.
func drawSettings(src runSource) ElectorSettings {
	lease := src.Int(2_000, 20_000, "lease ms")
	ppm := src.Int(1, 5_000, "drift bound ppm")
	// The drift margin of protocol.driftMargin, rounded up to a millisecond.
	marginNs := (lease*int64(time.Millisecond)*2*ppm + 1_000_000 + ppm - 1) / (1_000_000 + ppm)
	marginMs := (marginNs + int64(time.Millisecond) - 1) / int64(time.Millisecond)
	renew := src.Int(lease/3, lease-marginMs, "renew deadline ms")
	retry := src.Int(100, renew*5/6-1, "retry period ms")
	timeout := src.Int(100, renew/2, "request timeout ms")
	return ElectorSettings{
		LeaseDuration:   ms(lease),
		RenewDeadline:   ms(renew),
		RetryPeriod:     ms(retry),
		RequestTimeout:  ms(timeout),
		ClockDriftPPM:   ppm,
		ReleaseOnCancel: src.Bool("release on cancel"),
	}
}

// overwriteBodies are what someone else writes over the lock object: empty,
// not JSON, JSON that is no record, and a record-shaped object naming an
// intruder with no lease.
var overwriteBodies = []string{
	"",
	"# lifecycle-rule placeholder: this key is managed by ops\n",
	"{}",
	`{"holder":"intruder","token":1}`,
}

// faultKinds are the fault groups the generator draws from, simplest first
// (rapid shrinks a group's kind towards the first). The last
// outsideKinds kinds always leave the elector's assumptions (a stalled
// monotonic clock, foreign writes of the lock object, an application that
// works on after its term) and are drawn only for plans that may leave
// them.
var faultKinds = []string{
	"pause", "partition", "crash+restart", "stop+restart", "clock-jump", "slow-s3",
	"answer-lost", "answer-failed", "refused", "answer-delayed", "answer-pause",
	"pause-before-write", "write-delayed", "restart",
	"clock-stall", "delete-lock", "overwrite", "linger",
}

const outsideKinds = 4

// errorCodes are the S3 errors of answer-failed (the first two) and
// refused (all three).
var errorCodes = []string{"InternalError", "SlowDown", "ConditionalRequestConflict"}

// Grains of drawn times: instants (healAt, a fault's start) in tenths of a
// second, lengths in hundredths. rapid favours small integers; at these
// grains its draws spread over the whole range often enough, while most
// lengths stay short.
const (
	instantGrain = 100 * time.Millisecond
	lengthGrain  = 10 * time.Millisecond
)

// drawPlan draws a plan for nodes nodes running settings s.
//
// First whether the plan may leave the elector's assumptions (one plan in
// four; rapid shrinks towards plans that stay inside). A plan that stays
// inside has clock drifts within s's bound, pauses no longer than the
// assumed maximum, and none of the kinds that always leave; one that may
// leave draws drifts up to twenty times the bound, pauses, stalls and
// pauses before fenced writes up to three leases, and every kind. Then
// healAt, between 5 and 45 s; a clock setting for some nodes (offsets up
// to 5 minutes); up to maxFaultGroups fault groups, every timed fault over
// by healAt (partitions, which the assumptions allow, last up to two
// leases, half the time longer than one); each S3 knob on or off (up to
// 20%); the SDK's attempts.
//
// Crashes and stops come with their restart, at least 10 ms later, so that
// every node is up again by healAt. Slow S3 and the slow tail add at most
// late to a request (see below). Aimed pauses on an answer last at most a
// lease. Those three keep faults from reaching past healAt further than
// the liveness bound allows: the property judges liveness after every run.
func drawPlan(src runSource, nodes int, s ElectorSettings) *faults.Plan {
	lease := s.LeaseDuration
	outside := src.Int(0, 3, "may leave the assumptions (3)") == 3
	maxPause, drift, kinds := max(s.Assumptions().MaxPause, 0), s.ClockDriftPPM, len(faultKinds)-outsideKinds
	if outside {
		maxPause, drift, kinds = 3*lease, min(20*s.ClockDriftPPM, 999_999), len(faultKinds)
	}
	// late bounds the extra latency of slow S3 and the slow tail. A
	// request sent just before healAt lands up to that much after it: a
	// renewal sent by a leader that then crashed starts a new lease after
	// the heal, and the liveness bound, lease + 3 retry periods + 3 request
	// timeouts, only has room for a write landing up to about a retry
	// period and a request timeout late (a follower needs up to 1.2 retry
	// periods and a request to see it, then a lease, then a request).
	late := min(lease/2, s.RetryPeriod+s.RequestTimeout)
	p := &faults.Plan{HealAt: faults.Duration(instantGrain * time.Duration(src.Int(50, 450, "healAt (0.1 s)")))}
	heal := p.HealAt.D()
	for i := range nodes {
		if !src.Bool(fmt.Sprintf("n%d clock", i)) {
			continue
		}
		p.Clocks = append(p.Clocks, faults.ClockSetting{
			Node:     i,
			Offset:   faults.Duration(ms(src.Int(-300_000, 300_000, "offset ms"))),
			DriftPPM: src.Int(-drift, drift, "drift ppm"),
		})
	}
	// length draws a duration in [lo, hi] (lo if hi < lo); timed draws the
	// length of a timed fault, which must be over by heal.
	length := func(src runSource, lo, hi time.Duration, label string) time.Duration {
		return lengthGrain * time.Duration(src.Int(int64(lo/lengthGrain), int64(hi/lengthGrain), label+" (0.01 s)"))
	}
	timed := func(src runSource, lo, hi time.Duration, label string) time.Duration {
		return length(src, min(lo, heal), min(hi, heal), label)
	}
	// at draws the start of a fault lasting d, so that it is over by heal.
	at := func(src runSource, d time.Duration) faults.Duration {
		return faults.Duration(instantGrain * time.Duration(src.Int(0, int64((heal-d)/instantGrain), "at (0.1 s)")))
	}
	node := func(src runSource) int { return int(src.Int(0, int64(nodes-1), "node")) }
	aimed := func(src runSource, k faults.Kind) faults.Event {
		return faults.Event{Kind: k, Node: node(src), Op: []string{"PutObject", "GetObject"}[src.Int(0, 1, "op")],
			Nth: int(src.Int(1, 30, "nth"))}
	}
	identity := func(src runSource, n int) string {
		if !src.Bool("new identity") {
			return ""
		}
		return fmt.Sprintf("n%d-%d", n, src.Int(1, 99, "incarnation"))
	}
	one := func(src runSource) []faults.Event {
		switch kind := faultKinds[src.Int(0, int64(kinds-1), "kind")]; kind {
		case "pause":
			d := timed(src, 0, min(maxPause, lease), "for")
			if outside && src.Bool("longer than a lease") {
				d = timed(src, lease, maxPause, "for")
			}
			return []faults.Event{{Kind: faults.Pause, At: at(src, d), Node: node(src), For: faults.Duration(d)}}
		case "partition":
			d := timed(src, lengthGrain, lease, "for")
			if src.Bool("longer than a lease") {
				d = timed(src, lease, 2*lease, "for")
			}
			return []faults.Event{{Kind: faults.Partition, At: at(src, d), Node: node(src), For: faults.Duration(d), Blackhole: src.Bool("blackhole")}}
		case "crash+restart", "stop+restart":
			// Never down for no time: simultaneous events run in an order the
			// simulator's chooser picks, and a crash run after its own
			// restart would leave the node down for good.
			down := timed(src, lengthGrain, 5*time.Second, "down")
			start, n := at(src, down), node(src)
			k := faults.Crash
			if kind == "stop+restart" {
				k = faults.Stop
			}
			return []faults.Event{{Kind: k, At: start, Node: n},
				{Kind: faults.Restart, At: start + faults.Duration(down), Node: n, Identity: identity(src, n)}}
		case "clock-jump":
			return []faults.Event{{Kind: faults.ClockJump, At: at(src, 0), Node: node(src), By: faults.Duration(time.Second * time.Duration(src.Int(-3600, 3600, "by s")))}}
		case "slow-s3":
			d := timed(src, lengthGrain, 2*lease, "for")
			return []faults.Event{{Kind: faults.SlowS3, At: at(src, d), For: faults.Duration(d), By: faults.Duration(length(src, lengthGrain, late, "by"))}}
		case "answer-lost":
			return []faults.Event{aimed(src, faults.AnswerLost)}
		case "answer-failed":
			// Applied, then answered 500 or 503; never 409, which S3 answers
			// only to a write it did not apply.
			e := aimed(src, faults.AnswerFailed)
			e.Code = errorCodes[src.Int(0, 1, "code")]
			return []faults.Event{e}
		case "refused":
			e := aimed(src, faults.Refused)
			e.Code = errorCodes[src.Int(0, int64(len(errorCodes)-1), "code")]
			return []faults.Event{e}
		case "answer-delayed":
			e := aimed(src, faults.AnswerDelayed)
			e.By = faults.Duration(length(src, lengthGrain, 2*lease, "by"))
			return []faults.Event{e}
		case "answer-pause":
			e := aimed(src, faults.AnswerPause)
			e.For = faults.Duration(length(src, 0, min(maxPause, lease), "for"))
			return []faults.Event{e}
		case "pause-before-write":
			return []faults.Event{{Kind: faults.PauseBefore, Node: node(src), Nth: int(src.Int(1, 40, "nth")),
				For: faults.Duration(length(src, 0, maxPause, "for"))}}
		case "write-delayed":
			return []faults.Event{{Kind: faults.WriteDelayed, Node: node(src), Nth: int(src.Int(1, 40, "nth")),
				By: faults.Duration(length(src, lengthGrain, 2*lease, "by"))}}
		case "restart": // a live process killed and started again at once
			n := node(src)
			return []faults.Event{{Kind: faults.Restart, At: at(src, 0), Node: n, Identity: identity(src, n)}}
		case "clock-stall":
			d := timed(src, lengthGrain, lease, "for")
			if src.Bool("longer than a lease") {
				d = timed(src, lease, 3*lease, "for")
			}
			return []faults.Event{{Kind: faults.ClockStall, At: at(src, d), Node: node(src), For: faults.Duration(d)}}
		case "delete-lock":
			return []faults.Event{{Kind: faults.DeleteLock, At: at(src, 0)}}
		case "overwrite":
			return []faults.Event{{Kind: faults.Overwrite, At: at(src, 0),
				Body: overwriteBodies[src.Int(0, int64(len(overwriteBodies)-1), "body")]}}
		default: // "linger"
			return []faults.Event{{Kind: faults.Linger, At: at(src, 0), Node: node(src), By: faults.Duration(length(src, lengthGrain, lease, "by"))}}
		}
	}
	for _, g := range src.Groups(maxFaultGroups, "faults", one) {
		p.Events = append(p.Events, g...)
	}
	knob := func(label string) int64 {
		if !src.Bool(label) {
			return 0
		}
		return src.Int(1, 200_000, label+" ppm")
	}
	p.S3 = faults.Knobs{
		ConflictOnOverlapPPM: knob("conflict on overlap"),
		ConflictPPM:          knob("conflict"),
		InternalBeforePPM:    knob("500 before"),
		SlowDownPPM:          knob("503"),
		InternalAfterPPM:     knob("500 after"),
		LostPPM:              knob("lost"),
	}
	if src.Bool("slow tail") {
		p.S3.SlowPPM = src.Int(1, 100_000, "slow ppm")
		p.S3.SlowMax = faults.Duration(length(src, lengthGrain, late, "slow max"))
	}
	p.SDKAttempts = int(src.Int(0, 5, "sdk attempts"))
	return p
}

// check confirms that the run is valid: its settings pass
// protocol.NewElector's validation and its plan passes Validate.
func (r drawnRun) check() error {
	s := r.Settings
	if _, err := protocol.NewElector(protocol.Config{
		Store: (*s3.Client)(nil), Bucket: "b", Key: "k", Identity: "n",
		LeaseDuration: s.LeaseDuration, RenewDeadline: s.RenewDeadline, RetryPeriod: s.RetryPeriod,
		RequestTimeout: s.RequestTimeout, ClockDriftPPM: s.ClockDriftPPM, ReleaseOnCancel: s.ReleaseOnCancel,
		Callbacks: protocol.LeaderCallbacks{OnStartedLeading: func(context.Context, protocol.Lease) {}},
	}); err != nil {
		return fmt.Errorf("generator drew invalid settings %+v: %w", s, err)
	}
	if r.Nodes < 2 || r.Nodes > 5 {
		return fmt.Errorf("generator drew %d nodes", r.Nodes)
	}
	if err := r.Plan.Validate(r.Nodes, r.Duration.D()); err != nil {
		return fmt.Errorf("generator drew an invalid plan: %w", err)
	}
	if r.Duration.D() <= r.Plan.HealAt.D()+s.LivenessBound() {
		return fmt.Errorf("generator drew a run of %v healing at %v: liveness (bound %v) would not be judged",
			r.Duration, r.Plan.HealAt, s.LivenessBound())
	}
	return nil
}

// reproducer is the run as a reproducer of scenario, which must build the
// world the run assumes: baseConfig with the run's seed (swarm, or a zoo
// scenario). Its Setup is then the run exactly, and the file it marshals
// to replays it with `simrun replay`.
func (r drawnRun) reproducer(scenario string) *Reproducer {
	return &Reproducer{Version: ReproVersion, Scenario: scenario, Seed: r.Seed, Nodes: r.Nodes,
		Duration: r.Duration, Plan: clonePlan(r.Plan)}
}

// electorSetup is the run with the production elector. With the default
// settings it is the swarm scenario's world with the run's overrides, so
// that a failure can be written as a reproducer of "swarm".
func (r drawnRun) electorSetup() (Setup, error) {
	if !r.Custom {
		return r.reproducer(Swarm.Name).Setup()
	}
	p := Elector(r.Settings)
	cfg := baseConfig(r.Seed, p)
	cfg.Nodes, cfg.Duration = r.Nodes, r.Duration.D()
	return Setup{Config: cfg, Plan: clonePlan(r.Plan), Protocol: p}, nil
}

// zooSetup is the run with the zoo's variant name in place of the elector
// (the run must have the default settings, the zoo's).
func (r drawnRun) zooSetup(name string) (Setup, error) {
	return r.reproducer("zoo/" + name).Setup()
}

// runDrawn checks the run, builds it with setup and judges it.
func runDrawn(r drawnRun, setup func(drawnRun) (Setup, error)) (*Outcome, error) {
	if err := r.check(); err != nil {
		return nil, err
	}
	s, err := setup(r)
	if err != nil {
		return nil, err
	}
	return RunSetup(s, false)
}

// describe renders a judged run for a failure message: the run as JSON,
// its verdict and violations, and how it left the assumptions.
func describe(r drawnRun, o *Outcome) string {
	b, _ := json.MarshalIndent(r, "", "  ")
	msg := fmt.Sprintf("run (%d fault events):\n%s\nverdict %s", len(r.Plan.Events), b, SignatureOf(o))
	for _, v := range o.Violations {
		msg += fmt.Sprintf("\n  %v", v)
	}
	if len(o.Outside) > 0 {
		msg += fmt.Sprintf("\noutside the assumptions: %v", o.Outside)
	}
	return msg
}
