package scenarios

import (
	"time"

	"github.com/s3lease/s3lease/faults"
	"github.com/s3lease/s3lease/harness"
	"github.com/s3lease/s3lease/harness/elector"
	"github.com/s3lease/s3lease/zoo"
)

// TornRead is a store that breaks the atomicity of its updates
// (docs/conformance.md, race-get-put: versitygw v1.8.0 answered reads
// that raced a write with the body of one version and the ETag of
// another), at hand-overs: the leader is stopped four times and releases,
// and the followers take the released record over while S3 is slow, so
// that their reads are still under way when the first taker's write
// lands, and S3 answers each of them torn. A follower shown the released
// body under the new term's ETag would take the "released" record at once,
// If-Match that ETag, with that term's token. The elector reads a body
// that does not match its ETag again (protocol's package documentation,
// "Torn reads"): torn reads are inside its assumptions, and it survives.
var TornRead = harness.Scenario{
	Name: "torn-read",
	Doc: "S3 answers every read that races a write torn (the body of one version, the ETag of another, as versitygw v1.8.0 did), " +
		"at four hand-overs while S3 is slow: the elector reads a body that does not match its ETag again, and survives",
	Expect: harness.Survives,
	Build:  func(seed uint64) harness.Setup { return tornReadSetup(seed, elector.Protocol(elector.DefaultSettings)) },
}

// TornReadTrusted is the same story with the zoo's lock that believes a
// torn body (zoo's trusts-torn-reads): it takes the released record at
// once beside the new leader, with the new leader's token, and is caught.
var TornReadTrusted = harness.Scenario{
	Name: "torn-read-trusted",
	Doc: "torn-read with the zoo's lock that believes a body whatever its ETag says: shown the released record under the new term's ETag, " +
		"it takes it at once, If-Match that ETag, with the new leader's token, and leads beside it",
	Expect: harness.Caught,
	Build: func(seed uint64) harness.Setup {
		for _, v := range zoo.Variants() {
			if v.Name == "trusts-torn-reads" {
				return tornReadSetup(seed, v.Protocol())
			}
		}
		panic("scenarios: no zoo variant trusts-torn-reads")
	},
}

// tornReadAt are the instants the leader is stopped (and restarted a
// second later), each a hand-over.
var tornReadAt = []time.Duration{6 * time.Second, 12 * time.Second, 18 * time.Second, 24 * time.Second}

// tornReadSetup is the story's run for protocol p: five nodes, torn reads
// and slow S3 (each leg 300 ms late, a read's round trip still within the
// request timeout) from 4 s to the heal at 30 s.
func tornReadSetup(seed uint64, p harness.Protocol) harness.Setup {
	cfg := harness.World(seed)
	cfg.Duration = 45 * time.Second
	plan := &faults.Plan{HealAt: faults.Duration(30 * time.Second), S3: faults.Knobs{TornPPM: 1_000_000}, Events: []faults.Event{
		{Kind: faults.SlowS3, At: faults.Duration(4 * time.Second), For: faults.Duration(25 * time.Second), By: faults.Duration(300 * time.Millisecond)},
	}}
	for _, at := range tornReadAt {
		plan.Events = append(plan.Events, faults.Event{Kind: faults.Stop, Role: faults.RoleLeader, At: faults.Duration(at), For: faults.Duration(time.Second)})
	}
	return harness.Setup{Config: cfg, Plan: plan, Protocol: p}
}
