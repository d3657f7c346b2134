// Package faults is the harness's fault model: everything that can go wrong
// in a run, as data.
//
// A Plan lists timed events (a pause, a crash or a stop and a restart, a
// wall-clock step, a VM suspend that stops the monotonic clock, a partition
// between a node and S3 (requests that fail to connect, hang, or are
// answered 403 AccessDenied: the node shut out), a slow S3, someone else deleting the lock object,
// overwriting it with bytes or a record of their choosing, or restoring an
// earlier content byte for byte, an application that ignores the end of
// its term), aimed events (a node's Nth request of one operation, say its
// Nth PutObject, is applied but its answer is lost or replaced by a 500 or
// 503, is refused with a 409, 403, 500 or 503 without being applied, is answered
// late, reaches S3 late, or is followed by a pause before the node can act
// on it; the Nth fenced write is preceded by a pause between lease check
// and write, or arrives late), per-node clock offsets and drifts, and
// probability knobs that give every S3 request of the run a chance of a
// 409, a 500 or 503 before or after applying, a lost answer or a long-tail
// delay. Chances are integers in parts per million, so that a plan means
// the same on every machine. Plans are JSON: they can be written by hand,
// printed with a run and replayed.
//
// A plan also says what the lock object holds before the run (Initial: a
// record, in the protocol's own format, or raw bytes; written before any
// node starts, as the first request of the S3 history; a record may
// publish a watermark and updates and link to a previous term, for a
// protocol whose records carry them, and be respelled, edited or padded
// to a size), how each node's
// application uses its terms (Apps: ignoring the protocol's lease check,
// asking it before each write, or relying on it alone, with slow work
// between check and write), and, for a protocol that takes them, each
// node's settings (Settings), so that a plan is the whole run.
//
// # Roles and targets
//
// An event may be aimed at a role instead of a node (Event.Role): the
// leader, a node acquiring the lock object, a node sending a request, a
// leader whose renewal is about to reach S3. The role is resolved when the
// event fires, at the first moment from At on when a node plays it, so a
// plan drawn before the run hits "whoever leads then". A target widens an
// event to every node (a whole-cluster crash, stop or restart, with the
// same identities or new ones) or to every follower (a network split that
// spares the leader).
//
// # Phases
//
// Every run has a safety phase and a liveness phase, divided at
// Plan.HealAt. Every fault ends before the heal: windows close, knobs and
// aimed faults stop acting, crashed nodes are restarted by their plan. After
// it the protocol must elect a leader within the bound it documents and
// keep it.
//
// # Assumptions
//
// A protocol states what it needs of the world in protocol.Assumptions: a
// bound on clock drift and on pauses, optionally on wall-clock offsets and
// steps (for a protocol that compares wall clocks), and whether it
// tolerates stalled monotonic clocks, foreign writes to the lock object
// and applications that go on after their term. Plan.Outside says, before the
// run, how a plan leaves them. Inside them two leaders must never overlap in
// true time; outside them an overlap may happen, and fencing must still
// refuse every stale write. Package harness judges a run by the faults as
// they happened: a violation counts unless a fault that left the
// assumptions accounts for it.
//
// # Swarm testing
//
// Swarm derives a plan from a seed: each fault family is switched on or off,
// and given an intensity, by the seed, so that a campaign tries every
// combination of faults, gently and hard, and most plans stay inside the
// usual assumptions while a minority leave them on purpose. Besides the
// faults it draws the nodes' settings (SwarmSettings: across what
// protocol.Config accepts, the tight edges included), the lock object
// before the run (SwarmInitial), the applications (SwarmApps), foreign
// writes, whole-cluster events, faults aimed at roles, denials (403) and
// terms that end for a reason of their own while their node is stopped;
// each family
// draws from a stream of its own, so that one family's choices do not move
// another's, and several families often share one instant of the run, so
// that faults that only matter together meet. Apply installs a plan on a
// sim.Config (ApplyEncoded with the protocol's record format); the faults
// act through the simulator's hooks, and every random choice they make
// goes through the run's chooser.
package faults
