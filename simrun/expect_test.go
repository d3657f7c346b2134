package simrun

import (
	"bytes"
	"strings"
	"testing"
)

// TestRunExpect: a scenario meant to fail succeeds with -expect when its
// seeds show the expected verdict, and fails when they pass.
func TestRunExpect(t *testing.T) {
	for _, c := range []struct {
		args []string
		code int
		says string
	}{
		{[]string{"run", "-scenario", "naive-skew", "-seeds", "20", "-expect", "unsafe"}, exitOK, "as expected"},
		{[]string{"run", "-scenario", "reference", "-seeds", "5", "-expect", "unsafe"}, 1, "every seed passed"},
		{[]string{"run", "-seeds", "5", "-expect", "pass"}, exitUsage, "want a failing verdict"},
		{[]string{"run", "-seeds", "5", "-expect", "broken"}, exitUsage, "want a failing verdict"},
	} {
		var out, errOut bytes.Buffer
		if code := run(c.args, &out, &errOut); code != c.code || !strings.Contains(errOut.String(), c.says) {
			t.Errorf("simrun %q: exit %d, stderr %q; want %d and %q", c.args, code, errOut.String(), c.code, c.says)
		}
	}
}
