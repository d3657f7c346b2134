// Package harness checks leader-election protocols in deterministic
// simulation. It runs a protocol's real Go code on simulated nodes that
// share one simulated S3, under clock skew and drift, process pauses,
// crashes, partitions, slow and failing S3 answers and lost responses,
// and judges every run: at most one leader at any true instant, fencing
// tokens that strictly increase and are never shared, no stale write
// accepted by a fenced resource, an S3 history that is linearizable, a
// leader again once faults heal, and whatever a protocol's own judges
// hold it to (what its nodes wrote, how soon they acted, rules its code
// reports broken). The production elector's description and its own
// judges are package harness/elector's; this package knows no protocol.
//
// # What a protocol provides
//
// A [Protocol] is described once, in one value:
//
//   - Candidate, the function every node runs (a sim.Candidate). It gets a
//     sim.Env holding the node's protocol.Clock (the only source of time,
//     sleeping and goroutines) and sim.S3Client (the S3 calls, with
//     aws-sdk-go-v2's own signatures, so a *s3.Client satisfies it in
//     production), and the application, Env.Lead(ctx, token): the protocol
//     calls it when it starts leading, with its fencing token, and cancels
//     ctx when its term ends. The application writes to a fenced resource
//     under that token until then.
//   - Assumptions: the protocol's lease (which sizes the faults drawn), the
//     clock drift and process pause it tolerates, and optionally the
//     largest wall-clock offset and wall-clock step (for protocols that
//     compare wall clocks). Runs that leave the assumptions are still run
//     and judged, less strictly (see Verdicts).
//   - LivenessBound: how long after faults heal a leader must be in place
//     (0 promises nothing).
//   - RequestRate: the most S3 requests one node sends within a window of
//     true time, by the protocol's design; more is a retry storm (zero
//     judges no rate). MaxIdentityLen: the longest identity the protocol
//     accepts, for the swarm to give its nodes identities up to it.
//   - NoFencingTokens, for a protocol that hands out no tokens: the token
//     checkers do not apply, and at most one leader at a time is what is
//     judged.
//   - The world it needs, where it is not the default: Key, the lock
//     object's key for a protocol that chooses its own (what a plan does
//     to the lock object hits it); S3ClientTimeout, the S3 client's
//     timeout per attempt for a protocol that bounds its calls that way
//     (http.Client.Timeout) rather than by contexts; and Without, the
//     generator's families its runs leave out (faults.Families), whichever
//     entry point draws them, to chase a bug that other draws hide.
//   - Optionally Configure, which makes the protocol with other settings
//     (a plan's faults.Settings for a node): the swarm then draws each
//     node's settings, and a plan that mixes them is judged by each node's
//     assumptions (Configured); EncodeRecord, which writes a lock record in
//     the protocol's own format for the records a plan puts in the lock
//     object before or during the run; and, from the candidate,
//     Env.ReportLease, the protocol's answer to "do I lead?" that
//     applications drawn to ask it (sim.AppChecks, sim.AppPolls) ask before
//     each write, so that what they were told is judged too (the
//     lease-check checker); AuditWrites, which judges what the nodes wrote
//     to the lock object in the protocol's own format (the history holds
//     every body S3 applied; violations judged Unsafe, never excused); and
//     Pace, which judges how soon each node acted on what S3 answered it,
//     by the protocol's own waits: places where a mistake only slows or
//     busies a node under faults, which the liveness bound after the heal
//     cannot see (judged Liveness); and Answers, which judges what each
//     node's protocol told its application and operators when the plan's
//     callers asked (Env.ReportObserver, sim.History.Answers): a wrong
//     answer Unsafe (AnswerCheck; a fault outside the assumptions on that
//     node excuses it only where its window covers the answer's instant),
//     a wrong health report Liveness. The judges of one run share what
//     they derive from its history (each body's holder, token and release,
//     read once by encoding/json; the lock's writes; the reads the elector
//     read again), built once per run.
//
// A plan may give nodes settings of their own (faults.Plan.Settings, which
// the swarm draws for a protocol with Configure): Configured then makes
// each node's protocol ([Protocol.Nodes], [Protocol.Node]) and judges each
// node by its own bounds ([Protocol.PauseBound], [Protocol.RequestRateOf],
// its Pace, what AuditWrites is told of it) and the whole by the strictest
// assumptions of the mix. [Protocol.Validate] checks a description; the
// production elector's is package harness/elector's.
//
// Code under simulation must wait only through the Clock (Sleep, a
// Ticker's Next), the S3 calls and the application. A protocol that blocks on anything else (a bare channel,
// time.Sleep, a mutex held across a simulated call) is stopped after a
// bound of real time and judged Blocked, with the stuck goroutine's stack;
// `simrun vet ./mypkg` finds such code before it runs.
//
// # Testing your protocol
//
// Check is a rapid property over random runs; in a test file:
//
//	func TestMyLock(t *testing.T) {
//		harness.Check(t, harness.Protocol{
//			Name:          "mylock",
//			Candidate:     mylock.Candidate,
//			Assumptions:   protocol.Assumptions{Lease: 10 * time.Second, MaxDriftPPM: 1000, MaxPause: 2 * time.Second},
//			LivenessBound: 20 * time.Second,
//		})
//	}
//
// Each run is a run of the protocol's swarm scenario ([Swarm]): a plan drawn
// by the one generator (faults.Draw, every family of faults, sized by the
// assumptions: most runs stay inside them, a minority leave them) from
// rapid's choices, and a liveness phase. The CLI's swarm, Check and Fuzz
// draw the same runs from the same choices; only where the choices come
// from differs. On a failure rapid shrinks its choices, and so the run, to
// a small one that fails the same way; Check writes it as a reproducer file
// under testdata/harness/<test>/ and fails the test with the violation in
// words and the command that replays it:
//
//	go test -run '^TestMyLock$' . -harness.replay=testdata/harness/TestMyLock/unsafe-overlap-seed-123.json -v
//
// which runs that one run again, exactly, and prints its trace. Fuzz does
// the same under go test -fuzz: each input is a swarm seed and bytes that
// replace its first choices (faults.FromBytes), so the fuzzer is a
// coverage-guided swarm. rapid's flags (-rapid.checks=N, -rapid.seed=S)
// apply to Check; its option ([Option]) is [WithDir] (where reproducers
// go). A checker that cannot fail is worthless: to show that Check catches
// a deliberately broken version of a protocol, run it on a [Recorder] (a
// [TB]) and assert that it failed. Underneath, [DrawRun] draws a whole run
// ([Draw]) from a faults.Source ([RapidSource] is rapid's) and [RunDraw]
// judges it; [Explain] and [Describe] say in words why a run failed.
//
// The same protocol under the simrun command line (campaigns, replay,
// shrink, explore, HTML pages) takes a main of one line; see package
// simrun.
//
// # Verdicts
//
// A run's [Verdict] is Pass, Unsafe (a safety property broke), Liveness (no
// stable leader once faults healed, a retry storm, or a node slower than
// its own design: Protocol.Pace), Crashed (a panic in protocol code, a
// run that stopped advancing), Blocked (code under simulation blocked
// outside the simulator) or Inconclusive (the linearizability check of the
// S3 history timed out; never a pass). Verdicts, their order of severity
// ([Worst], [Verdicts], [ParseVerdict]) and their exit statuses
// ([Verdict.ExitCode], [ExitUsage]) are defined in this package alone.
//
// Every checker runs on every run, and every violation counts, unless a
// fault that left the protocol's assumptions accounts for it (an [Excuse],
// judged from the faults as they happened): a clock drifting or offset
// beyond its bound, a wall-clock step beyond its bound, a node that did not
// run for longer than the pause bound (its pauses merged where they overlap
// or touch), a stalled clock or a lingering application excuses overlaps of
// leaders involving that node, and writes it sent under a superseded token,
// from the fault until the node's term can have ended (slow work between an
// application's check and its write counts with the node's pauses), and a
// node whose clock left its bound and took the lock while another node's
// term ran excuses that term's overlaps with any node until it can have
// ended; a
// write of the lock object by someone else (a delete, an overwrite, a
// restore, or content before the run that no node wrote) excuses reused
// and decreasing tokens between the terms whose acquisitions read its
// content, directly or through records derived from it, and other terms,
// until electors re-established the chain; an entry below a predecessor's
// watermark when the watermark reached one of the two terms through records
// derived from it and not the other (the lineage of the lock object's
// content); and overlaps of any nodes for a lease and a term; a read S3
// answered torn (the body of one version, the ETag of another), for a
// protocol that does not tolerate torn reads, excuses overlaps of its
// reader for a lease and a term after the answer, and token violations by
// the lineage of what the reader was shown, as a foreign write does.
// Nothing excuses a stale write the fence accepted by its own
// rule, or an overlap once faults and the time they can affect are over.
// Excused violations are still reported, each with its excuses
// ([Excused]; each excuse names its kind of fault, Excuse.Kind), and
// counted apart: a [Judged] tallies, over a set of runs, the runs wholly
// inside the assumptions and, per checker, the violations judged,
// excused (by kind of fault) and counted, and every summary says so
// (Check's failure and log, simrun's commands). A protocol without
// fencing tokens is judged by overlaps alone, and outside its
// assumptions each overlap is two leaders acting at once: Setup.FailOutside
// ([Scenario.FailingOutside], [FailOutside] for Check) counts those
// overlaps too, under the rule [RuleOutside]. The record the lock object held before
// the run is judged as a term too ([InitialRecordCheck]), and every run's
// S3 history for linearizability ([S3CheckTimeout]; porcupine beside the
// fast checker on one run in [S3PorcupineEvery]). A failure's
// [Signature] ([SignatureOf]) is its verdict and the checkers that
// decided it: what shrinking keeps and campaigns group by.
//
// Some rules only the protocol's own code can observe. A node reports one
// it broke through sim.Env.Report, and each report (sim.Result.Reports) is
// a violation of the checker it names, at the true time of the report,
// which nothing excuses: the run is Unsafe (the production elector
// reports so each transition its state machine does not declare).
//
// Faults end by the plan's heal (aimed pauses are cut there, lingering
// stops there), and liveness is judged from the instant the last fault
// really ended.
//
// # Coverage
//
// A protocol may declare its coverage points (Protocol.Coverage: named
// sets of points, [CoverageSet]; [ValidateCoverage], [CoverageOf]), and its candidate marks each one it
// reaches with Env.Coverage.Hit, which draws nothing and writes nothing to
// the trace. The harness adds a set of its own to every run, read from
// its history whatever the protocol ([RunShapes]): terms, hand-overs, tokens,
// fenced writes, excused violations, S3 answers. An Outcome carries the
// sets and what the run reached (Outcome.Coverage, Outcome.Reached); simrun
// adds them up over runs, campaigns and shards, and says which points no
// run reached.
//
// A guided campaign ([Guided], configured by a [GuidedConfig]; each run a
// [GuidedRun], the whole a [GuidedResult]) uses them as a fuzzer uses its
// coverage: it keeps the streams of choices of the runs that reached a
// point, or a point as many times, first, and derives new runs from them
// by mutating their choices (faults.Choices.Mutate), beside fresh seeds.
// Each run is a Reproducer, and the
// campaign a function of its configuration, whatever the number of
// workers (runs are derived in batches of [GuidedBatch]). It is not
// resumable: its corpus lives in memory.
//
// # Determinism and replay
//
// A run is a function of its scenario and seed: the same seed gives the
// same trace, byte for byte, on any machine and with any GOMAXPROCS. A
// Reproducer is that as a file (scenario, seed, and the plan and sizes that
// make it smaller than the scenario's own run); Shrink makes one smaller
// while it keeps failing the same way (its Signature), by shrinking the
// stream of choices the run was drawn from (faults.Shrink); Explore
// enumerates the schedules of a small run instead of sampling them.
// WriteTrace writes a judged run in full, WriteOutcome its verdict and
// what decided it.
//
// # Scenarios and the engine
//
// A [Scenario] is a named function from a seed to a [Setup] (a world, a
// plan, a protocol), with the outcome it expects of its protocol
// ([Expectation]); one that draws its plan from a stream of choices says
// how (Scenario.Draw; [Drawn] makes its Build), so that shrinking and
// guided campaigns can draw it from other choices. [Swarm] makes the
// swarm campaign of a protocol ([SwarmSpace] is what it draws in,
// [SwarmPlan] its plan for a seed, [World] the world every run starts
// from); [Small] shrinks a setup for exploration. There is no global
// registry: package scenarios, package zoo and the seed designs each
// return a list, a program hands the lists it wants to simrun.Main, and a
// [Catalog] ([NewCatalog]) resolves the names reproducer files give.
// [RunSeed] and [RunSetup] run and judge one run, an [Outcome];
// [WriteTrace] writes it as text; [Work] ([Count]) is the worker pool
// every command and campaign uses.
//
// # Reproducers and commands
//
// A [Reproducer] ([ReproducerFor], [LoadReproducer], [ReproVersion];
// [ErrBadReproducer] for a file that is not one) is a run as a file;
// [Shrink] makes one smaller ([ErrNothingToShrink] for a run that
// passes). [Explore] and [ExploreEach] enumerate a small run's schedules
// ([ExploreResult], [ExploreChoice]); a [Path] ([ParsePath]) names one
// execution, which [ReplayPath] runs again and [ExploreReproducer] writes
// as a file. Every command the project prints to rerun something is a
// [Repro] (its Command), quoted by [Quote], and runs [DefaultCommand]
// unless the program says how it is invoked. [WriteFileAtomic] writes a
// file whole or not at all, as every command writes its reproducers,
// reports and pages.
package harness
