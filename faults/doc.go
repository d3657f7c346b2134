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
// delay, and a read that a write races a torn answer (the body of one
// version, the ETag of another). Chances are integers in parts per million, so that a plan means
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
// tolerates stalled monotonic clocks, foreign writes to the lock object,
// applications that go on after their term and torn reads. Plan.Outside says, before the
// run, how a plan leaves them. Inside them two leaders must never overlap in
// true time; outside them an overlap may happen, and fencing must still
// refuse every stale write. Package harness judges a run by the faults as
// they happened: a violation counts unless a fault that left the
// assumptions accounts for it.
//
// # One stream of choices
//
// Every random decision of a drawn run is read from one [Source], a
// stream of choices, each an integer in a range whose 0 is the simplest
// answer (a family off, the fewest events, the earliest instant, the
// shortest fault). A Source has named sub-streams ([Source.Sub]), one for
// each family of decisions, so that drawing more in one family never moves
// another's draws. Its origin is a seed ([NewSource]: a PCG generator per
// sub-stream, seeded from the seed and the sub-stream's name), a fuzzer's
// bytes ([FromBytes]: the bytes in place of the first choices, the seed's
// stream after them), recorded choices ([Replay]) or any [Origin]
// ([FromOrigin]; package harness feeds rapid's bit stream through one).
// Whatever the origin, a Source records what it drew ([Choices]): a run
// is drawn again from its choices, shrunk by shrinking them ([Shrink]:
// families left out, elements deleted, choices set to 0 or lowered, as
// rapid and Hypothesis shrink theirs) and mutated by mutating them
// ([Choices.Mutate], for coverage-guided campaigns). A plan that no
// stream drew is shrunk on the choices that keep or leave out each of its
// parts ([Within]). The stories of package scenarios draw their own plans
// from named sub-streams too.
//
// # What the generator draws
//
// [Draw] is the one generator: the CLI's swarm, harness.Check,
// harness.Fuzz, campaigns and guided campaigns all draw their runs
// through it, from their own source. It draws a whole plan in the manner
// of swarm testing: the choices switch each fault family on or off and,
// if on, choose how hard it hits, so that a campaign tries every
// combination of faults, gently and hard. Most plans stay inside the
// usual assumptions; a minority leave them on purpose, and then on one
// node only (foreign writes aside, which hit the lock object), so that
// most of every run is still judged in full. A [Space] bounds the draws
// by the run (nodes, heal instant) and by what the protocol states
// ([Bounds]: its assumptions, each node's pause bound, its longest
// identity; for a protocol that takes settings, those of the settings
// drawn): a protocol that states a bound on drift, pauses, clock offsets
// or wall-clock steps gets draws mostly inside it and a stated minority
// beyond it, whichever entry point draws. The families, each from its own
// sub-stream, with how often a draw has each:
//
//   - clocks: every node an offset within the protocol's bound (or 5
//     minutes), on one draw in 12 of a protocol that states one the node
//     outside the assumptions beyond it; a drift within the bound, one in
//     three at its very edge; on one draw in 12, one node drifting 2 to
//     50 times past the bound until the heal;
//   - wall-clock steps within the protocol's bound (or an hour) either
//     way (one draw in 2), on one in 12 of those of a protocol that
//     states one, the node outside the assumptions stepping beyond it;
//   - pauses within each node's pause bound (one in 2), on one in 6 of
//     those one node's past it, up to three leases;
//   - crashes or stops, each followed by a restart under the same identity
//     or a new one (one in 3); partitions between a node and S3, failing
//     or hanging (one in 3); slow S3 (one in 3);
//   - faults aimed at a node's Nth PutObject or GetObject (one in 3): its
//     answer lost, replaced by a 500 or 503, refused with a 500, 503 or
//     409, delayed, or followed by a pause;
//   - probability knobs, each on one draw in 3: 409s, 500s and 503s before
//     or after applying, lost answers, long-tail latency; and the SDK's
//     standard retries (one in 2);
//   - beyond the assumptions, rarely: a VM suspend that stops a node's
//     monotonic clock (one in 20), a pause between the lease check and a
//     fenced write longer than the bound (one in 20), a delete of the lock
//     object (one in 30), an application that goes on after its term (one
//     in 30);
//   - the nodes' settings (for a protocol that takes them): none on half
//     the draws, one setting for every node on a quarter, a mix on a
//     quarter; each across what protocol.Config
//     accepts, the tight edges included: leases of 1 to 20 s (one in eight
//     with a remainder below a millisecond), drift bounds up to 10%, a
//     renew deadline up to exactly the drift-margin limit, short and long
//     retry periods, request timeouts up to half the deadline, release on
//     cancel or not;
//   - the lock object before the run: none on two draws in five; else a released record, the live record of a node that is
//     gone, a token of 2^40, and on one in 20 content no elector wrote
//     (bytes that are no record, half of them near records one mistake
//     from one: a time out of range or with a slipped digit, a bad escape,
//     the body cut, inside a string or an escape too; the largest
//     tokens); records that publish
//     a watermark, link to the term before, or name the longest holder;
//     on draws with foreign writes also links an elector must refuse,
//     holders too long, padding around the largest body and leases near
//     24 h; half of them in another JSON spelling ([Respell]), one in four
//     edited as another tool might leave it ([Edit]);
//   - the applications: on two draws in three each node's mode drawn (ignoring the lease check, asking it before every write,
//     relying on it alone), mostly with slow work between check and write;
//   - foreign writes (one in 6): deletes, overwrites with bytes (half of
//     them near records) or with
//     records of a low, high or topmost token, and restores of an earlier
//     content byte for byte, at an instant, while a node leads, or just
//     before a renewal lands, sometimes a delete while the followers cannot
//     reach S3; on half of those draws, a restore of the leader's own
//     write from 1 to 20 writes back as its renewal lands;
//   - whole-cluster events (one in 6): every node crashed, stopped or
//     restarted at once, with the same identities or new ones, at an
//     instant, while a node leads, or in the middle of a hand-over;
//   - faults aimed at roles (one in 2): pauses, crashes, stops and
//     partitions of the leader, the acquirer, a node with a request in
//     flight or the leader about to renew, a partition of every follower,
//     a fault on such a request's answer or on its way to S3, pauses at
//     protocol instants;
//   - denials (one in 6): S3 answering 403 AccessDenied to a node, the
//     leader or every follower for a while, to one request, or to a
//     hand-over's release and the read that checks it;
//   - terms that end for a reason of their own while their node is
//     stopped (one in 10): a leader paused past its deadline and stopped
//     meanwhile, a foreign write just before a renewal lands while the
//     application still works;
//   - callers (two draws in three): applications and operators that ask
//     a node's protocol who leads (IsLeader, Lease, Leader, Healthy) at
//     intervals of 50 ms to 2 s, on half of the nodes, and on half of
//     those IsLeader or Lease aimed at the instant a term that no renewal
//     extends ends (the node's term length after each successful write);
//   - error pages: on one draw in 6 a proxy's plain pages (the SDK derives the code from the status), on one in 10 of
//     the others HTML the SDK cannot read (no code at all);
//   - torn reads: on one draw in 4 of a protocol that tolerates them
//     (protocol.Assumptions.TornReads), on one in 20 of another (beyond
//     its assumptions), S3 answers every GetObject that a write races, or
//     10% to all of them, with the body of one version and the ETag of
//     the other;
//   - ETags: on one draw in 6 of those without torn reads, for a protocol
//     that works with them (protocol.Assumptions.OpaqueETags), a store
//     whose ETags are not the MD5s of the bodies (a bucket under SSE-KMS);
//   - identities (for a protocol that states its longest): on one draw
//     in 5, names a codec must carry exactly (quotes,
//     backslashes, non-ASCII, HTML and control characters, names of
//     exactly the longest length).
//
// Foreign writes, whole-cluster events, faults aimed at roles and denials
// often share an instant drawn for the run, so that faults that only
// matter together (a delete while the followers cannot reach S3, a
// stopped leader whose release is slow to land) meet. Package harness
// turns a stream into a run around the plan (harness.Swarm: the heal at
// harness.SwarmHealAt, the liveness phase after it); the production
// elector's swarm in package scenarios adds, on one seed in eight,
// applications that hand watermarks over.
//
// A space may leave families out (Space.Without, by the names [Families]
// returns: clocks, steps, pauses, ..., pages, names), for a protocol
// whose bug under study other draws hide: those draw nothing, and every
// other family draws from its own sub-stream what it would draw anyway.
//
// # Adding a family
//
// A new family of faults is added in one place: write its draw, a func of
// a drawing and its sub-stream that adds to the plan (drawSlowS3 is a
// small one), and add it to the families table in draw.go, at the end
// (or before the families whose draws depend on it). Its sub-stream is
// named after it, so that no other family's draws move; every entry point
// draws it, shrinking and guided mutation work on it as on every
// sub-stream, and a reproducer holds what it drew as plan events, which
// replay as they are. Only a new Kind of event needs more: its meaning in
// Plan.Validate, Plan.Outside and the injector.
//
// # Plans as data
//
// A [Plan] ([Decode] reads one, [Plan.Validate] checks it against a run,
// [ErrInvalidPlan]) holds events (each an [Event] of a [Kind], see
// [KindNames], aimed at a [Role] or widened to a [Target]), clock settings
// ([ClockSetting]), [Knobs], the lock object before the run (an [Object]:
// a [Record] with its [Previous] term, or bytes), the applications ([App])
// and the nodes' [Settings]. A [Duration] is written as text ("1.5s").
// [Plan.ForNodes] and [Plan.Keep] make a plan for fewer nodes,
// [Plan.Cut] one that heals sooner. [Apply] installs a
// plan on a sim.Config, [ApplyEncoded] with the protocol's record format
// (a [RecordEncoder]; [EncodeRecord] is the generic one): the faults act
// through the simulator's hooks, and every random choice they make goes
// through the run's chooser.
//
// # Records as others write them
//
// A record before the run, or written by someone else, need not look like
// one a protocol writes. [Respell] writes the same JSON document in
// another spelling, [Edit] changes it as another tool or an operator
// might, [Pad] ([PadSize]) makes it longer with an unknown field, and
// [LongHolder] and [FitNames] make identities of a given length;
// [MaxLease], [MaxBodyLen] and the other bounds are the production
// record format's.
package faults
