// Package mutation measures how much of the production elector's behaviour
// the simulation swarm checks: it makes small deliberate bugs (mutants) in
// the non-test files of protocol/, and counts how many of them the swarm
// catches. It is the `simrun mutate` command (Main), meant for a nightly
// job, not for CI: a full run builds and runs the swarm once per mutant.
//
// # Mutants
//
// Load parses and type-checks the package (golang.org/x/tools/go/packages,
// already a dependency of the module) and Enumerate walks its syntax with
// go/ast and go/types. Each Operator makes one kind of change at each place
// it applies:
//
//   - cmp-flip: < and <=, > and >=, == and != swapped;
//   - negate-cond: the condition c of an if, a for, or a case of a
//     tagless switch made !(c) (not where it is an == or != comparison:
//     cmp-flip makes that same change);
//   - err-stmt-remove and err-branch-return: on an error path (an if or
//     case whose condition is err != nil, for any expression of an error
//     type) one statement other than the return removed, or, where two
//     could be, the whole body reduced to its return;
//   - off-by-one: each integer literal n made n+1 and n-1, and x++ (x--)
//     made x += 2 (x -= 2) or removed;
//   - clock-swap: a call of the package's Clock interface's Monotonic() made
//     time.Duration(c.Now().UnixNano()), and Now() made
//     time.Unix(0, int64(c.Monotonic())): the wall clock where the
//     monotonic one was read, and back;
//   - return-bool, return-zero, return-other: a literal true and false
//     swapped in a return, one result not already a zero value replaced
//     by its type's zero value, or all results replaced by those of the
//     function's next different return statement (in source order,
//     wrapping around: the other branch's value);
//   - cancel-remove: a call of a context.CancelFunc, deferred or not,
//     replaced by _ = f, so that the mutant compiles;
//   - arith-swap: + and -, += and -= swapped on numbers.
//
// Logging is not mutated: a statement that only calls a *slog.Logger
// method, an if statement that only logs, and the arguments of such calls.
// No checker observes logs, so every such mutant would be equivalent.
//
// A mutant is a text edit of one file: bytes [Start, End) replaced. Its
// Signature is the file, the enclosing function ("Elector.renew", or
// "const maxWrites" outside functions), the operator, the original and
// replacement text with white space folded, and an occurrence number
// telling apart the same change twice in one function. It holds no line
// number, so edits elsewhere leave it unchanged; the ID is the file's name
// and 8 hex digits of the signature's SHA-256. Enumeration is
// deterministic: sorted by file, offset and operator.
//
// # Running a mutant
//
// Runner.Run type-checks the package with the mutated file in place
// (go/types, against the export data of the package's imports): a mutant
// that does not type-check is invalid and costs no build. Otherwise it
// writes the mutated file to a temporary directory and an overlay mapping
// the original path to it, and builds ./cmd/simrun with go build -overlay
// into a temporary binary: the source tree is never touched. A build
// failure is invalid too. The binary then runs the swarm:
//
//	BIN run -seeds N -workers W -json -until-failure -start 1
//
// (under a bound of -swarm-memory on the memory it may allocate, so that a
// mutant that makes the simulator grow without bound dies of it). The
// -until-failure flag stops at the first failing seed, so a mutant the swarm
// kills costs little; as seeds are dealt in order and every seed started
// finishes, the lowest failing seed reported is the first failing seed of
// 1..N, and seeds-to-catch is that seed. Any verdict but pass kills the
// mutant, as do a crash of the binary (a panic, or a death by a signal, without a summary) and a
// swarm that outlives its deadline (a hang). A mutant that survives the
// swarm is given the test suite with the same overlay,
//
//	go test -overlay F -vet=off ./protocol/ ./scenarios/ ./zoo/ ./harness/
//
// (vet is off: a mutant is judged by what the tests observe, not by vet's
// opinion of its code), and is killed by the tests or survives. Before the
// first mutant, the unmutated build must pass the swarm and the tests, or no
// result would mean anything. Every subprocess runs under a deadline, in its
// own process group, which is killed whole when the deadline passes.
//
// # Areas
//
// Each mutant lies in one of four areas (SetAreas, with the package's
// Scope; ProtocolScope for protocol/):
//
//   - election: every mutant in no other area: the code that decides who
//     leads, for how long, with which token, and what is written to S3,
//     the record codec included. The swarm's safety and liveness checkers
//     judge it, and the headline swarm score is over it.
//   - config: what NewElector accepts, the error it gives otherwise, and
//     the defaults users copy. The swarm builds electors only from
//     settings it draws valid (and runs one with its own defaults if the
//     elector refuses a draw), so it never judges these rules; the tests
//     do (config_test.go). What an accepted configuration means (the
//     term, the drift margin, the assumptions) is election code.
//   - observability: code whose only effect is what the elector reports:
//     Config.Metrics hooks, Healthy and its /healthz adaptor, the phase
//     machine's transitions and their names, Leader, Phase, OnNewLeader,
//     a record's RenewTime. Users see these values, so its mutants are
//     not equivalent; but no checker of the swarm sees them, and mostly
//     the tests judge them. Besides the files and declarations the Scope
//     names, a statement that only feeds them is found by its shape, and
//     a mutant of election code whose only effect is a reported value (a
//     cause passed to a transition, a hold time) is moved here by its
//     triage entry (Judgement.Area), with the reason.
//   - real: production code the simulator replaces by design, which the
//     swarm never runs (live mode and the tests do): the real clock and
//     the operating system's entropy, marked //simvet:real (see package
//     simvet).
//
// Every area is run and reported, each with its scores; -area selects one.
//
// # Scores and triage
//
// The swarm score is the share of valid mutants (neither invalid,
// equivalent nor speed-only) that the swarm killed; the whole-suite score
// the share the swarm or the tests killed. A speed-only mutant is one the
// swarm passes and whose only failing tests are speed guards (SpeedGuards:
// tests that the record codec's fast paths are taken, which judge no
// value): it computes what the elector computes, more slowly. That is
// shown by a run, not judged by hand, and derived from the failed tests
// whenever a report is made. Both are given for each area and for all
// together; the election path's swarm score is the headline, the one
// -min-score gates, and the report states the others beside it. Triage
// (triage.go) is the project's judgement of survivors, keyed like
// signatures (no line numbers): KindEquivalent
// mutants cannot change behaviour, are not run and are excluded from the
// scores, with their reasons printed; KindGap mutants are run and counted,
// and the report prints beside them what fault or draw would catch them.
// A triage entry that matches no mutant is reported as stale.
//
// # Results and resumption
//
// Each mutant's Result is appended, as one JSON line, to a results file as
// soon as it finishes (-results; by default in the user's cache directory),
// so a run that is killed loses nothing recorded. A rerun skips every
// mutant with a reusable result for the same signature and the same
// Package.SourceHash (the SHA-256 of protocol/'s non-test sources): one
// that is invalid, one the swarm killed within the seeds now asked for, or
// one that passed at least as many seeds and was tested if tests are
// asked for. A change to protocol/ changes the hash and reruns everything;
// a change elsewhere (the simulator, the checkers) does not: use -fresh.
//
// # Selection
//
// -only IDs, -match REGEXP (over ID, file:line, function, operator and
// signature), -sample K/M (K of every M mutants, by a hash of the
// signature, so the same mutants stay selected as code changes) and
// -limit N (the first N after the other filters) choose the mutants run;
// -list prints them. The report (-o, markdown, written atomically; -json
// on stdout) covers the selected mutants.
package mutation
