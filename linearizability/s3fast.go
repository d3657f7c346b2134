package linearizability

import (
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
		if a == answerNotApplied || (a == answerEither && (kind == s3Get || kind == s3Head)) || o.TornBodyETag != "" {
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
