package scenarios

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/s3lease/s3lease/harness"
	"github.com/s3lease/s3lease/protocol"
)

// TestGuidedReproducerReachesLastReleaseCheck: the run a guided campaign
// derived that reaches checking-release --409--> stopped (a release's
// third and last check answered 409, which plain swarm seeds do not reach:
// docs/coverage.md) still reaches it, so that the document's claim that it
// is reachable holds.
func TestGuidedReproducerReachesLastReleaseCheck(t *testing.T) {
	f, err := os.Open(filepath.Join(regressDir, "swarm-guided-last-release-check-409-pass.json"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rep, err := harness.LoadReproducer(f)
	if err != nil {
		t.Fatal(err)
	}
	o, err := rep.Run(false)
	if err != nil {
		t.Fatal(err)
	}
	want := protocol.Transition{From: protocol.PhaseCheckingRelease, Cause: protocol.CauseConflict, To: protocol.PhaseStopped}
	for i, tr := range protocol.Transitions() {
		if tr == want {
			if o.Coverage[0].Name != harness.ElectorTransitionsSet || !o.Reached.Has(i) {
				t.Fatalf("the run no longer reaches %v", want)
			}
			return
		}
	}
	t.Fatalf("%v is not declared", want)
}
