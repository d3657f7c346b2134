package scenarios

import (
	"testing"

	"github.com/s3lease/s3lease/harness"
	"github.com/s3lease/s3lease/harness/elector"
	"github.com/s3lease/s3lease/linearizability"
	"github.com/s3lease/s3lease/protocol"
)

// TestWatermarkLimitIsTheDocumentedOne: the application's limit is the
// elector's.
func TestWatermarkLimitIsTheDocumentedOne(t *testing.T) {
	if maxUpdatesLen != protocol.MaxUpdatesLen {
		t.Fatalf("the application keeps updates to %d bytes, the elector to %d", maxUpdatesLen, protocol.MaxUpdatesLen)
	}
}

// watermarkSeeds are the first n swarm seeds that draw the watermark
// application.
func watermarkSeeds(n int) []uint64 {
	var out []uint64
	for s := uint64(1); len(out) < n; s++ {
		if drawWatermarks(s) != nil {
			out = append(out, s)
		}
	}
	return out
}

// TestSwarmWatermarkApplication: on the swarm seeds that draw it, the
// watermark application writes entries and the production elector passes
// (the hand-off holds, and the API keeps its contract); the same seeds
// with an application that ignores the watermark it is handed are caught
// by the watermark checker's below-predecessor rule.
func TestSwarmWatermarkApplication(t *testing.T) {
	broken := withWatermarkApplication(harness.Swarm("swarm-watermarks-ignored", elector.Protocol(elector.DefaultSettings)), elector.DefaultSettings, true)
	caught := 0
	for _, seed := range watermarkSeeds(40) {
		st := Swarm.Build(seed)
		o, err := harness.RunSetup(st, false)
		if err != nil {
			t.Fatal(err)
		}
		if o.Verdict != harness.Pass {
			t.Errorf("seed %d: %s %v", seed, o.Verdict, o.Violations)
		}
		if len(o.Excused) == 0 {
			if v := append(st.Audit(o.Result), linearizability.CheckWatermarks(st.Watermarks(o.Result))...); len(v) > 0 {
				t.Errorf("seed %d: the audit finds %v in a run that passed with nothing excused", seed, v)
			}
		}
		bo, err := harness.RunSeed(broken, seed, false)
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range bo.Violations {
			if v.Checker == linearizability.WatermarkChecker && v.Rule == linearizability.RuleBelowPredecessor {
				caught++
				break
			}
		}
	}
	if caught < 5 {
		t.Errorf("the application that ignores its hand-over is caught on %d of 40 seeds; want at least 5", caught)
	}
	t.Logf("caught on %d of 40 seeds", caught)
}
