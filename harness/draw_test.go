package harness_test

import (
	"reflect"
	"testing"

	"github.com/s3lease/s3lease/faults"
	"github.com/s3lease/s3lease/harness"
	"github.com/s3lease/s3lease/harness/elector"
	"pgregory.net/rapid"
)

// TestEntryPointsDrawTheSameRun: the CLI's swarm (Swarm's Build, a seed's
// stream), Check (DrawRun from rapid's choices) and Fuzz (DrawRun from a
// fuzzer's bytes) read one generator: the same choices give the same
// plan, nodes and duration whichever reads them. A swarm seed's choices,
// replayed or written as a fuzz input's bytes, draw the swarm's run for
// that seed, and so does the fuzz input of the seed with no bytes; the
// choices rapid drew for Check, replayed through the swarm's Draw or
// given to Fuzz as bytes, draw the run Check ran.
func TestEntryPointsDrawTheSameRun(t *testing.T) {
	p := elector.Protocol(elector.DefaultSettings)
	sc := harness.Swarm(p.Name, p)
	same := func(t interface{ Fatalf(string, ...any) }, what string, a, b harness.Draw) {
		if a.Nodes != b.Nodes || a.Duration != b.Duration || !reflect.DeepEqual(a.Plan, b.Plan) {
			t.Fatalf("%s draws another run:\n%+v\n%+v", what, a.Plan, b.Plan)
		}
	}
	for seed := uint64(1); seed <= 50; seed++ {
		src := faults.NewSource(seed)
		swarm := harness.DrawRun(src, seed, p)
		built := sc.Build(seed)
		same(t, "the swarm's Build", swarm, harness.Draw{Nodes: built.Config.Nodes, Duration: faults.Duration(built.Config.Duration), Plan: built.Plan})
		c := src.Choices()
		same(t, "the seed's choices replayed", swarm, harness.DrawRun(faults.Replay(c, nil), seed, p))
		same(t, "the fuzz input of the seed and no bytes", swarm, harness.DrawRun(faults.FromBytes(seed, nil), seed, p))
		same(t, "the seed's choices as a fuzz input's bytes", swarm, harness.DrawRun(faults.FromBytes(seed+1, c.Bytes()), seed, p))
	}
	rapid.Check(t, func(rt *rapid.T) {
		src := harness.RapidSource(rt)
		checked := harness.DrawRun(src, 7, p)
		c := src.Choices()
		same(rt, "rapid's choices replayed", checked, harness.DrawRun(faults.Replay(c, nil), 7, p))
		same(rt, "rapid's choices as a fuzz input's bytes", checked, harness.DrawRun(faults.FromBytes(8, c.Bytes()), 7, p))
		d := sc.Draw(7, faults.Replay(c, nil))
		same(rt, "rapid's choices through the swarm's Draw", checked, harness.Draw{Nodes: d.Config.Nodes, Duration: faults.Duration(d.Config.Duration), Plan: d.Plan})
	})
}
