package faults

import (
	"fmt"
	"math"
	"time"

	"github.com/s3lease/s3lease/protocol"
	"github.com/s3lease/s3lease/sim"
)

// The seeds of the streams that draw each family apart, so that adding to
// one family does not move the others' draws.
const (
	streamSettings = 0x73657474_696e6773
	streamInitial  = 0x696e6974_69616c21
	streamApps     = 0x61707073_2121_2121
	streamForeign  = 0x666f7265_69676e21
	streamCluster  = 0x636c7573_74657221
	streamRoles    = 0x726f6c65_73212121
	streamHot      = 0x686f7421_21212121
	streamDenied   = 0x64656e69_65642121
	streamEnds     = 0x656e6473_21212121
	streamLargest  = 0x6c617267_65737421
)

// stream draws one family's parameters.
type stream struct {
	gen
}

func newStream(seed, salt uint64, sp SwarmSpace) stream {
	return stream{gen{c: sim.NewRandomChooser(seed ^ salt), sp: sp}}
}

func (s stream) on(oneIn uint64) bool { return s.c.Choose(sim.ChooseSetup, oneIn) == 0 }

func (s stream) pick(n int) int { return int(s.c.Choose(sim.ChooseSetup, uint64(n))) }

// SwarmSettings draws the nodes' settings for a seed, for a protocol that
// takes them (the production elector, the zoo's careful lock): on half the
// seeds none (the protocol as given), on a quarter one drawn setting for
// every node, on a quarter a mix in which each node runs the protocol as
// given or a setting of its own. Every setting is one protocol.NewElector
// accepts (see drawSettings).
func SwarmSettings(seed uint64, nodes int) []Settings {
	s := newStream(seed, streamSettings, SwarmSpace{Nodes: nodes})
	sub := newStream(seed, streamSubMillis, SwarmSpace{Nodes: nodes})
	switch s.pick(4) {
	case 0, 1:
		return nil
	case 2:
		one := s.settings(sub)
		out := make([]Settings, nodes)
		for i := range out {
			out[i] = one
			out[i].Node = i
		}
		return out
	}
	var out []Settings
	for i := range nodes {
		if s.pick(3) == 0 {
			continue
		}
		one := s.settings(sub)
		one.Node = i
		out = append(out, one)
	}
	return out
}

// settings draws one node's settings across the range protocol.Config
// accepts, tight ones included: a lease of 1 to 20 s, in whole
// milliseconds or, on one draw in eight (drawn from sub: subMillis), with
// a remainder below a millisecond, which the other settings are drawn
// against (a deadline at the drift-margin limit is at that lease's); a
// drift bound of a
// few ppm to the largest accepted (10%); a renew deadline anywhere from a
// third of the lease to the lease less the drift margin, a third of the
// time exactly at that limit; a retry period short (a twentieth of the
// deadline) or long (just under its 5/6); a request timeout of at least
// 150 ms (above the simulated S3's longest round trip) up to exactly half
// the deadline, or 0 (the retry period) where that fits; release on
// cancel or not. The elector has no jitter setting (its follower jitter of
// up to 20% of the retry period is built in), so none is drawn.
func (s stream) settings(sub stream) Settings {
	ms := time.Millisecond
	var lease time.Duration
	switch s.pick(20) {
	case 0, 1, 2, 3:
		lease = s.between(1000*ms, 2000*ms)
	case 4, 5, 6, 7, 8, 9, 10:
		lease = s.between(2000*ms, 6000*ms)
	case 11, 12, 13, 14, 15, 16, 17:
		lease = s.between(6000*ms, 12000*ms)
	default:
		lease = s.between(12000*ms, 20000*ms)
	}
	lease = lease.Truncate(ms) + sub.subMillis()
	var ppm int64
	switch s.pick(4) {
	case 0:
		ppm = s.int(1, 100)
	case 1, 2:
		ppm = s.int(100, 5000)
	default:
		ppm = s.int(5000, 100_000)
	}
	limit := lease - protocol.DriftMargin(lease, ppm)
	var renew time.Duration
	switch s.pick(3) {
	case 0:
		renew = limit // at the drift-margin limit, to the nanosecond
	case 1:
		renew = s.between(limit-limit/20, limit).Truncate(ms) // close to it
	default:
		renew = s.between(lease/3, limit).Truncate(ms)
	}
	renew = max(renew, min(limit, 300*ms))
	var retry time.Duration
	hi := (renew*5 - 1) / 6 // retry*6 < renew*5
	switch s.pick(3) {
	case 0:
		retry = s.between(max(50*ms, renew/20), max(50*ms, renew/5))
	case 1:
		retry = s.between(renew/5, renew/3)
	default:
		retry = s.between(renew/3, hi)
	}
	retry = min(max(retry.Truncate(ms), 50*ms), hi)
	var timeout time.Duration
	lo := 150 * ms
	switch s.pick(3) {
	case 0:
		timeout = renew / 2 // exactly the largest accepted
	case 1:
		timeout = s.between(max(lo, renew/4), renew/2).Truncate(ms)
	default:
		if retry >= lo && retry <= renew/2 {
			timeout = 0 // the default: the retry period
		} else {
			timeout = renew / 2
		}
	}
	if timeout != 0 {
		timeout = min(max(timeout, lo), renew/2)
	}
	return Settings{
		Lease: Duration(lease), RenewDeadline: Duration(renew), RetryPeriod: Duration(retry),
		RequestTimeout: Duration(timeout), DriftPPM: ppm, ReleaseOnCancel: s.on(2),
	}
}

// holder draws the holder of a record written before or outside the run:
// a process that is gone, or one of the nodes' own names (a process that
// restarted under the same identity).
func (s stream) holder() string {
	if s.on(2) {
		return fmt.Sprintf("n%d", s.node())
	}
	return []string{"gone", "old-deploy", "intruder"}[s.pick(3)]
}

// foreignBodies are bytes that are no lock record: empty, text, JSON that
// is no record, a record-shaped object with no lease, control bytes, and a
// record cut off right after a key (a truncated upload), which a parser
// must refuse without reading past the end. (Every body is valid UTF-8, so
// that a plan's JSON holds it exactly.)
var foreignBodies = []string{
	"",
	"# lifecycle-rule placeholder: this key is managed by ops\n",
	"{}",
	`{"holder":"intruder","token":1}`,
	"\x00\x01 binary \x7f",
	`{"holder":"intruder","token":`,
}

// SwarmInitial draws the lock object's content before the run: none on
// two seeds in five; a released record; the live record of a node that is
// gone (stating the nodes' lease or less); a record with a token of about
// 2^40 (native: electors could have written it); and, on one seed in
// twenty, content no elector wrote: bytes that are no record, or a record at the
// top of the token space (math.MaxUint64-1, which leaves one successor,
// or math.MaxUint64, which the elector refuses). To any of those records
// it may add (extendRecord): a watermark and updates it publishes (one in
// three); a link to the term before it as electors write it (holder, a
// lower token, ended released or expired, that term's watermark and
// updates; one in three); a holder of exactly MaxIdentityLen bytes (one
// in twenty). On the seeds that draw foreign writes during the run, which
// are outside the assumptions anyway, it may add what no elector writes:
// a link they must refuse (a token not below the record's, an unknown
// ending, updates over MaxUpdatesLen; half the links), a holder longer
// than MaxIdentityLen whose cut at that length falls on a character
// boundary or inside a character of several bytes (one in three), and
// padding by an unknown field to just under or exactly MaxBodyLen bytes,
// or just over (one in three); and there a lease at the edge of the
// longest a record states (MaxLease) or just beyond it, the record
// released and not edited (longLease; one seed in three). Half the records are in another
// spelling of the same JSON (Object.Spelling), and one in four is
// edited as another tool might leave it (Object.Edit, a foreign write).
func SwarmInitial(seed uint64, sp SwarmSpace) *Object {
	o := swarmInitial(seed, sp)
	if o != nil && o.Record != nil {
		extendRecord(seed, sp, o)
		// Half the records in another spelling, and a quarter edited,
		// each drawn from a stream of its own so that the content, and
		// each earlier draw, stays as it was drawn.
		if s := newStream(seed, streamSpelling, sp); s.on(2) {
			o.Spelling = 1 + s.c.Choose(sim.ChooseSetup, 1<<62)
		}
		if s := newStream(seed, streamEdit, sp); s.on(4) {
			o.Edit = 1 + s.c.Choose(sim.ChooseSetup, 1<<62)
		}
		if o.Edit == 0 {
			longLease(seed, sp, o.Record) // an edit could make a long lease live
		}
	}
	return o
}

// swarmInitial is SwarmInitial's content, in the protocol's own spelling.
func swarmInitial(seed uint64, sp SwarmSpace) *Object {
	s := newStream(seed, streamInitial, sp)
	small := func() uint64 { return uint64(s.int(1, 1000)) }
	lease := func() Duration {
		if s.on(2) {
			return 0 // the protocol's own
		}
		return Duration(s.between(sp.Lease/2, sp.Lease).Truncate(time.Millisecond))
	}
	switch k := s.pick(20); {
	case k < 8:
		return nil
	case k < 11:
		return &Object{Record: &Record{Holder: s.holder(), Token: small(), Released: true}}
	case k < 14:
		return &Object{Record: &Record{Holder: s.holder(), Token: small(), Lease: lease()}}
	case k < 19:
		return &Object{Record: &Record{Holder: s.holder(), Token: 1<<40 + uint64(s.int(0, 3)), Lease: lease(), Released: s.on(2)}}
	case s.on(2):
		return &Object{Body: foreignBodies[s.pick(len(foreignBodies))]}
	}
	return &Object{Record: &Record{Holder: s.holder(), Token: math.MaxUint64 - uint64(s.int(0, 1)), Lease: lease(), Released: s.on(2)}}
}

// SwarmApps draws the nodes' applications: on a third of the seeds none
// (every application ignores the lease check: sim.AppContext); otherwise
// each node's mode at random, and, for two in three, slow work between the
// check and the write: within the node's pause bound (nine in ten), or on
// the node outside (the one the faults beyond the assumptions hit) beyond
// it.
func SwarmApps(seed uint64, sp SwarmSpace, outside int) []App {
	s := newStream(seed, streamApps, sp)
	if s.on(3) {
		return nil
	}
	modes := []sim.AppMode{sim.AppContext, sim.AppChecks, sim.AppPolls}
	var out []App
	for i := range sp.Nodes {
		a := App{Node: i, Mode: modes[s.pick(len(modes))]}
		switch bound := sp.pauseBound(i); {
		case s.on(3):
		case s.on(10) && i == outside:
			a.Work = Duration(s.between(max(bound, 0)+time.Millisecond, 2*sp.Lease).Truncate(time.Millisecond))
		case bound >= 10*time.Millisecond:
			a.Work = Duration(s.between(bound/10, bound*9/10).Truncate(time.Millisecond))
		}
		if a.Mode == sim.AppContext && a.Work == 0 {
			continue // the default
		}
		out = append(out, a)
	}
	return out
}

// streams are the families of faults aimed at roles and instants, each
// with its stream, and the run's hot instants.
type streams struct {
	sp                                        SwarmSpace
	hot                                       []Duration
	foreignS, clusterS, rolesS, deniedS, endS stream
	largestS                                  stream // the largest token of a foreign record
}

func newStreams(seed uint64, sp SwarmSpace) *streams {
	h := newStream(seed, streamHot, sp)
	return &streams{sp: sp, hot: []Duration{h.at(0)},
		foreignS: newStream(seed, streamForeign, sp), clusterS: newStream(seed, streamCluster, sp), rolesS: newStream(seed, streamRoles, sp),
		deniedS: newStream(seed, streamDenied, sp), endS: newStream(seed, streamEnds, sp), largestS: newStream(seed, streamLargest, sp)}
}

// when draws the start of a fault of length d: one of the hot instants
// (if the fault fits before the heal from there) or any instant.
func (ss *streams) when(s stream, d time.Duration) Duration {
	return ss.whenOneIn(s, d, 3, 2)
}

// whenOneIn is when with the hot instant chosen k times in n.
func (ss *streams) whenOneIn(s stream, d time.Duration, n, k int) Duration {
	if s.pick(n) < k {
		h := ss.hot[s.pick(len(ss.hot))]
		if h.D()+d < ss.sp.HealAt {
			return h
		}
	}
	return s.at(d)
}

// role draws one of roles.
func (s stream) role(roles ...Role) Role { return roles[s.pick(len(roles))] }

// foreign draws the foreign writes: on one seed in six, one to three
// deletes, overwrites (raw bytes, or a record with a low token, a high
// one, the topmost that has a successor or, half as often, the largest,
// which has none, or released) and restores, each at an instant, while
// a node leads, or just before a renewal lands; the first, aimed at the
// leader, half the time a delete while the followers cannot reach S3 for a
// little longer than a lease and a term, so that what the delete did to
// the leader outlasts its excuse. A
// restore may bring back the content the object had before the run (ETag
// reuse).
func (ss *streams) foreign(initial bool) []Event {
	s := ss.foreignS
	if !s.on(6) { // as foreignWritesOn says
		return nil
	}
	var out []Event
	for i := range s.count(3) {
		var e Event
		switch k := s.pick(20); {
		case k < 7:
			e = Event{Kind: DeleteLock}
		case k < 12:
			r := &Record{Holder: "intruder", Token: 1}
			switch s.pick(4) {
			case 1:
				r.Token = 1<<40 + uint64(s.int(0, 1000))
			case 2:
				r.Token = math.MaxUint64 - 1
				if ss.largestS.on(2) {
					// The largest token, which the elector refuses, on
					// a stream of its own so that the others keep
					// their draws.
					r.Token = math.MaxUint64
				}
			case 3:
				r.Token, r.Released = uint64(s.int(1, 50)), true
			}
			e = Event{Kind: Overwrite, Record: r}
		case k < 15:
			e = Event{Kind: Overwrite, Body: foreignBodies[s.pick(len(foreignBodies))]}
		default:
			e = Event{Kind: Restore, For: Duration(s.timed(100*time.Millisecond, 3*ss.sp.Lease).Truncate(time.Millisecond))}
		}
		e.Role = []Role{"", RoleLeader, RoleLeader, RoleRenewer, RoleRenewer}[s.pick(5)]
		if i == 0 {
			isolated := e.Role != "" && s.on(2)
			if isolated {
				// What a leader is told when its lock object vanishes
				// (a 404 to its renewal) matters most while nobody else
				// can recreate it.
				e = Event{Kind: DeleteLock, Role: e.Role}
			}
			if !isolated {
				e.At = ss.when(s, e.For.D())
			} else {
				// Meanwhile the followers cannot reach S3 (a network
				// split that spares the leader), a little longer than
				// the write's effects are excused (a lease and a term):
				// whatever the write did to the leader shows after that.
				term := ss.sp.Term
				if term <= 0 {
					term = ss.sp.Lease
				}
				d := s.timed(ss.sp.Lease+term+500*time.Millisecond, ss.sp.Lease+term+3*time.Second).Truncate(time.Millisecond)
				// Its own instant, away from the other families' shared
				// one, whose faults would end the leader's delusion.
				e.At = s.at(d + time.Second)
				out = append(out, Event{Kind: Partition, Role: RoleLeader, Target: TargetFollowers, At: e.At, For: Duration(d)})
			}
		} else {
			e.At = s.at(e.For.D()) // one foreign write at the hot instant, not a pile
		}
		if e.Kind == Restore && initial && s.on(4) && e.Role == "" {
			e.At = 0 // the content before the run, written back later
		}
		out = append(out, e)
		if e.Kind == DeleteLock && len(out) == 2 && out[0].Kind == Partition {
			break // no second foreign write to undo what the delete did
		}
	}
	return out
}

// cluster draws a whole-cluster event: on one seed in six, every node
// crashed or stopped at once and restarted a little later, or restarted
// at once, with its own identity or a new one, at an instant, while a node
// leads, or while one acquires (in the middle of a hand-over).
func (ss *streams) cluster() []Event {
	s := ss.clusterS
	if !s.on(6) {
		return nil
	}
	e := Event{Kind: []Kind{Crash, Stop, Restart}[s.pick(3)], Target: TargetAll}
	if e.Kind != Restart {
		e.For = Duration(s.between(100*time.Millisecond, 5*time.Second).Truncate(time.Millisecond))
	}
	if s.on(2) {
		e.Identity = fmt.Sprintf("-c%d", s.int(1, 99))
	}
	e.Role = []Role{"", RoleLeader, RoleAcquirer}[s.pick(3)]
	e.At = ss.whenOneIn(s, e.For.D(), 3, 1)
	return []Event{e}
}

// roles draws faults aimed at roles: on one seed in two, one to four of
// pauses of the leader, of the node about to renew, of a node with a
// request in flight or of the acquirer (within the node's pause bound, or
// rarely beyond); crashes and stops of such a node with a restart; a
// partition of the leader, or of every follower; a fault on a renewal's,
// an acquisition's or any request's answer (lost, 500 or 503 after
// applying, refused, delayed, followed by a pause) or on its way to S3
// (it lands late); a pause between the leader's lease check and its
// guarded write; a fenced write that arrives late; a hand-over (the leader
// stopped or crashed) whose next write of the lock object, a release or
// an acquisition, meets one of those faults on its answer or its way; a
// leader cut off from S3 just as a renewal lands (that renewal's answer
// often late), which leads on, quiet, to the end of its term.
func (ss *streams) roles() []Event {
	s, sp := ss.rolesS, ss.sp
	if !s.on(2) {
		return nil
	}
	bound := max(sp.MaxPause, 0)
	pause := func() Duration {
		if s.on(12) {
			return Duration(s.timed(bound+time.Millisecond, 3*sp.Lease).Truncate(time.Millisecond))
		}
		return Duration(s.between(0, bound).Truncate(time.Millisecond))
	}
	var out []Event
	for i := range s.count(4) {
		var e Event
		answer := func(e *Event) {
			switch e.Kind {
			case AnswerFailed:
				e.Code = []string{"InternalError", "SlowDown"}[s.pick(2)]
			case Refused:
				e.Code = []string{"InternalError", "SlowDown", "ConditionalRequestConflict"}[s.pick(3)]
			case AnswerDelayed, RequestDelayed:
				e.By = Duration(s.between(100*time.Millisecond, 2*sp.Lease).Truncate(time.Millisecond))
			case AnswerPause:
				e.For = pause()
			}
		}
		switch s.pick(13) {
		case 11, 12:
			// The leader is cut off from S3 just as a renewal lands (the
			// renewal applies, its answer still comes, often late): it
			// leads on, quiet, until its term ends, while the followers
			// time the record that renewal wrote.
			cut := Event{Kind: Partition, Role: RoleRenewer, For: Duration(s.timed(sp.Lease, 2*sp.Lease).Truncate(time.Millisecond)), Blackhole: s.on(2)}
			cut.At = s.at(cut.For.D())
			if i == 0 {
				cut.At = ss.when(s, cut.For.D())
			}
			out = append(out, cut)
			if s.pick(3) > 0 {
				// That renewal's answer comes late: by more than the
				// lease exceeds the term, and before the term ends.
				term := sp.Term
				if term <= 0 || term > sp.Lease {
					term = sp.Lease
				}
				lo, hi := sp.Lease-term, max(term, sp.Lease-term+time.Second)
				out = append(out, Event{Kind: AnswerDelayed, Role: RoleRenewer, At: cut.At,
					By: Duration(s.between(lo, hi).Truncate(time.Millisecond) + time.Millisecond)})
			}
			continue
		case 9, 10:
			// A hand-over: the leader stops (and releases, if it does) or
			// crashes, and the next write of the lock object by a node
			// that does not lead, its release or a successor's
			// acquisition, meets a fault.
			stop := Event{Kind: []Kind{Stop, Stop, Crash}[s.pick(3)], Role: RoleLeader,
				For: Duration(s.between(10*time.Millisecond, 5*time.Second).Truncate(time.Millisecond))}
			stop.At = s.at(stop.For.D())
			if i == 0 {
				stop.At = ss.when(s, stop.For.D())
			}
			e = Event{Kind: []Kind{RequestDelayed, RequestDelayed, AnswerLost, AnswerFailed, AnswerDelayed, Refused, AnswerPause}[s.pick(7)],
				Role: RoleAcquirer, At: stop.At}
			answer(&e)
			out = append(out, stop, e)
			continue
		case 0:
			e = Event{Kind: Pause, Role: s.role(RoleLeader, RoleRenewer, RoleRequester, RoleAcquirer), For: pause()}
		case 1:
			e = Event{Kind: []Kind{Crash, Stop}[s.pick(2)], Role: s.role(RoleLeader, RoleAcquirer, RoleRenewer),
				For: Duration(s.between(10*time.Millisecond, 5*time.Second).Truncate(time.Millisecond))}
			if s.on(2) {
				e.Identity = fmt.Sprintf("-r%d", s.int(1, 99))
			}
		case 2:
			e = Event{Kind: Partition, Role: RoleLeader, For: Duration(s.timed(time.Second, 2*sp.Lease).Truncate(time.Millisecond)), Blackhole: s.on(2)}
		case 3, 4:
			// The leader keeps S3, the others lose it: for up to four
			// leases, longer than a foreign write's effects last.
			e = Event{Kind: Partition, Role: RoleLeader, Target: TargetFollowers,
				For: Duration(s.timed(sp.Lease, 4*sp.Lease).Truncate(time.Millisecond)), Blackhole: s.on(2)}
		case 5, 6:
			e = Event{Kind: []Kind{AnswerLost, AnswerFailed, Refused, AnswerDelayed, RequestDelayed, AnswerPause}[s.pick(6)],
				Role: s.role(RoleRenewer, RoleAcquirer, RoleRequester)}
			answer(&e)
		case 7:
			e = Event{Kind: PauseBefore, Role: RoleLeader, For: pause()}
		default:
			e = Event{Kind: WriteDelayed, Role: RoleLeader, By: Duration(s.between(100*time.Millisecond, 2*sp.Lease).Truncate(time.Millisecond))}
		}
		length := e.For.D()
		if e.Kind.Aimed() {
			length = 0 // an aimed fault waits for its request or write, not for the heal
		}
		if i == 0 {
			e.At = ss.when(s, length)
		} else {
			e.At = s.at(length) // one fault at the hot instant, not a pile
		}
		out = append(out, e)
	}
	return out
}

// denials draws S3 refusing nodes with 403 AccessDenied, without applying
// their requests (credentials revoked or expired, a bucket policy that
// shuts a node out): on one seed in six, one or two of a node shut out
// for a second to two leases, the leader or every follower shut out as
// long, one request of the renewer, the acquirer or any node refused, and
// a hand-over whose release is answered 500 or lost and its node shut out
// just after, so that the read that checks the release, and the release
// tried again, are refused.
func (ss *streams) denials() []Event {
	s, sp := ss.deniedS, ss.sp
	if !s.on(6) {
		return nil
	}
	var out []Event
	for i := range s.count(2) {
		d := Duration(s.timed(time.Second, 2*sp.Lease).Truncate(time.Millisecond))
		var e Event
		switch s.pick(5) {
		case 0:
			e = Event{Kind: Partition, Denied: true, Node: s.node(), For: d}
		case 1:
			e = Event{Kind: Partition, Denied: true, Role: RoleLeader, Target: []Target{"", TargetFollowers}[s.pick(2)], For: d}
		case 2, 3:
			e = Event{Kind: Refused, Code: "AccessDenied", Role: s.role(RoleRenewer, RoleAcquirer, RoleRequester)}
		default:
			stop := Event{Kind: Stop, Role: RoleLeader, For: Duration(s.between(time.Second, 5*time.Second).Truncate(time.Millisecond))}
			stop.At = s.at(stop.For.D())
			fail := Event{Kind: []Kind{AnswerFailed, AnswerLost}[s.pick(2)], Code: "InternalError", Role: RoleAcquirer, At: stop.At}
			if fail.Kind == AnswerLost {
				fail.Code = ""
			}
			shut := Event{Kind: Partition, Denied: true, Role: RoleAcquirer, At: stop.At,
				For: Duration(s.between(100*time.Millisecond, sp.Lease).Truncate(time.Millisecond))}
			if stop.At+shut.For > Duration(sp.HealAt) {
				continue
			}
			out = append(out, stop, fail, shut)
			continue
		}
		length := e.For.D()
		if e.Kind.Aimed() {
			length = 0
		}
		if i == 0 {
			e.At = ss.when(s, length)
		} else {
			e.At = s.at(length)
		}
		out = append(out, e)
	}
	return out
}

// ends draws a term that ends for a reason of its own while its node is
// stopped, on one seed in ten:
//
//   - every node's application paused, longer than a lease, before its
//     first guarded write, which it makes as its first term begins (the
//     node stops running before its elector's watchdog has started, at
//     times while its first renewal is in flight: when the first
//     acquisition's answer is lost, its node leads on the record it finds
//     and renews at once), and the first leader stopped during that pause,
//     so that the term's deadline and the stop wait together for the node
//     to run again;
//   - the answer to a renewal followed by a pause past the term's
//     deadline, and the leader stopped during that pause;
//   - the lock object deleted or overwritten (a record, bytes) just before
//     a renewal lands, the leader's application paused before its next
//     guarded write, and the leader stopped a little later, while the
//     elector waits for that application to return from the term the
//     foreign write ended.
func (ss *streams) ends() []Event {
	s, sp := ss.endS, ss.sp
	if !s.on(10) {
		return nil
	}
	down := Duration(s.between(time.Second, 5*time.Second).Truncate(time.Millisecond))
	pause := Duration(s.between(sp.Lease, 2*sp.Lease).Truncate(time.Millisecond))
	// A node stopped during its pause is restarted after it: a restart
	// would end the paused process before it runs again.
	after := pause + down
	switch s.pick(3) {
	case 0:
		var out []Event
		for i := range sp.Nodes {
			out = append(out, Event{Kind: PauseBefore, Node: i, Nth: 1, For: pause})
		}
		if s.on(2) {
			out = append(out, Event{Kind: AnswerLost, Role: RoleAcquirer})
		}
		stop := Event{Kind: Stop, Role: RoleLeader, At: Duration(s.between(0, time.Second).Truncate(time.Millisecond))}
		stop.For = min(after, Duration(sp.HealAt)-stop.At-Duration(time.Millisecond))
		return append(out, stop)
	case 1:
		at := s.at(after.D() + sp.Lease)
		stop := Event{Kind: Stop, Role: RoleLeader, At: at + Duration(s.between(50*time.Millisecond, sp.Lease).Truncate(time.Millisecond))}
		stop.For = min(after, Duration(sp.HealAt)-stop.At-Duration(time.Millisecond))
		if stop.For <= 0 {
			return nil
		}
		return []Event{{Kind: AnswerPause, Role: RoleRenewer, At: at, For: pause}, stop}
	}
	var w Event
	switch s.pick(3) {
	case 0:
		w = Event{Kind: DeleteLock}
	case 1:
		w = Event{Kind: Overwrite, Record: &Record{Holder: "intruder", Token: uint64(s.int(1, 50)), Released: s.on(2)}}
	default:
		w = Event{Kind: Overwrite, Body: foreignBodies[s.pick(len(foreignBodies))]}
	}
	w.Role = RoleRenewer
	w.At = s.at(2*time.Second + down.D())
	return []Event{w,
		{Kind: PauseBefore, Role: RoleLeader, At: w.At, For: Duration(s.between(100*time.Millisecond, time.Second).Truncate(time.Millisecond))},
		{Kind: Stop, Role: RoleLeader, At: w.At + Duration(s.between(100*time.Millisecond, 1500*time.Millisecond).Truncate(time.Millisecond)), For: down},
	}
}
