package linearizability

// place finds instants for the writes and reads, and replays the result.
//
// With the sequence of writes fixed, a read that gets its answer in the
// states i in [a, b] constrains the instants t of the writes by
// t[a] <= ret and t[b+1] >= call. The checker keeps for every write the
// earliest (lo) and latest (hi) instant any linearization can give it;
// a read whose answer only one run of states can give adds its
// constraint, which narrows lo and hi, until nothing changes. Then the
// earliest instants, or else the latest, are tried as the linearization.
func (c *fastChecker) place() *fastReason {
	m := len(c.seqVer) - 1
	c.lb = resize(c.lb, m+2, fastNegInf)
	c.ub = resize(c.ub, m+2, fastPosInf)
	c.lo = resize(c.lo, m+2, 0)
	c.hi = resize(c.hi, m+2, 0)
	c.reads = c.reads[:0]
	pending := c.pending[:0]
	c.determined = 0
	for _, i := range c.keyOps {
		op := &c.ops[i]
		if op.role != roleMay {
			c.determined++
		}
		if op.role != roleRead {
			continue
		}
		c.reads = append(c.reads, i)
		// Most reads name the one version they saw: their run of
		// states is that version's, whatever the instants.
		op.state = -1
		if v := c.only(&op.pred); v >= 0 {
			s := c.versions[v].state
			if s < 0 {
				return c.illegal("S3[%d] (%s) saw ETag %s, which is not written", op.idx, describeS3Operation(&op.in, op.out), shortETag(c.versions[v].etag))
			}
			op.state = s
			c.constrain(op, int(s), int(s))
			continue
		}
		pending = append(pending, i)
	}
	c.budget = 64*len(c.keyOps) + 1024
	for round := 0; ; round++ {
		if r := c.bounds(); r != nil {
			return r
		}
		if round == fastPasses {
			break // what is pending stays so
		}
		progress := false
		keep := pending[:0]
		for _, i := range pending {
			op := &c.ops[i]
			// The states the read may take effect in: t[i] <= ret and
			// t[i+1] >= call are possible.
			first, last := c.window(c.lo, c.hi, op)
			runs, a, b := 0, -1, -1
			for s := first; s <= last; s++ {
				if c.budget--; c.budget < 0 {
					return undecided("reads overlap too many writes")
				}
				if !op.pred.accepts(c.stateVer[s]) {
					continue
				}
				if s == first || !op.pred.accepts(c.stateVer[s-1]) {
					runs++
					a = s
				}
				b = s
			}
			switch runs {
			case 0:
				return c.illegal("S3[%d] (%s) overlaps no state of the key that gives its answer", op.idx, describeS3Operation(&op.in, op.out))
			case 1:
				c.constrain(op, a, b)
				progress = true
			default:
				keep = append(keep, i)
			}
		}
		pending = keep
		c.pending = pending
		if !progress {
			break
		}
	}
	for _, t := range [...][]int64{c.lo, c.hi} {
		if r := c.witness(t); r == nil {
			return nil
		}
		if len(pending) == 0 {
			// Every constraint is exact and t meets them all: the
			// replay cannot fail unless the checker is wrong.
			return undecided("the linearization found does not replay")
		}
	}
	return undecided("reads that more than one version could answer")
}

// constrain records that op takes effect in one of the states a..b.
func (c *fastChecker) constrain(op *fastOp, a, b int) {
	if a >= 1 && op.ret < c.ub[a] {
		c.ub[a] = op.ret
	}
	if b+1 < len(c.lb)-1 && op.call > c.lb[b+1] {
		c.lb[b+1] = op.call
	}
}

// window returns the states in which op may take effect given the
// earliest (lo) and latest (hi) instants of the writes: the states i with
// hi[i+1] >= call and lo[i] <= ret. With lo == hi == t it is the states
// in which op takes effect if the writes take effect at t.
func (c *fastChecker) window(lo, hi []int64, op *fastOp) (first, last int) {
	m := len(c.seqVer) - 1
	// first: the least i in [0, m] with hi[i+1] >= call (hi[m+1] is +inf).
	i, j := 0, m
	for i < j {
		h := int(uint(i+j) >> 1)
		if hi[h+1] >= op.call {
			j = h
		} else {
			i = h + 1
		}
	}
	first = i
	// last: the greatest i in [0, m] with lo[i] <= ret (lo[0] is -inf).
	i, j = 0, m
	for i < j {
		h := int(uint(i+j+1) >> 1)
		if lo[h] <= op.ret {
			i = h
		} else {
			j = h - 1
		}
	}
	return first, i
}

func resize(s []int64, n int, v int64) []int64 {
	if cap(s) < n {
		s = make([]int64, n)
	}
	s = s[:n]
	for i := range s {
		s[i] = v
	}
	return s
}

// bounds computes lo and hi from the constraints lb and ub.
func (c *fastChecker) bounds() *fastReason {
	m := len(c.seqVer) - 1
	c.lo[0], c.lo[m+1] = fastNegInf, fastPosInf
	c.hi[0], c.hi[m+1] = fastNegInf, fastPosInf
	for j := 1; j <= m; j++ {
		x := max(c.lo[j-1], c.lb[j])
		t, ok := firstAtLeast(c.allowed(j), x)
		if !ok || t > c.ub[j] {
			op := &c.ops[c.seqOp[j]]
			return c.illegal("the writes and reads cannot all be placed in time: S3[%d] (%s) has no instant left", op.idx, describeS3Operation(&op.in, op.out))
		}
		c.lo[j] = t
	}
	for j := m; j >= 1; j-- {
		x := min(c.hi[j+1], c.ub[j])
		t, ok := lastAtMost(c.allowed(j), x)
		if !ok || t < c.lo[j] {
			return undecided("inconsistent bounds")
		}
		c.hi[j] = t
	}
	return nil
}

func firstAtLeast(iv [][2]int64, x int64) (int64, bool) {
	for _, r := range iv {
		if r[1] >= x {
			return max(r[0], x), true
		}
	}
	return 0, false
}

func lastAtMost(iv [][2]int64, x int64) (int64, bool) {
	for i := len(iv) - 1; i >= 0; i-- {
		if iv[i][0] <= x {
			return min(iv[i][1], x), true
		}
	}
	return 0, false
}
