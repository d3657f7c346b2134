// Package lockkit is the machinery every careful lock on S3 shares: the
// zoo's careful lock (package zoo) and the seed designs' safe forms (the
// lock file per epoch and the leader manager) are each a few pages of their
// own rules on top of it, and the production elector (package protocol)
// follows the same model.
//
// # The model
//
// A Node is one incarnation of a candidate: its clock, its entropy, the
// store and bucket of its lock object, and its timings. Every duration is
// measured on the node's monotonic clock (Node.Now).
//
// A Term begins on a successful write. Its deadline is the start of that
// write (the reading taken just before it was sent) plus Node.Term, which
// the lock derives with protocol.TermLength so that a follower, whose clock
// may run fast and who first saw the write after it was sent, cannot end
// the lease before the deadline passes. A write whose answer arrives after
// its deadline begins no term. Each later successful write moves the
// deadline to its own start plus Node.Term (Node.Extend); a watchdog ends
// the term at the deadline even while a write is in flight; the leader
// renews every Node.Renew from the send of the last successful write
// (Node.Lead). Ending a term cancels the leader context, Term.Ctx, under
// which the application runs. When the term ends, Lead waits for the
// application until the deadline and, if the candidate is stopping and the
// application returned in time, releases the lease by a conditional write
// that the lock supplies, made only before the deadline.
//
// The lock object is read by Node.Read: a GET under the request timeout,
// classified as present (its ETag, body and Last-Modified), missing
// (protocol.ObjectMissing: a 404, or what a proxy answers in its place) or
// an error. Node.Put writes under a Condition (If-Match, If-None-Match: *,
// or, for the broken locks of the zoo, none). Writes carries a fresh nonce
// in every write, so that a writer recognises its own write on a later
// read whatever answer it got (Writes keeps the last MaxWrites).
//
// Run drives a candidate: one campaign step after another, each returning
// the wait before the next or a term, which the lock then leads.
//
// Nothing here reads the real clock, starts a goroutine or draws randomness
// but through the Node's Clock and Entropy, so the simulator runs the code
// a user ships.
package lockkit
