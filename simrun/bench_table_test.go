package simrun

import (
	"bytes"
	"strconv"
	"strings"
	"testing"
)

// TestBenchTable: bench -table prints one Markdown row per scenario of the
// table, each with eight cells, the rates and ratios positive.
func TestBenchTable(t *testing.T) {
	var out, errOut bytes.Buffer
	if code := run([]string{"bench", "-table", "-seeds", "10", "-quiet"}, &out, &errOut); code != exitOK {
		t.Fatalf("exit %d: %s%s", code, out.String(), errOut.String())
	}
	rows := map[string][]string{}
	for _, line := range strings.Split(out.String(), "\n") {
		cells := strings.Split(strings.Trim(line, "| "), " | ")
		if len(cells) == 8 && (cells[0] == "reference" || cells[0] == "swarm") {
			rows[cells[0]] = cells
		}
	}
	for _, name := range tableScenarios {
		cells, ok := rows[name]
		if !ok {
			t.Fatalf("no row for %s in:\n%s", name, out.String())
		}
		for _, i := range []int{1, 6, 7} {
			if f, err := strconv.ParseFloat(cells[i], 64); err != nil || f <= 0 {
				t.Errorf("%s: cell %d is %q, want a positive number", name, i, cells[i])
			}
		}
	}
}
