package main

import (
	"bytes"
	"strings"
	"testing"
)

// TestVetFlagsFixtureAndPassesProtocol: simrun vet reports the real clock,
// real sleeping and global randomness in a fixture protocol package (exit
// 1, one file:line:col line each), and finds nothing in the production
// elector's package (exit 0).
func TestVetFlagsFixtureAndPassesProtocol(t *testing.T) {
	var out, errOut bytes.Buffer
	code := run([]string{"vet", "../../simvet/testdata/src/flagged"}, &out, &errOut)
	if code != 1 {
		t.Fatalf("simrun vet on the fixture: exit %d, want 1\n%s%s", code, out.String(), errOut.String())
	}
	for _, want := range []string{"time.Now", "time.Sleep", "math/rand.Intn", "go statement", "channel receive"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("simrun vet does not report %s:\n%s", want, out.String())
		}
	}
	out.Reset()
	errOut.Reset()
	if code := run([]string{"vet", "../../protocol"}, &out, &errOut); code != exitOK {
		t.Errorf("simrun vet ../../protocol: exit %d, want 0\n%s%s", code, out.String(), errOut.String())
	}
	if code := run([]string{"vet", "./no-such-package"}, &out, &errOut); code != exitUsage {
		t.Errorf("simrun vet on a missing package: exit %d, want %d", code, exitUsage)
	}
}
