// Package lockkit is the machinery every careful lock on S3 shares: the
// zoo's careful lock (package zoo) and the seed designs' safe forms (the
// lock file per epoch and the leader manager) are each their own rules on
// top of it. The production elector (package protocol) follows the same
// model.
//
// # The model
//
// A Node is one incarnation of a candidate: its clock, entropy, store and
// timings. Every duration is measured on its monotonic clock (Node.Now).
//
// A Term begins on a successful write (Node.Begin) and ends at a deadline:
// the start of its last successful write (the reading taken just before it
// was sent) plus Node.Term, which the lock derives with protocol.TermLength
// (Timings) so that no follower, whose clock may run fast and who saw the
// write after it was sent, ends the lease first. A write answered after its
// deadline begins no term. The leader renews every Node.Renew from the send
// of its last successful write (Node.Lead); each success moves the deadline
// (Node.Extend), and Node.Settle decides a failure by reading the lock
// back. A watchdog ends the term at the deadline even while a write is in
// flight, cancelling the leader context (Term.Ctx) the application runs
// under. Then the leader waits for its application until the deadline and,
// if the candidate is stopping and the application returned in time,
// releases the lease, only before the deadline.
//
// Node.Read classifies the lock object as present, missing
// (protocol.ObjectMissing) or an error, and reads a body that does not
// match its ETag again rather than return it (a torn read; see protocol's
// package documentation, "Torn reads"); Node.Put writes under a Condition;
// every write carries a fresh nonce (Node.Nonce), and Writes recognises an
// incarnation's own write on a later read whatever answer it got. Run
// drives a candidate: campaign steps until one begins a term, then the term.
//
// Nothing here reads the real clock, starts a goroutine or draws randomness
// but through the Node's Clock and Entropy, so the simulator runs the code
// a user ships.
package lockkit
