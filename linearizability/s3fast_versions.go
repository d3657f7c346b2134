package linearizability

import (
	"fmt"
	"strings"
)

// Statuses of a version: whether its write takes effect.
const (
	verFree     uint8 = iota // it may or may not
	verMust                  // it does: a write was answered 200
	verRequired              // it does: a request saw the version
	verOut                   // it cannot
)

// fastVersion is a value the key may hold: the body of one or more puts
// with the same preconditions and body (a request and its retries). At
// most one of them takes effect (checked when built).
type fastVersion struct {
	etag  string // the body ETag
	rep   int32  // the first write
	first int32  // the first write, members linked by nextMember
	last  int32
	// writer is the write answered 200, or -1.
	writer   int32
	nMembers int32
	cond     uint8
	// pred is, for condIfMatch, the version the write replaces, or -1 if
	// no write of the history has that ETag.
	pred   int32
	status uint8
	// succ is the write that ends the version's lifetime in the sequence
	// being built: a version (>= 0), a delete (-2-op), or -1.
	succ int32
	// state is the version's index in the state sequence, or -1.
	state int32
	// seen is the earliest answer of a request that only this version
	// explains.
	seen int64
}

// buildVersions collects the versions: the bodies of puts that took or
// may have taken effect, grouping a put with its retries (same
// preconditions and body). The key is undecided if two other puts write
// one ETag (ABA), since a version would then have two lifetimes.
func (c *fastChecker) buildVersions() *fastReason {
	c.versions = c.versions[:0]
	if c.byTrim == nil {
		c.byTrim = make(map[string]int32, len(c.keyOps)/2)
	} else {
		clear(c.byTrim)
	}
	deletes := false
	for _, i := range c.keyOps {
		op := &c.ops[i]
		if op.in.kind == s3Delete && op.role != roleRead {
			deletes = true
		}
		if op.in.kind != s3Put || op.role == roleRead {
			continue
		}
		t := strings.Trim(op.in.bodyETag, `"`)
		if t == "" || t == "*" {
			// evalPred takes no header or answer naming such an ETag
			// to name a version.
			return undecided("S3[%d] writes the ETag %q", op.idx, op.in.bodyETag)
		}
		v, ok := c.byTrim[t]
		if !ok {
			v = int32(len(c.versions))
			c.byTrim[t] = v
			c.versions = append(c.versions, fastVersion{etag: op.in.bodyETag, rep: i, first: i, last: i, writer: -1, pred: -1, succ: -1, state: -1, seen: fastPosInf})
		} else {
			ver := &c.versions[v]
			rep := &c.ops[ver.rep].in
			if rep.bodyETag != op.in.bodyETag || strings.Trim(rep.ifMatch, `"`) != strings.Trim(op.in.ifMatch, `"`) || rep.ifNoneMatch != op.in.ifNoneMatch {
				return undecided("S3[%d] and S3[%d] may both write ETag %s", c.ops[ver.rep].idx, op.idx, shortETag(op.in.bodyETag))
			}
			c.ops[ver.last].nextMember = i
			ver.last = i
		}
		ver := &c.versions[v]
		ver.nMembers++
		op.ver = v
		if op.role == roleMust {
			if ver.writer >= 0 {
				return undecided("S3[%d] and S3[%d] both wrote ETag %s", c.ops[ver.writer].idx, op.idx, shortETag(op.in.bodyETag))
			}
			ver.writer = i
		}
	}
	for v := range c.versions {
		ver := &c.versions[v]
		if ver.nMembers < 2 {
			continue
		}
		// Retries of one write take effect at most once: an If-Match
		// version has one lifetime, and a create needs the key absent
		// again, which takes a delete.
		in := &c.ops[ver.rep].in
		switch {
		case in.ifMatch != "" && in.ifMatch != "*" && in.ifNoneMatch == "":
		case in.ifMatch == "" && in.ifNoneMatch == "*" && !deletes:
		default:
			return undecided("S3[%d] is written %d times", c.ops[ver.rep].idx, ver.nMembers)
		}
	}
	return nil
}

// classify computes what each request says, rejects requests no state
// explains, and decides which writes take effect where that is forced.
func (c *fastChecker) classify() *fastReason {
	c.exact = true
	if r := c.explainAnswers(); r != nil {
		return r
	}
	if r := c.classifyVersions(); r != nil {
		return r
	}
	c.markSeen()
	if r := c.classifyDeletes(); r != nil {
		return r
	}
	if r := c.requirePredecessors(); r != nil {
		return r
	}
	c.ruleOut()
	return nil
}

// explainAnswers computes, for every request with a determined answer,
// the states that give it, and rejects a request that no state explains.
func (c *fastChecker) explainAnswers() *fastReason {
	for _, i := range c.keyOps {
		op := &c.ops[i]
		if op.role != roleMay {
			op.pred = c.evalPred(&op.in, op.out, true)
			if c.empty(&op.pred) {
				return &fastReason{FastIllegal, fmt.Sprintf("S3[%d] (%s) got an answer no state of the key gives", op.idx, describeS3Operation(&op.in, op.out))}
			}
		}
	}
	return nil
}

// classifyVersions computes each version's write condition and the
// version it replaces, and marks the versions a write answered 200 made
// and those no state lets be written.
func (c *fastChecker) classifyVersions() *fastReason {
	for v := range c.versions {
		ver := &c.versions[v]
		rep := &c.ops[ver.rep]
		// The states in which the version is written: for a write
		// answered 200, those in which it gets that answer; otherwise
		// those in which the write changes the key.
		var p fastPred
		if ver.writer >= 0 {
			p = c.ops[ver.writer].pred
		} else {
			p = c.evalPred(&rep.in, s3Output{}, false)
		}
		ver.cond, ver.pred = c.condOf(&p)
		switch ver.cond {
		case condIfMatch:
			if ver.pred == int32(v) {
				ver.cond, ver.pred = condNever, -1
			}
		case condOdd, condPresent:
			return undecided("S3[%d] has preconditions the fast checker does not handle", rep.idx)
		}
		if ver.writer >= 0 {
			ver.status = verMust
		} else if ver.cond == condNever {
			ver.status = verOut
		}
	}
	return nil
}

// markSeen marks the versions a request saw (the only version its answer
// admits) as required, with the earliest answer that saw each.
func (c *fastChecker) markSeen() {
	for _, i := range c.keyOps {
		op := &c.ops[i]
		if op.role == roleMay {
			continue
		}
		if v := c.only(&op.pred); v >= 0 {
			ver := &c.versions[v]
			ver.seen = min(ver.seen, op.ret)
			if ver.status == verFree {
				ver.status = verRequired
			}
		}
	}
}

// classifyDeletes computes the precondition of each delete that took or
// may have taken effect (dcond, dver).
func (c *fastChecker) classifyDeletes() *fastReason {
	for _, i := range c.keyOps {
		op := &c.ops[i]
		if op.in.kind != s3Delete || op.role == roleRead {
			continue
		}
		p := c.evalPred(&op.in, s3Output{}, false)
		if op.role == roleMust {
			p = op.pred
		}
		op.dcond, op.dver = c.condOf(&p)
		if op.role == roleMust {
			// An answered delete took effect in a state in which it
			// gets its answer; it leaves the key absent.
			switch op.dcond {
			case condAbsent, condAny:
				op.dcond = condAny
			case condIfMatch:
			default:
				return undecided("S3[%d] has preconditions the fast checker does not handle", op.idx)
			}
		}
	}
	return nil
}

// requirePredecessors marks as required the version each version that
// must be written replaces. Each version is walked once (done), which
// also ends a cycle.
func (c *fastChecker) requirePredecessors() *fastReason {
	done := make([]bool, len(c.versions))
	for v := range c.versions {
		for w := int32(v); !done[w]; {
			ver := &c.versions[w]
			if ver.status != verMust && ver.status != verRequired {
				break
			}
			done[w] = true
			if ver.cond == condNever {
				return c.illegal("S3[%d] must have taken effect, but it cannot (%s)", c.ops[ver.rep].idx, describeS3Operation(&c.ops[ver.rep].in, c.ops[ver.rep].out))
			}
			if ver.cond != condIfMatch {
				break
			}
			w = ver.pred
			if c.versions[w].status == verFree || c.versions[w].status == verOut {
				if c.versions[w].status == verOut {
					return c.illegal("S3[%d] replaced ETag %s, which cannot have been written", c.ops[ver.rep].idx, shortETag(c.versions[w].etag))
				}
				c.versions[w].status = verRequired
			}
		}
	}
	return nil
}

// ruleOut rules out the free versions that cannot take effect, and notes
// which writes are left free (hasFree, dfree; the verdict is then no
// longer exact). A version whose predecessor has another successor that
// takes effect cannot take effect (the predecessor has one lifetime), nor
// can one whose predecessor is never written.
func (c *fastChecker) ruleOut() {
	firmSucc := make([]int32, len(c.versions))
	for _, v := range c.versions {
		if (v.status == verMust || v.status == verRequired) && v.cond == condIfMatch {
			firmSucc[v.pred]++
		}
	}
	for _, i := range c.keyOps {
		if op := &c.ops[i]; op.role == roleMust && op.dcond == condIfMatch {
			firmSucc[op.dver]++
		}
	}
	// (A bounded number of passes: a version left free only makes the
	// verdict inexact.)
	for pass, changed := 0, true; changed && pass < fastPasses; pass++ {
		changed = false
		for v := range c.versions {
			ver := &c.versions[v]
			if ver.status != verFree || ver.cond != condIfMatch {
				continue
			}
			if firmSucc[ver.pred] > 0 || c.versions[ver.pred].status == verOut {
				ver.status, changed = verOut, true
			}
		}
	}
	c.hasFree = false
	for _, ver := range c.versions {
		if ver.status == verFree {
			c.exact, c.hasFree = false, true
		}
	}
	for _, i := range c.keyOps {
		op := &c.ops[i]
		if op.in.kind != s3Delete || op.role != roleMay {
			continue
		}
		op.dfree = false
		switch {
		case op.dcond == condNever:
		case op.dcond == condIfMatch && (firmSucc[op.dver] > 0 || c.versions[op.dver].status == verOut):
		default:
			// A delete that may or may not have taken effect.
			c.exact, c.hasFree, op.dfree = false, true, true
		}
	}
}
