package simrun

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/s3lease/s3lease/internal/schema"
)

// TestZooShrinkWritesFiles: zoo -shrink writes each caught variant's shrunk
// reproducer to -out as VARIANT.min.json, names it in its row, and says
// where in the summary; each file replays as it records.
func TestZooShrinkWritesFiles(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "shrunk")
	code, out, errOut := simrun("zoo", "-seeds", "30", "-shrink", "20", "-out", dir, "-json")
	if code == exitUsage || code == exitCrashed {
		t.Fatalf("zoo -shrink: exit %d: %s", code, errOut)
	}
	var z schema.Zoo
	if err := json.Unmarshal([]byte(out), &z); err != nil {
		t.Fatal(err)
	}
	written := 0
	for _, r := range z.Rows {
		if r.ShrunkEvents == nil {
			if r.Shrunk != "" {
				t.Errorf("%s: not shrunk, but a file %s", r.Scenario, r.Shrunk)
			}
			continue
		}
		want := filepath.Join(dir, strings.TrimPrefix(r.Scenario, "zoo/")+".min.json")
		if r.Shrunk != want {
			t.Errorf("%s: shrunk reproducer %q, want %q", r.Scenario, r.Shrunk, want)
			continue
		}
		if code, _, errOut := simrun("replay", "-expect", "recorded", r.Shrunk); code != exitOK {
			t.Errorf("%s: replay -expect recorded: exit %d: %s", r.Scenario, code, errOut)
		}
		written++
	}
	entries, _ := os.ReadDir(dir)
	if written == 0 || len(entries) != written {
		t.Fatalf("%d rows shrunk, %d files in %s", written, len(entries), dir)
	}
	code, out, _ = simrun("zoo", "-seeds", "30", "-shrink", "20", "-out", dir)
	if !strings.Contains(out, "shrunk reproducers: "+dir+"/VARIANT.min.json") {
		t.Errorf("zoo -shrink: exit %d; the summary does not say where the shrunk reproducers are:\n%s", code, out)
	}
}
