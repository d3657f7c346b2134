package simrun

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/s3lease/s3lease/internal/schema"
)

// TestRunThroughTheSDK: `run -s3 sdk` finds the failures the fast path
// finds, on the same seeds, and its replay commands name the path and
// give the same run again.
func TestRunThroughTheSDK(t *testing.T) {
	runs := map[string]schema.Run{}
	for _, path := range []string{"fast", "sdk"} {
		var out, errOut bytes.Buffer
		run([]string{"run", "-scenario", "zoo/no-watchdog", "-seeds", "60", "-s3", path, "-json"}, &out, &errOut)
		var sum schema.Run
		if err := json.Unmarshal(out.Bytes(), &sum); err != nil {
			t.Fatalf("-s3 %s: %v\n%s%s", path, err, out.String(), errOut.String())
		}
		runs[path] = sum
	}
	fast, sdk := runs["fast"], runs["sdk"]
	if len(sdk.Failures) == 0 || len(sdk.Failures) != len(fast.Failures) {
		t.Fatalf("failures: fast %d, sdk %d; want the same, at least one", len(fast.Failures), len(sdk.Failures))
	}
	for i, f := range sdk.Failures {
		if f.Seed != fast.Failures[i].Seed || f.Verdict != fast.Failures[i].Verdict {
			t.Errorf("failure %d: sdk seed %d %s, fast seed %d %s", i, f.Seed, f.Verdict, fast.Failures[i].Seed, fast.Failures[i].Verdict)
		}
		if !strings.HasSuffix(f.Replay, " -s3 sdk") {
			t.Fatalf("replay command %q does not name the SDK path", f.Replay)
		}
	}
	f := sdk.Failures[0]
	args := strings.Fields(f.Replay)[3:] // after "go run ./cmd/simrun"
	var out, errOut bytes.Buffer
	run(append(args, "-json"), &out, &errOut)
	var rep schema.Replay
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil || rep.Hash != f.Hash {
		t.Fatalf("replay %v: hash %q, %v; want %s, the run of the campaign", args, rep.Hash, err, f.Hash)
	}
}
