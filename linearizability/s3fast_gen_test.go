package linearizability

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"net/http"
	"slices"
	"time"

	"github.com/anishathalye/porcupine"
	"github.com/s3lease/s3lease/sim"
	"pgregory.net/rapid"
)

// Generated S3 histories for the fast checker: a store that follows
// s3Apply runs the requests one after the other at increasing instants
// (the linearization), and each request's interval is then widened
// around its instant, so that the history is linearizable by
// construction. Mutations then corrupt one answer or one interval, which
// usually makes the history illegal. The generator draws its choices from
// a drawer, so that rapid (with shrinking) and math/rand (for volume) can
// both drive it.

// drawer returns a number in [0, n).
type drawer func(n int) int

func rapidDrawer(t *rapid.T) drawer {
	return func(n int) int { return rapid.IntRange(0, n-1).Draw(t, "d") }
}

func randDrawer(r *rand.Rand) drawer { return func(n int) int { return r.IntN(n) } }

// chance is true with probability num/den.
func (d drawer) chance(num, den int) bool { return d(den) < num }

// genShape is what a generated history may contain, drawn once per
// history.
type genShape struct {
	nodes, keys, ops int
	// Per mille of requests: with a fault (no answer, 5xx, no
	// connection, 409), an unconditional put, a delete, a retry of an
	// earlier write, a body reused from an earlier write (ABA).
	faults, unconditional, deletes, retries, aba int
	// widen is the largest widening of an interval, in ms.
	widen int
}

func drawShape(d drawer) genShape {
	s := genShape{
		nodes: 1 + d(5), keys: 1, ops: 1 + d(40),
		faults: []int{0, 0, 100, 250}[d(4)], unconditional: []int{0, 0, 0, 50, 200}[d(5)],
		deletes: []int{0, 0, 50, 150}[d(4)], retries: []int{0, 100, 300}[d(3)],
		widen: []int{0, 3, 10, 25, 60}[d(5)],
	}
	if d.chance(1, 5) {
		s.keys = 2
	}
	if d.chance(1, 10) {
		s.aba = 100
	}
	return s
}

// genS3History draws a linearizable history of the shape s.
func genS3History(d drawer, s genShape) *sim.History {
	h := &sim.History{Nodes: s.nodes}
	states := make([]s3State, s.keys)
	last := make([][]string, s.nodes+1) // per node (the last for outside) and key, the ETag it last saw
	for i := range last {
		last[i] = make([]string, s.keys)
	}
	var bodies []string   // every body written, for ABA and wrong answers
	var writes []sim.S3Op // earlier writes of unknown outcome, for retries
	nonce := 0
	point := 0 // the linearization instant, in ms
	for range s.ops {
		point += d(12) // equal instants happen
		node := d(s.nodes)
		if d.chance(1, 20) {
			node = -1
		}
		ln := last[len(last)-1]
		if node >= 0 {
			ln = last[node]
		}
		key := d(s.keys)
		o := sim.S3Op{Node: node, Key: []string{"k", "other"}[key]}
		cond := func() string {
			switch {
			case ln[key] != "" && !d.chance(1, 8):
				return ln[key]
			case len(bodies) > 0 && d.chance(1, 2):
				return bodies[d(len(bodies))]
			}
			return unwrittenETag
		}
		body := func() string {
			if len(bodies) > 0 && d.chance(s.aba, 1000) {
				return bodies[d(len(bodies))]
			}
			nonce++
			return etagOf(fmt.Sprint("body", nonce))
		}
		w := d(1000)
		if w < s.retries && len(writes) == 0 {
			w = s.retries + s.unconditional + s.deletes // not a retry after all
		}
		switch {
		case w < s.retries:
			p := writes[d(len(writes))]
			o.Op, o.Key, o.IfMatch, o.IfNoneMatch, o.BodyETag = p.Op, p.Key, p.IfMatch, p.IfNoneMatch, p.BodyETag
			key = slices.Index([]string{"k", "other"}, o.Key)
		case w < s.retries+s.unconditional:
			o.Op, o.BodyETag = sim.OpPutObject, body()
		case w < s.retries+s.unconditional+s.deletes:
			o.Op = sim.OpDeleteObject
			if d.chance(2, 3) {
				o.IfMatch = cond()
			}
		default:
			switch d(10) {
			case 0, 1, 2:
				o.Op = sim.OpGetObject
				switch d(6) {
				case 0:
					o.IfMatch = cond()
				case 1:
					o.IfNoneMatch = cond()
				}
			case 3:
				o.Op = sim.OpHeadObject
			case 4, 5:
				o.Op, o.IfNoneMatch, o.BodyETag = sim.OpPutObject, "*", body()
			default:
				o.Op, o.IfMatch, o.BodyETag = sim.OpPutObject, cond(), body()
			}
		}
		kind, _ := s3KindOf(o.Op)
		in := &s3Input{kind: kind, key: o.Key, ifMatch: o.IfMatch, ifNoneMatch: o.IfNoneMatch, bodyETag: o.BodyETag}
		want, next := s3Apply(states[key], in)
		widen := func() int {
			if s.widen == 0 || d.chance(1, 4) {
				return 0
			}
			return d(s.widen + 1)
		}
		call, ret := point-widen(), point+widen()
		fault := 0
		if d.chance(s.faults, 1000) {
			fault = 1 + d(5)
		}
		applied := true
		switch fault {
		case 0:
			o.Status, o.Code, o.ETag = want.status, want.code, want.etag
		case 1: // no answer: took effect at point, or never; sent earlier
			applied = d.chance(1, 2)
			call = point - d(4*s.widen+1)
			ret = -1
		case 2, 3:
			applied = d.chance(1, 2)
			o.Status, o.Code = []int{500, 503}[fault-2], []string{"InternalError", "SlowDown"}[fault-2]
		case 4:
			applied = d.chance(1, 2)
			o.Code = "dial tcp: connection refused"
		case 5:
			applied = false
			o.Status, o.Code = http.StatusConflict, "ConditionalRequestConflict"
		}
		if applied {
			states[key] = next
		}
		if fault == 0 && want.etag != "" {
			ln[key] = want.etag
		}
		o.Call = ms(max(call, 0))
		o.Return = -1
		if ret >= 0 {
			o.Return = ms(ret)
		}
		if o.Op == sim.OpPutObject {
			bodies = append(bodies, o.BodyETag)
		}
		if (o.Op == sim.OpPutObject || o.Op == sim.OpDeleteObject) && fault >= 1 && fault <= 4 {
			// Clients retry a write whose outcome they do not know,
			// with the same body.
			writes = append(writes, o)
		}
		h.S3 = append(h.S3, o)
	}
	// The simulator records requests in the order they were sent.
	slices.SortStableFunc(h.S3, func(a, b sim.S3Op) int { return cmp.Compare(a.Call, b.Call) })
	h.End = ms(point + 1000)
	return h
}

// s3HistoryMutation corrupts a history; it reports false if it found
// nothing to corrupt.
type s3HistoryMutation struct {
	name  string
	apply func(d drawer, h *sim.History) bool
}

// pick returns a random request for which ok holds, or -1.
func pick(d drawer, h *sim.History, ok func(o *sim.S3Op) bool) int {
	var is []int
	for i := range h.S3 {
		if ok(&h.S3[i]) {
			is = append(is, i)
		}
	}
	if len(is) == 0 {
		return -1
	}
	return is[d(len(is))]
}

func answered(o *sim.S3Op) bool {
	return o.Return >= 0 && o.Status != 0 && o.Status < 500 && o.Status != http.StatusConflict
}

func isRead(o *sim.S3Op) bool { return o.Op == sim.OpGetObject || o.Op == sim.OpHeadObject }

// writtenETag returns the ETag of a random put of h, or unwrittenETag.
func writtenETag(d drawer, h *sim.History) string {
	i := pick(d, h, func(o *sim.S3Op) bool { return o.Op == sim.OpPutObject })
	if i < 0 {
		return unwrittenETag
	}
	return h.S3[i].BodyETag
}

var s3HistoryMutations = []s3HistoryMutation{
	{"a read sees another version", func(d drawer, h *sim.History) bool {
		i := pick(d, h, func(o *sim.S3Op) bool { return isRead(o) && answered(o) && o.Status == 200 })
		if i < 0 {
			return false
		}
		h.S3[i].ETag = writtenETag(d, h)
		return true
	}},
	{"a read misses the object", func(d drawer, h *sim.History) bool {
		i := pick(d, h, func(o *sim.S3Op) bool { return isRead(o) && answered(o) && o.Status == 200 })
		if i < 0 {
			return false
		}
		o := &h.S3[i]
		o.Status, o.Code, o.ETag = 404, "NoSuchKey", ""
		if o.Op == sim.OpHeadObject {
			o.Code = "NotFound"
		}
		return true
	}},
	{"a read finds a missing object", func(d drawer, h *sim.History) bool {
		i := pick(d, h, func(o *sim.S3Op) bool { return isRead(o) && answered(o) && o.Status == 404 })
		if i < 0 {
			return false
		}
		o := &h.S3[i]
		o.Status, o.Code, o.ETag = 200, "", writtenETag(d, h)
		return true
	}},
	{"a write's outcome flips", func(d drawer, h *sim.History) bool {
		i := pick(d, h, func(o *sim.S3Op) bool { return !isRead(o) && answered(o) && (o.Status == 200 || o.Status == 412) })
		if i < 0 {
			return false
		}
		o := &h.S3[i]
		if o.Status == 200 {
			o.Status, o.Code, o.ETag = 412, "PreconditionFailed", ""
		} else {
			o.Status, o.Code, o.ETag = 200, "", o.BodyETag
		}
		return true
	}},
	{"two writes swap their intervals", func(d drawer, h *sim.History) bool {
		w := func(o *sim.S3Op) bool { return !isRead(o) && answered(o) && o.Status == 200 }
		i, j := pick(d, h, w), pick(d, h, w)
		if i < 0 || i == j {
			return false
		}
		a, b := &h.S3[i], &h.S3[j]
		a.Call, a.Return, b.Call, b.Return = b.Call, b.Return, a.Call, a.Return
		return true
	}},
	{"a request moves in time", func(d drawer, h *sim.History) bool {
		i := pick(d, h, answered)
		if i < 0 {
			return false
		}
		o := &h.S3[i]
		shift := ms(1 + d(60))
		if d.chance(1, 2) && o.Call >= shift {
			o.Call, o.Return = o.Call-shift, o.Return-shift
		} else {
			o.Call, o.Return = o.Call+shift, o.Return+shift
		}
		return true
	}},
	{"a write of unknown outcome was refused", func(d drawer, h *sim.History) bool {
		i := pick(d, h, func(o *sim.S3Op) bool { return !isRead(o) && !answered(o) })
		if i < 0 {
			return false
		}
		o := &h.S3[i]
		if o.Return < 0 {
			o.Return = o.Call + ms(d(20))
		}
		o.Status, o.Code = http.StatusConflict, "ConditionalRequestConflict"
		return true
	}},
}

// mutate returns a copy of h with mutation m applied, or nil.
func mutate(d drawer, h *sim.History, m s3HistoryMutation) *sim.History {
	c := *h
	c.S3 = slices.Clone(h.S3)
	if !m.apply(d, &c) {
		return nil
	}
	return &c
}

// agreement tallies the fast checker's verdicts against porcupine's.
type agreement struct {
	total, decided, illegal, fastIllegal, unknown int
	elapsedFast, elapsedPorcupine                 time.Duration
}

func (a *agreement) String() string {
	if a.total == 0 {
		return "none"
	}
	s := fmt.Sprintf("%d histories (%d illegal), the fast checker decided %d (%.1f%%), %d of them illegal",
		a.total, a.illegal, a.decided, 100*float64(a.decided)/float64(a.total), a.fastIllegal)
	if a.unknown > 0 {
		s += fmt.Sprintf("; porcupine timed out on %d", a.unknown)
	}
	return s
}

// category names the kind of history a shape gives, for the tallies.
func (s genShape) category() string {
	switch {
	case s.aba > 0:
		return "ETags reused (ABA)"
	case s.unconditional > 0:
		return "unconditional puts"
	case s.deletes > 0:
		return "deletes"
	}
	return "conditional puts only"
}

var categories = []string{"conditional puts only", "deletes", "unconditional puts", "ETags reused (ABA)"}

// judge checks h with both checkers, tallies the verdicts in a, and
// returns an error if the fast checker decided otherwise than porcupine.
func (a *agreement) judge(h *sim.History) (FastResult, porcupine.CheckResult, error) {
	start := time.Now()
	f := CheckS3Fast(h)
	a.elapsedFast += time.Since(start)
	start = time.Now()
	p := checkS3Porcupine(h, 2*time.Second)
	a.elapsedPorcupine += time.Since(start)
	if p.Result == porcupine.Unknown {
		// Too concurrent for porcupine: nothing to compare with.
		a.unknown++
		return f, p.Result, nil
	}
	a.total++
	if p.Result == porcupine.Illegal {
		a.illegal++
	}
	if f.Verdict != FastUndecided {
		a.decided++
	}
	if f.Verdict == FastIllegal {
		a.fastIllegal++
	}
	if f.Verdict != FastUndecided && f.Verdict.String() != string(p.Result) {
		return f, p.Result, fmt.Errorf("the fast checker says %s (%s), porcupine %s", f.Verdict, f.Reason, p.Result)
	}
	if f.Ops != p.Ops {
		return f, p.Result, fmt.Errorf("the fast checker counts %d requests, porcupine %d", f.Ops, p.Ops)
	}
	return f, p.Result, nil
}
