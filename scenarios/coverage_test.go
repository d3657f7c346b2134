package scenarios

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/s3lease/s3lease/harness"
	"github.com/s3lease/s3lease/harness/elector"
	"github.com/s3lease/s3lease/protocol"
)

// TestGuidedReproducerReachesLastReleaseCheck: the runs guided campaigns
// derived that reach checking-release --409--> stopped and
// checking-release --refused--> stopped (a release's third and last check
// answered 409 or 403, which plain swarm seeds do not reach:
// docs/coverage.md) still reach them, so that the document's claim that
// they are reachable holds.
func TestGuidedReproducerReachesLastReleaseCheck(t *testing.T) {
	for file, cause := range map[string]protocol.Cause{
		"swarm-guided-last-release-check-409-pass.json": protocol.CauseConflict,
		"swarm-guided-last-release-check-403-pass.json": protocol.CauseRefused,
	} {
		f, err := os.Open(filepath.Join(regressDir, file))
		if err != nil {
			t.Fatal(err)
		}
		rep, err := harness.LoadReproducer(f)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		o, err := rep.Run(scenario(t, rep.Scenario), false)
		if err != nil {
			t.Fatal(err)
		}
		want := protocol.Transition{From: protocol.PhaseCheckingRelease, Cause: cause, To: protocol.PhaseStopped}
		i := slices.Index(protocol.Transitions(), want)
		if i < 0 {
			t.Fatalf("%v is not declared", want)
		}
		if o.Coverage[0].Name != elector.TransitionsSet || !o.Reached.Has(i) {
			t.Errorf("%s no longer reaches %v", file, want)
		}
	}
}
