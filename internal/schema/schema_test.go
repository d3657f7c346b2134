package schema_test

import (
	"errors"
	"testing"

	"github.com/s3lease/s3lease/harness"
	"github.com/s3lease/s3lease/internal/schema"
)

func TestReadHeaderRefusesAnotherVersion(t *testing.T) {
	if h, err := schema.ReadHeader([]byte(`{"schema": 2, "command": "run", "seeds": 3}`)); err != nil || h.Command != "run" {
		t.Fatalf("ReadHeader = %+v, %v; want the run header", h, err)
	}
	for _, doc := range []string{`{"schema": 1, "command": "run"}`, `{"command": "run"}`} {
		if _, err := schema.ReadHeader([]byte(doc)); !errors.Is(err, schema.ErrVersion) {
			t.Errorf("ReadHeader(%s) = %v; want ErrVersion", doc, err)
		}
	}
	if _, err := schema.ReadHeader([]byte(`[1]`)); err == nil || errors.Is(err, schema.ErrVersion) {
		t.Errorf("ReadHeader of a list = %v; want a decoding error", err)
	}
}

// TestCountsWorst: the worst verdict counted follows the harness's
// severity order, and a nondeterministic seed counts as a crash.
func TestCountsWorst(t *testing.T) {
	var c schema.Counts
	if c.Worst() != harness.Pass {
		t.Fatalf("no seeds: worst %v", c.Worst())
	}
	for _, v := range harness.Verdicts() {
		var one schema.Counts
		*one.Of(v) = 1
		c.Add(one)
		if one.Worst() != v || one.Seeds() != 1 {
			t.Errorf("one seed judged %v: worst %v, %d seeds", v, one.Worst(), one.Seeds())
		}
	}
	if c.Worst() != harness.Unsafe || c.Failures() != c.Seeds()-1 {
		t.Errorf("one seed of each verdict: worst %v, %d failures of %d", c.Worst(), c.Failures(), c.Seeds())
	}
	if (schema.Counts{Nondeterministic: 1}).Worst() != harness.Crashed {
		t.Error("a nondeterministic seed does not count as crashed")
	}
}
