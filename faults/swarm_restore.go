package faults

import "time"

// streamRestoreOwn is the stream that draws SwarmRestoreOwn, apart from
// every other family, so that their draws stay as they were.
const streamRestoreOwn = 0x72737472_6f776e21

// SwarmRestoreOwn draws a restore of the leader's own write (RestoreOwn):
// on half the seeds that draw foreign writes during the run
// (foreignWritesOn), and only there, so that the seeds judged within the
// assumptions stay as many as they were, one restore-own aimed at the
// renewer, of the write k back in the leader's incarnation: k from 1 to
// 20, three times in four from 14 to 17, about the number of writes an
// elector remembers (the production elector's 16), where one too few or
// one too many forgotten changes what the leader makes of its own record.
// It waits from an instant in the first quarter of the safety phase, or,
// three times in four, from one between a quarter and nine tenths of it:
// by then a leader has more often sent more writes than it remembers, so
// that its memory has begun to forget (the restore fires at the first
// renewal by a leader that has sent at least k writes).
func SwarmRestoreOwn(seed uint64, sp SwarmSpace) []Event {
	if !foreignWritesOn(seed, sp) {
		return nil
	}
	s := newStream(seed, streamRestoreOwn, sp)
	if !s.on(2) {
		return nil
	}
	k := s.int(1, 20)
	if s.pick(4) > 0 {
		k = s.int(14, 17)
	}
	at := s.between(time.Second, max(time.Second, sp.HealAt/4))
	if s.pick(4) > 0 {
		at = s.between(sp.HealAt/4, sp.HealAt*9/10)
	}
	at = at.Truncate(time.Millisecond)
	return []Event{{Kind: RestoreOwn, Role: RoleRenewer, Back: int(k), At: Duration(at)}}
}
