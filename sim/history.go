package sim

import (
	"sync"
	"time"
)

// History is what a run leaves for the checkers: every leadership term as the
// application saw it and every write that leaders sent to the fenced
// resource. Times are true (simulator) time since the start of the run.
type History struct {
	// Nodes is the number of nodes in the run.
	Nodes int
	// End is the true time at which the run stopped.
	End time.Duration
	// Terms lists leadership terms in the order they began.
	Terms []Term
	// Writes lists fenced writes in the order the resource applied them.
	Writes []FencedWrite
	// S3 lists every S3 request the nodes made, in the order they were
	// sent, as a client sees it: what it asked, when it asked, and what it
	// was answered when; this is the history a linearizability checker
	// judges. Writes from outside the nodes (World.OutsideWrite: an
	// operator deleting the lock object, its content before the run) are
	// in it as requests of node -1, answered at the instant they applied.
	S3 []S3Op
	// Faults lists the faults as they happened, in the order they began:
	// pauses (whatever caused them), stalls, wall-clock steps, partitions,
	// slow S3, crashes, stops, restarts, lingering applications and writes
	// to the lock object by someone else.
	Faults []FaultSpan
	// Answers lists what the nodes' protocols told their applications and
	// operators (Node.AddCaller, Env.NewLeader), in the order given.
	Answers []Answer
}

// S3Op is one S3 request as its client saw it.
type S3Op struct {
	Node int
	// Identity is the identity of the node's incarnation that sent the
	// request ("" for a write from outside the nodes).
	Identity string
	// Incarnation is the node's incarnation that sent the request
	// (Node.Incarnation: 1 for its first process, as Term.Incarnation); 0
	// for a write from outside the nodes.
	Incarnation int
	// Op is "PutObject", "GetObject", "HeadObject", "DeleteObject" or
	// "ListObjectsV2"; Key the object key (for a list, the prefix).
	Op  string
	Key string
	// IfMatch and IfNoneMatch are the request's preconditions, "" if none.
	IfMatch, IfNoneMatch string
	// BodyETag is, for a PutObject, the ETag its body will have if it is
	// applied (the quoted MD5, which the client can compute itself; under
	// Config.OpaqueETags the store's own digest).
	BodyETag string
	// Call is when the request was sent. Return is when its answer
	// arrived, or -1 if none did (the caller gave up, or the answer was
	// lost): then the request may or may not have taken effect.
	Call, Return time.Duration
	// Applied is when S3 applied the request, between Call and Return: a
	// simulated run knows it exactly. -1 where it is not known (a history
	// recorded outside the simulator) or the request never took effect
	// (it never reached S3, or S3 refused it before applying it).
	Applied time.Duration
	// Status, Code and ETag are the answer: HTTP status (0 if none came),
	// S3 error code, and the ETag the answer carried.
	Status int
	Code   string
	ETag   string
	// Body is, for a PutObject that S3 applied, the body it stored (a
	// string, so that an S3Op stays comparable; S3's own copy, not another);
	// "" for every other request, for an empty body (its ETag tells), and
	// in a history recorded outside the simulator. A checker of what the
	// nodes wrote reads it.
	Body string
	// TornBodyETag is, for a GetObject answered with the body of one
	// version and the ETag of another (a torn read: the store broke the
	// atomicity of an update, which S3 promises), the ETag of the version
	// whose body came; ETag is the other version's. "" for every other
	// request. The S3 checker leaves a torn read out: it is the store's
	// fault, reported as such, not a state of the object.
	TornBodyETag string
}

// Term is one leadership term: the interval during which a node's
// application believed it led with a given fencing token.
type Term struct {
	// Node is the index of the node, Identity the candidate identity it used.
	Node     int
	Identity string
	// Incarnation counts the node's restarts; a node that crashes and
	// restarts with the same identity begins a new incarnation.
	Incarnation int
	// Token is the fencing token the protocol handed to the application.
	Token uint64
	// Start is when the application was told it leads. End is when it
	// observed that it no longer does (its leader context was done), or the
	// end of the run if Open; for an application that polls the lease
	// check (AppPolls), which does nothing between its acts, the last
	// instant it acted as leader, Open or not.
	Start, End time.Duration
	// Open reports that the term was still running when the run stopped.
	Open bool
	// Returned is when the application returned to the protocol (Env.Lead,
	// the protocol's OnStartedLeading, returned): End, except for an
	// application that polls, which returns at the lease check that says
	// no, and one killed by a crash, which never does (then the crash); 0
	// while Open.
	Returned time.Duration
}

// FencedWrite is one write a leader sent to the fenced resource.
type FencedWrite struct {
	Node  int
	Token uint64
	// Sent is when the leader sent the write; Applied when the resource
	// received and judged it.
	Sent, Applied time.Duration
	// Accepted reports whether the resource took the write; a rejected
	// write carried a token lower than the highest the resource had seen.
	Accepted bool
	// Checked reports that the application asked the protocol's lease
	// check at CheckedAt, before the write, and was told that it leads
	// under Token (AppChecks, AppPolls).
	Checked   bool
	CheckedAt time.Duration
}

// releasedHistories holds the buffers of released histories (Result.Release)
// for the runs that follow: an empty History whose slices have capacity.
var releasedHistories sync.Pool

// reuseHistory gives w the buffers of a released history, if there is one.
func (w *World) reuseHistory() {
	if b, ok := releasedHistories.Get().(*History); ok {
		w.history.S3, w.history.Writes, w.history.Terms, w.history.Faults = b.S3, b.Writes, b.Terms, b.Faults
	}
}

// dropEmpty sets the lists that recorded nothing to nil, as they are in a
// history that reused no buffers.
func (h *History) dropEmpty() {
	if len(h.S3) == 0 {
		h.S3 = nil
	}
	if len(h.Writes) == 0 {
		h.Writes = nil
	}
	if len(h.Terms) == 0 {
		h.Terms = nil
	}
	if len(h.Faults) == 0 {
		h.Faults = nil
	}
}

// Release hands the buffers of the result's history back to the simulator,
// for the runs that follow in the process to record into instead of
// allocating their own. Neither the result's History nor any slice taken
// from it may be used afterwards (History is set to nil). Releasing is
// optional: a result that is not released is collected as usual. A
// campaign that judges a run and keeps only a summary releases it.
func (r *Result) Release() {
	h := r.History
	if h == nil || r.Failure != nil {
		return // an incomplete run's history may still be in use
	}
	r.History = nil
	b := &History{S3: h.S3[:0], Writes: h.Writes[:0], Terms: h.Terms[:0], Faults: h.Faults[:0]}
	*h = History{}
	releasedHistories.Put(b)
}
