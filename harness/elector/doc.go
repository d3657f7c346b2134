// Package elector describes the production elector (protocol.Elector) to
// the harness, and holds the judges that only the elector's own design
// can state: what its lock records must say, how soon it acts on what S3
// answers it, and the transitions its state machine declares. Protocol
// fills a harness.Protocol with all of it; package harness, the generic
// engine, knows nothing of the elector.
//
// # The elector as a protocol
//
// [Settings] are the elector's knobs a scenario sets ([DefaultSettings]:
// a 6 s lease, so that a minute sees several terms). [Protocol](s) is the
// elector with those settings, judged by the assumptions and liveness
// bound its own configuration states ([Settings.Assumptions],
// [Settings.LivenessBound], from protocol.Config.Assumptions); [Nodes]
// gives each node settings of its own. [Candidate] is what every node
// runs: protocol.Elector itself, the code users ship, on the node's
// simulated clock, S3 client and entropy; [Settings.Config] is its
// configuration, for a candidate of one's own that adds hooks to it
// (chaining the ones it installs), and [ReportLease] hands the elector's
// answer to "do I lead?" to the simulated application.
//
// # Settings per node
//
// The protocol takes a plan's settings for a node
// (harness.Protocol.Configure, [SettingsOf]; [Settings.Plan] writes them
// back, [Settings.Validate] checks them as protocol.NewElector would), so
// the swarm draws each node's; harness.Configured then judges every node
// by its own pause bound, request rate, pace and record lease. Every entry
// point (the CLI's swarm, harness.Check, harness.Fuzz) draws them alike.
//
// # Lock records
//
// [Settings.EncodeRecord] writes a plan's records (the lock object's
// content before the run, overwrites) as the elector writes its own. Every
// record a node wrote that S3 applied is audited ([RecordAuditCheck], its
// rules [RuleRecordCanonical] and the other RuleRecord constants;
// [AuditRecords], [Settings.AuditRecords]): read with encoding/json
// against the documented format, not with the elector's codec, it must be
// canonical, name its writer, state its writer's lease, link to the term
// before it as the body it replaced calls for, and carry a token above
// every token its writer had seen ([RuleRecordFloor]); and every body a
// node read must be read by protocol.DecodeRecord as the format says
// ([RuleRecordDecode]). Nothing excuses these: a node knows what it writes
// whatever the faults.
//
// # Pace
//
// [Settings.Pace] ([PaceCheck], its rules [RulePaceRetry] and the other
// RulePace constants) holds each node to the elector's waits, converted to
// true time by the node's clock model: it reads again at once, or within
// its back-off, after an acquisition not answered with a success, and
// leads as soon as a read shows that the acquisition applied after all;
// it renews once per renew interval (RetryPeriod, or less so that a
// renewal has RequestTimeout before the deadline:
// protocol.Config.RenewInterval); it ends a term early only on a cause the
// elector ends terms for; and a release after a stop keeps within the
// term's deadline and tries again at once. A node slower than that is
// judged Liveness: slow, not unsafe. [Settings.RequestRate] is the
// elector's bound on one node's S3 requests.
//
// # What the elector tells its application
//
// The swarm's callers ask each node's elector who leads at instants of
// their own (faults.App.Callers; some aimed at the instant a term that no
// renewal extends ends, when the watchdog fires too), and its OnNewLeader
// calls are recorded; [Settings.Answers] ([AnswerCheck], its rules the
// RuleAnswer constants) judges each answer against the history, on the
// node's clock model (its drift and stalls):
//
//   - [RuleAnswerLease]: IsLeader, Lease and Leader().Self say yes only in
//     a term of the node's own incarnation that the history shows began,
//     after the node learned of its grant, and before its local deadline:
//     the send of the last successful write the node learned of (its
//     answer, or a read that showed it) before the deadline then in force,
//     plus the term length; Lease with that term's token. The answer is
//     judged at its instant, not by whether the watchdog had fired yet.
//   - [RuleAnswerLeader]: a holder Leader() names, with its token, was the
//     holder of a live record that was the lock object's content at some
//     instant between the observation it states (its Age before the
//     answer, on the node's clock) and the answer, as far as the
//     requests' intervals tell.
//   - [RuleAnswerNewLeader]: OnNewLeader names the holder of the live
//     record the node's last successful request showed, and never one of
//     a record that was surely written before the record it named last,
//     unless written again since (a restore).
//   - [RuleAnswerHealthy]: Healthy(tolerance) fails when a term's
//     application has not returned more than the tolerance and a grace (a
//     RetryPeriod) after the term's deadline while Run still runs, and
//     fails only when a term's application may still run past its
//     deadline plus the tolerance less the grace, or the node did not run
//     for longer than LeaseDuration plus the tolerance less the grace
//     (protocol.Elector.Healthy's definitions of stuck, as the history
//     shows them).
//
// Verdicts: a wrong yes, holder or callback is Unsafe (an application
// acts on it: a write past the deadline, a request routed to a holder that
// released, a decision on a stale leader that claims to be fresh); a
// wrong health report is Liveness (a stuck process kept alive, or a
// working one restarted, costs availability, not safety). The Unsafe ones
// are excused only by a fault outside the assumptions on that node whose
// window covers the answer's instant (harness.Excuse); the judge measures on the node's own clock, so a
// drift or a stall beyond the bounds does not by itself make an answer
// wrong.
//
// # Transitions and coverage
//
// The hooks that Settings.Config installs report the first transition of
// each incarnation that protocol.Transitions() does not declare
// ([TransitionsCheck], Unsafe, never excused), and mark the run's
// coverage: the declared transitions ([TransitionsSet]) and the kinds of
// S3 answer the elector got in each phase ([AnswersSet]: [Answers], each a
// [PhaseAnswer]), the sets [Coverage] declares.
package elector
