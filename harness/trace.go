package harness

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/s3lease/s3lease/sim"
)

// WriteTrace writes a judged run as text: the scenario and seed, its plan,
// how it left the assumptions, its trace (sim.Trace.WriteText, with opts:
// sim.WithBodies prints the bodies), its outcome (WriteOutcome), the
// stuck or panicking goroutine's stack of a failure, and its hash. It is
// the form of campaigns' trace files and of Check's replays.
func WriteTrace(w io.Writer, o *Outcome, opts ...sim.TextOption) error {
	res := o.Result
	fmt.Fprintf(w, "# %s seed %d\n", o.Scenario, o.Seed)
	plan, err := json.Marshal(o.Plan)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "# plan: %s\n", plan)
	for _, why := range o.Outside {
		fmt.Fprintf(w, "# outside the assumptions: %s\n", why)
	}
	if err := res.Trace.WriteText(w, opts...); err != nil {
		return err
	}
	fmt.Fprintln(w)
	if err := WriteOutcome(w, o); err != nil {
		return err
	}
	if f := res.Failure; f != nil && f.Stack != "" {
		fmt.Fprintf(w, "%s\n", f.Stack)
	}
	_, err = fmt.Fprintf(w, "steps: %d\nhash: %016x\n", res.Steps, res.Hash())
	return err
}

// Explain says in words why a run did not pass: its verdict, each
// violation that decided it, the failure of a run that could not finish,
// and how the run left the protocol's assumptions.
func Explain(o *Outcome) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s", SignatureOf(o))
	for _, v := range o.Violations {
		fmt.Fprintf(&b, "\n  %s", v)
	}
	if o.Result != nil && o.Result.Failure != nil {
		fmt.Fprintf(&b, "\n  %s", o.Result.Failure)
	}
	for _, why := range o.Outside {
		fmt.Fprintf(&b, "\n  (outside the assumptions: %s)", why)
	}
	return b.String()
}

// WriteOutcome writes a judged run's verdict, signature (unless it
// passed), failure, violations and excused violations, one a line.
func WriteOutcome(w io.Writer, o *Outcome) error {
	fmt.Fprintf(w, "verdict: %s\n", o.Verdict)
	if o.Verdict != Pass {
		fmt.Fprintf(w, "signature: %s\n", SignatureOf(o))
	}
	if f := o.Result.Failure; f != nil {
		fmt.Fprintf(w, "failure: %s\n", f)
	}
	for _, v := range o.Violations {
		fmt.Fprintf(w, "violation: %s\n", v)
	}
	for _, v := range o.Excused {
		if _, err := fmt.Fprintf(w, "excused: %s\n", v); err != nil {
			return err
		}
	}
	return nil
}
