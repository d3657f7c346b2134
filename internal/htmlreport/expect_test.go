package htmlreport

import (
	"testing"

	"github.com/s3lease/s3lease/harness"
)

// A page of a scenario whose protocol is broken on purpose says whether the
// harness caught it; other pages say nothing of the kind.
func TestExpectationStatement(t *testing.T) {
	caught, _ := failingPage(t)
	missed := findRun(t, "zoo/same-token", 1, 50, true, func(o *harness.Outcome) bool { return o.Verdict == harness.Pass })
	reference := findRun(t, "reference", 1, 20, true, func(o *harness.Outcome) bool { return o.Verdict == harness.Pass })
	unknown := *caught
	unknown.Scenario = "no-such-scenario"
	for _, c := range []struct {
		name string
		o    *harness.Outcome
		want string // data-caught of #expectation; "": none
	}{
		{"caught", caught, "true"},
		{"missed", missed, "false"},
		{"not broken on purpose", reference, ""},
		{"unregistered", &unknown, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			if sc, err := project.Lookup(c.o.Scenario); c.want != "" && (err != nil || sc.Expect != harness.Caught) {
				t.Fatalf("%s is not a scenario expected to be caught", c.o.Scenario)
			}
			doc := parsePage(t, render(t, "", c.o))
			e := doc.byID("expectation")
			switch {
			case c.want == "" && e != nil:
				t.Errorf("the page of %s states an expectation: %q", c.o.Scenario, e.textOf())
			case c.want != "" && e == nil:
				t.Errorf("the page of %s does not say its protocol is broken on purpose", c.o.Scenario)
			case c.want != "" && (e.attrs["data-caught"] != c.want || e.hasClass("missed") != (c.want == "false")):
				t.Errorf("the page of %s (verdict %s) says caught=%s (class %q), want %s",
					c.o.Scenario, c.o.Verdict, e.attrs["data-caught"], e.attrs["class"], c.want)
			}
		})
	}
}

func TestExpectationOf(t *testing.T) {
	for _, c := range []struct {
		expect  harness.Expectation
		verdict harness.Verdict
		caught  bool
		none    bool
	}{
		{harness.Caught, harness.Unsafe, true, false},
		{harness.Caught, harness.Liveness, true, false},
		{harness.Caught, harness.Crashed, true, false},
		{harness.Caught, harness.Pass, false, false},
		{harness.Survives, harness.Unsafe, false, true},
		{harness.Either, harness.Pass, false, true},
	} {
		e := expectationOf(c.expect, &harness.Outcome{Verdict: c.verdict})
		switch {
		case c.none && e != nil, !c.none && e == nil:
			t.Errorf("%q, %s: statement %v", c.expect, c.verdict, e)
		case e != nil && (e.Caught != c.caught || e.Text == ""):
			t.Errorf("%q, %s: caught %v, want %v", c.expect, c.verdict, e.Caught, c.caught)
		}
	}
}
