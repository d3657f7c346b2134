// Package live runs the production elector for real and judges the run with
// the simulator's checkers: live mode.
//
// The simulator (package sim) explores many runs of the protocol against a
// model of S3 and of time. Live mode checks the model against the world: the
// same electors (protocol.NewElector with protocol.RealClock), each with a
// real aws-sdk-go-v2 *s3.Client and its standard retryer, run in real time
// against a real S3 implementation for a fixed duration, and what happened is
// recorded as a sim.History and judged by the checkers of package
// linearizability, as a simulated run is. A live run is not deterministic:
// the scheduler, the network and the store decide timing. Only the fault
// draw is seeded.
//
// # Phases
//
// A run exists to find a store (or a deployment of one) that does not keep
// S3's promises where the elector relies on them, so by default it spends
// its duration stressing them (DefaultPhases): rounds in which every
// elector starts at the same instant on a fresh key and creates it with
// If-None-Match: * (PhaseCreationRaces); rounds in which every elector stops
// and starts again at once, racing to take the released lease over with
// If-Match (PhaseRestartRaces); rounds in which the leader crashes and every
// elector starts again at that instant, so that all of them time the
// abandoned lease from the same read and race to take it over a lease later
// (PhaseCrashTakeovers); then renewals under contention, followers reading
// while the leader renews through the proxy's faults (PhaseContention).
// During the rounds the proxy injects no fault, and gathers the conditional
// writes of a round for a few milliseconds: it forwards each at once but
// the last byte of its body, which it sends to all of them together, so
// that writes racing in the electors race at the store. PhaseSteady is
// the proxy's faults with the leader restarted every RestartLeaderEvery.
// Result.Phases says what each phase exercised, counted from the history:
// creation races, contested If-Match writes, reads racing a write, torn
// reads, faults.
//
// The electors may be spread over several endpoints of one store
// (Config.Endpoints: node i talks to endpoint i mod n), so that a
// deployment of several gateways is tested as it runs: two gateways that do
// not serialize conditional writes between them let two takeovers of one
// record both win, which the checkers find.
//
// # The setup
//
//	elector i ── *s3.Client i ── transport i ─┐
//	                                          ├─ proxy (127.0.0.1) ── store
//	elector j ── *s3.Client j ── transport j ─┘
//
// The store is an embedded gofakes3 server (in-memory backend) on a loopback
// port of its own, or, with Config.Endpoints, any S3 endpoint (MinIO,
// LocalStack, versitygw, AWS), reached with static credentials from the
// environment (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN)
// or Config.Credentials, and AWS_REGION. Each client is configured with the
// store's real endpoint and signs its requests for it; its HTTP transport
// then sends every request to the proxy instead, keeping the Host header it
// signed, and the proxy forwards it to that host over connections of its own.
// So signatures hold for any store, over http or https. Credentials are never
// printed, logged or recorded: the history holds no header, the report names
// the endpoint without user information.
//
// # Faults
//
// For every HTTP request the proxy draws its fate from a math/rand/v2 PCG
// seeded with Config.Seed, in a fixed number of draws per request, so the
// sequence of fates depends only on the order in which requests arrive:
// latency, and at most one of a 409, 500 or 503 answered without
// forwarding, a 500 after forwarding, a dropped answer and a cut
// connection (Faults says what each does to the request and the store),
// in the phases that inject faults. The proxy counts what it did
// (ProxyStats, FaultCounts). The phases add process-level events: electors
// stopped or crashed, and restarted as new incarnations.
// Faults.StripConditions is a broken setup rather than a fault, which the
// checkers must find unsafe.
//
// # The history
//
// Times are time since the run's start on the process's monotonic clock:
// real time plays the part of the simulator's true time.
//
// S3: a middleware on each client's stack, inside the SDK's retry loop,
// records every HTTP attempt as one sim.S3Op, since each attempt is a request
// S3 may apply: Call before the attempt is signed and sent, Return once its
// answer was read, with the operation, key, conditions and, for a PutObject,
// the ETag its body will have (the quoted MD5). An attempt answered by HTTP
// records its status (every 2xx as 200), its S3 error code (from the error
// body, or from the status text for a HEAD, as the SDK names it) and, on
// success, the answer's ETag. An attempt that got no HTTP answer (a reset, a
// timeout, a cancellation) keeps Return -1: its outcome is unknown, and the
// S3 checker lets it take effect at any instant after its call, or never. A
// 500 or 503 answer may have been applied or not; a 409 was not; the checker
// reads statuses so. An attempt never sent (its node was cut off for a crash)
// is left out. A store whose ETags are not the MD5 of the body is handled
// where the history shows the body's ETag (a 200 to the PutObject, or a read
// of that body): the write's body ETag is then the one the store gave.
//
// The recorder keeps what each elector received. It hashes the body of every
// GetObject answer as the elector reads it; once the run is over, a read
// whose ETag is that of another body written is torn: the store answered
// with the body of one version and the ETag of another (versitygw does, now
// and then, for a read that races a write). The read keeps the ETag it
// received, sim.S3Op.TornBodyETag names the version whose body came, and
// the torn read never teaches the recorder what the store calls a body.
//
// Terms: the elector's OnStartedLeading is the application. It records a
// term (node, identity, incarnation, token, start) and, every
// Config.WriteInterval until its context ends, sends a write under the token
// to a fenced resource in the same process: a protocol.Fence that judges the
// write and records it (sim.FencedWrite) in one critical section, so writes
// are listed in the order the fence judged them. The term ends when the
// application sees its context done.
//
// At the end of the run the history is closed at once, as the simulator
// closes a run: requests still in flight keep no answer, open terms stay
// open, and nothing later is recorded (such as the release the electors write
// as they stop). The keys are fresh for every run (Config.Key may name one
// that must not exist, and the creation races use keys derived from it),
// because the checkers assume them absent at the start and written only by
// the electors.
//
// # The verdict
//
// Result.Checks holds every checker's verdict: the election checkers
// (unique-holder, monotonic-tokens, fencing), overlap (no two leaders at one
// instant: a live run stays inside the protocol's assumptions, since real
// clocks drift far less than the configured bound and no pause is injected,
// unless the process stalls longer than the elector's MaxPause), the
// porcupine check of the S3 history against AWS's conditional-request
// semantics, the torn-reads check, and liveness, which is judged only for a
// run without faults and restarts that lasts the protocol's liveness bound.
// A torn read is the store's fault: the S3 check leaves it out (no state of
// the object explains it), and the torn-reads check reports it, with the
// verdict CheckStoreFault, without deciding the run's verdict, which judges
// the electors. Result.Verdict sums
// them up as the harness does (harness.Verdict): unsafe, liveness,
// inconclusive (the S3 check timed out) or pass. The checkers judge the
// store too: a store whose answers differ from AWS's where the elector
// relies on them makes the S3 history illegal. (gofakes3 answers a PutObject
// If-Match on a missing key 412 where AWS answers 404, but in a live run no
// one deletes the lock object, so the elector never sends that request.)
//
// Result.History encodes with encoding/json as a simulated run's history
// does; Result.Outcome gives the run as a harness.Outcome for the HTML
// report, and Result.WriteText a summary for humans.
package live
