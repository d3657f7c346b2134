package main

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/s3lease/s3lease/faults"
	"github.com/s3lease/s3lease/linearizability"
	"github.com/s3lease/s3lease/scenarios"
	"github.com/s3lease/s3lease/sim"
)

// replayDoc is the JSON form of a replay.
type replayDoc struct {
	Scenario   string                      `json:"scenario"`
	Seed       uint64                      `json:"seed"`
	Verdict    string                      `json:"verdict"`
	Hash       string                      `json:"hash"`
	Steps      int                         `json:"steps"`
	Failure    string                      `json:"failure,omitempty"`
	Violations []linearizability.Violation `json:"violations"`
	Outside    []string                    `json:"outside,omitempty"`
	Expected   []linearizability.Violation `json:"expected,omitempty"`
	Plan       *faults.Plan                `json:"plan"`
	Terms      []sim.Term                  `json:"terms"`
	Events     []sim.Event                 `json:"events"`
}

func cmdReplay(args []string, stdout, stderr io.Writer) (int, error) {
	fs := newFlags("replay", stderr)
	scenario := scenarioFlag(fs)
	seed := fs.Uint64("seed", 0, "the seed to replay (required)")
	asJSON := fs.Bool("json", false, "print the trace and verdict as one JSON document")
	if err := parse(fs, args); err != nil {
		return 0, err
	}
	if !isSet(fs, "seed") {
		return 0, fmt.Errorf("%w: replay needs -seed", errUsage)
	}
	sc, err := lookup(*scenario)
	if err != nil {
		return 0, err
	}
	o, err := scenarios.RunSeed(sc, *seed, true)
	if err != nil {
		return 0, err
	}
	res := o.Result
	if *asJSON {
		doc := replayDoc{Scenario: sc.Name, Seed: *seed, Verdict: o.Verdict.String(), Hash: hashString(res.Hash()),
			Steps: res.Steps, Violations: o.Violations, Outside: o.Outside, Expected: o.Expected, Plan: o.Plan,
			Terms: res.History.Terms, Events: res.Trace.Events}
		if doc.Violations == nil {
			doc.Violations = []linearizability.Violation{}
		}
		if res.Failure != nil {
			doc.Failure = res.Failure.Error()
		}
		enc := json.NewEncoder(stdout)
		if err := enc.Encode(doc); err != nil {
			return 0, err
		}
	} else {
		fmt.Fprintf(stdout, "# %s seed %d\n", sc.Name, *seed)
		plan, err := json.Marshal(o.Plan)
		if err != nil {
			return 0, err
		}
		fmt.Fprintf(stdout, "# plan: %s\n", plan)
		for _, why := range o.Outside {
			fmt.Fprintf(stdout, "# outside the assumptions: %s\n", why)
		}
		if err := res.Trace.WriteText(stdout); err != nil {
			return 0, err
		}
		fmt.Fprintf(stdout, "\nterms:\n")
		for _, t := range res.History.Terms {
			end := fmt.Sprint(t.End)
			if t.Open {
				end = "(open)"
			}
			fmt.Fprintf(stdout, "  n%d %s token %d: %v .. %s\n", t.Node, t.Identity, t.Token, t.Start, end)
		}
		fmt.Fprintf(stdout, "verdict: %s\n", o.Verdict)
		if res.Failure != nil {
			fmt.Fprintf(stdout, "failure: %s\n", res.Failure)
			if res.Failure.Stack != "" {
				fmt.Fprintf(stderr, "%s\n", res.Failure.Stack)
			}
		}
		for _, v := range o.Violations {
			fmt.Fprintf(stdout, "violation: %s\n", v)
		}
		for _, v := range o.Expected {
			fmt.Fprintf(stdout, "expected outside the assumptions: %s\n", v)
		}
		fmt.Fprintf(stdout, "steps: %d\nhash: %s\n", res.Steps, hashString(res.Hash()))
	}
	switch o.Verdict {
	case scenarios.Unsafe:
		return exitUnsafe, nil
	case scenarios.Stuck:
		return exitStuck, nil
	case scenarios.Crashed:
		return exitCrashed, nil
	}
	return exitOK, nil
}
