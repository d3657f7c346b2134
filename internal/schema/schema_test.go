package schema_test

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/s3lease/s3lease/harness"
	"github.com/s3lease/s3lease/internal/schema"
)

// TestReadHeaderRefusesAnotherVersion: documents of this version and of
// the older ones still read (version 2, whose tokens were numbers) read;
// others, and documents without a version, are refused.
func TestReadHeaderRefusesAnotherVersion(t *testing.T) {
	for _, v := range []string{"2", "3"} {
		if h, err := schema.ReadHeader([]byte(`{"schema": ` + v + `, "command": "run", "seeds": 3}`)); err != nil || h.Command != "run" {
			t.Fatalf("ReadHeader of version %s = %+v, %v; want the run header", v, h, err)
		}
	}
	for _, doc := range []string{`{"schema": 1, "command": "run"}`, `{"schema": 4, "command": "run"}`, `{"command": "run"}`} {
		if _, err := schema.ReadHeader([]byte(doc)); !errors.Is(err, schema.ErrVersion) {
			t.Errorf("ReadHeader(%s) = %v; want ErrVersion", doc, err)
		}
	}
	if _, err := schema.ReadHeader([]byte(`[1]`)); err == nil || errors.Is(err, schema.ErrVersion) {
		t.Errorf("ReadHeader of a list = %v; want a decoding error", err)
	}
}

// TestConventionsWantTokensAsText: a token as a number breaks the
// conventions; as a decimal string it keeps them.
func TestConventionsWantTokensAsText(t *testing.T) {
	for doc, bad := range map[string]bool{
		`{"token": "18446744073709551615", "tokens": ["1", "2"]}`: false,
		`{"tokens": 3, "nested": {"tokens": true}}`:               false,
		`{"token": 18446744073709551615}`:                         true,
		`{"overlap": {"tokens": [1, "2"]}}`:                       true,
		`{"token": "-1"}`:                                         true,
	} {
		var v any
		if err := json.Unmarshal([]byte(doc), &v); err != nil {
			t.Fatal(err)
		}
		if got := len(schema.Conventions(v)) > 0; got != bad {
			t.Errorf("%s: conventions broken %v, want %v", doc, got, bad)
		}
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
