package sim

import "time"

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
	// end of the run if Open.
	Start, End time.Duration
	// Open reports that the term was still running when the run stopped.
	Open bool
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
}
