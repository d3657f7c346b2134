package live

import (
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/anishathalye/porcupine"
	"github.com/s3lease/s3lease/faults"
	"github.com/s3lease/s3lease/harness"
	"github.com/s3lease/s3lease/linearizability"
	"github.com/s3lease/s3lease/protocol"
	"github.com/s3lease/s3lease/sim"
)

// Violation, Overlap and Verdict are the simulator's: a live run is judged
// by the same checkers and summed up by the same verdicts.
type (
	Violation = linearizability.Violation
	Overlap   = linearizability.Overlap
	Verdict   = harness.Verdict
)

// S3Check is the linearizability check of the S3 history.
type S3Check = linearizability.S3Result

// The verdicts of one Check.
const (
	CheckPass      = "pass"
	CheckFail      = "fail"
	CheckUnknown   = "unknown"    // the check timed out: never a pass
	CheckNotJudged = "not judged" // the run does not promise the property
	// CheckStoreFault: the store broke a promise of S3's that the electors
	// cannot keep for it; the verdict does not blame them for it.
	CheckStoreFault = "store fault"
)

// The names of the checks that are not election checkers.
const (
	CheckOverlap        = "overlap"
	CheckS3Linearizable = "s3-linearizable"
	CheckTornReads      = "torn-reads"
	CheckLiveness       = "liveness"
)

// Check is one checker's verdict on a live run.
type Check struct {
	// Name is the checker's name: an election checker's, or CheckOverlap,
	// CheckS3Linearizable, CheckLiveness.
	Name string `json:"name"`
	// Doc says in one sentence what the checker checks.
	Doc string `json:"doc"`
	// Verdict is CheckPass, CheckFail, CheckUnknown, CheckNotJudged or
	// CheckStoreFault.
	Verdict string `json:"verdict"`
	// Violations are what the checker found, for CheckFail.
	Violations []Violation `json:"violations,omitempty"`
	// Note says why a check was not judged, or what it checked.
	Note string `json:"note,omitempty"`
}

// judge runs the checkers on res.History and fills in the verdicts.
func judge(res *Result, cfg Config) {
	h := res.History
	res.Size = sizeOf(h)
	var unsafe []Violation
	add := func(name, doc string, vs []Violation, note string) {
		c := Check{Name: name, Doc: doc, Verdict: CheckPass, Violations: vs, Note: note}
		if len(vs) > 0 {
			c.Verdict = CheckFail
		}
		res.Checks = append(res.Checks, c)
	}
	for _, c := range linearizability.ElectionCheckers() {
		vs := c.Check(h)
		unsafe = append(unsafe, vs...)
		add(c.Name, c.Doc, vs, "")
	}

	res.Overlaps = linearizability.Overlaps(h)
	ov := linearizability.OverlapViolations(res.Overlaps)
	unsafe = append(unsafe, ov...)
	add(CheckOverlap, "No two nodes lead at the same instant of real time.", ov,
		"real clocks and no injected pauses: the run stays inside the protocol's assumptions unless the process stalled longer than "+
			cfg.assumptions().MaxPause.String())

	res.S3 = linearizability.CheckS3(h, cfg.S3CheckTimeout)
	s3 := Check{Name: CheckS3Linearizable, Doc: "The S3 requests, as the clients saw them, are linearizable against one object store with AWS's conditional-request semantics.",
		Note: fmt.Sprintf("porcupine: %s, %d requests checked in %v", res.S3.Result, res.S3.Ops, res.S3.Duration.Round(time.Microsecond))}
	switch res.S3.Result {
	case porcupine.Ok:
		s3.Verdict = CheckPass
	case porcupine.Illegal:
		s3.Verdict = CheckFail
		s3.Violations = []Violation{{Checker: CheckS3Linearizable, At: h.End,
			Message: fmt.Sprintf("the history of %d S3 requests is not linearizable against the object-store model", res.S3.Ops)}}
		unsafe = append(unsafe, s3.Violations...)
	default:
		s3.Verdict = CheckUnknown
	}
	res.Checks = append(res.Checks, s3)
	res.Checks = append(res.Checks, tornReads(h))

	live := Check{Name: CheckLiveness, Doc: "A leader is in place within the protocol's liveness bound and still leads at the end.", Verdict: CheckNotJudged}
	bound := cfg.electorConfig(nil, "", protocol.LeaderCallbacks{}, nil).LivenessBound()
	var liveness []Violation
	switch {
	case cfg.Faults.any():
		live.Note = "faults were injected until the end of the run: the protocol promises no leader then"
	case res.Restarts > 0:
		live.Note = "electors were restarted during the run"
	case h.End < bound:
		live.Note = fmt.Sprintf("the run (%v) is shorter than the liveness bound (%v)", h.End.Round(time.Millisecond), bound)
	default:
		liveness = linearizability.CheckLiveness(h, 0, bound)
		live.Violations = liveness
		live.Verdict = CheckPass
		if len(liveness) > 0 {
			live.Verdict = CheckFail
		}
		live.Note = "bound " + bound.String()
	}
	res.Checks = append(res.Checks, live)

	slices.SortStableFunc(unsafe, func(a, b Violation) int {
		return cmp.Or(cmp.Compare(a.At, b.At), strings.Compare(a.Checker, b.Checker))
	})
	switch {
	case len(unsafe) > 0:
		res.Verdict, res.Violations = harness.Unsafe, unsafe
	case len(liveness) > 0:
		res.Verdict, res.Violations = harness.Liveness, liveness
	case res.S3.Result == porcupine.Unknown:
		res.Verdict = harness.Inconclusive
	default:
		res.Verdict = harness.Pass
	}
}

// tornReads is the check of the reads' atomicity: every GetObject answer
// carried the body and the ETag of one version (the recorder marks those
// that did not: sim.S3Op.TornBodyETag). A torn read is the store's fault:
// the S3 check leaves it out, and it is reported here, as such, without
// deciding the verdict, which judges the electors.
func tornReads(h *sim.History) Check {
	c := Check{Name: CheckTornReads, Verdict: CheckPass,
		Doc: "Every GetObject answer carried the body and the ETag of one version, as S3 updates an object atomically."}
	for _, op := range h.S3 {
		if op.TornBodyETag == "" {
			continue
		}
		c.Violations = append(c.Violations, Violation{Checker: CheckTornReads, At: op.Return, Nodes: []int{op.Node},
			Message: fmt.Sprintf("store fault: n%d's GetObject of %s, sent at %v and answered at %v, carried the body of the version %s and the ETag %s",
				op.Node, op.Key, op.Call, op.Return, op.TornBodyETag, op.ETag)})
	}
	if len(c.Violations) > 0 {
		c.Verdict = CheckStoreFault
		c.Note = fmt.Sprintf("torn reads: %d, the store's fault, left out of the S3 check", len(c.Violations))
	}
	return c
}

// sizeOf counts a history.
func sizeOf(h *sim.History) Size {
	s := Size{S3Ops: len(h.S3), Terms: len(h.Terms), FencedWrites: len(h.Writes)}
	for _, op := range h.S3 {
		switch {
		case op.Return < 0:
			s.Unanswered++
		case op.Status == 409 || op.Status >= 500:
			s.Failed++
		}
	}
	var tokens []uint64
	for _, t := range h.Terms {
		if !slices.Contains(tokens, t.Token) {
			tokens = append(tokens, t.Token)
		}
	}
	s.Tokens = len(tokens)
	for _, w := range h.Writes {
		if w.Accepted {
			s.Accepted++
		}
	}
	return s
}

// Check returns the check named name, and whether there is one.
func (r *Result) Check(name string) (Check, bool) {
	for _, c := range r.Checks {
		if c.Name == name {
			return c, true
		}
	}
	return Check{}, false
}

// Outcome returns the run as the harness's judged run, for the HTML report
// (htmlreport.WriteOptions; pass Options.Replay, since a live run has no
// replay command) and any other tool that reads one. Its scenario is "live",
// its plan empty, its result carries the history and an empty trace (hash
// 0): a live run records no events.
func (r *Result) Outcome() *harness.Outcome {
	return &harness.Outcome{
		Scenario:   "live",
		Seed:       r.Seed,
		Verdict:    r.Verdict,
		Violations: r.Violations,
		Overlaps:   r.Overlaps,
		S3:         r.S3,
		Plan:       &faults.Plan{},
		// A live run keeps no trace; tools ask an empty one for its hash.
		Result: &sim.Result{Seed: r.Seed, History: r.History, Trace: &sim.Trace{}},
	}
}

// MarshalJSON writes the result with its verdict by name, its S3 check as
// verdict, requests checked and duration, and its fault configuration with
// durations as text.
func (r Result) MarshalJSON() ([]byte, error) {
	type plain Result
	type s3 struct {
		Result   string `json:"result"`
		Ops      int    `json:"ops"`
		Duration string `json:"duration"`
	}
	return json.Marshal(struct {
		*plain
		Verdict string     `json:"verdict"`
		S3      s3         `json:"s3"`
		Faults  jsonFaults `json:"faultConfig"`
	}{plain: (*plain)(&r), Verdict: r.Verdict.String(), S3: s3{string(r.S3.Result), r.S3.Ops, r.S3.Duration.String()},
		Faults: jsonFaultsOf(r.Faults)})
}

// jsonFaults is Faults with camelCase names and durations as text.
type jsonFaults struct {
	Latency            float64 `json:"latency,omitempty"`
	MinLatency         string  `json:"minLatency,omitempty"`
	MaxLatency         string  `json:"maxLatency,omitempty"`
	Conflict           float64 `json:"conflict409,omitempty"`
	InternalError      float64 `json:"internalError500,omitempty"`
	Unavailable        float64 `json:"unavailable503,omitempty"`
	InternalErrorAfter float64 `json:"internalError500After,omitempty"`
	DropAnswer         float64 `json:"dropAnswer,omitempty"`
	Cut                float64 `json:"cut,omitempty"`
	StripConditions    bool    `json:"stripConditions,omitempty"`
}

func jsonFaultsOf(f Faults) jsonFaults {
	j := jsonFaults{Latency: f.Latency, Conflict: f.Conflict, InternalError: f.InternalError, Unavailable: f.Unavailable,
		InternalErrorAfter: f.InternalErrorAfter, DropAnswer: f.DropAnswer, Cut: f.Cut, StripConditions: f.StripConditions}
	if f.Latency > 0 {
		j.MinLatency, j.MaxLatency = f.MinLatency.String(), f.MaxLatency.String()
	}
	return j
}

// WriteText writes a summary of the run for humans: the target, the size
// of the history, the proxy's figures, each check's verdict and every
// violation.
func (r *Result) WriteText(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "live run: %s\n", r.Verdict)
	fmt.Fprintf(&b, "target: %s, bucket %s, key %s\n", r.Target, r.Bucket, r.Key)
	fmt.Fprintf(&b, "%d nodes for %v, fault seed %d, %d electors restarted, %d keys\n", r.History.Nodes, r.History.End.Round(time.Millisecond), r.Seed, r.Restarts, len(r.Keys))
	for i, p := range r.Phases {
		fmt.Fprintf(&b, "phase %d %s\n", i+1, p)
	}
	s := r.Size
	fmt.Fprintf(&b, "history: %d S3 requests (%d without answer, %d answered 409/5xx), %d terms (%d tokens), %d fenced writes (%d accepted)\n",
		s.S3Ops, s.Unanswered, s.Failed, s.Terms, s.Tokens, s.FencedWrites, s.Accepted)
	p := r.Proxy
	f := p.Faults
	fmt.Fprintf(&b, "proxy: %d requests (%.1f/s), %d forwarded, %d upstream errors\n", p.Requests, p.RequestsPerSecond, p.Forwarded, p.UpstreamErrors)
	fmt.Fprintf(&b, "faults: latency %d, 409 %d, 500 %d, 503 %d, 500 after forwarding %d, answers dropped %d, cut before forwarding %d, cut mid-body %d",
		f.Latency, f.Conflict, f.InternalError, f.Unavailable, f.InternalErrorAfter, f.DroppedAnswers, f.CutBefore, f.CutMidBody)
	if r.Faults.StripConditions {
		fmt.Fprintf(&b, ", conditions stripped %d", f.Stripped)
	}
	b.WriteString("\n")
	for _, c := range r.Checks {
		fmt.Fprintf(&b, "  %-17s %s", c.Name, c.Verdict)
		if c.Note != "" {
			fmt.Fprintf(&b, " (%s)", c.Note)
		}
		b.WriteString("\n")
	}
	for _, v := range r.Violations {
		fmt.Fprintf(&b, "  violation: %s\n", v)
	}
	if c, ok := r.Check(CheckTornReads); ok {
		for _, v := range c.Violations {
			fmt.Fprintf(&b, "  %s\n", v.Message)
		}
	}
	for _, e := range r.ElectorErrors {
		fmt.Fprintf(&b, "  elector error: %s\n", e)
	}
	_, err := io.WriteString(w, b.String())
	return err
}
