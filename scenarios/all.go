package scenarios

import "github.com/s3lease/s3lease/harness"

// All is every scenario of the package, for a program's simrun.Main and
// for tests that walk them: the production elector's default campaign
// (swarm) and the benchmark's (reference), then the stories of the
// failure-mode catalogue in its order, then seed 003's watermark hand-off,
// then a store that tears reads.
func All() []harness.Scenario {
	return []harness.Scenario{
		Swarm, Reference,
		PausePastLease, LateWrite, LateGrant, HungRenew, ZombieApp, WallClockJump,
		ClockSkew, DriftBeyondBound, NaiveSkew, ElectorSkew, VMSuspend, MixedLeases,
		AmbiguousWrite, WriteConflict, CreateRace, UnconditionalWrite, ReleaseInFlight,
		RenewConflict, LeaderCrash, ManyCandidates, RestoredRecord, DeleteLock, OverwriteLock,
		WatermarkHandoff, WatermarkIgnored, TornRead, TornReadTrusted,
	}
}
