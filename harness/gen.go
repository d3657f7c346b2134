package harness

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/s3lease/s3lease/faults"
	"github.com/s3lease/s3lease/protocol"
	"github.com/s3lease/s3lease/sim"
	"pgregory.net/rapid"
)

// The generator of whole runs, shared by Check (rapid) and Fuzz (Go's
// fuzzing), and by the project's own property tests.
//
// A run is drawn piece by piece from a Source: the number of nodes, whether
// to vary the protocol (for the production elector: its settings), the
// fault plan's heal instant, each node's clock, a list of fault groups of
// every kind, the S3 knobs and the SDK's attempts, and the length of the
// liveness phase. Every value is drawn within a range that makes it valid
// by construction (every timed fault is over by healAt; aimed faults need
// no end), and Draw.Check confirms it with faults.Plan.Validate, so a
// generator bug fails loudly instead of testing nothing. The ranges come
// from the protocol's declared assumptions: its lease sizes the faults,
// and plans that stay inside the assumptions keep drift, pauses, offsets
// and wall-clock steps within the declared bounds.
//
// Two sources feed it: RapidSource draws every value with rapid
// (rapid.Int64Range, rapid.Bool, and rapid.SliceOfN for the fault groups),
// so that rapid's shrinker deletes fault groups and pulls every number
// towards the low end of its range (no clock offset, short faults, early
// instants, the protocol as given); BytesSource reads the same choices from
// a fuzzer's bytes, and reads the low end of every range once the bytes
// run out, so every byte string is a valid run and the empty string is the
// quietest one.
//
// Times are drawn as whole multiples of a grain (instantGrain, lengthGrain,
// milliseconds for settings and clock offsets): rapid favours small
// integers, and a coarse grain lets its draws reach the far end of a range
// often, while most faults stay short and near the assumptions.

// Source is where a drawn run's choices come from.
type Source interface {
	// Int draws an integer in [lo, hi] (lo if hi <= lo).
	Int(lo, hi int64, label string) int64
	// Bool draws a boolean.
	Bool(label string) bool
	// Groups draws between 0 and most fault groups, each made by one.
	Groups(most int, label string, one func(Source) []faults.Event) [][]faults.Event
}

// RapidSource draws a run's choices with rapid, so that rapid shrinks a
// failing run.
func RapidSource(t *rapid.T) Source { return rapidSource{t} }

type rapidSource struct{ t *rapid.T }

func (s rapidSource) Int(lo, hi int64, label string) int64 {
	if hi <= lo {
		return lo
	}
	return rapid.Int64Range(lo, hi).Draw(s.t, label)
}

func (s rapidSource) Bool(label string) bool { return rapid.Bool().Draw(s.t, label) }

func (s rapidSource) Groups(most int, label string, one func(Source) []faults.Event) [][]faults.Event {
	group := rapid.Custom(func(t *rapid.T) []faults.Event { return one(rapidSource{t}) })
	return rapid.SliceOfN(group, 0, most).Draw(s.t, label)
}

// Draw is one whole drawn run: the simulator's seed, the world's size and
// length, the protocol (as given, or a variant drawn by the generator) and
// the fault plan.
type Draw struct {
	Seed     uint64          `json:"seed"`
	Nodes    int             `json:"nodes"`
	Duration faults.Duration `json:"duration"`
	// Protocol is the protocol the run uses.
	Protocol Protocol `json:"-"`
	// Varied describes the protocol the generator drew in place of the
	// one given (for the elector, its settings); nil if the run uses the
	// protocol as given. Only a run of the protocol as given can be
	// written as a reproducer file.
	Varied any          `json:"varied,omitempty"`
	Plan   *faults.Plan `json:"plan"`
}

// Vary draws a variant of a protocol (other settings of the same code)
// and returns it with a description of what was drawn, for failure
// messages.
type Vary func(Source) (Protocol, any)

// VaryElector draws the production elector's settings: a Vary for
// DrawRun.
func VaryElector(src Source) (Protocol, any) {
	s := DrawSettings(src)
	return Elector(s), s
}

// maxFaultGroups bounds the fault groups of a drawn plan; a crash or stop
// and its restart are one group of two events.
const maxFaultGroups = 12

// DrawRun draws a run of protocol p with the given simulator seed. It
// draws whether to vary the protocol; with vary set and the draw true, the
// run uses the protocol vary draws, otherwise p. (The choice is drawn even
// without vary, so that the same choices draw the same run for every
// protocol.)
func DrawRun(src Source, seed uint64, p Protocol, vary Vary) Draw {
	r := Draw{Seed: seed, Protocol: p}
	r.Nodes = int(src.Int(2, 5, "nodes"))
	if src.Bool("custom settings") && vary != nil {
		r.Protocol, r.Varied = vary(src)
	}
	r.Plan = drawPlan(src, r.Nodes, r.Protocol)
	// The liveness phase: the protocol's bound and a little more, so that
	// liveness is always judged.
	tail := r.Protocol.LivenessBound + ms(src.Int(500, 15_000, "liveness slack ms"))
	r.Duration = r.Plan.HealAt + faults.Duration(tail)
	return r
}

func ms(n int64) time.Duration { return time.Duration(n) * time.Millisecond }

// DrawSettings draws elector settings that protocol.NewElector accepts:
// a lease of 2 to 20 s; a drift bound of 1 to 5000 ppm; a renew deadline
// between a third of the lease and the lease less the drift margin; a retry
// period whose 1.2 times fits in the renew deadline; a request timeout of
// at most half the renew deadline.
func DrawSettings(src Source) ElectorSettings {
	lease := src.Int(2_000, 20_000, "lease ms")
	ppm := src.Int(1, 5_000, "drift bound ppm")
	// protocol.DriftMargin, rounded up to a millisecond.
	marginMs := int64((protocol.DriftMargin(ms(lease), ppm) + time.Millisecond - 1) / time.Millisecond)
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

// drawPlan draws a plan for nodes nodes running protocol p.
//
// First whether the plan may leave p's assumptions (one plan in four;
// rapid shrinks towards plans that stay inside). A plan that stays inside
// has clock drifts within p's bound, pauses no longer than the assumed
// maximum, offsets and wall-clock steps within their bounds where p
// declares them, and none of the kinds that always leave; one that may
// leave draws drifts up to twenty times the bound, pauses, stalls and
// pauses before fenced writes up to three leases, and every kind. Then
// healAt, between 5 and 45 s; a clock setting for some nodes (offsets up
// to 5 minutes); up to maxFaultGroups fault groups, every timed fault over
// by healAt (partitions, which the assumptions allow, last up to two
// leases, half the time longer than one); each S3 knob on or off (up to
// 20%); the SDK's attempts.
//
// Last come the lock object's content before the run (a released or live
// record, one of token 2^40, and for plans that may leave the assumptions
// the top of the token space or bytes that are no record), the nodes'
// applications (their mode, and slow work within the pause bound, or beyond
// it for plans that may leave), and up to maxRoleGroups faults aimed at
// roles (pauses, crashes, stops, partitions of the leader or of the
// followers, faults on answers or on the way to S3, pauses before guarded
// writes, late writes, whole-cluster events; and foreign writes for plans
// that may leave); then the nodes' names, for a protocol that declares its
// identity limit (Protocol.MaxIdentityLen: faults.SwarmName's kinds), the
// spelling of the record before the run (faults.Respell), its edit
// (faults.Edit), and what it carries besides (drawRecordExtras: a
// watermark, updates, a link to a previous term; for plans that may leave
// the assumptions a link no elector writes, a long holder, padding).
//
// Crashes and stops come with their restart, at least 10 ms later, so that
// every node is up again by healAt. Slow S3 and the slow tail add at most
// late to a request (see below). Aimed pauses on an answer last at most a
// lease. Those three keep faults from reaching past healAt further than
// the liveness bound allows: the property judges liveness after every run.
func drawPlan(src Source, nodes int, pr Protocol) *faults.Plan {
	a := pr.Assumptions
	lease := a.Lease
	outside := src.Int(0, 3, "may leave the assumptions (3)") == 3
	maxPause, drift, kinds := max(a.MaxPause, 0), a.MaxDriftPPM, len(faultKinds)-outsideKinds
	maxOffset, maxStep := 300*time.Second, time.Hour
	if outside {
		maxPause, drift, kinds = 3*lease, min(20*a.MaxDriftPPM, 999_999), len(faultKinds)
	} else {
		if a.MaxOffset > 0 {
			maxOffset = min(maxOffset, a.MaxOffset)
		}
		if a.MaxWallStep > 0 {
			maxStep = min(maxStep, a.MaxWallStep)
		}
	}
	// late bounds the extra latency of slow S3 and the slow tail. A
	// request sent just before healAt lands up to that much after it: a
	// renewal sent by a leader that then crashed starts a new lease after
	// the heal, and the liveness bound, lease + 3 retry periods + 3 request
	// timeouts, only has room for a write landing up to about a retry
	// period and a request timeout late (a follower needs up to 1.2 retry
	// periods and a request to see it, then a lease, then a request).
	late := lease / 2
	if pr.LivenessBound > lease {
		// For the elector, (bound - lease)/3 is a retry period and a
		// request timeout.
		late = min(late, (pr.LivenessBound-lease)/3)
	}
	p := &faults.Plan{HealAt: faults.Duration(instantGrain * time.Duration(src.Int(50, 450, "healAt (0.1 s)")))}
	heal := p.HealAt.D()
	for i := range nodes {
		if !src.Bool(fmt.Sprintf("n%d clock", i)) {
			continue
		}
		cs := faults.ClockSetting{
			Node:     i,
			Offset:   faults.Duration(ms(src.Int(-maxOffset.Milliseconds(), maxOffset.Milliseconds(), "offset ms"))),
			DriftPPM: src.Int(-drift, drift, "drift ppm"),
		}
		if cs.DriftPPM > a.MaxDriftPPM || -cs.DriftPPM > a.MaxDriftPPM {
			cs.DriftUntil = p.HealAt // a drift beyond the bound heals, like every fault
		}
		p.Clocks = append(p.Clocks, cs)
	}
	// length draws a duration in [lo, hi] (lo if hi < lo); timed draws the
	// length of a timed fault, which must be over by heal.
	length := func(src Source, lo, hi time.Duration, label string) time.Duration {
		return lengthGrain * time.Duration(src.Int(int64(lo/lengthGrain), int64(hi/lengthGrain), label+" (0.01 s)"))
	}
	timed := func(src Source, lo, hi time.Duration, label string) time.Duration {
		return length(src, min(lo, heal), min(hi, heal), label)
	}
	// at draws the start of a fault lasting d, so that it is over by heal.
	at := func(src Source, d time.Duration) faults.Duration {
		return faults.Duration(instantGrain * time.Duration(src.Int(0, int64((heal-d)/instantGrain), "at (0.1 s)")))
	}
	node := func(src Source) int { return int(src.Int(0, int64(nodes-1), "node")) }
	aimed := func(src Source, k faults.Kind) faults.Event {
		return faults.Event{Kind: k, Node: node(src), Op: []string{"PutObject", "GetObject"}[src.Int(0, 1, "op")],
			Nth: int(src.Int(1, 30, "nth"))}
	}
	identity := func(src Source, n int) string {
		if !src.Bool("new identity") {
			return ""
		}
		return fmt.Sprintf("n%d-%d", n, src.Int(1, 99, "incarnation"))
	}
	one := func(src Source) []faults.Event {
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
			return []faults.Event{{Kind: faults.ClockJump, At: at(src, 0), Node: node(src), By: faults.Duration(time.Second * time.Duration(src.Int(-int64(maxStep/time.Second), int64(maxStep/time.Second), "by s")))}}
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
	if !outside {
		p.Events = withinPauseBound(p.Events, maxPause)
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
	// Drawn last, so that the choices of runs drawn before these families
	// existed (a fuzzer's corpus, rapid's fail files) keep their meaning:
	// the lock object before the run, the applications, and faults aimed
	// at roles.
	if src.Bool("initial content") {
		p.Initial = drawInitial(src, outside)
	}
	if src.Bool("applications") {
		for i := range nodes {
			if !src.Bool(fmt.Sprintf("n%d application", i)) {
				continue
			}
			a := faults.App{Node: i, Mode: appModes[src.Int(0, int64(len(appModes)-1), "mode")]}
			if src.Bool("slow work") {
				most := maxPause
				if outside {
					most = 2 * lease
				}
				a.Work = faults.Duration(length(src, 0, most, "work"))
			}
			p.Apps = append(p.Apps, a)
		}
	}
	roleKinds := len(roleFaults) - outsideRoleFaults
	if outside {
		roleKinds = len(roleFaults)
	}
	role := func(src Source, roles ...faults.Role) faults.Role {
		return roles[src.Int(0, int64(len(roles)-1), "role")]
	}
	oneRole := func(src Source) []faults.Event {
		var e faults.Event
		switch kind := roleFaults[src.Int(0, int64(roleKinds-1), "kind")]; kind {
		case "pause":
			e = faults.Event{Kind: faults.Pause, Role: role(src, faults.RoleLeader, faults.RoleRenewer, faults.RoleRequester, faults.RoleAcquirer),
				For: faults.Duration(timed(src, 0, min(maxPause, lease), "for"))}
		case "crash", "stop":
			k := faults.Crash
			if kind == "stop" {
				k = faults.Stop
			}
			e = faults.Event{Kind: k, Role: role(src, faults.RoleLeader, faults.RoleAcquirer, faults.RoleRenewer),
				For: faults.Duration(timed(src, lengthGrain, 5*time.Second, "down"))}
			if src.Bool("new identity") {
				e.Identity = fmt.Sprintf("-r%d", src.Int(1, 99, "incarnation"))
			}
		case "partition of the leader":
			e = faults.Event{Kind: faults.Partition, Role: faults.RoleLeader, For: faults.Duration(timed(src, lengthGrain, 2*lease, "for"))}
		case "partition of the followers":
			e = faults.Event{Kind: faults.Partition, Role: faults.RoleLeader, Target: faults.TargetFollowers,
				For: faults.Duration(timed(src, lengthGrain, 4*lease, "for"))}
		case "answer":
			e = faults.Event{Kind: []faults.Kind{faults.AnswerLost, faults.AnswerFailed, faults.Refused, faults.AnswerDelayed, faults.RequestDelayed,
				faults.AnswerPause}[src.Int(0, 5, "answer")], Role: role(src, faults.RoleRenewer, faults.RoleAcquirer, faults.RoleRequester)}
			switch e.Kind {
			case faults.AnswerFailed:
				e.Code = errorCodes[src.Int(0, 1, "code")]
			case faults.Refused:
				e.Code = errorCodes[src.Int(0, int64(len(errorCodes)-1), "code")]
			case faults.AnswerDelayed, faults.RequestDelayed:
				e.By = faults.Duration(length(src, lengthGrain, 2*lease, "by"))
			case faults.AnswerPause:
				e.For = faults.Duration(length(src, 0, min(maxPause, lease), "for"))
			}
		case "pause-before-write":
			e = faults.Event{Kind: faults.PauseBefore, Role: faults.RoleLeader, For: faults.Duration(length(src, 0, maxPause, "for"))}
		case "write-delayed":
			e = faults.Event{Kind: faults.WriteDelayed, Role: faults.RoleLeader, By: faults.Duration(length(src, lengthGrain, 2*lease, "by"))}
		case "whole cluster":
			e = faults.Event{Kind: []faults.Kind{faults.Crash, faults.Stop, faults.Restart}[src.Int(0, 2, "what")], Target: faults.TargetAll,
				Role: []faults.Role{"", faults.RoleLeader, faults.RoleAcquirer}[src.Int(0, 2, "when")]}
			if e.Kind != faults.Restart {
				e.For = faults.Duration(timed(src, lengthGrain, 5*time.Second, "down"))
			}
			if src.Bool("new identities") {
				e.Identity = fmt.Sprintf("-c%d", src.Int(1, 99, "generation"))
			}
		case "delete":
			e = faults.Event{Kind: faults.DeleteLock, Role: role(src, faults.RoleLeader, faults.RoleRenewer)}
		case "overwrite with a record":
			r := &faults.Record{Holder: "intruder", Token: []uint64{1, 1 << 40, math.MaxUint64 - 1, math.MaxUint64}[src.Int(0, 3, "token")],
				Released: src.Bool("released")}
			e = faults.Event{Kind: faults.Overwrite, Record: r, Role: role(src, faults.RoleLeader, faults.RoleRenewer)}
		default: // "restore"
			e = faults.Event{Kind: faults.Restore, For: faults.Duration(timed(src, lengthGrain, 3*lease, "kept"))}
		}
		lasts := e.For.D()
		if e.Kind.Aimed() {
			lasts = 0 // an aimed fault waits for its request or write
		}
		e.At = at(src, lasts)
		return []faults.Event{e}
	}
	for _, g := range src.Groups(maxRoleGroups, "aimed at roles", oneRole) {
		p.Events = append(p.Events, g...)
	}
	// Drawn after every family above, for the same reason: the nodes'
	// names, for a protocol that declares its identity limit
	// (faults.SwarmName), and the spelling of the record before the run.
	if pr.MaxIdentityLen > 0 && src.Bool("names") {
		p.Names = make([]string, nodes)
		for i := range p.Names {
			p.Names[i] = faults.SwarmName(i, int(src.Int(0, faults.NameKinds-1, "name")), pr.MaxIdentityLen)
		}
		faults.FitNames(p, pr.MaxIdentityLen)
	}
	if in := p.Initial; in != nil && in.Record != nil && src.Bool("spelling") {
		in.Spelling = uint64(src.Int(1, math.MaxInt64, "spelling"))
	}
	// And after those, the edit of that record (faults.Edit).
	if in := p.Initial; in != nil && in.Record != nil && src.Bool("edit") {
		in.Edit = uint64(src.Int(1, math.MaxInt64, "edit"))
	}
	// And last what that record carries besides (faults.Record's
	// watermark, updates and link), its holder and its padding.
	if in := p.Initial; in != nil && in.Record != nil {
		drawRecordExtras(src, in, outside)
	}
	// And after those, a proxy's error pages in place of S3's (plain
	// ones, as the swarm draws them: faults.SwarmErrorPages).
	if src.Bool("error pages") {
		p.ErrorPages = sim.ErrorPagesPlain.String()
	}
	// And last, for plans that may leave the assumptions, a restore of the
	// leader's own write k back as its renewal lands (faults.RestoreOwn),
	// k about the number of writes an elector remembers, or any.
	if outside && src.Bool("restore own") {
		k := src.Int(14, 17, "back")
		if src.Bool("any back") {
			k = src.Int(1, 20, "back")
		}
		p.Events = append(p.Events, faults.Event{Kind: faults.RestoreOwn, Role: faults.RoleRenewer, Back: int(k), At: at(src, 0)})
	}
	return p
}

// drawRecordExtras draws what the record before the run carries besides
// its holder and token: a watermark and updates it publishes, a link to a
// previous term (a lower token, ended released or expired, that term's
// watermark and updates); and for plans that may leave the assumptions a
// link no elector writes (a token not below the record's, an unknown
// ending, updates over the limit), a holder longer than an identity may
// be, ending in characters of several bytes (faults.LongHolder), and
// padding to just under or over the largest body read as a record
// (faults.PadSize).
func drawRecordExtras(src Source, o *faults.Object, outside bool) {
	r := o.Record
	watermark := func(label string) time.Time {
		return sim.Epoch.Add(time.Duration(src.Int(-3_600_000, 3_600_000, label)) * time.Millisecond).UTC()
	}
	updates := func(label string) string {
		return recordUpdates[src.Int(0, int64(len(recordUpdates)-1), label)]
	}
	if src.Bool("publishes") {
		r.Watermark, r.Updates = watermark("watermark ms"), updates("updates")
	}
	if src.Bool("link") && r.Token > 1 {
		p := &faults.Previous{Holder: []string{"gone", "n0", "n1"}[src.Int(0, 2, "previous holder")],
			Token: r.Token - uint64(src.Int(1, int64(min(r.Token-1, 1000)), "below")),
			Ended: []string{faults.EndedReleased, faults.EndedExpired}[src.Int(0, 1, "ended")]}
		if src.Bool("handed a watermark") {
			p.Watermark = watermark("previous watermark ms")
		}
		if src.Bool("previous updates") {
			p.Updates = updates("previous updates")
		}
		if r.Watermark.Before(p.Watermark) {
			r.Watermark = p.Watermark
		}
		if outside && src.Bool("invalid link") {
			switch src.Int(0, 2, "invalid") {
			case 0:
				p.Token = r.Token
			case 1:
				p.Ended = "abandoned"
			default:
				p.Updates = strings.Repeat("u", faults.MaxUpdatesLen+1)
			}
		}
		r.Previous = p
	}
	if outside && src.Bool("long holder") {
		r.Holder = faults.LongHolder(r.Holder, int(src.Int(0, 2, "character")), int(src.Int(0, 3, "cut into")), int(src.Int(1, 500, "copies")))
	}
	if outside && src.Bool("padding") {
		o.Size = faults.PadSize(int(src.Int(0, 3, "padding")), int(src.Int(1, 1000, "by")))
	}
}

// recordUpdates are the updates a drawn record publishes: a name, exactly
// the limit, text JSON must escape.
var recordUpdates = []string{
	"log/entries",
	strings.Repeat("u", faults.MaxUpdatesLen-2) + "é",
	strings.Repeat(`"quoted" \ é <&> `, 20),
}

// maxRoleGroups bounds the faults aimed at roles of a drawn plan.
const maxRoleGroups = 4

// appModes are the applications' modes, the default first.
var appModes = []sim.AppMode{sim.AppContext, sim.AppChecks, sim.AppPolls}

// roleFaults are the faults the generator aims at roles, simplest first;
// the last outsideRoleFaults are foreign writes, drawn only for plans that
// may leave the assumptions.
var roleFaults = []string{
	"pause", "crash", "stop", "partition of the leader", "partition of the followers", "answer",
	"pause-before-write", "write-delayed", "whole cluster",
	"delete", "overwrite with a record", "restore",
}

const outsideRoleFaults = 3

// drawInitial draws the lock object's content before the run: a released
// record, the live record of a node that is gone, one of token 2^40, and
// for plans that may leave the assumptions a record at the top of the
// token space or bytes that are no record.
func drawInitial(src Source, outside bool) *faults.Object {
	most := int64(2)
	if outside {
		most = 4
	}
	holder := []string{"gone", "n0", "n1"}[src.Int(0, 2, "holder")]
	switch src.Int(0, most, "initial") {
	case 0:
		return &faults.Object{Record: &faults.Record{Holder: holder, Token: uint64(src.Int(1, 1000, "token")), Released: true}}
	case 1:
		return &faults.Object{Record: &faults.Record{Holder: holder, Token: uint64(src.Int(1, 1000, "token"))}}
	case 2:
		return &faults.Object{Record: &faults.Record{Holder: holder, Token: 1<<40 + uint64(src.Int(0, 3, "token")), Released: src.Bool("released")}}
	case 3:
		return &faults.Object{Record: &faults.Record{Holder: holder, Token: math.MaxUint64 - uint64(src.Int(0, 1, "token")), Released: src.Bool("released")}}
	}
	return &faults.Object{Body: overwriteBodies[src.Int(0, int64(len(overwriteBodies)-1), "body")]}
}

// Check confirms that the run is valid: its plan passes Validate, and its
// liveness phase is long enough for liveness to be judged.
func (r Draw) Check() error {
	if r.Nodes < 2 || r.Nodes > 5 {
		return fmt.Errorf("generator drew %d nodes", r.Nodes)
	}
	if err := r.Plan.Validate(r.Nodes, r.Duration.D()); err != nil {
		return fmt.Errorf("generator drew an invalid plan: %w", err)
	}
	if b := r.Protocol.LivenessBound; r.Duration.D() <= r.Plan.HealAt.D()+b {
		return fmt.Errorf("generator drew a run of %v healing at %v: liveness (bound %v) would not be judged",
			r.Duration, r.Plan.HealAt, b)
	}
	return nil
}

// Reproducer is the run as a reproducer of scenario, which must build the
// world the run assumes: World with the run's seed, and the run's protocol
// (a scenario made by Swarm for it). Its Setup is then the run exactly,
// and the file it marshals to replays it with `simrun replay`. It is nil
// for a run of a varied protocol, which no scenario builds.
func (r Draw) Reproducer(scenario string) *Reproducer {
	if r.Varied != nil {
		return nil
	}
	return &Reproducer{Version: ReproVersion, Scenario: scenario, Seed: r.Seed, Nodes: r.Nodes,
		Duration: r.Duration, Plan: clonePlan(r.Plan)}
}

// Setup is the run ready to go: World with the run's seed, nodes and
// duration, its plan and its protocol.
func (r Draw) Setup() Setup {
	cfg := World(r.Seed)
	cfg.Nodes, cfg.Duration = r.Nodes, r.Duration.D()
	return Setup{Config: cfg, Plan: clonePlan(r.Plan), Protocol: r.Protocol}
}

// RunDraw checks the run and judges it.
func RunDraw(r Draw) (*Outcome, error) {
	if err := r.Check(); err != nil {
		return nil, err
	}
	return RunSetup(r.Setup(), false)
}

// Describe renders a judged run for a failure message: the run as JSON,
// its verdict and violations, and how it left the assumptions.
func Describe(r Draw, o *Outcome) string {
	b, _ := json.MarshalIndent(r, "", "  ")
	msg := fmt.Sprintf("run of %s (%d fault events):\n%s\nverdict %s", r.Protocol.Name, len(r.Plan.Events), b, SignatureOf(o))
	for _, v := range o.Violations {
		msg += fmt.Sprintf("\n  %v", v)
	}
	if o.Result != nil && o.Result.Failure != nil {
		msg += "\n  " + o.Result.Failure.Error()
	}
	if len(o.Outside) > 0 {
		msg += fmt.Sprintf("\noutside the assumptions: %v", o.Outside)
	}
	return msg
}

// withinPauseBound drops the timed pauses that would make a node's pauses,
// merged where they overlap or touch (sim.MergeSpans), longer than bound: a
// plan drawn to stay inside the assumptions then does, as the simulator
// runs it.
func withinPauseBound(evs []faults.Event, bound time.Duration) []faults.Event {
	var kept []sim.FaultSpan
	out := evs[:0:0]
	for _, e := range evs {
		if e.Kind != faults.Pause {
			out = append(out, e)
			continue
		}
		span := sim.FaultSpan{Kind: string(e.Kind), Node: e.Node, From: e.At.D(), To: e.At.D() + e.For.D()}
		fits := true
		for _, m := range sim.MergeSpans(append(kept[:len(kept):len(kept)], span)) {
			fits = fits && m.To-m.From <= bound
		}
		if !fits {
			continue
		}
		kept = append(kept, span)
		out = append(out, e)
	}
	return out
}
