package faults

import (
	"math"
	"time"
)

// drawForeign draws the foreign writes, on the draws that have them (one
// in six, decided with the run: drawing.foreign): one to three deletes,
// overwrites (raw bytes, or a record with a low token, a high one, the
// topmost that has a successor or, half as often, the largest, which has
// none, or released) and restores, each at an instant, while a node
// leads, or just before a renewal lands; the first, aimed at the leader,
// half the time a delete while the followers cannot reach S3 for a little
// longer than a lease and a term, so that what the delete did to the
// leader outlasts its excuse. A restore may bring back the content the
// object had before the run (ETag reuse).
func drawForeign(d *drawing, s stream) {
	if !d.foreign {
		return
	}
	done := false
	s.Repeat(1, 3, func(i int) {
		if done {
			return
		}
		var e Event
		switch k := s.Pick(20); {
		case k < 7:
			e = Event{Kind: DeleteLock}
		case k < 12:
			r := &Record{Holder: "intruder", Token: 1}
			switch s.Pick(4) {
			case 1:
				r.Token = 1<<40 + uint64(s.Int(0, 1000))
			case 2:
				r.Token = math.MaxUint64 - 1
				if s.OneIn(2) {
					r.Token = math.MaxUint64 // the largest token, which the elector refuses
				}
			case 3:
				r.Token, r.Released = uint64(s.Int(1, 50)), true
			}
			e = Event{Kind: Overwrite, Record: r}
		case k < 15:
			e = Event{Kind: Overwrite, Body: s.foreignBody()}
		default:
			e = Event{Kind: Restore, For: ms(s.timed(100*time.Millisecond, 3*d.b.Lease))}
		}
		e.Role = []Role{"", RoleLeader, RoleLeader, RoleRenewer, RoleRenewer}[s.Pick(5)]
		switch {
		case i == 0 && e.Role != "" && s.OneIn(2):
			// What a leader is told when its lock object vanishes (a 404
			// to its renewal) matters most while nobody else can recreate
			// it: meanwhile the followers cannot reach S3 (a network split
			// that spares the leader), a little longer than the write's
			// effects are excused (a lease and a term), so that whatever
			// the write did to the leader shows after that; at an instant
			// of its own, away from the hot one, whose faults would end
			// the leader's delusion. No second foreign write follows, to
			// undo what the delete did.
			e = Event{Kind: DeleteLock, Role: e.Role}
			term := d.b.Term
			if term <= 0 {
				term = d.b.Lease
			}
			cut := ms(s.timed(d.b.Lease+term+500*time.Millisecond, d.b.Lease+term+3*time.Second))
			e.At = s.at(cut.D() + time.Second)
			d.add(Event{Kind: Partition, Role: RoleLeader, Target: TargetFollowers, At: e.At, For: cut})
			done = true
		case i == 0:
			e.At = s.when(e.For.D())
		default:
			e.At = s.at(e.For.D()) // one foreign write at the hot instant, not a pile
		}
		if e.Kind == Restore && d.plan.Initial != nil && e.Role == "" && s.OneIn(4) {
			e.At = 0 // the content before the run, written back later
		}
		d.add(e)
	})
}

// drawRestoreOwn draws a restore of the leader's own write (RestoreOwn):
// on half the draws with foreign writes during the run, and only there,
// so that the draws judged within the assumptions stay as many, one
// restore-own aimed at the renewer, of the write k back in the leader's
// incarnation: k from 1 to 20, three times in four from 14 to 17, about
// the number of writes an elector remembers (the production elector's
// 16), where one too few or one too many forgotten changes what the
// leader makes of its own record. It waits from an instant in the first
// quarter of the safety phase, or, three times in four, from one between
// a quarter and nine tenths of it: by then a leader has more often sent
// more writes than it remembers, so that its memory has begun to forget
// (the restore fires at the first renewal by a leader that has sent at
// least k writes).
func drawRestoreOwn(d *drawing, s stream) {
	if !d.foreign || !s.OneIn(2) {
		return
	}
	heal := d.sp.HealAt
	k := s.Int(1, 20)
	if s.Pick(4) > 0 {
		k = s.Int(14, 17)
	}
	at := s.Between(time.Second, max(time.Second, heal/4))
	if s.Pick(4) > 0 {
		at = s.Between(heal/4, heal*9/10)
	}
	d.add(Event{Kind: RestoreOwn, Role: RoleRenewer, Back: int(k), At: ms(at)})
}
