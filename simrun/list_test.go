package simrun

import (
	"bytes"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestListFitsTheTerminal: simrun list prints one line per scenario, each at
// most 100 characters; -v prints every story whole.
func TestListFitsTheTerminal(t *testing.T) {
	var out, errOut bytes.Buffer
	if code := run([]string{"list"}, &out, &errOut); code != exitOK {
		t.Fatalf("simrun list: exit %d, %s", code, errOut.String())
	}
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if len(lines) != len(project.Names()) {
		t.Fatalf("%d lines for %d scenarios", len(lines), len(project.Names()))
	}
	for _, l := range lines {
		if n := utf8.RuneCountInString(l); n > listWidth {
			t.Errorf("a line of %d characters: %s", n, l)
		}
	}
	out.Reset()
	if code := run([]string{"list", "-v"}, &out, &errOut); code != exitOK {
		t.Fatalf("simrun list -v: exit %d", code)
	}
	sc, _ := project.Lookup("naive-skew")
	if !strings.Contains(out.String(), sc.Doc) {
		t.Errorf("simrun list -v does not print naive-skew's story whole")
	}
}
