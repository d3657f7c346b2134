package scenarios

import (
	"time"

	"github.com/s3lease/s3lease/harness"
	"github.com/s3lease/s3lease/zoo"
)

// UnconditionalWrite is a read then unconditional write
// (docs/failure-modes.md#11-read-then-unconditional-write) in the broken
// design that has it: the naive lock acquiring by a read followed by an
// unconditional write.
// The harness must catch it; CreateRace is the production elector in the
// same contention.
var UnconditionalWrite = harness.Scenario{
	Name: "unconditional-write",
	Doc: "Five nodes run a naive lock that reads the object and, finding it absent, released or expired, " +
		"writes it without a precondition; nodes that read at the same time all \"win\" the same token, " +
		"and the harness reports two holders of one token. Compare create-race.",
	Expect: harness.Caught,
	Build: func(seed uint64) harness.Setup {
		p := zoo.NaiveLock{Lease: 4 * time.Second, Unconditional: true}.Protocol()
		return harness.Setup{Config: harness.World(seed), Protocol: p}
	},
}
