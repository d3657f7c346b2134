package simrun

import (
	"bytes"
	"strings"
	"testing"
)

// TestVersion: simrun version names the module and the revision line, and
// takes no arguments.
func TestVersion(t *testing.T) {
	var out, errOut bytes.Buffer
	if code := run([]string{"version"}, &out, &errOut); code != exitOK || !strings.Contains(out.String(), "revision ") {
		t.Fatalf("simrun version: exit %d, %q %q", code, out.String(), errOut.String())
	}
	if code := run([]string{"version", "extra"}, &out, &errOut); code != exitUsage {
		t.Fatalf("simrun version extra: exit %d, want %d", code, exitUsage)
	}
}
