package linearizability

// witness checks that the writes taking effect at the instants t, in
// sequence, and every read in a state that gives its answer, form a
// linearization of the key's requests: nil if they do.
//
// The linearization is the order of instants, a write j at t[j] before a
// read placed at the same instant in state j or later, and a read placed
// at p in state s, with t[s] <= p <= t[s+1], after the writes up to s and
// before the others. Every request is at an instant of its interval, so
// the order respects real time; the writes not placed did not take
// effect, which their answers allow, and can go anywhere. So it is enough
// to replay the writes in sequence against the model, remembering the
// state after each, and to ask the model for each read's answer in the
// state it was placed in. A request with a determined answer must be
// placed, and get that answer.
func (c *fastChecker) witness(t []int64) *fastReason {
	m := len(c.seqVer) - 1
	placed := 0
	c.states = c.states[:0]
	var s s3State
	c.states = append(c.states, s)
	for j := 1; j <= m; j++ {
		if t[j] < t[j-1] {
			return undecided("the writes' instants go back in time")
		}
		// The write answered 200, or the first of writes alike: the one
		// whose interval holds the instant has the same effect.
		op := &c.ops[c.seqOp[j]]
		inside := false
		for _, r := range c.allowed(j) {
			inside = inside || (r[0] <= t[j] && t[j] <= r[1])
		}
		got, next := s3Apply(s, &op.in)
		if !inside || (op.role == roleMust && got != op.out) {
			return undecided("the replay rejects S3[%d]", op.idx)
		}
		if op.role == roleMust {
			placed++
		}
		s = next
		c.states = append(c.states, s)
	}
	for _, i := range c.reads {
		op := &c.ops[i]
		k := int(op.state)
		if k < 0 {
			first, last := c.window(t, t, op)
			for s := first; s <= last; s++ {
				if c.budget--; c.budget < 0 {
					return undecided("reads overlap too many writes")
				}
				if op.pred.accepts(c.stateVer[s]) {
					k = s
					break
				}
			}
			if k < 0 {
				return undecided("no state for S3[%d]", op.idx)
			}
		}
		// The read is placed at max(call, t[k]), which must lie in its
		// interval and no later than t[k+1].
		p := max(op.call, t[k])
		if p > op.ret || (k < m && p > t[k+1]) {
			return undecided("the replay cannot place S3[%d]", op.idx)
		}
		if got, _ := s3Apply(c.states[k], &op.in); got != op.out {
			return undecided("the replay rejects S3[%d]", op.idx)
		}
		placed++
	}
	if placed != c.determined {
		return undecided("the replay left out a request with an answer")
	}
	return nil
}
