package schema_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/s3lease/s3lease/harness"
	"github.com/s3lease/s3lease/internal/schema"
)

// TestReadHeaderRefusesAnotherVersion: documents of this version and of
// the older ones still read (version 2, whose tokens were numbers) read;
// others, and documents without a version, are refused.
func TestReadHeaderRefusesAnotherVersion(t *testing.T) {
	for _, v := range []string{"2", "3", "4"} {
		if h, err := schema.ReadHeader([]byte(`{"schema": ` + v + `, "command": "run", "seeds": 3}`)); err != nil || h.Command != "run" {
			t.Fatalf("ReadHeader of version %s = %+v, %v; want the run header", v, h, err)
		}
	}
	for _, doc := range []string{`{"schema": 1, "command": "run"}`, `{"schema": 5, "command": "run"}`, `{"command": "run"}`} {
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

// TestCountsAddJudged: what was judged adds up while every count records
// it, and is unknown once counts of a document that did not (before
// schema 4: seeds counted, no Judged) are added; the summary then says
// so instead of claiming no seed was inside the assumptions.
func TestCountsAddJudged(t *testing.T) {
	inside := schema.CountsOf(&harness.Outcome{Verdict: harness.Pass})
	outside := schema.CountsOf(&harness.Outcome{Verdict: harness.Pass, Outside: []string{"a fault"}})
	var c schema.Counts
	c.Add(inside)
	c.Add(outside)
	c.Add(inside)
	if !c.JudgedKnown() || c.Judged.Inside != 2 || c.Outside != 1 {
		t.Fatalf("three seeds, two inside: %+v %+v", c, c.Judged)
	}
	if got := c.JudgedLines("seeds")[0]; got != "2 seeds (66.7%) judged wholly inside the protocol's assumptions, 1 outside them" {
		t.Errorf("first line %q", got)
	}
	old := schema.Counts{Pass: 5, Outside: 3, Excused: 4} // as a version 3 document reads
	for _, order := range [][2]schema.Counts{{c, old}, {old, c}} {
		sum := order[0]
		sum.Add(order[1])
		if sum.JudgedKnown() || sum.Seeds() != 8 {
			t.Errorf("a sum with counts that do not record what was judged: known %v, %d seeds", sum.JudgedKnown(), sum.Seeds())
		}
		if lines := sum.JudgedLines("seeds"); len(lines) != 2 || !strings.Contains(lines[1], "not recorded") || !strings.HasPrefix(lines[0], "4 seeds (50.0%) outside") {
			t.Errorf("unknown: %q", lines)
		}
	}
}
