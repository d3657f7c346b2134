package scenarios

import "time"

// UnconditionalWrite is failure mode 11 in the broken design that has it:
// the naive lock acquiring by a read followed by an unconditional write.
// The harness must catch it; CreateRace is the production elector in the
// same contention.
var UnconditionalWrite = register(Scenario{
	Name: "unconditional-write",
	Doc: "Five nodes run a naive lock that reads the object and, finding it absent, released or expired, " +
		"writes it without a precondition; nodes that read at the same time all \"win\" the same token, " +
		"and the harness reports two holders of one token. Compare create-race.",
	Expect: Caught,
	Build: func(seed uint64) Setup {
		p := NaiveLock{Lease: 4 * time.Second, Unconditional: true}.Protocol()
		return Setup{Config: baseConfig(seed, p), Protocol: p}
	},
})
