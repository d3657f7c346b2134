package sim

import (
	"strings"
	"time"
)

// Partial-order reduction for the Explorer.
//
// The explorer reorders nothing but events due at the same instant (the
// agenda's ties); each event it runs is a step: a task resumed until it
// blocks, an S3 request or a fenced write applied, a context's timer, a
// fault of the plan. A step's footprint is what it touched, recorded by
// the simulator as it runs (see World.por):
//
//   - the nodes whose state it read or wrote: the node of a task it resumed
//     or of a timer that fired, and of every task it woke by cancelling a
//     context; an event of the outside world that runs arbitrary code (a
//     fault of the plan, the end of a pause) is global and touches
//     everything;
//   - S3 objects: a GetObject or HeadObject reads its key, a PutObject or
//     DeleteObject writes its key, a ListObjectsV2 reads every key under its
//     prefix; a request that never reached the store touches no object;
//   - the fenced resource, which every fenced write applied reads and
//     writes (its judge keeps the highest token);
//   - the per-key count of conditional writes in flight, which a
//     conditional write's send and landing write and every send reads
//     (the fault injector is told it), only when faults may fire (a
//     positive fault bound): with none, it decides nothing;
//   - the answer of an S3 request, written when it lands and read when the
//     caller wakes with it;
//   - rows of the SQL row store: a statement that reaches the server reads
//     and writes its row (a read-only one only reads it), and its answer
//     is written when it lands and read when the caller wakes with it, as
//     an S3 request's;
//   - the shared stream of the choices the explorer does not enumerate
//     (a restarted node's entropy), which every draw writes.
//
// Two steps are dependent if either is global, they touch a common node, or
// they touch a common object and one of them writes it (a write of a key
// and a listing of a prefix of it conflict); otherwise they are
// independent. Executions that differ only in the order of adjacent
// independent steps of one instant are equivalent: each step reads the same
// state in both orders and leaves the same, and every step runs at the same
// true time in both, since only the order within an instant differs. What
// differs is bookkeeping the protocol does not act on: the order of lines
// in the trace (and so its hash), the numbers of requests and tasks and
// the request ids in S3's answers, and the order in which entries of one
// instant by different nodes are appended to the history. The checkers
// judge the history as a set of timed entries: each orders terms by start
// time and node, fenced writes by the instant they were applied (the
// resource's writes of one instant are dependent, so their order is
// kept), and S3 requests by their call and return times; none of them
// reads the order of simultaneous entries of different nodes, so a
// verdict is the same for every execution of a class. Two assumptions
// underlie this, as they underlie the simulator: nodes share nothing but
// what the simulator gives them (S3, the fenced resource), and a protocol
// treats S3 request ids as opaque names (they differ between equivalent
// executions, as they would between two real runs).
//
// The reduction is source-set DPOR with sleep sets (Abdulla, Aronis,
// Jonsson and Sagonas, "Optimal dynamic partial order reduction", POPL
// 2014), over one instant at a time. After each execution, every race of
// it (two dependent steps of one instant, the later not caused by the
// earlier through creation or other dependent steps) adds to the choice
// point before the earlier step an event that can start the reversed
// order, unless one of them is there already. An event that was due at a
// choice point and never ran because a later step disabled it (made its
// task wait anew, cancelled it, crashed its node) races with that step:
// it is added at the last choice point where it was due. A choice point
// explores only the alternatives so added; an alternative explored already
// is put to sleep for its later siblings and stays asleep down the path
// until a step dependent on it runs; an execution whose next event is
// asleep is equivalent to one explored and is stopped there.
//
// Choices made inside a step (latencies, fault fates) decide when and how
// the events it schedules happen, never what the step itself touches; they
// are enumerated under every schedule alternative alike, and the delay and
// fault budgets count the same in equivalent executions, so the reduction
// keeps every class within those bounds. The depth bound is a position in
// the sequence of choice points, which reordering shifts: with a depth
// bound the reduced and the full search are two different bounded
// searches, and only without one (MaxDepth 0) is the reduced one
// guaranteed to reach every verdict the full one reaches.

// accessKind says what kind of shared object a step touched.
type accessKind uint8

const (
	accKey       accessKind = iota // an S3 object, by bucket and key
	accPrefix                      // every S3 object under a prefix (a listing)
	accFence                       // the fenced resource
	accInflight                    // the count of conditional writes in flight on a key
	accAnswer                      // the answer of one S3 request
	accEntropy                     // the stream of choices the explorer does not enumerate
	accRow                         // a row of the SQL row store, by key
	accRowAnswer                   // the answer of one statement to the SQL row store
)

// access is one touch of a shared object.
type access struct {
	kind  accessKind
	write bool
	name  string // bucket and key (or prefix), for keys, prefixes and counts
	id    uint64 // request number, for answers
}

// conflicts reports whether two accesses touch a common object and one of
// them writes it.
func (a *access) conflicts(b *access) bool {
	if !a.write && !b.write {
		return false
	}
	switch {
	case a.kind == accPrefix && b.kind == accKey:
		return strings.HasPrefix(b.name, a.name)
	case a.kind == accKey && b.kind == accPrefix:
		return strings.HasPrefix(a.name, b.name)
	case a.kind != b.kind:
		return false
	}
	switch a.kind {
	case accPrefix:
		return strings.HasPrefix(a.name, b.name) || strings.HasPrefix(b.name, a.name)
	case accKey, accInflight, accRow:
		return a.name == b.name
	case accAnswer, accRowAnswer:
		return a.id == b.id
	}
	return true // the fence, the entropy stream
}

// s3Object names an object of the store for an access.
func s3Object(bucket, key string) string { return bucket + "\x00" + key }

// footprint is what one step touched.
type footprint struct {
	global bool
	nodes  uint64 // bit i: node i; nodes beyond 63 make the step global
	acc    []access
}

func (f *footprint) addNode(i int) {
	if i < 0 || i >= 64 {
		f.global = true
		return
	}
	f.nodes |= 1 << uint(i)
}

func (f *footprint) add(a access) {
	for i := range f.acc {
		if x := &f.acc[i]; x.kind == a.kind && x.name == a.name && x.id == a.id {
			x.write = x.write || a.write
			return
		}
	}
	f.acc = append(f.acc, a)
}

func (f *footprint) clone() footprint {
	c := *f
	c.acc = append([]access(nil), f.acc...)
	return c
}

// dependence decides whether two steps are dependent, from their
// footprints. The explorer keeps it as a field so that a test can replace
// the declared relation (dependent) with a wrong one and see the
// difference.
type dependence func(a, b *footprint) bool

// dependent is the declared dependence relation: see the comment at the
// top of this file.
func dependent(a, b *footprint) bool {
	if a.global || b.global || a.nodes&b.nodes != 0 {
		return true
	}
	for i := range a.acc {
		for j := range b.acc {
			if a.acc[i].conflicts(&b.acc[j]) {
				return true
			}
		}
	}
	return false
}

// sleeper is an event asleep: explored already from an earlier state of
// the path, with the footprint it had there.
type sleeper struct {
	seq uint64
	fp  footprint
}

// schedPoint is what the explorer keeps of a scheduling choice point under
// reduction: the events due (by their agenda sequence numbers, in the
// order the alternatives name them), the events asleep on arrival, which
// alternatives are to be explored and which have been, and the footprint
// each explored alternative's step had.
type schedPoint struct {
	ties      []uint64
	sleep     []sleeper
	backtrack []bool
	done      []bool
	fp        []footprint
	// open: within the depth bound, so alternatives may be added.
	open bool
}

func (p *schedPoint) index(seq uint64) int {
	for i, s := range p.ties {
		if s == seq {
			return i
		}
	}
	return -1
}

func (p *schedPoint) asleep(i int) bool {
	for _, s := range p.sleep {
		if s.seq == p.ties[i] {
			return true
		}
	}
	return false
}

// next returns the lowest alternative to explore that has not been and is
// not asleep on arrival.
func (p *schedPoint) next() (int, bool) {
	for i := range p.ties {
		if p.backtrack[i] && !p.done[i] && !p.asleep(i) {
			return i, true
		}
	}
	return 0, false
}

// step is one event run at the current instant.
type step struct {
	seq    uint64
	cp     int // index in the path of the choice point that picked it, or -1
	parent int // the step of this instant that scheduled its event, or -1
	quiet  bool
	fp     footprint
}

// reduction is the explorer's record of the current execution.
type reduction struct {
	dep      dependence
	inflight bool // count accesses to the in-flight counts (faults may fire)

	instant   time.Duration
	steps     []step // of the current instant
	first     int    // number of steps before the current instant
	count     int    // steps so far in the execution
	active    bool   // the last step is still running
	creator   []int  // by event sequence number: the step that scheduled it, or -1
	sleep     []sleeper
	disabled  []uint64 // events of the instant dropped as stale before they ran
	pendingCP int      // the choice point that just picked an event, or -1
	pendingSq uint64
	blocked   bool
}

func (r *reduction) start() {
	r.instant, r.steps, r.first, r.count, r.active = -1, r.steps[:0], 0, 0, false
	r.creator = r.creator[:0]
	r.sleep = r.sleep[:0]
	r.disabled = r.disabled[:0]
	r.pendingCP, r.blocked = -1, false
}

// scheduled notes that event seq was scheduled by the running step.
func (r *reduction) scheduled(seq uint64) {
	for uint64(len(r.creator)) <= seq {
		r.creator = append(r.creator, -1)
	}
	if r.active {
		r.creator[seq] = r.count - 1
	}
}

func (r *reduction) cur() *footprint {
	if !r.active {
		return nil
	}
	return &r.steps[len(r.steps)-1].fp
}

// touch records an access by the running step.
func (r *reduction) touch(a access) {
	if f := r.cur(); f != nil {
		f.add(a)
	}
}

// touchNode records that the running step touched node i.
func (r *reduction) touchNode(i int) {
	if f := r.cur(); f != nil {
		f.addNode(i)
	}
}

func (r *reduction) asleep(seq uint64) bool {
	for i := range r.sleep {
		if r.sleep[i].seq == seq {
			return true
		}
	}
	return false
}

// rowLanded records the landing of a statement to the SQL row store by
// the running step: its answer, and its row if it reached the server.
func (e *Explorer) rowLanded(l *rowLanding) {
	r := e.por
	r.touch(access{kind: accRowAnswer, write: true, id: l.id})
	switch l.fate.Fate {
	case Unreachable, Dropped, RefusedBefore:
		return // the row is not touched
	}
	r.touch(access{kind: accRow, write: !l.st.ReadOnly, name: l.st.Key})
}

// sent records the send of an S3 request on key by the running step: the
// fault injector, if any, reads the key's count of conditional writes in
// flight, which a conditional write increments.
func (e *Explorer) sent(bucket, key string, injector, tracked bool) {
	r := e.por
	if !r.inflight || !(injector || tracked) {
		return
	}
	r.touch(access{kind: accInflight, write: tracked, name: s3Object(bucket, key)})
}

// landed records the landing of an S3 request by the running step: the
// object it reads or writes if it reaches the store, the count of
// conditional writes in flight if it is one, and its answer.
func (e *Explorer) landed(pc *s3Landing) {
	r := e.por
	r.touch(access{kind: accAnswer, write: true, id: pc.id})
	if pc.tracked && r.inflight {
		r.touch(access{kind: accInflight, write: true, name: s3Object(pc.bucket, pc.key)})
	}
	switch pc.fate.Fate {
	case Unreachable, Dropped, RefusedBefore:
		return // the store is not touched
	}
	switch pc.op {
	case "GetObject", "HeadObject":
		r.touch(access{kind: accKey, name: s3Object(pc.bucket, pc.key)})
	case "PutObject", "DeleteObject":
		r.touch(access{kind: accKey, write: true, name: s3Object(pc.bucket, pc.key)})
	case "ListObjectsV2":
		r.touch(access{kind: accPrefix, name: s3Object(pc.bucket, pc.key)})
	default:
		r.touch(access{kind: accPrefix, write: true, name: s3Object(pc.bucket, "")})
	}
}
