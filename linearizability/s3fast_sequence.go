package linearizability

import (
	"cmp"
	"slices"
)

// attempt builds the sequence of writes that take effect, the forced ones
// and, with free, the others that can; then places every write and read
// in time and replays the linearization found. It returns nil if the
// replay succeeds.
func (c *fastChecker) attempt(free, by int) *fastReason {
	if r := c.buildSequence(free, by); r != nil {
		return r
	}
	return c.place()
}

// unit is a block of writes that are consecutive in every linearization:
// a version that begins a chain, the versions that replace it by If-Match
// one after the other, and the delete that ends the chain; or an
// unconditional delete.
type unit struct {
	first int32 // a version, or -2-op for a delete
	// min is the earliest instant of any of its writes; maxMin the latest
	// and minMax the earliest of its writes' earliest and latest
	// instants: the unit surely precedes another in real time if its
	// minMax is before the other's maxMin.
	min, maxMin, minMax int64
	// due and lastDue are the instants by which the first and the last
	// write have taken effect.
	due, lastDue int64
}

// buildSequence orders the writes that take effect.
func (c *fastChecker) buildSequence(free, by int) *fastReason {
	nEffective, r := c.linkVersions(free)
	if r != nil {
		return r
	}
	units, r := c.collectUnits(free)
	if r != nil {
		return r
	}
	spans, visited := c.expandUnits(units)
	if visited != nEffective {
		return c.illegal("writes that take effect replace each other in a cycle")
	}
	order, r := c.orderUnits(units, spans, by)
	if r != nil {
		return r
	}
	c.layOut(order, spans)
	return c.checkStates()
}

// linkVersions decides which versions take effect (c.effective): those
// that must and, with fastFreePuts, the free ones that can. Each version
// that takes effect by If-Match becomes the successor of the one it
// replaces. It returns how many versions take effect.
func (c *fastChecker) linkVersions(free int) (int, *fastReason) {
	c.effective = slices.Grow(c.effective[:0], len(c.versions))
	for v := range c.versions {
		ver := &c.versions[v]
		ver.succ, ver.state = -1, -1
		c.effective = append(c.effective, ver.status == verMust || ver.status == verRequired)
	}
	// The versions that take effect replace the one they name; no
	// version is replaced twice.
	for v := range c.versions {
		ver := &c.versions[v]
		if !c.effective[v] || ver.cond != condIfMatch {
			continue
		}
		if r := c.succeed(ver.pred, int32(v)); r != nil {
			return 0, r
		}
	}
	if free&fastFreePuts != 0 {
		// The writes whose effect nothing forces take effect where they
		// can: the first to replace a version that nothing else
		// replaces, until no more can (or a bounded number of passes).
		for pass, changed := 0, true; changed && pass < fastPasses; pass++ {
			changed = false
			for v := range c.versions {
				ver := &c.versions[v]
				if ver.status != verFree || c.effective[v] {
					continue
				}
				if ver.cond == condIfMatch {
					if p := &c.versions[ver.pred]; !c.effective[ver.pred] || p.succ != -1 {
						continue
					} else {
						p.succ = int32(v)
					}
				}
				c.effective[v], changed = true, true
			}
		}
	}
	nEffective := 0
	for _, e := range c.effective {
		if e {
			nEffective++
		}
	}
	return nEffective, nil
}

// succeed records that succ, a version or -2-op for a delete, ends the
// lifetime of version v, which must take effect and have no other
// successor.
func (c *fastChecker) succeed(v, succ int32) *fastReason {
	p := &c.versions[v]
	if !c.effective[v] {
		verb := "replaces"
		if succ < 0 {
			verb = "deletes"
		}
		return c.illegal("S3[%d] %s ETag %s, which is not written", c.writeIdx(succ), verb, shortETag(p.etag))
	}
	if p.succ != -1 {
		return c.illegal("ETag %s is replaced twice, by S3[%d] and S3[%d]", shortETag(p.etag), c.writeIdx(p.succ), c.writeIdx(succ))
	}
	p.succ = succ
	return nil
}

// collectUnits returns the units of the sequence: the chains that begin
// with a version not written by If-Match and the deletes that name no
// version. A delete answered 200 that names a version ends its chain, and
// so, with fastFreeDeletes, does a free one if nothing else does.
func (c *fastChecker) collectUnits(free int) ([]unit, *fastReason) {
	var units []unit
	for _, i := range c.keyOps {
		op := &c.ops[i]
		if op.in.kind != s3Delete || op.role != roleMust {
			continue
		}
		if op.dcond == condIfMatch {
			if r := c.succeed(op.dver, -2-i); r != nil {
				return nil, r
			}
			continue
		}
		units = append(units, unit{first: -2 - i})
	}
	if free&fastFreeDeletes != 0 {
		// Deletes of unknown outcome that can take effect do: one that
		// names a version ends its chain, unless something else does.
		for _, i := range c.keyOps {
			op := &c.ops[i]
			if op.in.kind != s3Delete || op.role != roleMay || !op.dfree {
				continue
			}
			if op.dcond != condIfMatch {
				units = append(units, unit{first: -2 - i})
			} else if p := &c.versions[op.dver]; c.effective[op.dver] && p.succ == -1 {
				p.succ = -2 - i
			}
		}
	}
	for v := range c.versions {
		if ver := &c.versions[v]; c.effective[v] && ver.cond != condIfMatch {
			units = append(units, unit{first: int32(v)})
		}
	}
	return units, nil
}

// unitSpan is where a unit's writes stand in the sequence: [start, end).
type unitSpan struct{ start, end int32 }

// expandUnits writes out the writes, unit by unit, with the instants at
// which each may take effect (seqVer, seqOp, allow), and fills in each
// unit's instants. It returns where each unit stands and how many
// versions it wrote.
func (c *fastChecker) expandUnits(units []unit) ([]unitSpan, int) {
	c.allow = c.allow[:0]
	c.allowOff = c.allowOff[:0]
	c.seqVer = append(c.seqVer[:0], -1)
	c.seqOp = append(c.seqOp[:0], -1)
	c.allowOff = append(c.allowOff, 0)
	spans := make([]unitSpan, len(units))
	visited := 0
	for u := range units {
		spans[u].start = int32(len(c.seqVer))
		un := &units[u]
		un.min, un.maxMin, un.minMax = fastPosInf, fastNegInf, fastPosInf
		for w := un.first; ; {
			var lo, hi int64
			if w >= 0 {
				ver := &c.versions[w]
				visited++
				op := ver.writer
				if op < 0 {
					op = ver.first
				}
				c.seqVer = append(c.seqVer, w)
				c.seqOp = append(c.seqOp, op)
				lo, hi = c.addVersionAllow(ver)
				w = ver.succ
			} else {
				op := &c.ops[-2-w]
				c.seqVer = append(c.seqVer, -1)
				c.seqOp = append(c.seqOp, -2-w)
				c.allow = append(c.allow, [2]int64{op.call, op.ret})
				lo, hi = op.call, op.ret
				w = -1
			}
			c.allowOff = append(c.allowOff, int32(len(c.allow)))
			due := hi
			if v := c.seqVer[len(c.seqVer)-1]; v >= 0 {
				due = min(hi, c.versions[v].seen)
			}
			if un.min == fastPosInf {
				un.due = due
			}
			un.lastDue = due
			un.min = min(un.min, lo)
			un.maxMin = max(un.maxMin, lo)
			un.minMax = min(un.minMax, hi)
			if w == -1 {
				break
			}
		}
		spans[u].end = int32(len(c.seqVer))
	}
	return spans, visited
}

// orderUnits orders the units as by says. If each precedes the next in
// real time, the order is forced; otherwise the verdict is no longer
// exact.
func (c *fastChecker) orderUnits(units []unit, spans []unitSpan, by int) ([]int32, *fastReason) {
	order := make([]int32, len(units))
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortStableFunc(order, func(a, b int32) int {
		x, y := &units[a], &units[b]
		switch by {
		case orderByFirstDue, orderGreedy:
			if c := cmp.Compare(x.due, y.due); c != 0 {
				return c
			}
		case orderByLastDue:
			if c := cmp.Compare(x.lastDue, y.lastDue); c != 0 {
				return c
			}
		}
		if c := cmp.Compare(x.min, y.min); c != 0 {
			return c
		}
		return cmp.Compare(x.minMax, y.minMax)
	})
	if by == orderGreedy {
		if len(order) > 256 {
			return nil, undecided("too many chains to order")
		}
		// order is by due: take the first unit that can come next.
		present := false
		for k := range order {
			best := k
			for l := k; l < len(order); l++ {
				if f := units[order[l]].first; f < 0 || !present || c.versions[f].cond != condAbsent {
					best = l
					break
				}
			}
			u := order[best]
			copy(order[k+1:best+1], order[k:best])
			order[k] = u
			present = c.seqVer[spans[u].end-1] >= 0
		}
	}
	for k := 1; k < len(order); k++ {
		if units[order[k-1]].minMax >= units[order[k]].maxMin {
			c.exact = false
			break
		}
	}
	return order, nil
}

// layOut rewrites the sequence with the units in order.
func (c *fastChecker) layOut(order []int32, spans []unitSpan) {
	seqVer, seqOp := []int32{-1}, []int32{-1}
	allow := make([][2]int64, 0, len(c.allow))
	allowOff := []int32{0}
	for _, u := range order {
		for j := spans[u].start; j < spans[u].end; j++ {
			seqVer = append(seqVer, c.seqVer[j])
			seqOp = append(seqOp, c.seqOp[j])
			allow = append(allow, c.allow[c.allowOff[j-1]:c.allowOff[j]]...)
			allowOff = append(allowOff, int32(len(allow)))
		}
	}
	c.seqVer, c.seqOp, c.allow, c.allowOff = seqVer, seqOp, allow, allowOff
}

// checkStates computes the key's state after each write of the sequence
// (stateVer), checking that each write that took effect could.
func (c *fastChecker) checkStates() *fastReason {
	m := len(c.seqVer) - 1
	c.stateVer = append(c.stateVer[:0], -1)
	for j := 1; j <= m; j++ {
		prev := c.stateVer[j-1]
		v := c.seqVer[j]
		op := &c.ops[c.seqOp[j]]
		if v >= 0 {
			ver := &c.versions[v]
			ver.state = int32(j)
			if ver.cond == condAbsent && prev >= 0 {
				return c.illegal("S3[%d] creates the object while ETag %s is current", op.idx, shortETag(c.versions[prev].etag))
			}
		}
		if op.role == roleMust && !op.pred.accepts(prev) {
			return c.illegal("S3[%d] (%s) takes effect in a state that does not give its answer", op.idx, describeS3Operation(&op.in, op.out))
		}
		c.stateVer = append(c.stateVer, v)
	}
	return nil
}

// writeIdx names the write succ refers to by its index in History.S3.
func (c *fastChecker) writeIdx(succ int32) int {
	if succ >= 0 {
		return c.ops[c.versions[succ].rep].idx
	}
	return c.ops[-2-succ].idx
}

// addVersionAllow appends the instants at which ver's write may take
// effect: the interval of its write answered 200, or the union of those
// of its writes. It returns the earliest and latest.
func (c *fastChecker) addVersionAllow(ver *fastVersion) (lo, hi int64) {
	if ver.writer >= 0 {
		op := &c.ops[ver.writer]
		c.allow = append(c.allow, [2]int64{op.call, op.ret})
		return op.call, op.ret
	}
	start := len(c.allow)
	for i := ver.first; i >= 0; i = c.ops[i].nextMember {
		op := &c.ops[i]
		c.allow = append(c.allow, [2]int64{op.call, op.ret})
	}
	iv := c.allow[start:]
	slices.SortFunc(iv, func(a, b [2]int64) int { return cmp.Compare(a[0], b[0]) })
	n := 0
	for _, r := range iv {
		if n > 0 && r[0] <= iv[n-1][1] {
			iv[n-1][1] = max(iv[n-1][1], r[1])
			continue
		}
		iv[n] = r
		n++
	}
	c.allow = c.allow[:start+n]
	return iv[0][0], iv[n-1][1]
}

// allowed returns the intervals of the j-th write.
func (c *fastChecker) allowed(j int) [][2]int64 {
	return c.allow[c.allowOff[j-1]:c.allowOff[j]]
}
