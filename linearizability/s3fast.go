package linearizability

import (
	"cmp"
	"fmt"
	"math"
	"net/http"
	"slices"
	"strings"
	"sync"

	"github.com/s3lease/s3lease/sim"
)

// FastVerdict is the verdict of CheckS3Fast.
type FastVerdict uint8

const (
	// FastUndecided: the history lacks the structure the fast checker
	// relies on, or it could not decide; porcupine must judge it.
	FastUndecided FastVerdict = iota
	// FastOk: the history is linearizable. The checker found a
	// linearization and replayed it against the model.
	FastOk
	// FastIllegal: the history is not linearizable.
	FastIllegal
)

var fastVerdictNames = [...]string{FastUndecided: "Undecided", FastOk: "Ok", FastIllegal: "Illegal"}

// String names the verdict: "Undecided", "Ok" or "Illegal".
func (v FastVerdict) String() string {
	if int(v) < len(fastVerdictNames) {
		return fastVerdictNames[v]
	}
	return fmt.Sprintf("FastVerdict(%d)", uint8(v))
}

// FastResult is the outcome of CheckS3Fast.
type FastResult struct {
	Verdict FastVerdict
	// Ops is the number of requests checked, counted as S3Result.Ops.
	Ops int
	// Reason says, for Undecided and Illegal, why: one sentence naming the
	// requests by their index in History.S3. It is empty for Ok.
	Reason string
}

// CheckS3Fast decides, in O(n log n) for n requests, whether h.S3 is
// linearizable against the model CheckS3 uses, for histories with the
// structure conditional writes give them (see the package documentation,
// "Two S3 checkers"); for others it answers FastUndecided. When it
// decides, its verdict is porcupine's: Ok only with a linearization it has
// replayed against the model, Illegal only when it has proved that none
// exists. h is not modified.
func CheckS3Fast(h *sim.History) FastResult {
	c := fastCheckers.Get().(*fastChecker)
	defer fastCheckers.Put(c)
	return c.check(h)
}

// fastCheckers keeps checkers' buffers between checks: a run's check
// would otherwise allocate about as much as the run's history holds.
var fastCheckers = sync.Pool{New: func() any { return new(fastChecker) }}

// fastPasses bounds the passes of the checker's fixpoint loops, which
// keeps its cost O(n log n) on any history; histories of the simulator
// need two or three.
const fastPasses = 16

// Points of the linearization are instants in nanoseconds of true time;
// a request without an answer may take effect until fastPosInf.
const (
	fastNegInf = math.MinInt64
	fastPosInf = math.MaxInt64
)

// fastOtherETag is the ETag of a version unrelated to a request: one that
// no precondition or answer of the request names. It holds NUL bytes,
// and the checker leaves histories with such ETags to porcupine, so
// nothing names it.
const fastOtherETag = "\x00unrelated\x00"

// Roles of a checked request.
const (
	// roleRead: a request with a determined answer that cannot have
	// changed the key (any read; a refused write): it only constrains the
	// state in which it takes effect.
	roleRead uint8 = iota
	// roleMust: a write answered 200: it took effect.
	roleMust
	// roleMay: a write of unknown outcome (no answer, 5xx, no
	// connection): it took effect once, or never.
	roleMay
)

// fastOp is a checked request.
type fastOp struct {
	idx       int // index in History.S3
	in        s3Input
	out       s3Output
	call, ret int64 // ret is fastPosInf for a request without an answer
	role      uint8
	// ver is, for a write of a put, its version; -1 otherwise.
	ver int32
	// nextMember links the writes of one version.
	nextMember int32
	// pred is, for a request with a determined answer, the states in
	// which it gets that answer.
	pred fastPred
	// state is, for a read that only one version's state explains,
	// that state's index in the sequence; -1 otherwise.
	state int32
	// dfree: a delete of unknown outcome whose effect is not forced.
	dfree bool
	// dcond and dver classify a delete's precondition (condAny,
	// condIfMatch with dver, condPresent, condNever).
	dcond uint8
	dver  int32
}

// fastPred is a set of reachable states of the key: absent, or present
// with the ETag of one of the versions. Versions named by the request (in
// a precondition or its answer) are listed in rel; other says whether the
// set holds the versions it does not name.
type fastPred struct {
	absent, other bool
	n             uint8
	rel           [3]fastRel
}

type fastRel struct {
	v  int32
	ok bool
}

// accepts reports whether the set holds the state "absent" (v < 0) or
// "present with version v".
func (p *fastPred) accepts(v int32) bool {
	if v < 0 {
		return p.absent
	}
	for _, r := range p.rel[:p.n] {
		if r.v == v {
			return r.ok
		}
	}
	return p.other
}

// Write conditions: in which states a write takes effect.
const (
	condNever   uint8 = iota // in none
	condAbsent               // only when the key is absent (If-None-Match: *)
	condIfMatch              // only when it holds one version (If-Match)
	condAny                  // always (no precondition)
	condPresent              // whenever the key is present (If-Match: *)
	condOdd                  // some other set: the checker does not decide
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

// fastChecker holds the buffers of one check.
type fastChecker struct {
	ops      []fastOp
	versions []fastVersion
	byTrim   map[string]int32
	all      []int32
	keyOps   []int32
	// exact: every choice made so far was forced, so infeasibility proves
	// the history illegal.
	exact bool
	// The sequence of effective writes, 1..m; index 0 and m+1 are the
	// sentinels. seqVer is the version written (-1 for a delete), seqOp
	// the request (for a version without an answered write, its first
	// write), allow the instants at which it may take effect.
	seqVer   []int32
	seqOp    []int32
	allowOff []int32
	allow    [][2]int64
	stateVer []int32 // the key's state after each write: a version or -1
	// effective says which versions take effect in the sequence.
	effective []bool
	lb, ub    []int64
	lo, hi    []int64 // L and U: earliest and latest instant of each write
	reads     []int32
	pending   []int32
	states    []s3State
	budget    int
	// determined counts the key's requests with a determined answer,
	// all of which the witness must place.
	determined int
	// hasFree: some write's effect is not forced.
	hasFree bool
}

// fastReason is why a key was not decided, or is illegal.
type fastReason struct {
	verdict FastVerdict
	msg     string
}

func undecided(format string, args ...any) *fastReason {
	return &fastReason{FastUndecided, fmt.Sprintf(format, args...)}
}

func (c *fastChecker) check(h *sim.History) FastResult {
	if h == nil {
		return FastResult{Verdict: FastOk}
	}
	c.ops = slices.Grow(c.ops[:0], len(h.S3))
	oneKey, bad, badWhy := true, -1, ""
	for i := range h.S3 {
		o := &h.S3[i]
		kind, ok := s3KindOf(o.Op)
		if !ok {
			continue
		}
		out := s3Output{unknown: true}
		ret := int64(fastPosInf)
		if o.Return >= 0 {
			out = s3Output{status: o.Status, code: o.Code, etag: o.ETag}
			ret = int64(o.Return)
		}
		if ret < int64(o.Call) {
			bad, badWhy = i, "was answered before it was sent"
		}
		if strings.IndexByte(o.IfMatch, 0) >= 0 || strings.IndexByte(o.IfNoneMatch, 0) >= 0 ||
			strings.IndexByte(o.BodyETag, 0) >= 0 || strings.IndexByte(o.ETag, 0) >= 0 {
			// fastOtherETag must be named by no request.
			bad, badWhy = i, "names an ETag with a NUL byte"
		}
		a := classify(out)
		if a == answerNotApplied || (a == answerEither && (kind == s3Get || kind == s3Head)) {
			continue // as s3Operations
		}
		op := fastOp{idx: i, out: out, call: int64(o.Call), ret: ret, ver: -1, nextMember: -1, dver: -1,
			in: s3Input{id: i, node: o.Node, kind: kind, key: o.Key, ifMatch: o.IfMatch, ifNoneMatch: o.IfNoneMatch}}
		if kind == s3Put {
			op.in.bodyETag = o.BodyETag
		}
		switch {
		case a == answerEither:
			op.role = roleMay
		case (kind == s3Put || kind == s3Delete) && out.status == http.StatusOK:
			op.role = roleMust
		default:
			op.role = roleRead
		}
		if len(c.ops) > 0 && o.Key != c.ops[0].in.key {
			oneKey = false
		}
		c.ops = append(c.ops, op)
	}
	res := FastResult{Verdict: FastOk, Ops: len(c.ops)}
	if bad >= 0 {
		return FastResult{Verdict: FastUndecided, Ops: res.Ops, Reason: fmt.Sprintf("S3[%d] %s", bad, badWhy)}
	}
	var keys [][]int32
	if oneKey {
		all := slices.Grow(c.all[:0], len(c.ops))
		for i := range c.ops {
			all = append(all, int32(i))
		}
		c.all = all
		keys = [][]int32{all}
	} else {
		index := make(map[string]int)
		for i := range c.ops {
			k := c.ops[i].in.key
			j, ok := index[k]
			if !ok {
				j = len(keys)
				index[k] = j
				keys = append(keys, nil)
			}
			keys[j] = append(keys[j], int32(i))
		}
	}
	for _, k := range keys {
		c.keyOps = k
		r := c.checkKey()
		if r == nil {
			continue
		}
		if r.verdict == FastIllegal {
			return FastResult{Verdict: FastIllegal, Ops: res.Ops, Reason: r.msg}
		}
		if res.Verdict == FastOk {
			res = FastResult{Verdict: FastUndecided, Ops: res.Ops, Reason: r.msg}
		}
	}
	return res
}

// checkKey judges the requests of one key (c.keyOps): nil if they are
// linearizable.
func (c *fastChecker) checkKey() *fastReason {
	if r := c.buildVersions(); r != nil {
		return r
	}
	if r := c.classify(); r != nil {
		return r
	}
	// The first attempt leaves out the writes of unknown outcome whose
	// effect nothing forces, and orders the units (chains of versions,
	// deletes) by their earliest instant. If it fails without a proof,
	// the others try other orders, and let those writes take effect
	// where they can (a request refused because of them needs that).
	r := c.attempt(0, orderByCall)
	if r == nil || r.verdict == FastIllegal {
		return r
	}
	c.exact = false // what follows is a search: it proves nothing
	for free := range fastFreeAll + 1 {
		if free != 0 && !c.hasFree {
			break
		}
		for by := orderByCall; by <= orderGreedy; by++ {
			if (free != 0 || by != orderByCall) && c.attempt(free, by) == nil {
				return nil
			}
		}
	}
	return r
}

// Which writes of unknown outcome whose effect nothing forces take effect
// in an attempt: a bit set.
const (
	fastFreeDeletes = 1 << iota
	fastFreePuts
	fastFreeAll = fastFreeDeletes | fastFreePuts
)

// Orders of the units tried.
const (
	// orderByCall: by the earliest instant of any write of the unit.
	orderByCall = iota
	// orderByFirstDue: by the instant by which the first write of the
	// unit has taken effect (its answer, or an answer that saw it).
	orderByFirstDue
	// orderByLastDue: by the instant by which the last has: racing
	// unconditional puts come before the one that a chain continues.
	orderByLastDue
	// orderGreedy: the unit due first among those that can follow the
	// one before (a create only after a delete).
	orderGreedy
)

// illegal returns a reason with verdict Illegal if every choice made was
// forced, and Undecided otherwise.
func (c *fastChecker) illegal(format string, args ...any) *fastReason {
	if c.exact {
		return &fastReason{FastIllegal, fmt.Sprintf(format, args...)}
	}
	return undecided(format, args...)
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

// evalPred returns the reachable states in which in gets the answer out
// (answer true) or, with answer false, takes effect.
func (c *fastChecker) evalPred(in *s3Input, out s3Output, answer bool) fastPred {
	if answer && (in.kind == s3Get || in.kind == s3Head) && in.ifMatch == "" && in.ifNoneMatch == "" {
		// What s3Apply says of a plain read, without asking it for
		// every state (TestFastPredShortcuts holds the two equal): 200
		// with the ETag of the object if there is one, 404 otherwise.
		switch {
		case out.status == http.StatusOK && out.code == "":
			p := fastPred{other: out.etag == fastOtherETag}
			if t := strings.Trim(out.etag, `"`); t != "" && t != "*" {
				if v, ok := c.byTrim[t]; ok {
					p.rel[0], p.n = fastRel{v: v, ok: c.versions[v].etag == out.etag}, 1
				}
			}
			return p
		case out.status == http.StatusNotFound && out.etag == "" &&
			((in.kind == s3Get && out.code == "NoSuchKey") || (in.kind == s3Head && out.code == "NotFound")):
			return fastPred{absent: true}
		}
	}
	if answer && in.kind == s3Put {
		// What s3Apply says of the puts the elector sends (the test
		// holds the two equal): a create succeeds on an absent key and
		// is refused otherwise; a put If-Match succeeds on the version
		// it names, is refused on another, and finds no key if absent;
		// a put without preconditions always succeeds.
		ok := s3Output{status: http.StatusOK, etag: in.bodyETag}
		refused := s3Output{status: http.StatusPreconditionFailed, code: "PreconditionFailed"}
		switch {
		case in.ifMatch == "" && in.ifNoneMatch == "*":
			return fastPred{absent: out == ok, other: out == refused}
		case in.ifMatch == "" && in.ifNoneMatch == "":
			return fastPred{absent: out == ok, other: out == ok}
		case in.ifNoneMatch == "" && in.ifMatch != "*":
			p := fastPred{absent: out == s3Output{status: http.StatusNotFound, code: "NoSuchKey"}, other: out == refused}
			if t := strings.Trim(in.ifMatch, `"`); t != "" && t != "*" {
				if v, found := c.byTrim[t]; found {
					p.rel[0], p.n = fastRel{v: v, ok: out == ok}, 1
				}
			}
			return p
		}
	}
	return c.evalPredSlow(in, out, answer)
}

// evalPredSlow is evalPred asking s3Apply about each state.
func (c *fastChecker) evalPredSlow(in *s3Input, out s3Output, answer bool) fastPred {
	test := func(s s3State) bool {
		got, next := s3Apply(s, in)
		if answer {
			return got.status == out.status && got.code == out.code && got.etag == out.etag
		}
		return next != s
	}
	p := fastPred{absent: test(s3State{}), other: test(s3State{present: true, etag: fastOtherETag})}
	named := [3]string{in.ifMatch, in.ifNoneMatch, ""}
	if answer {
		named[2] = out.etag
	}
	for _, e := range named {
		t := strings.Trim(e, `"`)
		if t == "" || t == "*" {
			continue
		}
		v, ok := c.byTrim[t]
		if !ok {
			continue
		}
		dup := false
		for _, r := range p.rel[:p.n] {
			dup = dup || r.v == v
		}
		if dup {
			continue
		}
		p.rel[p.n] = fastRel{v: v, ok: test(s3State{present: true, etag: c.versions[v].etag})}
		p.n++
	}
	return p
}

// only returns the one version p holds and nothing else, or -1.
func (c *fastChecker) only(p *fastPred) int32 {
	if p.absent {
		return -1
	}
	if p.other && len(c.versions) > int(p.n) {
		return -1
	}
	v := int32(-1)
	for _, r := range p.rel[:p.n] {
		if r.ok {
			if v >= 0 {
				return -1
			}
			v = r.v
		}
	}
	return v
}

// empty reports whether p holds no reachable state.
func (c *fastChecker) empty(p *fastPred) bool {
	if p.absent || (p.other && len(c.versions) > int(p.n)) {
		return false
	}
	for _, r := range p.rel[:p.n] {
		if r.ok {
			return false
		}
	}
	return true
}

// condOf classifies the set of states in which a write takes effect.
func (c *fastChecker) condOf(p *fastPred) (cond uint8, ver int32) {
	allRel, nOK := true, 0
	ver = -1
	for _, r := range p.rel[:p.n] {
		allRel = allRel && r.ok
		if r.ok {
			nOK++
			ver = r.v
		}
	}
	switch {
	case p.absent && p.other && allRel:
		return condAny, -1
	case p.absent && !p.other && nOK == 0:
		return condAbsent, -1
	case !p.absent && p.other && allRel:
		return condPresent, -1
	case !p.absent && !p.other && nOK == 0:
		return condNever, -1
	case !p.absent && !p.other && nOK == 1:
		return condIfMatch, ver
	}
	return condOdd, -1
}

// classify computes what each request says, rejects requests no state
// explains, and decides which writes take effect where that is forced.
func (c *fastChecker) classify() *fastReason {
	c.exact = true
	for _, i := range c.keyOps {
		op := &c.ops[i]
		if op.role != roleMay {
			op.pred = c.evalPred(&op.in, op.out, true)
			if c.empty(&op.pred) {
				return &fastReason{FastIllegal, fmt.Sprintf("S3[%d] (%s) got an answer no state of the key gives", op.idx, describeS3Operation(&op.in, op.out))}
			}
		}
	}
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
	for _, i := range c.keyOps {
		op := &c.ops[i]
		if op.role != roleMay {
			if v := c.only(&op.pred); v >= 0 {
				ver := &c.versions[v]
				ver.seen = min(ver.seen, op.ret)
				if ver.status == verFree {
					ver.status = verRequired
				}
			}
		}
		if op.in.kind == s3Delete && op.role != roleRead {
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
	}
	// A version that must be written needs the one it replaces. Each
	// version is walked once (done), which also ends a cycle.
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
	// A version whose predecessor has another successor that takes
	// effect cannot take effect (the predecessor has one lifetime), nor
	// can one whose predecessor is never written.
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
	return nil
}

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
	c.effective = slices.Grow(c.effective[:0], len(c.versions))
	for v := range c.versions {
		ver := &c.versions[v]
		ver.succ, ver.state = -1, -1
		c.effective = append(c.effective, ver.status == verMust || ver.status == verRequired)
	}
	effective := func(v int32) bool { return c.effective[v] }
	// The versions that take effect replace the one they name; no
	// version is replaced twice.
	for v := range c.versions {
		ver := &c.versions[v]
		if !effective(int32(v)) || ver.cond != condIfMatch {
			continue
		}
		if !effective(ver.pred) {
			return c.illegal("S3[%d] replaces ETag %s, which is not written", c.ops[ver.rep].idx, shortETag(c.versions[ver.pred].etag))
		}
		p := &c.versions[ver.pred]
		if p.succ != -1 {
			return c.illegal("ETag %s is replaced twice, by S3[%d] and S3[%d]", shortETag(p.etag), c.writeIdx(p.succ), c.ops[ver.rep].idx)
		}
		p.succ = int32(v)
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
					if p := &c.versions[ver.pred]; !effective(ver.pred) || p.succ != -1 {
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
	var units []unit
	for _, i := range c.keyOps {
		op := &c.ops[i]
		if op.in.kind != s3Delete || op.role != roleMust {
			continue
		}
		if op.dcond == condIfMatch {
			p := &c.versions[op.dver]
			if !effective(op.dver) {
				return c.illegal("S3[%d] deletes ETag %s, which is not written", op.idx, shortETag(p.etag))
			}
			if p.succ != -1 {
				return c.illegal("ETag %s is replaced twice, by S3[%d] and S3[%d]", shortETag(p.etag), c.writeIdx(p.succ), op.idx)
			}
			p.succ = -2 - i
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
			} else if p := &c.versions[op.dver]; effective(op.dver) && p.succ == -1 {
				p.succ = -2 - i
			}
		}
	}
	for v := range c.versions {
		if ver := &c.versions[v]; effective(int32(v)) && ver.cond != condIfMatch {
			units = append(units, unit{first: int32(v)})
		}
	}
	// The writes, unit by unit, with the instants at which each may
	// take effect.
	c.allow = c.allow[:0]
	c.allowOff = c.allowOff[:0]
	c.seqVer = append(c.seqVer[:0], -1)
	c.seqOp = append(c.seqOp[:0], -1)
	c.allowOff = append(c.allowOff, 0)
	type span struct{ start, end int32 }
	spans := make([]span, len(units))
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
	if visited != nEffective {
		return c.illegal("writes that take effect replace each other in a cycle")
	}
	// Order the units by their earliest instant; if each precedes the
	// next in real time, the order is forced.
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
			return undecided("too many chains to order")
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
	// Lay the units out in that order.
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
	m := len(c.seqVer) - 1
	// The states, checking that each write that took effect could.
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
