package scenarios

import (
	"testing"
	"time"

	"github.com/s3lease/s3lease/faults"
	"github.com/s3lease/s3lease/harness"
	"github.com/s3lease/s3lease/sim"
	"github.com/s3lease/s3lease/zoo"
)

// foreignWriteTimes returns when someone else wrote the lock object in
// o's run (0 for the content before the run that no elector wrote).
func foreignWriteTimes(o *harness.Outcome) []time.Duration {
	var out []time.Duration
	for _, f := range o.Result.History.Faults {
		switch f.Kind {
		case faults.KindInitial:
			if o.Plan.Initial.Foreign() {
				out = append(out, f.From)
			}
		case string(faults.DeleteLock), string(faults.Overwrite), string(faults.Restore), string(faults.RestoreOwn):
			out = append(out, f.From)
		}
	}
	return out
}

// rechained returns when electors had re-established the chain after
// every foreign write of o's run, as the harness documents it, worked out
// here from the run's own terms and writes: after each foreign write, the
// start of the first term acquired (its incarnation's last write sent
// before it began) and begun after it, with a token of at most
// faults.MaxNativeToken above every such token of the terms acquired
// before it and the record the object held before the run, or the start
// of a term acquired before it that began later still; false if some
// foreign write was never followed by one. (It leaves out the harness's
// rule for spent tokens, which can only make the point later.)
func rechained(o *harness.Outcome) (time.Duration, bool) {
	h := o.Result.History
	acquired := make([]time.Duration, len(h.Terms))
	for j, t := range h.Terms {
		acquired[j] = t.Start
		for _, op := range h.S3 {
			if op.Node == t.Node && op.Incarnation == t.Incarnation && (op.Op == "PutObject" || op.Op == "DeleteObject") && op.Call < t.Start {
				acquired[j] = op.Call
			}
		}
	}
	var initial uint64
	if in := o.Plan.Initial; in != nil && in.Record != nil && !in.Foreign() {
		initial = in.Record.Token
	}
	var at time.Duration
	for _, f := range foreignWriteTimes(o) {
		top := initial
		for j, t := range h.Terms {
			if acquired[j] < f && t.Token <= faults.MaxNativeToken {
				top = max(top, t.Token)
			}
		}
		found := false
		for j, t := range h.Terms {
			if t.Start >= f && acquired[j] >= f && t.Token <= faults.MaxNativeToken && t.Token > top {
				at, found = max(at, t.Start), true
				break
			}
		}
		if !found {
			return 0, false
		}
		for j, t := range h.Terms {
			if acquired[j] < f {
				at = max(at, t.Start)
			}
		}
	}
	return at, true
}

// brokenAfter returns the first pair of terms of h, both begun at or after
// from with tokens of at most faults.MaxNativeToken, of which the later
// (by start) has a token not above the earlier's, unless both are of one
// incarnation with one token (a term announced again).
func brokenAfter(h *sim.History, from time.Duration) (a, b *sim.Term, ok bool) {
	var terms []*sim.Term
	for j := range h.Terms {
		if t := &h.Terms[j]; t.Start >= from && t.Token <= faults.MaxNativeToken {
			terms = append(terms, t)
		}
	}
	for i, x := range terms {
		for _, y := range terms[i+1:] {
			later, earlier := y, x
			if y.Start < x.Start {
				later, earlier = x, y
			}
			same := later.Node == earlier.Node && later.Incarnation == earlier.Incarnation && later.Token == earlier.Token
			if later.Token <= earlier.Token && !same {
				return earlier, later, true
			}
		}
	}
	return nil, nil, false
}

// TestZooTokenBreaksAfterRechainingAreNeverPassed: for the zoo variants
// that break tokens, no swarm seed with a foreign write in which two terms
// that both began after electors re-established the chain share a token,
// or the later has the lower one, is judged pass: a foreign write excuses
// only what its content can reach.
func TestZooTokenBreaksAfterRechainingAreNeverPassed(t *testing.T) {
	for _, name := range []string{"same-token", "unconditional-acquire"} {
		sc := zoo.Scenario(zooVariant(t, name))
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			foreign, caught := 0, 0
			for seed := uint64(1); seed <= 500; seed++ {
				o, err := harness.RunSeed(sc, seed, false)
				if err != nil {
					t.Fatal(err)
				}
				if o.Result.History == nil || len(foreignWriteTimes(o)) == 0 {
					continue
				}
				foreign++
				from, ok := rechained(o)
				if !ok {
					continue
				}
				a, b, broken := brokenAfter(o.Result.History, from)
				if !broken {
					continue
				}
				caught++
				if o.Verdict == harness.Pass {
					t.Errorf("seed %d: judged pass, but after the chain was re-established at %v, n%d's term with token %d (from %v) is followed by n%d's with token %d (from %v)",
						seed, from, a.Node, a.Token, a.Start, b.Node, b.Token, b.Start)
				}
			}
			if caught == 0 {
				t.Errorf("no seed of %d with a foreign write breaks tokens after the chain was re-established", foreign)
			}
			t.Logf("%s: %d of 500 seeds have a foreign write; %d of them break tokens after the chain was re-established", name, foreign, caught)
		})
	}
}
