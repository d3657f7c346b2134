package faults

import (
	"fmt"
	"time"
)

// drawCluster draws a whole-cluster event, on one draw in six: every node
// crashed or stopped at once and restarted 100 ms to 5 s later, or
// restarted at once, with its own identity or a new one, at an instant,
// while a node leads, or while one acquires (in the middle of a
// hand-over).
func drawCluster(d *drawing, s stream) {
	if !s.OneIn(6) {
		return
	}
	e := Event{Kind: []Kind{Crash, Stop, Restart}[s.Pick(3)], Target: TargetAll}
	if e.Kind != Restart {
		e.For = ms(s.Between(100*time.Millisecond, 5*time.Second))
	}
	if s.OneIn(2) {
		e.Identity = fmt.Sprintf("-c%d", s.Int(1, 99))
	}
	e.Role = s.role("", RoleLeader, RoleAcquirer)
	e.At = s.whenOneIn(e.For.D(), 3, 1)
	d.add(e)
}

// pause draws a pause of a node that plays a role: within the pause
// bound, or (one in 12) beyond it, up to three leases.
func (s stream) pause() Duration {
	bound := max(s.d.b.MaxPause, 0)
	if s.OneIn(12) {
		return ms(s.timed(bound+time.Millisecond, 3*s.d.b.Lease))
	}
	return ms(s.Between(0, bound))
}

// aimedAt starts the i-th fault of a family aimed at roles: the first at
// the hot instant (when), the others anywhere (one fault at the hot
// instant, not a pile). An aimed fault waits for its request or write,
// not for the heal.
func (s stream) aimedAt(e *Event, i int) {
	length := e.For.D()
	if e.Kind.Aimed() {
		length = 0
	}
	if i == 0 {
		e.At = s.when(length)
	} else {
		e.At = s.at(length)
	}
}

// answerKinds are the faults on a request's answer or its way to S3.
var answerKinds = []Kind{AnswerLost, AnswerFailed, Refused, AnswerDelayed, RequestDelayed, AnswerPause}

// drawRoles draws faults aimed at roles, on one draw in two: one to four
// of pauses of the leader, of the node about to renew, of a node with a
// request in flight or of the acquirer (within the node's pause bound, or
// rarely beyond); crashes and stops of such a node with a restart; a
// partition of the leader, or of every follower; a fault on a renewal's,
// an acquisition's or any request's answer (lost, 500 or 503 after
// applying, refused, delayed, followed by a pause) or on its way to S3
// (it lands late); a pause between the leader's lease check and its
// guarded write; a fenced write that arrives late; a hand-over (the
// leader stopped or crashed) whose next write of the lock object, a
// release or an acquisition, meets one of those faults on its answer or
// its way; a leader cut off from S3 just as a renewal lands (that
// renewal's answer often late), which leads on, quiet, to the end of its
// term.
func drawRoles(d *drawing, s stream) {
	if !s.OneIn(2) {
		return
	}
	lease := d.b.Lease
	s.Repeat(1, 4, func(i int) {
		var e Event
		switch s.Pick(13) {
		case 11, 12:
			// The leader is cut off from S3 just as a renewal lands (the
			// renewal applies, its answer still comes, often late): it
			// leads on, quiet, until its term ends, while the followers
			// time the record that renewal wrote.
			cut := Event{Kind: Partition, Role: RoleRenewer, For: ms(s.timed(lease, 2*lease)), Blackhole: s.OneIn(2)}
			s.aimedAt(&cut, i)
			d.add(cut)
			if s.Pick(3) > 0 {
				// That renewal's answer comes late: by more than the
				// lease exceeds the term, and before the term ends.
				term := d.b.Term
				if term <= 0 || term > lease {
					term = lease
				}
				lo, hi := lease-term, max(term, lease-term+time.Second)
				d.add(Event{Kind: AnswerDelayed, Role: RoleRenewer, At: cut.At, By: ms(s.Between(lo, hi)) + Duration(time.Millisecond)})
			}
			return
		case 9, 10:
			// A hand-over: the leader stops (and releases, if it does) or
			// crashes, and the next write of the lock object by a node
			// that does not lead, its release or a successor's
			// acquisition, meets a fault.
			stop := Event{Kind: []Kind{Stop, Stop, Crash}[s.Pick(3)], Role: RoleLeader, For: ms(s.Between(10*time.Millisecond, 5*time.Second))}
			s.aimedAt(&stop, i)
			e = Event{Kind: []Kind{RequestDelayed, RequestDelayed, AnswerLost, AnswerFailed, AnswerDelayed, Refused, AnswerPause}[s.Pick(7)],
				Role: RoleAcquirer, At: stop.At}
			s.answer(&e, s.pause())
			d.add(stop, e)
			return
		case 0:
			e = Event{Kind: Pause, Role: s.role(RoleLeader, RoleRenewer, RoleRequester, RoleAcquirer), For: s.pause()}
		case 1:
			e = Event{Kind: []Kind{Crash, Stop}[s.Pick(2)], Role: s.role(RoleLeader, RoleAcquirer, RoleRenewer),
				For: ms(s.Between(10*time.Millisecond, 5*time.Second))}
			if s.OneIn(2) {
				e.Identity = fmt.Sprintf("-r%d", s.Int(1, 99))
			}
		case 2:
			e = Event{Kind: Partition, Role: RoleLeader, For: ms(s.timed(time.Second, 2*lease)), Blackhole: s.OneIn(2)}
		case 3, 4:
			// The leader keeps S3, the others lose it: for up to four
			// leases, longer than a foreign write's effects last.
			e = Event{Kind: Partition, Role: RoleLeader, Target: TargetFollowers, For: ms(s.timed(lease, 4*lease)), Blackhole: s.OneIn(2)}
		case 5, 6:
			e = Event{Kind: answerKinds[s.Pick(len(answerKinds))], Role: s.role(RoleRenewer, RoleAcquirer, RoleRequester)}
			s.answer(&e, s.pause())
		case 7:
			e = Event{Kind: PauseBefore, Role: RoleLeader, For: s.pause()}
		default:
			e = Event{Kind: WriteDelayed, Role: RoleLeader, By: ms(s.Between(100*time.Millisecond, 2*lease))}
		}
		s.aimedAt(&e, i)
		d.add(e)
	})
}

// drawDenials draws S3 refusing nodes with 403 AccessDenied, without
// applying their requests (credentials revoked or expired, a bucket
// policy that shuts a node out): on one draw in six, one or two of a node
// shut out for a second to two leases, the leader or every follower shut
// out as long, one request of the renewer, the acquirer or any node
// refused, and a hand-over whose release is answered 500 or lost and its
// node shut out just after, so that the read that checks the release,
// and the release tried again, are refused.
func drawDenials(d *drawing, s stream) {
	if !s.OneIn(6) {
		return
	}
	lease := d.b.Lease
	s.Repeat(1, 2, func(i int) {
		p := ms(s.timed(time.Second, 2*lease))
		var e Event
		switch s.Pick(5) {
		case 0:
			e = Event{Kind: Partition, Denied: true, Node: s.node(), For: p}
		case 1:
			e = Event{Kind: Partition, Denied: true, Role: RoleLeader, Target: []Target{"", TargetFollowers}[s.Pick(2)], For: p}
		case 2, 3:
			e = Event{Kind: Refused, Code: "AccessDenied", Role: s.role(RoleRenewer, RoleAcquirer, RoleRequester)}
		default:
			stop := Event{Kind: Stop, Role: RoleLeader, For: ms(s.Between(time.Second, 5*time.Second))}
			stop.At = s.at(stop.For.D())
			fail := Event{Kind: []Kind{AnswerFailed, AnswerLost}[s.Pick(2)], Code: "InternalError", Role: RoleAcquirer, At: stop.At}
			if fail.Kind == AnswerLost {
				fail.Code = ""
			}
			shut := Event{Kind: Partition, Denied: true, Role: RoleAcquirer, At: stop.At, For: ms(s.Between(100*time.Millisecond, lease))}
			if stop.At+shut.For <= Duration(d.sp.HealAt) {
				d.add(stop, fail, shut)
			}
			return
		}
		s.aimedAt(&e, i)
		d.add(e)
	})
}

// drawEnds draws a term that ends for a reason of its own while its node
// is stopped, on one draw in ten:
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
func drawEnds(d *drawing, s stream) {
	if !s.OneIn(10) {
		return
	}
	lease, heal := d.b.Lease, Duration(d.sp.HealAt)
	down := ms(s.Between(time.Second, 5*time.Second))
	pause := ms(s.Between(lease, 2*lease))
	// A node stopped during its pause is restarted after it: a restart
	// would end the paused process before it runs again.
	after := pause + down
	switch s.Pick(3) {
	case 0:
		for i := range d.nodes {
			d.add(Event{Kind: PauseBefore, Node: i, Nth: 1, For: pause})
		}
		if s.OneIn(2) {
			d.add(Event{Kind: AnswerLost, Role: RoleAcquirer})
		}
		stop := Event{Kind: Stop, Role: RoleLeader, At: ms(s.Between(0, time.Second))}
		stop.For = min(after, heal-stop.At-Duration(time.Millisecond))
		d.add(stop)
		return
	case 1:
		at := s.at(after.D() + lease)
		stop := Event{Kind: Stop, Role: RoleLeader, At: at + ms(s.Between(50*time.Millisecond, lease))}
		stop.For = min(after, heal-stop.At-Duration(time.Millisecond))
		if stop.For > 0 {
			d.add(Event{Kind: AnswerPause, Role: RoleRenewer, At: at, For: pause}, stop)
		}
		return
	}
	var w Event
	switch s.Pick(3) {
	case 0:
		w = Event{Kind: DeleteLock}
	case 1:
		w = Event{Kind: Overwrite, Record: &Record{Holder: "intruder", Token: uint64(s.Int(1, 50)), Released: s.OneIn(2)}}
	default:
		w = Event{Kind: Overwrite, Body: s.foreignBody()}
	}
	w.Role = RoleRenewer
	w.At = s.at(2*time.Second + down.D())
	d.add(w,
		Event{Kind: PauseBefore, Role: RoleLeader, At: w.At, For: ms(s.Between(100*time.Millisecond, time.Second))},
		Event{Kind: Stop, Role: RoleLeader, At: w.At + ms(s.Between(100*time.Millisecond, 1500*time.Millisecond)), For: down})
}
