package simrun

// Why a run of the swarm does not reach a point of the elector's coverage
// sets (transitions, answers by phase): what the simulator does not model,
// or what it would take. docs/coverage.md gives the note of every point
// that its runs did not reach; TestCoverageDoc holds every transition the
// document lists as never reached to a note, and every note to a point of
// the sets.

// notSent is why no write fails before it is sent.
const notSent = "A write fails before it is sent only when the elector's entropy (`Config.Entropy`) fails to give it a nonce: " +
	"the records the elector builds always encode (`NewElector` bounds the identity, `SetWatermark` the updates). " +
	"The simulator does not model failing entropy: every node reads a PCG stream that never fails, and `crypto/rand.Reader`, " +
	"the default in production, is documented never to fail but on legacy Linux. " +
	"`TestUnsentWriteIsNotAnOutcome` (package protocol) checks the write itself: never an unknown outcome, neither sent nor remembered."

// lastRelease is why plain swarm seeds do not reach the last release
// attempt's check answered 409 or 403.
const lastRelease = "It is out of the swarm's reach in practice: the elector gives up a release after its third attempt, " +
	"so this takes three release writes in a row answered without a plain success, each followed by a check that failed or found a renewal of ours applied, " +
	"and then this answer to the third check, a read; the swarm answers a read 409 or 403 only when it aims that answer at one request " +
	"(a role's, or a node's Nth read), seldom the third check of a release. The same check answered not at all is reached (see its row)."

var electorNotes = map[string]string{
	"resuming-own --busy--> awaiting-expiry": "Rare in the swarm's seeds: none of seeds 1..40,000 reaches it with this version's draws " +
		"(seed 8311 of an earlier version's did); a guided campaign of the swarm does (`simrun coverage -guided -seeds 10000`, " +
		"from seed 1, at its run 4361). It takes a read that shows a record of a term of the node's own that is over, " +
		"or of an acquisition whose answer was lost, while the last term's OnStartedLeading has not returned yet " +
		"(an application slow to leave its term), and the record's lease not over yet. " +
		"The same record found while the callback runs, its lease over, is reached (`resuming-own --busy--> reading`).",
	"checking-release --5xx--> stopped": "Rare in the swarm's seeds: none of seeds 1..10,000 reaches it with this version's draws; " +
		"seeds 19053 and one more of 10,001..40,000 do. It takes the third release write in a row answered without a plain success, " +
		"then a 500 or 503 to the read that checks it, which the swarm gives a read only through its knobs or an aimed fault. " +
		"The same check answered 5xx after a release that is tried again is reached (`checking-release --5xx--> releasing`).",
	"acquiring --not-sent--> reading":         notSent,
	"acquiring --not-sent--> awaiting-expiry": notSent,
	"renewing --not-sent--> leading":          notSent,
	"releasing --not-sent--> stopped":         notSent,
	"acquiring: not-sent":                     notSent,
	"renewing: not-sent":                      notSent,
	"releasing: not-sent":                     notSent,

	"checking-renewal --late--> stopped": "Out of the simulator's reach: the read that checks a renewal found our renewal applied " +
		"after the term's deadline, and Run's context would have to end after the elector looked at the term's context " +
		"(a child of Run's: had Run's ended before, the term would end as a shutdown) and before the end of the term looks at Run's. " +
		"The elector's code between the two waits on nothing, so the simulator runs it in one step, and it ends a context only between steps. " +
		"In production a cancellation from another goroutine can land in those few instructions: the elector then stops instead of following, " +
		"as it does when Run's context ended earlier.",

	"checking-renewal --expired--> stopped": "Out of the simulator's reach in practice: the watchdog would have to end the term at its deadline while the read " +
		"that checks a renewal is in flight, and Run's context end before Run's goroutine, woken by the term's end, looks at it. " +
		"A watchdog that sleeps until the deadline wakes at the end of Run's context instead if that comes first, even while its node is paused " +
		"past the deadline (it then leaves the term to end as a shutdown); it sees the deadline undisturbed only if it has not started sleeping yet, " +
		"at the very start of a term, " +
		"before any renewal has been checked (which is how the swarm reaches `leading --expired--> stopped` and `renewing --expired--> stopped`: " +
		"a pause from a term's first step past its deadline, with a stop during it). " +
		"Otherwise the stop would have to land at the very instant of the deadline, between the watchdog's step and Run's goroutine's: " +
		"the deadline is the elector's own, on its own clock, and no draw aims a stop at it. In production a cancellation can land at that instant.",

	"checking-release --409--> releasing": "Rare in the swarm's seeds: of seeds 1..40,000 none reaches it since the swarm draws names, " +
		"watermark applications, spellings and edits (seed 9671 did before); a guided campaign of the swarm reaches it " +
		"(`simrun coverage -guided -seeds 10000` with the swarm's draws of this version: from seed 1 at its run 7356, " +
		"from `-start 10001` at its run 6856). " +
		"It takes a release write answered without a plain success, then the read that checks it answered 409, " +
		"which the swarm gives a read only when it aims that answer at one request (a role's, or a node's Nth read). " +
		"The same check answered 5xx, 403 or not at all is reached (see their rows).",
	"checking-release: 409": "The answer of both transitions `checking-release --409--> releasing` and `checking-release --409--> stopped`: " +
		"see their rows.",
	"checking-release --409--> stopped": "Reachable outside the swarm's seeds: a guided campaign of the swarm reached it " +
		"(`simrun coverage -guided -seeds 10000` from seed 1, at its run 9146, with the swarm's draws of an earlier version; " +
		"not within 10,000 runs from seed 1 with this version's); " +
		"`scenarios/testdata/regress/swarm-guided-last-release-check-409-pass.json` is a run a guided campaign derived, " +
		"and `TestGuidedReproducerReachesLastReleaseCheck` (package scenarios) checks that it still reaches it. " + lastRelease,
	"checking-release --refused--> stopped": "Reachable outside the swarm's seeds: a guided campaign of the swarm reached it " +
		"(`simrun coverage -guided -seeds 10000 -start 10001`, at its run 5659, with the swarm's draws of an earlier version); " +
		"`scenarios/testdata/regress/swarm-guided-last-release-check-403-pass.json` is that run, " +
		"and `TestGuidedReproducerReachesLastReleaseCheck` (package scenarios) checks that it still reaches it. " + lastRelease,
}
