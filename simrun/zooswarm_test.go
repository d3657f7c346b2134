package simrun

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/s3lease/s3lease/internal/schema"
)

// TestZooSwarmCatchesEveryVariant: zoo -swarm runs the thirteen variants and
// the masked ones under plain swarm seeds, catches each within 1000 seeds
// while the careful control passes them all, reports the median and
// longest time to a catch, and exits 0; with a budget too small to catch
// them all it exits 1.
func TestZooSwarmCatchesEveryVariant(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the whole zoo")
	}
	var out, errOut bytes.Buffer
	code := run([]string{"zoo", "-swarm", "-seeds", "1000", "-json"}, &out, &errOut)
	var z schema.Zoo
	if err := json.Unmarshal(out.Bytes(), &z); err != nil {
		t.Fatalf("%v\n%s%s", err, out.String(), errOut.String())
	}
	if code != exitOK || !z.Swarm || z.Variants != 18 || z.Caught != 18 || !z.ControlPassed {
		t.Fatalf("exit %d, %d of %d variants caught, control passed %v\n%s", code, z.Caught, z.Variants, z.ControlPassed, out.String())
	}
	masked := 0
	for _, r := range z.Rows {
		if r.Masked {
			masked++
		}
		if !r.Control && (r.Seeds > 1000 || r.Seed == 0 || r.Wall > z.MaxCatch) {
			t.Errorf("%s: caught at seed %d after %d seeds in %v (longest %v)", r.Scenario, r.Seed, r.Seeds, r.Wall, z.MaxCatch)
		}
	}
	if masked != 5 || z.MedianCatch <= 0 || z.MedianCatch > z.MaxCatch {
		t.Errorf("%d masked rows, median %v, longest %v", masked, z.MedianCatch, z.MaxCatch)
	}
	out.Reset()
	if code := run([]string{"zoo", "-swarm", "-seeds", "3"}, &out, &errOut); code != 1 {
		t.Errorf("zoo -swarm -seeds 3 exited %d; want 1 (not every variant caught)\n%s", code, out.String())
	}
}
