package simrun

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/s3lease/s3lease/internal/schema"
	"github.com/s3lease/s3lease/sim"
)

// tokensRepro is a reproducer whose plan holds the two largest tokens: a
// record before the run with MaxUint64 - 1, an overwrite with MaxUint64.
// Its tokens are numbers, as files written before tokens were text have
// them: they still read.
const tokensRepro = `{"version":1,"scenario":"swarm","seed":1,"plan":{"healAt":"20s",
"initial":{"record":{"holder":"intruder","token":18446744073709551614}},
"events":[{"kind":"overwrite","at":"3s","record":{"holder":"intruder","token":18446744073709551615}}],"s3":{}}}`

// TestTokensSurviveFloat64Readers: every document writes fencing tokens as
// decimal strings, so that jq (whose numbers are float64) and a decoder
// that reads numbers as float64, as JavaScript does, keep MaxUint64 and
// MaxUint64-1 apart, and a document passed through jq decodes to the same
// tokens. As numbers, both read as 18446744073709551616.
func TestTokensSurviveFloat64Readers(t *testing.T) {
	if float64(uint64(math.MaxUint64)) != float64(uint64(math.MaxUint64-1)) {
		t.Fatal("float64 tells MaxUint64 from MaxUint64-1: the test shows nothing")
	}
	path := filepath.Join(t.TempDir(), "tokens.json")
	if err := os.WriteFile(path, []byte(tokensRepro), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := simrun("replay", path, "-json")
	if code == exitUsage || code == exitCrashed {
		t.Fatalf("replay -json: exit %d: %s", code, errOut)
	}
	want := []string{strconv.FormatUint(math.MaxUint64-1, 10), strconv.FormatUint(math.MaxUint64, 10)}

	// A float64 reader, as JavaScript: the tokens are strings, exact.
	var doc any
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	plan := doc.(map[string]any)["plan"].(map[string]any)
	initial := plan["initial"].(map[string]any)["record"].(map[string]any)["token"]
	overwrite := plan["events"].([]any)[0].(map[string]any)["record"].(map[string]any)["token"]
	if initial != want[0] || overwrite != want[1] {
		t.Fatalf("read as float64 numbers are: tokens %#v and %#v, want %q", initial, overwrite, want)
	}
	if problems := schema.Conventions(doc); len(problems) > 0 {
		t.Fatalf("the replay document breaks the conventions: %v", problems)
	}

	jq, err := exec.LookPath("jq")
	if err != nil {
		t.Skip("jq is not installed (apt-get install -y jq): the round trip through jq is not checked")
	}
	// jq reads every token, and keeps the two apart.
	cmd := exec.Command(jq, "-r", "[.plan.initial.record.token, .plan.events[0].record.token] | .[]")
	cmd.Stdin = strings.NewReader(out)
	got, err := cmd.Output()
	if err != nil {
		t.Fatalf("jq: %v", err)
	}
	if lines := strings.Fields(string(got)); !slices.Equal(lines, want) {
		t.Fatalf("jq reads the tokens as %q, want %q", lines, want)
	}
	// Through jq and back: the same document, token for token.
	cmd = exec.Command(jq, ".")
	cmd.Stdin = strings.NewReader(out)
	through, err := cmd.Output()
	if err != nil {
		t.Fatalf("jq: %v", err)
	}
	var before, after schema.Replay
	if err := sim.StrictUnmarshal([]byte(out), &before); err != nil {
		t.Fatal(err)
	}
	if err := sim.StrictUnmarshal(through, &after); err != nil {
		t.Fatalf("the document through jq no longer decodes: %v", err)
	}
	b1, _ := json.Marshal(before)
	b2, _ := json.Marshal(after)
	if !bytes.Equal(b1, b2) {
		t.Fatal("the document through jq decodes to another one")
	}
	if after.Plan.Initial.Record.Token != math.MaxUint64-1 || after.Plan.Events[0].Record.Token != math.MaxUint64 {
		t.Fatalf("through jq: tokens %d and %d", after.Plan.Initial.Record.Token, after.Plan.Events[0].Record.Token)
	}
}
