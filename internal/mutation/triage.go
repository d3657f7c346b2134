package mutation

// Kind is a triage judgement of a mutant the swarm does not kill.
type Kind string

// The kinds of judgement.
const (
	// KindEquivalent: the mutant cannot change what the elector does
	// under any schedule the protocol's assumptions allow (or at all). It
	// is not run and not counted in any score; Reason says why.
	KindEquivalent Kind = "equivalent"
	// KindGap: the mutant changes behaviour the swarm does not reach or
	// does not check. It is run and counted; the report prints Reason
	// (what fault or draw would catch it) beside it.
	KindGap Kind = "gap"
)

// SpeedGuards are the protocol package's tests that judge only speed: that
// the record codec's fast paths are taken, not fallen back from to
// encoding/json (the values are judged by other tests). A mutant that the
// swarm passes and that fails only these is SpeedOnly.
var SpeedGuards = []string{"TestRecordCodecFastPaths", "TestDecodeRecordFastPath", "TestUTCTimeReadsEncodedTimes", "TestPlainWordsFindsTheRun"}

// A Judgement triages the mutants it matches: the same file, function,
// operator, original and replacement text (compared with white space
// folded), and occurrence (0 matches any). Line numbers play no part, so
// edits elsewhere leave it valid.
type Judgement struct {
	Kind        Kind
	File        string
	Func        string
	Operator    Operator
	Original    string
	Replacement string
	Occurrence  int
	Reason      string
	// Area, if set, moves the mutant to that area: a mutant of election
	// code whose only effect is a value the elector reports (a cause in a
	// transition, a hold time) is AreaObservability, and Reason says
	// what it changes.
	Area Area
}

// Matches reports whether j judges m.
func (j Judgement) Matches(m Mutant) bool {
	return j.File == m.File && j.Func == m.Func && j.Operator == m.Operator &&
		fold(j.Original) == fold(m.Original) && fold(j.Replacement) == fold(m.Replacement) &&
		(j.Occurrence == 0 || j.Occurrence == m.Occurrence)
}

// Judge returns the first judgement of triage that matches m.
func Judge(triage []Judgement, m Mutant) (Judgement, bool) {
	for _, j := range triage {
		if j.Matches(m) {
			return j, true
		}
	}
	return Judgement{}, false
}

// codecGap is why the swarm passes a mistake in the record codec that the
// codec's tests catch.
const codecGap = "The swarm passes with it and the codec's tests kill it. The swarm judges the codec by the record audit's decode rule: " +
	"protocol.DecodeRecord against encoding/json on every body a node read: the elector's own records (identities with quotes, backslashes, " +
	"non-ASCII, HTML and control characters on some seeds, updates JSON must escape on others), records before the run in other spellings " +
	"(key order, whitespace, escapes) and edits, foreign bodies and near records (times out of range or with a slipped digit, bad escapes, " +
	"bodies cut inside a string or an escape). A mistake that makes the fast path refuse a body is absorbed by the fallback to encoding/json " +
	"(same record, slower); one that misreads a spelling no run writes (numbers and literals spelled otherwise in places the edits do not " +
	"reach, duplicate or unknown keys inside a link) is not reached. " +
	"The tests that compare the codec with encoding/json on generated bodies (record_fast_test.go, record_test.go) are its judge."

// readsBackAlways is why a mutant of the name differsFrom gives is
// equivalent.
const readsBackAlways = "readsBack's self-check: Encode refuses a record that does not read back as written. Every record the elector builds reads back (check refuses what could not: identities, nonces, updates and watermarks that are not UTF-8 or too long; its times are its clock's, written to the nanosecond, or Encode fails for a year beyond 9999; the codec's property tests compare it with encoding/json), so differsFrom always answers \"\" and the name it would give is never read."

// validConfig is why the swarm passes a mutant that makes NewElector accept a
// configuration it must refuse.
const validConfig = "NewElector accepts a configuration it must refuse; the swarm builds electors only from settings it draws valid."

// reportedCause is why the swarm passes a mutant that changes only the cause
// of a transition.
const reportedCause = "Reporting only: the cause is passed to Metrics.Transition and coverage, never to a decision. " +
	"The protocol tests pass with it; a test of the causes reported for each answer class would catch it."

// encodeCapacity is why a mutant of the capacity Encode starts with is
// equivalent.
const encodeCapacity = "Only the capacity of the buffer Encode starts with changes, and it stays at least 0 " +
	"(append grows the buffer as needed): the same bytes, at most one more allocation."

// codecGapAt judges a mutant of the record codec's fast path (codecGap).
func codecGapAt(fn string, op Operator, original, replacement string, occurrence int) Judgement {
	return Judgement{Kind: KindGap, File: "protocol/record_fast.go", Func: fn, Operator: op, Original: original,
		Replacement: replacement, Occurrence: occurrence, Reason: codecGap}
}

// Triage is the project's judgement of the protocol/ mutants that survive
// the swarm: equivalent ones, excluded from the score, and known gaps of
// the swarm. Keep it sorted by file and function.
var Triage = []Judgement{
	{Kind: KindEquivalent, File: "protocol/campaign.go", Func: "Elector.acquire", Operator: OpOffByOne,
		Original: "0", Replacement: "1", Occurrence: 2,
		Reason: "After a 412 or 404 the follower reads again after 1 ns instead of at once: a delay any scheduler may add, so every run of the mutant is a run of the original."}, // campaign-ab63459f
	{Kind: KindGap, File: "protocol/campaign.go", Func: "Elector.acquire", Operator: OpReturnZero,
		Original: "e.pollWait()", Replacement: "0", Occurrence: 2,
		Reason: "After a grant that came too late the follower reads again at once instead of after a RetryPeriod: one early read, then the same takeover. No checker bounds when a follower reads."}, // campaign-f020fbb1
	{Kind: KindEquivalent, File: "protocol/campaign.go", Func: "Elector.campaign", Operator: OpErrStmt,
		Original: "break", Replacement: "", Occurrence: 1,
		Reason: "Clock.Sleep returns an error only when ctx is done, and the loop's condition ctx.Err() == nil then ends the loop: the break only saves that test."}, // campaign-4f8ce97e
	{Kind: KindGap, File: "protocol/campaign.go", Func: "Elector.campaignStep", Operator: OpReturnOther,
		Original: "e.acquire(ctx, s, nil, CauseNotFound)", Replacement: "e.awaitExpiry(ctx, s, max(e.lastLease, e.cfg.LeaseDuration), false, CauseNotFound)", Occurrence: 1,
		Reason: "A missing object this elector never saw is timed for a lease before it is created, instead of created at once: the first election of a new lock is a lease slower. Safe and live: the swarm judges liveness only after the heal, within a bound of a lease and more."}, // campaign-34d2bddb
	{Kind: KindGap, File: "protocol/campaign.go", Func: "Elector.followPhase", Operator: OpReturnOther,
		Original: "PhaseReading", Replacement: "PhaseAwaitingExpiry", Occurrence: 1, Area: AreaObservability,
		Reason: "followPhase names only the phase reported to Metrics.Transition and Phase()."}, // campaign-7327031b
	{Kind: KindGap, File: "protocol/campaign.go", Func: "Elector.resumeOwn", Operator: OpCompare,
		Original: "w.rec.Token > e.lastGrant", Replacement: "w.rec.Token >= e.lastGrant", Occurrence: 1, Area: AreaObservability,
		Reason: "A grant already judged is judged again by begin, which refuses it again (its deadline has passed: a term begun from it ended at or after that deadline, or was replaced, after which the record is ours again only if someone else wrote our bytes back), so within the assumptions only the cause reported for the transition to acquiring changes (late instead of ok)."}, // campaign-03f0b88c
	{Kind: KindEquivalent, File: "protocol/campaign.go", Func: "Elector.resumeOwn", Operator: OpOffByOne,
		Original: "0", Replacement: "-1", Occurrence: 1,
		Reason: "campaign ignores the wait returned with a term."}, // campaign-a907450d
	{Kind: KindEquivalent, File: "protocol/campaign.go", Func: "Elector.resumeOwn", Operator: OpOffByOne,
		Original: "0", Replacement: "1", Occurrence: 1,
		Reason: "campaign ignores the wait returned with a term."}, // campaign-793e3a4c
	{Kind: KindGap, File: "protocol/campaign.go", Func: "endOf", Operator: OpCompare,
		Original: "len(holder) > MaxIdentityLen", Replacement: "len(holder) >= MaxIdentityLen", Occurrence: 1,
		Reason: "A previous holder of exactly MaxIdentityLen bytes indexes holder[MaxIdentityLen] and panics: every follower taking over a record written by an elector with the longest accepted identity crashes. The swarm does not reach it: its node identities and the holders of the records it writes itself are short. A draw of a foreign record whose holder is exactly MaxIdentityLen bytes would catch it at once."}, // campaign-fe1ef5c2
	{Kind: KindEquivalent, File: "protocol/campaign.go", Func: "endOf", Operator: OpCompare,
		Original: "n > 0", Replacement: "n >= 0", Occurrence: 1,
		Reason: "holder comes from a decoded record and is valid UTF-8 (encoding/json replaces invalid bytes with U+FFFD; the fast parser leaves any string that is not valid UTF-8 to it), so from MaxIdentityLen the loop steps back over at most 3 continuation bytes and never comes near 0."}, // campaign-662819d4
	{Kind: KindEquivalent, File: "protocol/campaign.go", Func: "endOf", Operator: OpOffByOne,
		Original: "0", Replacement: "-1", Occurrence: 1,
		Reason: "holder comes from a decoded record and is valid UTF-8 (encoding/json replaces invalid bytes with U+FFFD; the fast parser leaves any string that is not valid UTF-8 to it), so from MaxIdentityLen the loop steps back over at most 3 continuation bytes and never comes near 0."}, // campaign-8540b83b
	{Kind: KindEquivalent, File: "protocol/campaign.go", Func: "endOf", Operator: OpOffByOne,
		Original: "0", Replacement: "1", Occurrence: 1,
		Reason: "holder comes from a decoded record and is valid UTF-8 (encoding/json replaces invalid bytes with U+FFFD; the fast parser leaves any string that is not valid UTF-8 to it), so from MaxIdentityLen the loop steps back over at most 3 continuation bytes and never comes near 1."}, // campaign-478e5526
	{Kind: KindGap, File: "protocol/campaign.go", Func: "endOf", Operator: OpOffByOne,
		Original: "n--", Replacement: "n -= 2", Occurrence: 1, Area: AreaObservability,
		Reason: "Stepping back by two still stops before a character's first byte, so the cut is valid UTF-8, only a character shorter at times: it changes only PreviousTerm.Holder, the audit link's name of a previous holder longer than MaxIdentityLen, which no elector reads but to check it is not empty."}, // campaign-3b8f4371
	{Kind: KindEquivalent, File: "protocol/campaign.go", Func: "tokenFloor", Operator: OpOffByOne,
		Original: "0", Replacement: "1", Occurrence: 2,
		Reason: "The floor only raises a token: every acquisition's token is already at least highest+1 >= 1 (or math.MaxUint64), so a floor of 1 instead of 0 before 1970 changes nothing."}, // campaign-c4936d00
	{Kind: KindEquivalent, File: "protocol/clock.go", Func: "RealClock.Sleep", Operator: OpOffByOne,
		Original: "0", Replacement: "1", Occurrence: 1,
		Reason: "A Sleep of exactly 1 ns returns at once instead of after a 1 ns timer: Go's timers do not resolve a nanosecond, so the two cannot be told apart by any caller."}, // clock-75e332ae
	{Kind: KindGap, File: "protocol/config.go", Func: "Config.LivenessBound", Operator: OpOffByOne,
		Original: "3", Replacement: "2", Occurrence: 2,
		Reason: "The liveness bound claimed is a RetryPeriod tighter (lease + 2 retry periods + 3 request timeouts) and the elector met it on every seed: the bound's spare RetryPeriod (for a conflict just after the heal) is never needed in the swarm, whose 409s end with the faults."}, // config-4a56544a
	{Kind: KindGap, File: "protocol/config.go", Func: "Config.driftPPM", Operator: OpOffByOne,
		Original: "0", Replacement: "1", Occurrence: 1,
		Reason: "ClockDriftPPM 0 (the default, 1000 ppm) is left at 0 ppm, and a bound of exactly 1 ppm becomes 1000 ppm. The swarm never leaves it 0; with 1 ppm the term gets shorter (safe) or NewElector refuses the drawn settings, which the swarm then runs with its defaults (harness.SwarmPlan)."}, // config-bcbf7d71
	{Kind: KindGap, File: "protocol/config.go", Func: "Config.validate", Operator: OpCompare,
		Original: "c.ClockDriftPPM < 0", Replacement: "c.ClockDriftPPM <= 0", Occurrence: 1,
		Reason: "NewElector refuses ClockDriftPPM 0, the documented default; the swarm always passes a bound."}, // config-34f733f2
	{Kind: KindGap, File: "protocol/config.go", Func: "Config.validate", Operator: OpCompare,
		Original: "c.ClockDriftPPM > MaxClockDriftPPM", Replacement: "c.ClockDriftPPM >= MaxClockDriftPPM", Occurrence: 1,
		Reason: "NewElector refuses the largest drift bound, 100,000 ppm; a swarm draw of it is run with the swarm's defaults instead (harness.SwarmPlan), so the refusal is not seen."}, // config-35ec221a
	{Kind: KindGap, File: "protocol/config.go", Func: "Config.validate", Operator: OpCompare,
		Original: "c.LeaseDuration <= 0", Replacement: "c.LeaseDuration < 0", Occurrence: 1,
		Reason: "A LeaseDuration of 0 is still refused (RenewDeadline > 0 cannot be below it) but under the field RenewDeadline; the swarm never passes one."}, // config-176c9512
	{Kind: KindGap, File: "protocol/config.go", Func: "Config.validate", Operator: OpCompare,
		Original: "c.RetryPeriod <= 0", Replacement: "c.RetryPeriod < 0", Occurrence: 1,
		Reason: "NewElector accepts a RetryPeriod of 0 (no later rule refuses it): an elector that never waits. The swarm never passes one."}, // config-b34bfdfe
	{Kind: KindEquivalent, File: "protocol/config.go", Func: "Config.validate", Operator: OpCompare,
		Original: "c.RetryPeriod >= c.RenewDeadline", Replacement: "c.RetryPeriod > c.RenewDeadline", Occurrence: 1,
		Reason: "RetryPeriod == RenewDeadline also fails the case's second condition (5*RenewDeadline <= 6*RetryPeriod), which returns the same error: the case's outcome is unchanged."}, // config-628eb229
	{Kind: KindGap, File: "protocol/config.go", Func: "Config.validate", Operator: OpOffByOne,
		Original: "0", Replacement: "-1", Occurrence: 2,
		Reason: "A RenewDeadline of 0 is still refused (RetryPeriod > 0 is not below it) but under the field RetryPeriod; the swarm never passes one."}, // config-9bca6ef0
	{Kind: KindGap, File: "protocol/config.go", Func: "Config.validate", Operator: OpOffByOne,
		Original: "0", Replacement: "-1", Occurrence: 5,
		Reason: "NewElector accepts ClockDriftPPM -1 (a negative drift margin); the swarm never passes one."}, // config-cbb51dd6
	{Kind: KindGap, File: "protocol/config.go", Func: "Config.validate", Operator: OpOffByOne,
		Original: "0", Replacement: "1", Occurrence: 1,
		Reason: "A LeaseDuration of 1 ns is still refused (no positive RenewDeadline is below it) but under the field LeaseDuration instead of RenewDeadline; the swarm never passes one."}, // config-d3434aaa
	{Kind: KindGap, File: "protocol/config.go", Func: "Config.validate", Operator: OpOffByOne,
		Original: "6", Replacement: "7", Occurrence: 1,
		Reason: "NewElector refuses retry periods from 5/7 to 5/6 of RenewDeadline; the swarm draws such long ones and, refused, runs its defaults instead (harness.SwarmPlan), so the refusal is not seen."}, // config-81a5eb72
	{Kind: KindGap, File: "protocol/config.go", Func: "Config.validate", Operator: OpReturnOther,
		Original: "bad(\"Callbacks.OnStartedLeading\", \"is nil\")", Replacement: "bad(\"LeaseDuration\", \"must be positive, got %v\", c.LeaseDuration)", Occurrence: 1,
		Reason: "A nil OnStartedLeading is refused naming the wrong field and problem; the swarm never passes one."}, // config-65f688d1
	{Kind: KindGap, File: "protocol/config.go", Func: "Config.validate", Operator: OpReturnOther,
		Original: "bad(\"RenewDeadline\", \"must be positive, got %v\", c.RenewDeadline)", Replacement: "bad(\"RetryPeriod\", \"must be positive, got %v\", c.RetryPeriod)", Occurrence: 1,
		Reason: "A RenewDeadline that is not positive is refused naming the wrong field and problem; the swarm never passes one."}, // config-07317c34
	{Kind: KindGap, File: "protocol/config.go", Func: "Config.validate", Operator: OpReturnZero,
		Original: "&ConfigError{Field: field, Problem: fmt.Sprintf(problem, args...)}", Replacement: "nil", Occurrence: 1,
		Reason: validConfig}, // config-e818a183
	{Kind: KindGap, File: "protocol/config.go", Func: "Config.validate", Operator: OpReturnZero,
		Original: "bad(\"ClockDriftPPM\", \"must be in [0, %d], got %d\", MaxClockDriftPPM, c.ClockDriftPPM)", Replacement: "nil", Occurrence: 1,
		Reason: validConfig}, // config-c9219f40
	{Kind: KindGap, File: "protocol/config.go", Func: "Config.validate", Operator: OpReturnZero,
		Original: "bad(\"RenewDeadline\", \"(%v) must be less than LeaseDuration (%v)\", c.RenewDeadline, c.LeaseDuration)", Replacement: "nil", Occurrence: 1,
		Reason: validConfig}, // config-816abf03
	{Kind: KindGap, File: "protocol/config.go", Func: "Config.validate", Operator: OpReturnZero,
		Original: "bad(\"RenewDeadline\", \"must be positive, got %v\", c.RenewDeadline)", Replacement: "nil", Occurrence: 1,
		Reason: validConfig}, // config-f3ac26ea
	{Kind: KindGap, File: "protocol/config.go", Func: "Config.validate", Operator: OpReturnZero,
		Original: "bad(\"RequestTimeout\", \"(%v, 0 means RetryPeriod) must be at most RenewDeadline/2 (%v)\", rt, c.RenewDeadline/2)", Replacement: "nil", Occurrence: 1,
		Reason: validConfig}, // config-bc2d7525
	{Kind: KindGap, File: "protocol/config.go", Func: "Config.validate", Operator: OpReturnZero,
		Original: "bad(\"Store\", \"is nil\")", Replacement: "nil", Occurrence: 1, Reason: validConfig}, // config-76d3744b
	{Kind: KindGap, File: "protocol/config.go", Func: "const DefaultRetryPeriod", Operator: OpOffByOne,
		Original: "2", Replacement: "3", Occurrence: 1,
		Reason: "DefaultRetryPeriod, a value for users to copy, becomes 3 s; nothing in the elector reads it."}, // config-c53ffe9e
	{Kind: KindGap, File: "protocol/assumptions.go", Func: "DriftMargin", Operator: OpArith,
		Original: "1_000_000 + ppm", Replacement: "1_000_000 - ppm", Occurrence: 1, Area: AreaConfig,
		Reason: "A larger drift margin: NewElector refuses RenewDeadlines near the limit, which the swarm draws and then runs with its own defaults (harness.SwarmPlan), so it cannot see the refusal; for every configuration still accepted the term is RenewDeadline as before."}, // config-020380f7
	{Kind: KindGap, File: "protocol/assumptions.go", Func: "DriftMargin", Operator: OpOffByOne,
		Original: "1_000_000", Replacement: "999999", Occurrence: 1, Area: AreaConfig,
		Reason: "A drift margin a little larger: NewElector refuses a RenewDeadline at the exact limit, which the swarm draws and then runs with its own defaults (harness.SwarmPlan), so it cannot see the refusal; for every configuration still accepted the term is RenewDeadline as before."}, // config-5d3eddd3
	{Kind: KindGap, File: "protocol/assumptions.go", Func: "DriftMargin", Operator: OpOffByOne,
		Original: "2", Replacement: "1", Occurrence: 1, Area: AreaConfig,
		Reason: "A smaller drift margin changes no configuration the original accepts (the term is RenewDeadline either way): it only lets NewElector accept a RenewDeadline beyond the true drift limit."}, // config-a3245080
	{Kind: KindGap, File: "protocol/assumptions.go", Func: "DriftMargin", Operator: OpOffByOne,
		Original: "q++", Replacement: "", Occurrence: 1, Area: AreaConfig,
		Reason: "A drift margin rounded down instead of up changes no configuration the original accepts (the term is RenewDeadline either way): it only lets NewElector accept a RenewDeadline 1 ns beyond the drift limit."}, // config-e15b8797
	{Kind: KindEquivalent, File: "protocol/assumptions.go", Func: "DriftMargin", Operator: OpCompare,
		Original: "hi >= d", Replacement: "hi > d", Occurrence: 1,
		Reason: "hi == d never happens for a lease and drift bound NewElector accepts (hi < 2^18 < d), nor for any int64 lease with ppm in [0, MaxClockDriftPPM]: hi < 2^63*2e5/2^64 = 1e5 < d. The two branches take the same way."}, // assumptions-e417e014
	{Kind: KindGap, File: "protocol/elector.go", Func: "Elector.Leader", Operator: OpArith,
		Original: "now - o.at", Replacement: "now + o.at", Occurrence: 1, Area: AreaObservability,
		Reason: "LeaderInfo.Age is reported wrong."}, // elector-3bf49371
	{Kind: KindGap, File: "protocol/elector.go", Func: "Elector.Lease", Operator: OpCompare,
		Original: "now >= t.deadline", Replacement: "now > t.deadline", Occurrence: 1,
		Reason: "At exactly the local deadline Lease still answers yes: a 1 ns boundary on the monotonic clock. The watchdog ends the term at that instant and followers take over strictly later unless the drift margin is exact to the nanosecond; no run showed it."}, // elector-beb3a2a9
	{Kind: KindEquivalent, File: "protocol/entropy.go", Func: "entropySource.jitter", Operator: OpOffByOne,
		Original: "0", Replacement: "-1", Occurrence: 1,
		Reason: "With limit 0 both return 0 (x % 1 is 0); the mutant only draws 8 more bytes of entropy, as another draw of the same kind, and limit is 0 only for a RetryPeriod under 10 ns."}, // entropy-758884dd
	{Kind: KindEquivalent, File: "protocol/entropy.go", Func: "entropySource.jitter", Operator: OpOffByOne,
		Original: "0", Replacement: "1", Occurrence: 2,
		Reason: "limit is never negative and is 0 only for a RetryPeriod under 10 ns (the swarm draws at least 50 ms): then a wait 1 ns longer, a delay any scheduler may add."}, // entropy-6e83cf08
	{Kind: KindEquivalent, File: "protocol/entropy.go", Func: "entropySource.jitter", Operator: OpOffByOne,
		Original: "1", Replacement: "0", Occurrence: 1,
		Reason: "Jitter in [0, limit) instead of [0, limit]: every wait the mutant draws the original can draw (for other entropy), so every run of the mutant is a run of the original."}, // entropy-5ca78d1b
	{Kind: KindEquivalent, File: "protocol/entropy.go", Func: "entropySource.jitter", Operator: OpReturnOther,
		Original: "0", Replacement: "limit / 2", Occurrence: 1,
		Reason: "limit is never negative (RetryPeriod > 0), so limit/2 is 0 whenever the branch runs: the same value."}, // entropy-82a4227b
	{Kind: KindGap, File: "protocol/health.go", Func: "Elector.Healthy", Operator: OpCompare,
		Original: "over > tolerance", Replacement: "over >= tolerance", Occurrence: 3,
		Reason: "Healthy's tolerance boundary moves by 1 ns. Reporting only: no checker of the swarm reads it."}, // health-4e706e32
	{Kind: KindGap, File: "protocol/health.go", Func: "Elector.Healthy", Operator: OpNegate,
		Original: "over > tolerance", Replacement: "!(over > tolerance)", Occurrence: 1,
		Reason: "Healthy reports a term past its deadline the other way round. Reporting only: no checker of the swarm reads it."}, // health-b4b18f6f
	{Kind: KindGap, File: "protocol/health.go", Func: "Elector.Healthy", Operator: OpNegate,
		Original: "over > tolerance", Replacement: "!(over > tolerance)", Occurrence: 3,
		Reason: "Healthy reports no progress the other way round. Reporting only: no checker of the swarm reads it."}, // health-57541cbc
	{Kind: KindGap, File: "protocol/health.go", Func: "Elector.Healthy", Operator: OpReturnOther,
		Original: "&HealthError{Token: t.lease.Token, Overdue: over, Problem: fmt.Sprintf(\"OnStartedLeading of term %d still runs %v after the term's local deadline\", t.lease.Token, over)}", Replacement: "&HealthError{Overdue: over, Problem: fmt.Sprintf(\"Run has made no progress for %v (phase %v)\", now-e.progress, e.phase)}", Occurrence: 1,
		Reason: "Healthy reports a lingering callback with the no-progress message. Reporting only: no checker of the swarm reads it."}, // health-36abae6f
	{Kind: KindGap, File: "protocol/health.go", Func: "Elector.Healthy", Operator: OpReturnOther,
		Original: "&HealthError{Token: t.lease.Token, Overdue: over, Problem: fmt.Sprintf(\"term %d is not over %v after its local deadline\", t.lease.Token, over)}", Replacement: "&HealthError{Token: t.lease.Token, Overdue: over, Problem: fmt.Sprintf(\"OnStartedLeading of term %d still runs %v after the term's local deadline\", t.lease.Token, over)}", Occurrence: 1,
		Reason: "Healthy reports an overdue term with the lingering callback's message. Reporting only: no checker of the swarm reads it."}, // health-f926538a
	{Kind: KindGap, File: "protocol/health.go", Func: "HealthError.Error", Operator: OpReturnZero,
		Original: "fmt.Sprintf(\"s3lease: %v: %s\", ErrUnhealthy, e.Problem)", Replacement: "\"\"", Occurrence: 1,
		Reason: "HealthError's message is empty. Reporting only: no checker of the swarm reads it."}, // health-f7d433e4
	{Kind: KindGap, File: "protocol/health.go", Func: "HealthzAdaptor.Check", Operator: OpReturnOther,
		Original: "nil", Replacement: "e.Healthy(a.tolerance)", Occurrence: 1,
		Reason: "HealthzAdaptor.Check before SetElector calls Healthy on a nil elector, which panics. Reporting only: no checker of the swarm reads it."}, // health-7534dee5
	{Kind: KindGap, File: "protocol/health.go", Func: "HealthzAdaptor.Check", Operator: OpReturnZero,
		Original: "e.Healthy(a.tolerance)", Replacement: "nil", Occurrence: 1,
		Reason: "HealthzAdaptor.Check always reports healthy. Reporting only: no checker of the swarm reads it."}, // health-b72e20ed
	{Kind: KindGap, File: "protocol/health.go", Func: "HealthzAdaptor.Name", Operator: OpReturnZero,
		Original: "\"leaderElection\"", Replacement: "\"\"", Occurrence: 1,
		Reason: "HealthzAdaptor.Name is empty. Reporting only: no checker of the swarm reads it."}, // health-e23474eb
	{Kind: KindEquivalent, File: "protocol/lead.go", Func: "Elector.extend", Operator: OpOffByOne,
		Original: "0", Replacement: "-1", Occurrence: 2,
		Reason: "Clock.Sleep treats every non-positive duration alike (it yields and returns), so max(-1, x) and max(0, x) give the same wait."}, // lead-87f4a494
	{Kind: KindEquivalent, File: "protocol/lead.go", Func: "Elector.extend", Operator: OpOffByOne,
		Original: "0", Replacement: "1", Occurrence: 1,
		Reason: "The term was just stopped, so its context is cancelled, and Clock.Sleep on a cancelled context returns at once whatever the duration: the lead loop ends either way."}, // lead-bf69f046
	{Kind: KindGap, File: "protocol/lead.go", Func: "Elector.finish", Operator: OpClock,
		Original: "e.clock.Monotonic()", Replacement: "time.Duration(e.clock.Now().UnixNano())", Occurrence: 1, Area: AreaObservability,
		Reason: "The instant a term is stopped (t.stoppedAt) feeds only TermEnd.Held, reported to Metrics.TermEnded."}, // lead-bfc62c0b
	{Kind: KindGap, File: "protocol/lead.go", Func: "Elector.finish", Operator: OpCompare,
		Original: "ctx.Err() != nil", Replacement: "ctx.Err() == nil", Occurrence: 1, Area: AreaObservability,
		Reason: "Swaps the phase reported after a term that did not release (stopped or following)."}, // lead-39c078ad
	{Kind: KindGap, File: "protocol/lead.go", Func: "Elector.finish", Operator: OpErrStmt,
		Original: "e.to(PhaseStopped, cause)", Replacement: "", Occurrence: 1, Area: AreaObservability,
		Reason: "Drops the report of the transition to stopped."}, // lead-200e2618
	{Kind: KindGap, File: "protocol/lead.go", Func: "Elector.renew", Operator: OpClock,
		Original: "e.clock.Now()", Replacement: "time.Unix(0, int64(e.clock.Monotonic()))", Occurrence: 1, Area: AreaObservability,
		Reason: "A renewal's RenewTime, written for humans only, is the monotonic reading as a date."}, // lead-712c23bf
	{Kind: KindEquivalent, File: "protocol/lead.go", Func: "Elector.renew", Operator: OpOffByOne,
		Original: "0", Replacement: "-1", Occurrence: 4,
		Reason: "The term was just stopped, so its context is cancelled, and Clock.Sleep on a cancelled context returns at once whatever the duration: the lead loop ends either way."}, // lead-3649cf65
	{Kind: KindGap, File: "protocol/metrics.go", Func: "Purpose.String", Operator: OpReturnZero,
		Original: "purposeNames[p]", Replacement: "\"\"", Occurrence: 1,
		Reason: "Purpose names are empty. Reporting only: no checker of the swarm reads it."}, // metrics-2bea9b09
	{Kind: KindEquivalent, File: "protocol/object.go", Func: "Elector.read", Operator: OpReturnOther,
		Original: "snapshot{}, fmt.Errorf(\"s3lease: read lock object body: %w\", err)", Replacement: "snapshot{}, errNoETag", Occurrence: 1,
		Reason: "A body that cannot be read is reported as an answer without an ETag: both errors carry no HTTP status and are unknown outcomes to every caller (classify, causeOf), which only log them."}, // object-17028ada
	{Kind: KindGap, File: "protocol/object.go", Func: "Elector.read", Operator: OpOffByOne,
		Original: "0", Replacement: "1", Occurrence: 1,
		Reason: "On a store whose ETags are not MD5s the elector reads its first record three times instead of twice before it takes the same bytes under the same ETag as such a store's: one request more, once per Run, within the request-rate bound's bursts of three. No checker counts the reads; TestETagsThatAreNotMD5s does."}, // object-283e659c
	{Kind: KindGap, File: "protocol/object.go", Func: "Elector.remember", Operator: OpArith,
		Original: "maxWrites-1", Replacement: "maxWrites+1", Occurrence: 1,
		Reason: "Every write of a Run is kept (the list grows without bound): the elector recognises more of its own writes than the 16 it promises, which only keeps it leading where it would step down on a restore of a record of its own from longer ago. Safe and live; the growth of memory is what is wrong, and no checker of the swarm measures a node's memory. (The mutants that forget a write are caught: the pace checker's stepdown rule.)"}, // object-ea90def1
	{Kind: KindGap, File: "protocol/object.go", Func: "Elector.remember", Operator: OpOffByOne,
		Original: "1", Replacement: "0", Occurrence: 2,
		Reason: "Every write of a Run but the first is kept (the list grows without bound): the elector recognises more of its own writes than the 16 it promises, which only keeps it leading where it would step down on a restore of a record of its own from longer ago. Safe and live; the growth of memory is what is wrong, and no checker of the swarm measures a node's memory. (The mutants that forget a write are caught: the pace checker's stepdown rule.)"}, // object-2c347821
	{Kind: KindEquivalent, File: "protocol/object.go", Func: "Elector.write", Operator: OpCancel,
		Original: "defer cancel()", Replacement: "_ = cancel", Occurrence: 1,
		Reason: "The per-call context is used only by the PutObject call, which has returned: not cancelling it leaves its timer to expire on its own, a leak of up to RequestTimeout that changes no decision (vet's lostcancel check is the tool for it)."}, // object-82bd144d
	{Kind: KindEquivalent, File: "protocol/object.go", Func: "Elector.write", Operator: OpErrReturn,
		Original: "err = fmt.Errorf(\"%w: %w\", errNotSent, err) e.reportRequest(\"PutObject\", purpose, CauseNotSent, e.clock.Monotonic()) return \"\", sentWrite{}, err", Replacement: "return \"\", sentWrite{}, err", Occurrence: 2,
		Reason: "Unreachable: every record the elector builds encodes (its identity and lease are validated, tokens are at least 1, nonces are drawn, previous links come from checked records, updates and watermarks are checked by SetWatermark), unless its wall clock reads a year beyond 9999."}, // object-f0457ad4
	{Kind: KindGap, File: "protocol/object.go", Func: "Elector.write", Operator: OpErrStmt,
		Original: "e.reportRequest(\"PutObject\", purpose, CauseNotSent, e.clock.Monotonic())", Replacement: "", Occurrence: 1, Area: AreaObservability,
		Reason: "Drops the request report of a write that could not be sent."}, // object-85d0bdef
	{Kind: KindEquivalent, File: "protocol/object.go", Func: "Elector.readOnce", Operator: OpCancel,
		Original: "defer cancel()", Replacement: "_ = cancel", Occurrence: 1,
		Reason: "The per-call context is used only by the GetObject call and the read of its body, both done when readOnce returns: not cancelling it leaves its timer to expire on its own, a leak of up to RequestTimeout that changes no decision (as Elector.write's)."}, // object-a1fd787b
	{Kind: KindEquivalent, File: "protocol/object.go", Func: "readRecordBody", Operator: OpOffByOne,
		Original: "0", Replacement: "1", Occurrence: 1,
		Reason: "A body announced as 0 bytes is read with io.ReadAll instead of into a 1-byte buffer: both read the whole body, up to maxRecordSize+1 bytes."}, // object-b8529e69
	{Kind: KindEquivalent, File: "protocol/record.go", Func: "Record.Encode", Operator: OpNegate,
		Original: "!ok", Replacement: "!(!ok)", Occurrence: 1,
		Reason: "The fast encoder writes exactly what json.Marshal writes (record_fast_test checks it), so using json.Marshal when it succeeded gives the same bytes; it fails only for a time outside years 0-9999, which the elector never writes."}, // record-ffb320d5
	{Kind: KindEquivalent, File: "protocol/record.go", Func: "Record.Encode", Operator: OpReturnOther,
		Original: "nil, fmt.Errorf(\"s3lease: encode record: %w\", err)", Replacement: "nil, err", Occurrence: 1,
		Reason: "Only the message of an error that write wraps as not sent changes, and the branch is unreachable (see object.go's encode error)."}, // record-fd7deae7
	{Kind: KindEquivalent, File: "protocol/record.go", Func: "Record.Encode", Operator: OpReturnZero,
		Original: "err", Replacement: "nil", Occurrence: 1,
		Reason: "Unreachable: json.Marshal of a record that passed check fails only for a time outside years 0-9999, which the elector never writes."}, // record-41909b66
	{Kind: KindEquivalent, File: "protocol/record.go", Func: "checkSize", Operator: OpReturnOther,
		Original: "nil, fmt.Errorf(\"s3lease: encode record: %w: %d bytes, more than %d\", ErrMalformedRecord, len(body), maxRecordSize)", Replacement: "body, nil", Occurrence: 1,
		Reason: "Unreachable: the elector's records take under 24 KiB (two identities and two updates texts of at most 1 KiB, escaped), far below 64 KiB."}, // record-0fa06080
	{Kind: KindEquivalent, File: "protocol/record.go", Func: "checkSize", Operator: OpReturnZero,
		Original: "fmt.Errorf(\"s3lease: encode record: %w: %d bytes, more than %d\", ErrMalformedRecord, len(body), maxRecordSize)", Replacement: "nil", Occurrence: 1,
		Reason: "Unreachable: the elector's records take under 24 KiB (two identities and two updates texts of at most 1 KiB, escaped), far below 64 KiB."}, // record-56deac0e
	{Kind: KindEquivalent, File: "protocol/record.go", Func: "Record.differsFrom", Operator: OpReturnZero,
		Original: `"holder"`, Replacement: `""`, Occurrence: 1, Reason: readsBackAlways}, // record-ce5ba3f7
	{Kind: KindEquivalent, File: "protocol/record.go", Func: "Record.differsFrom", Operator: OpReturnZero,
		Original: `"token"`, Replacement: `""`, Occurrence: 1, Reason: readsBackAlways}, // record-e756c531
	{Kind: KindEquivalent, File: "protocol/record.go", Func: "Record.differsFrom", Operator: OpReturnZero,
		Original: `"previous.nonce"`, Replacement: `""`, Occurrence: 1, Reason: readsBackAlways}, // record-6f69897a
	{Kind: KindEquivalent, File: "protocol/record.go", Func: "Record.differsFrom", Operator: OpReturnOther,
		Original: `"previous.nonce"`, Replacement: `"previous.ended"`, Occurrence: 1, Reason: readsBackAlways}, // record-1db25d70
	{Kind: KindEquivalent, File: "protocol/record.go", Func: "Record.differsFrom", Operator: OpReturnZero,
		Original: `"previous.ended"`, Replacement: `""`, Occurrence: 1, Reason: readsBackAlways}, // record-f12c74db
	{Kind: KindEquivalent, File: "protocol/record.go", Func: "Record.differsFrom", Operator: OpReturnZero,
		Original: `"previous.watermark"`, Replacement: `""`, Occurrence: 1, Reason: readsBackAlways}, // record-290c085d
	{Kind: KindEquivalent, File: "protocol/record.go", Func: "encodeRecordJSON", Operator: OpCompare,
		Original: "err != nil", Replacement: "err == nil", Occurrence: 1,
		Reason: "encodeRecordJSON is the tests' reference encoder; the elector never calls it."}, // record-16f889aa
	{Kind: KindEquivalent, File: "protocol/record.go", Func: "encodeRecordJSON", Operator: OpReturnOther,
		Original: "nil, err", Replacement: "nil, fmt.Errorf(\"s3lease: encode record: %w\", err)", Occurrence: 1,
		Reason: "encodeRecordJSON is the tests' reference encoder; the elector never calls it."}, // record-352f57dd
	{Kind: KindGap, File: "protocol/record_fast.go", Func: "Record.appendJSON", Operator: OpReturnBool,
		Original: "false", Replacement: "true", Occurrence: 4,
		Reason: "Reached only through Encode on a record a caller builds with a watermark that cannot be written (a year outside 0..9999): the elector never holds one, since SetWatermark refuses it and a time read from a record keeps its zone, so its year and offset stay writable. The codec's tests kill it."}, // record_fast-62a22702
	codecGapAt("Record.appendJSON", OpReturnOther, "append(b, '}'), true", "b, false", 1), // record_fast-8e612359
	{Kind: KindGap, File: "protocol/record_fast.go", Func: "Record.appendJSON", Operator: OpReturnOther,
		Original: "b, false", Replacement: "append(b, '}'), true", Occurrence: 1,
		Reason: "Reached only by a record whose acquisition or renewal time, the node's wall clock, is outside the years 0..9999: no host's clock reads so (Linux keeps its wall clock between 1970 and 2262), the elector compares no wall clocks, and a correct elector would only fail to send such a write, which the swarm covers with writes that are not sent. The codec's tests kill it."}, // record_fast-e7f66e2d
	{Kind: KindEquivalent, File: "protocol/record_fast.go", Func: "Record.appendJSON", Operator: OpReturnZero,
		Original: "b", Replacement: "nil", Occurrence: 3,
		Reason: "appendJSON's result is discarded when it reports false: Encode then calls json.Marshal."}, // record_fast-4e5300d5
	{Kind: KindEquivalent, File: "protocol/record_fast.go", Func: "Record.encodedSizeHint", Operator: OpArith,
		Original: "200 + len(r.Holder) + len(r.Nonce)", Replacement: "200 + len(r.Holder) - len(r.Nonce)", Occurrence: 1,
		Reason: encodeCapacity}, // record_fast-d776b5bc
	{Kind: KindEquivalent, File: "protocol/record_fast.go", Func: "Record.encodedSizeHint", Operator: OpOffByOne,
		Original: "200", Replacement: "201", Occurrence: 1, Reason: encodeCapacity}, // record_fast-f89bd48f
	{Kind: KindEquivalent, File: "protocol/record_fast.go", Func: "Record.encodedSizeHint", Operator: OpReturnZero,
		Original: "n", Replacement: "0", Occurrence: 1, Reason: encodeCapacity}, // record_fast-5785a2b3
	{Kind: KindGap, File: "protocol/record_fast.go", Func: "appendJSONTime", Operator: OpReturnOther,
		Original: "b, false", Replacement: "append(b, '\"'), true", Occurrence: 1,
		Reason: "Reached only by a record whose acquisition or renewal time, the node's wall clock, is outside the years 0..9999: no host's clock reads so (Linux keeps its wall clock between 1970 and 2262), the elector compares no wall clocks, and a correct elector would only fail to send such a write, which the swarm covers with writes that are not sent. The codec's tests kill it."}, // record_fast-d44344d3
	{Kind: KindGap, File: "protocol/record_fast.go", Func: "appendWatermark", Operator: OpReturnOther,
		Original: "b, false", Replacement: "b, true", Occurrence: 1,
		Reason: "Reached only through Encode on a record a caller builds with a watermark that cannot be written (a year outside 0..9999): the elector never holds one, since SetWatermark refuses it and a time read from a record keeps its zone, so its year and offset stay writable. The codec's tests kill it."}, // record_fast-9ae247cc
	codecGapAt("appendWatermark", OpReturnOther, "b, true", "b, false", 1), // record_fast-828e1fb0
	{Kind: KindEquivalent, File: "protocol/record_fast.go", Func: "recordParser.bool", Operator: OpCompare,
		Original: "len(rest) >= 4", Replacement: "len(rest) > 4", Occurrence: 1,
		Reason: "Only a body ending in the four bytes true is parsed differently, and both versions then refuse it (the object needs a closing brace after the value), leaving it to encoding/json."}, // record_fast-2d0642b1
	codecGapAt("recordParser.bool", OpOffByOne, "4", "5", 2),                                     // record_fast-103f017f
	codecGapAt("recordParser.bool", OpOffByOne, "5", "4", 3),                                     // record_fast-d9849331
	codecGapAt("recordParser.bool", OpReturnBool, "true", "false", 2),                            // record_fast-b2c60480
	codecGapAt("recordParser.bool", OpReturnBool, "true", "false", 3),                            // record_fast-628ef71a
	codecGapAt("recordParser.byte", OpOffByOne, "p.i++", "", 1),                                  // record_fast-56d18420
	codecGapAt("recordParser.key", OpCompare, "rest[len(k)] == '\"'", "rest[len(k)] != '\"'", 1), // record_fast-187889e2
	codecGapAt("recordParser.key", OpOffByOne, "0", "1", 2),                                      // record_fast-647c1f2c
	{Kind: KindGap, File: "protocol/record_fast.go", Func: "hex4", Operator: OpOffByOne,
		Original: "4", Replacement: "3", Occurrence: 1,
		Reason: "Reached by a body that ends three hex digits into a \\u escape, which the swarm's near records do: hex4 then reads a byte past the body's end, within the capacity of the elector's read buffer (one byte longer than the body it announced, and zero there), so the escape is refused as before and no run can see it. Given a body of its exact capacity (DecodeRecord is public) it panics: TestDecodeRecordCutInEscape kills it."}, // record_fast-a1ddeb6a
	{Kind: KindEquivalent, File: "protocol/record_fast.go", Func: "hex4", Operator: OpOffByOne,
		Original: "0", Replacement: "-1", Occurrence: 2,
		Reason: "The rune returned with false is never used: the caller refuses the escape on false."}, // record_fast-b5820db1
	{Kind: KindEquivalent, File: "protocol/record_fast.go", Func: "hex4", Operator: OpOffByOne,
		Original: "0", Replacement: "1", Occurrence: 2,
		Reason: "The rune returned with false is never used: the caller refuses the escape on false."}, // record_fast-82ef5854
	{Kind: KindEquivalent, File: "protocol/record_fast.go", Func: "recordParser.foreign", Operator: OpOffByOne,
		Original: "1", Replacement: "0", Occurrence: 2,
		Reason: "For a foreign key with a control character, a byte above ASCII or an escape, foreign returns 0 instead of -1: the key is taken for \"holder\" without being consumed, so the next byte is its quote, not a colon, and the parse fails as before, leaving the body to encoding/json."}, // record_fast-4427dbb5
	{Kind: KindEquivalent, File: "protocol/record_fast.go", Func: "recordParser.key", Operator: OpOffByOne,
		Original: "1", Replacement: "0", Occurrence: 5,
		Reason: "The mutated return runs only for a key that begins with a quote and is none of Record's: the key is then taken for \"holder\" without being consumed, so the next byte is that quote, not a colon, and the parse fails as before, leaving the body to encoding/json."}, // record_fast-cd13a58f
	{Kind: KindEquivalent, File: "protocol/record_fast.go", Func: "recordParser.key", Operator: OpOffByOne,
		Original: "2", Replacement: "1", Occurrence: 1,
		Reason: "With one byte left, the key is refused either way: after the quote nothing is longer than a key."}, // record_fast-600281c2
	{Kind: KindEquivalent, File: "protocol/record_fast.go", Func: "const foreignKey", Operator: OpOffByOne,
		Original: "2", Replacement: "3", Occurrence: 1,
		Reason: "foreignKey is a sentinel: any negative value but -1 (key's refusal) serves, and -3 is compared as -2 was, never shifted or indexed (object tests for it before it uses a key as an index)."}, // record_fast-bb5bb9f4
	codecGapAt("recordParser.object", OpOffByOne, "0", "-1", 3),                          // record_fast-b0e668f9
	codecGapAt("recordParser.object", OpOffByOne, "0", "1", 1),                           // record_fast-459c6575
	codecGapAt("recordParser.object", OpOffByOne, "1", "2", 2),                           // record_fast-2ae7f741
	codecGapAt("recordParser.record", OpReturnZero, "ok", "false", 1),                    // record_fast-79539766
	codecGapAt("recordParser.str", OpArith, "j + 1", "j - 1", 1),                         // record_fast-c974a76c
	codecGapAt("recordParser.str", OpOffByOne, "0x20", "33", 1),                          // record_fast-c1973811
	codecGapAt("recordParser.time", OpArith, "sp.start-1", "sp.start+1", 1),              // record_fast-b4886425
	codecGapAt("recordParser.time", OpOffByOne, "1", "0", 1),                             // record_fast-c27855d5
	codecGapAt("recordParser.time", OpOffByOne, "1", "2", 1),                             // record_fast-21bef42f
	codecGapAt("recordParser.time", OpOffByOne, "1", "2", 2),                             // record_fast-35b7be8d
	codecGapAt("recordParser.uint64", OpCompare, "p.b[p.i] > '9'", "p.b[p.i] >= '9'", 1), // record_fast-46eda1cc
	{Kind: KindEquivalent, File: "protocol/record_fast.go", Func: "recordParser.uint64", Operator: OpOffByOne,
		Original: "0", Replacement: "1", Occurrence: 3,
		Reason: "The value returned with false is never used: every caller gives up the parse on false."}, // record_fast-cc3d4b78
	codecGapAt("recordParser.uint64", OpOffByOne, "p.i++", "", 2),              // record_fast-38b15030
	codecGapAt("recordParser.uint64", OpReturnOther, "0, true", "0, false", 1), // record_fast-897f38f2
	codecGapAt("recordParser.uint64", OpReturnOther, "n, true", "0, false", 1), // record_fast-5f30c445
	{Kind: KindEquivalent, File: "protocol/record_fast.go", Func: "stringSpans.copyStrings", Operator: OpOffByOne,
		Original: "0", Replacement: "1", Occurrence: 1,
		Reason: "copyStrings then builds its string whenever there are spans, empty ones included: the builder gives \"\" for them, and every field is cut from it the same way."}, // record_fast-006d01fa
	{Kind: KindEquivalent, File: "protocol/record_fast.go", Func: "var marshalsAsIs", Operator: OpNegate,
		Original: "c < utf8.RuneSelf", Replacement: "!(c < utf8.RuneSelf)", Occurrence: 1,
		Reason: "Both tables stay empty: the encoder hands every non-empty string to json.Marshal (the same bytes) and the parser's second loop does the first loop's work: the same records and bytes, more slowly."}, // record_fast-b4380ffc
	{Kind: KindEquivalent, File: "protocol/record_fast.go", Func: "var marshalsAsIs", Operator: OpOffByOne,
		Original: "0x20", Replacement: "33", Occurrence: 1,
		Reason: "A space is then neither copied as is by the encoder (it hands the string to json.Marshal, which writes the same bytes) nor skipped fast by the parser (whose second loop accepts it as any printable ASCII): the same bytes and records, more slowly."}, // record_fast-0beed089
	{Kind: KindEquivalent, File: "protocol/record_fast.go", Func: "var marshalsAsIs", Operator: OpReturnZero,
		Original: "u", Replacement: "[256]bool{}", Occurrence: 1,
		Reason: "With no byte marked as unmarshalling as is, the parser's first loop stops at once and its second loop applies the same rules byte by byte (any printable ASCII but quote and backslash, valid UTF-8 above): the same spans, more slowly. The encoder's table is unchanged."}, // record_fast-9478e49a
	{Kind: KindGap, File: "protocol/release.go", Func: "Elector.release", Operator: OpCompare,
		Original: "now >= deadline", Replacement: "now > deadline", Occurrence: 1,
		Reason: "At exactly the local deadline one more release attempt starts, with a timeout of zero: a 1 ns boundary on the node's own clock. Whatever it sends is If-Match the term's ETag after the application returned, harmless as a late release is."}, // release-dcfc3024
	{Kind: KindGap, File: "protocol/release.go", Func: "Elector.release", Operator: OpOffByOne,
		Original: "1", Replacement: "0", Occurrence: 1, Area: AreaObservability,
		Reason: "No attempt is the last: after three attempts that did not settle, the loop ends as before (it counts its attempts), but the elector reports a transition to releasing instead of stopped and does not log that it gave up. Only what is reported changes."}, // release-1954cae0
	{Kind: KindGap, File: "protocol/release.go", Func: "Elector.releaseOnce", Operator: OpErrStmt,
		Original: "e.to(PhaseStopped, CauseMalformed)", Replacement: "", Occurrence: 1, Area: AreaObservability,
		Reason: "Drops the report of the transition to stopped after a check read found a malformed body; the release ends as before."}, // release-bffc77df
	{Kind: KindGap, File: "protocol/s3errors.go", Func: "ClassifyError", Operator: OpReturnOther,
		Original: "ClassConflict", Replacement: "ClassUnknownOutcome", Occurrence: 1, Area: AreaObservability,
		Reason: "A bare 409 (no error code; see the other mutants of this line) is classified as an unknown outcome instead of a conflict. The elector handles both classes the same way on every path (a back-off, or a check read), so only the cause it reports for the transition changes: server error instead of conflict."}, // s3errors-fce2d50f
	{Kind: KindGap, File: "protocol/s3errors.go", Func: "ErrorClass.String", Operator: OpNegate,
		Original: "c >= 0 && int(c) < len(classNames)", Replacement: "!(c >= 0 && int(c) < len(classNames))", Occurrence: 1, Area: AreaObservability,
		Reason: "ErrorClass.String names every class \"ErrorClass(?)\" (and would index out of range for a class that does not exist, which is never made). It is used only in log lines."}, // s3errors-c6bbbe00
	{Kind: KindGap, File: "protocol/s3errors.go", Func: "ErrorClass.String", Operator: OpReturnZero,
		Original: "\"ErrorClass(?)\"", Replacement: "\"\"", Occurrence: 1, Area: AreaObservability,
		Reason: "Only a class outside the named ones, which the elector never makes (a user can, by conversion), prints differently: empty instead of \"ErrorClass(?)\". TestErrorClassString checks it."}, // s3errors-8801e8d8
	{Kind: KindGap, File: "protocol/transitions.go", Func: "Cause.String", Operator: OpCompare,
		Original: "int(c) < len(causeNames)", Replacement: "int(c) <= len(causeNames)", Occurrence: 1,
		Reason: "Cause.String indexes one past its names for a Cause equal to their count, which the elector never makes (a user can, by conversion): a panic there instead of Cause(N)."}, // transitions-45dbf359
	{Kind: KindGap, File: "protocol/transitions.go", Func: "Phase.String", Operator: OpReturnOther,
		Original: "phaseNames[p]", Replacement: "fmt.Sprintf(\"Phase(%d)\", p)", Occurrence: 1,
		Reason: "Every phase is named Phase(N) instead of its name: in logs, metrics labels and the coverage report. The protocol tests pass with it."}, // transitions-b3eec940
	{Kind: KindGap, File: "protocol/transitions.go", Func: "Transition.Declared", Operator: OpCompare,
		Original: "t.Cause < numCauses", Replacement: "t.Cause <= numCauses", Occurrence: 1,
		Reason: "Declared indexes one past its table for a Cause equal to numCauses, which the elector never makes (a user can, by conversion): a panic instead of false."}, // transitions-0a7ab8bb
	{Kind: KindGap, File: "protocol/transitions.go", Func: "causeOf", Operator: OpNegate,
		Original: "ok", Replacement: "!(ok)", Occurrence: 2, Reason: reportedCause}, // transitions-ae63f8c6
	{Kind: KindGap, File: "protocol/transitions.go", Func: "causeOf", Operator: OpReturnOther,
		Original: "CauseOK", Replacement: "CausePreconditionFailed", Occurrence: 1,
		Reason: reportedCause}, // transitions-df885ee5
	{Kind: KindGap, File: "protocol/transitions.go", Func: "causeOf", Operator: OpReturnZero,
		Original: "CauseNotSent", Replacement: "0", Occurrence: 1, Reason: reportedCause}, // transitions-af1435a0
	{Kind: KindGap, File: "protocol/transitions.go", Func: "causeOf", Operator: OpReturnZero,
		Original: "CauseServerError", Replacement: "0", Occurrence: 2, Reason: reportedCause}, // transitions-a2eb35ba
}
