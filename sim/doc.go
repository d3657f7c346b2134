// Package sim is a deterministic simulator for leader-election protocols
// written against protocol.Clock and protocol.ObjectStore (or the wider
// S3Client). It runs the protocol's real Go code on a set of simulated
// nodes that share one simulated S3, and records what happened so that
// checkers can judge it.
//
// A run is a pure function of its Config: the same Config and seed give the
// same trace, event for event and byte for byte, on any machine, with any
// GOMAXPROCS, in any process. The trace carries a running hash so that this
// can be checked cheaply. (Config.BlockedAfter is the exception that proves
// the rule: it bounds the real time a run may spend without progress, and
// changes nothing in a run that completes; see Blocking.)
//
// # Running a world
//
// A [Config] is a run: its seed, nodes and duration, the [Candidate]
// every node runs, their clocks ([ClockModel]), the S3 dialect, the
// [Chooser], and hooks for what a scenario adds (Setup, WrapStore,
// NewFence). [Run] runs it on a [World] (the nodes, the agenda, the
// simulated S3 and the fenced resource, which Setup may schedule actions
// on) and returns a [Result]: the [History] the checkers judge, the
// [Trace], a [Failure] if the run stopped ([FailureKind]), the coverage
// its candidate marked ([Coverage]) and the rules its code reported
// broken ([Report]). A candidate gets an [Env]: its node's protocol.Clock,
// its [S3Client] (Store), the application (Lead), its entropy, and the
// hooks through which it reports its lease check ([LeaseCheck]), its
// coverage and broken rules. [Epoch] is the wall-clock instant at which
// true time starts; [Phases] times a run phase by phase, for benchmarks.
//
// # Time
//
// There is one true time, a time.Duration since the start of the run. It
// advances only when every simulated goroutine is blocked, jumping to the
// next event on the agenda. No code in the simulated path reads the real
// clock: the watchdog described under Blocking reads it, beside the run, and
// nothing it reads flows into the run.
//
// Each node reads its own clocks, derived from true time by a ClockModel: a
// monotonic clock that runs at a rate off by DriftPPM and stands still
// during stalls (a suspended VM), and a wall clock that adds an Offset and
// any Jumps (NTP steps) to it. Clock.Sleep and Clock.WithTimeout measure
// the node's monotonic clock, so a node with a fast clock wakes early in true
// time. S3 has a clock of its own for Last-Modified. All time arithmetic is
// done in integers, because floating-point results may differ between CPUs.
// A ClockModel's Jumps and Stalls are of types [ClockJump] and
// [ClockStall].
//
// # Blocking
//
// Protocol code runs in simulated goroutines (tasks): coroutines that the
// scheduler resumes one at a time. A task runs until it blocks, and it
// blocks only in these operations:
//
//   - Clock.Sleep, until its duration passes or its context is done, and
//     a ticker's Next (Clock.NewTicker: protocol.Ticker), until its tick
//     or the end of its context, so that a select on ctx.Done() and
//     Next(ctx) finds exactly one case ready and never blocks;
//   - a call on the node's S3Client (Env.Store), or a statement on its row
//     store (Env.Rows), until the answer arrives or the context is done;
//   - a write to the fenced resource by the application (Env.Lead).
//
// Clock.Go starts a new task. A context cancelled by one task wakes the tasks
// waiting on it at the same instant: the scheduler polls the awaited
// contexts after every step. Blocking in any other way (a channel receive, a
// select, a mutex held by a blocked task, time.Sleep, a go statement) is
// outside the model: the run would hang or lose determinism. A mutex is fine
// if it is never held across a blocking operation, since only one task runs
// at a time.
//
// A hang is caught: Run runs the world on a goroutine of its own, and a
// watchdog checks every tenth of a second of real time that it makes
// progress. After Config.BlockedAfter (DefaultBlockedAfter, 3 s) without
// any, the run is abandoned and reported as a FailureBlocked naming the
// node, the true time and the stuck goroutine's stack. The stuck goroutine
// cannot be stopped: if it ever wakes, it unwinds at its next simulator
// primitive; if it never does, it leaks. This is the only use of the real
// clock, and it cannot change a run that completes: the watchdog only reads
// a progress counter, so the trace, its hash and every choice are the same,
// byte for byte, with the watchdog or without it (a negative BlockedAfter).
// Code that is slow rather than blocked (more than BlockedAfter of CPU
// between two simulator calls) is reported alike. ([DefaultBlockedAfter],
// [FailureBlocked].)
//
// # Scheduling
//
// Events (a task to resume, an S3 request to apply, a timer) wait on an
// agenda ordered by due time. When several are due at the same instant the
// Chooser picks which runs first. Every choice the simulator makes, the
// order of simultaneous events, each latency sample, each node's entropy,
// each fault, goes through the one Chooser, so a seeded RandomChooser makes
// the whole run a function of the seed, and other strategies (exhaustive
// enumeration) can replace it. [RandomChooser] ([NewRandomChooser]) is
// the seeded one, PCG-DXSM; a choice says what it decides ([ChoiceKind]).
//
// A paused node's events wait until the pause ends: its goroutines do not
// run and its timers do not fire, while its clocks and the rest of the world
// go on. A crashed node's goroutines are unwound (their deferred functions
// run, but any blocking operation they attempt panics again) and never run
// again; a restart starts a new incarnation of the candidate.
//
// # S3
//
// Each request travels over a request leg with a sampled latency, is applied
// atomically by the Store at one instant, and its answer travels back over a
// response leg. If the caller's context ends first, the call returns the
// SDK's cancellation error at once, and the request is still applied when it
// arrives: the outcome is unknown to the caller, as with a real timeout. The
// client may have a timeout of its own (Config.S3ClientTimeout, as
// http.Client.Timeout), measured on the node's clock from the send; when it
// passes first, the call returns the SDK's client timeout error, with the
// same unknown outcome. The
// Store answers with AWS's semantics (or a named Dialect; docs/s3-semantics.md
// describes both) and returns errors shaped exactly as aws-sdk-go-v2 shapes
// them, so the protocol's real error handling is what runs. A store that
// breaks the atomicity of its updates, as versitygw does under races, is
// modelled too (Config.TornReadPPM, RequestFault.TornPPM): a GetObject that
// a write raced may be answered torn, the body of one version with the ETag
// of another (FaultTornRead; S3Op.TornBodyETag). A store whose ETags are
// not the MD5s of the bodies, as S3's are for objects under SSE-KMS or
// SSE-C, is Config.OpaqueETags.
//
// [S3Client] is the calls a node may make (GetObject, PutObject,
// HeadObject, DeleteObject, ListObjectsV2, with the SDK's signatures;
// protocol.ObjectStore is its first two); [Store] ([NewStore], a
// [Dialect]: [DialectAWS], [ParseDialect]) is the pure model, usable
// alone; [Latency] is a leg's distribution. The errors are built by
// [APIError] and its shorthands ([PreconditionFailed],
// [ConditionalRequestConflict], [NoSuchKey], [NoSuchBucket],
// [AccessDenied], [InternalError], [SlowDown], [TooManyRequests],
// [NotModified]); behind a proxy's error pages ([ErrorPages],
// [ParseErrorPages]) by [ProxiedError], which [HTMLPage] recognises.
//
// # SQL
//
// A protocol that keeps its lock in a database row rather than in S3 sends
// statements to the RowStore, a simulated SQL server with one table, through
// Env.Rows. A Statement names the row it touches and carries what it does to
// it, a function standing for the SQL text and its parameters, which the
// server runs at the instant the statement applies, with its own clock's
// reading as now() (true time unless RowStore.SetClock gives it an offset,
// drift or steps). Statements travel as S3 requests do: two legs of
// latency, the statement applied atomically between them, the caller's
// context ending the wait with the outcome unknown, and the FaultInjector
// deciding each one's fate (requests of op RowWrite or RowRead). A run that
// sends no statement has no row store, and its trace and choices are what
// they would be without this section. Names: [RowStore], [RowClient],
// [Statement], [RowResult], [SQLError] (its SQLSTATE codes,
// [SQLStateConnectionRefused] and the others), [RowWrite] and [RowRead].
//
// # Faults
//
// The simulator owns the hooks through which package faults breaks a run: a
// FaultInjector decides each S3 request's fate when it is sent (delivered,
// refused before applying, failed after applying, answer lost, unreachable,
// dropped, delayed, or followed by a pause of the caller); nodes can be
// paused, crashed, restarted and stopped, paused between a lease check and a
// fenced write, have a fenced write delayed, or have their application go
// on after its term; clock models carry offsets, drift, jumps and stalls;
// OutsideWrite is someone other than the nodes writing the lock object. A
// request fault may also name a function to run at the instant the request
// reaches S3 (RequestFault.Landing), where faults aimed at "the renewal
// about to land" act; Node.Leading, Node.TermStart and Node.FencedWrites
// tell them which node plays which part. Every fault is recorded as it
// happens, in the history (World.Fault, RecordFault: a FaultSpan) and in
// the trace as an event carrying its FaultKind (World.Fault, FaultEvent,
// Node.PauseFor; the fate of a request, or RequestFault.Kind, on its send).
// An optional layer gives each node's client the retries of aws-sdk-go-v2's
// standard retryer (Config.S3Attempts). Names: [FaultInjector], [Request],
// [RequestFault] and its [Fate] ([Delivered] and the others), [FaultKind],
// [Node] (its Pause, Crash, Restart and Stop), [World.OutsideWrite],
// [FaultSpan] and [MergeSpans].
//
// # Applications
//
// The application a node runs while it leads (Env.Lead) writes to the
// fenced resource every WriteInterval. How it decides that it may still
// act is set per node (Node.SetApp): AppContext, the default, writes while
// its context is not done; AppChecks also asks the protocol before each
// write, through the lease check the candidate reported (Env.ReportLease,
// protocol.Elector.Lease for the elector), and stops at the first no;
// AppPolls relies on that check alone, as a handler that asks IsLeader
// before acting does. Each mode may do slow work between its check and its
// write, recorded as a "slow-work" span; a write made after a check records
// when the application asked (FencedWrite.Checked, CheckedAt), so that a
// checker can judge what the application was told. Once SetHealAt has said when faults heal, a pause aimed
// at a protocol instant is cut there and a lingering application stops
// there. Names: [AppMode] ([AppContext], [AppChecks], [AppPolls]),
// [Node.SetApp], [Fence] (the resource's judge, Config.NewFence) and
// [FencedWrite].
//
// Applications and operators also ask a node's protocol who leads, at
// instants of their own ([Node.AddCaller], a [Caller] asking one [Ask]):
// every so often, and, aimed, a term length after the send of each of the
// node's successful PutObject requests on its clock, the instant a term
// that no renewal extends ends, where the protocol's own timer fires at
// the same instant and the simulator's chooser decides which runs first.
// The candidate reports its [Observer] (Env.ReportObserver: IsLeader,
// Lease, Leader as a [LeaderView], Healthy) and its OnNewLeader calls
// (Env.NewLeader); each answer is an [Answer] in History.Answers, with the
// true time and the node's monotonic reading, and an answer event in the
// trace. [Term].Returned says when the application returned to the
// protocol; [ClockModel.Mono] ([MonoClock]) measures on a node's clock
// as the node did.
//
// # Exploration
//
// Explorer is a Chooser that enumerates a run's choices depth first,
// re-executing the run from the start for every schedule: every order of
// simultaneous events, and, within bounds, the extreme latencies and the
// faults. Because a run is a pure function of its choices, no state needs
// saving; the path of choices identifies an execution and replays it.
//
// Orders of simultaneous events that differ only in the order of
// independent steps are equivalent, and by default the explorer runs one
// of each class (dynamic partial-order reduction with sleep sets). Under
// an Explorer the scheduler reports each step's footprint: the nodes it
// touched, the S3 keys it read or wrote, the fenced resource. Two steps
// are dependent if they share a node, or an object that one of them
// writes; reads of one key by different nodes commute, and so do steps
// of different nodes on different keys. Only steps of one instant are
// ever reordered, so equivalent executions give every event the same true
// time; the checkers judge the history by times, not by the order in
// which simultaneous entries of different nodes were appended, and reach
// the same verdict on each. por.go states the relation and the argument
// in full. [NewExplorer] makes one within [ExploreBounds].
//
// # What a run records
//
// The History holds each leadership term as the application saw it (from
// the moment the protocol handed it a token to the moment it saw its
// context end), each write to the fenced resource with the instant it was
// judged, and each S3 request as its client saw it (for the linearizability
// check; statements to the row store are not S3 requests and are not in
// it), and each fault as it happened (FaultSpan: its kind, node and
// interval; a pause aimed at an answer is recorded when it fires), which the
// harness judges a run's assumptions by. The Trace holds every event with
// true time and the node's own wall-clock reading (the server's, for an
// event of S3 or of the row store; a statement is sql.send, sql.apply,
// sql.return or sql.abandon, the command tag or SQLSTATE of its answer in
// Code; an s3.return whose answer reached the node otherwise than S3 sent
// it, behind a proxy's error pages, the code the node received in
// Received; with KeepTrace, the bodies sent and received in Body, printed
// on request, WithBodies; neither is hashed); an event that records a
// fault carries its kind and length (Event.Fault, a FaultKind, and
// Event.For), so that tools and tests read structure rather than the
// wording of Detail. Failures that stop a run, a panic in protocol code, an
// exceeded step budget or code blocked outside the simulator, are reported in
// the Result, not raised. The Result also holds the coverage points the
// candidate marked (Result.Coverage, of the Config.Coverage its protocol
// declares, through Env.Coverage): how many times the run reached each.
// Marking draws no choice and writes no event, so a run is the same, trace
// and hash, whether its points are recorded or not. The rules a node's own
// code reports broken through Env.Report (Result.Reports, each with its
// node, incarnation and true time) likewise draw no choice and write no
// event; the harness judges each one a violation.
package sim
