package faults_test

import (
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/s3lease/s3lease/faults"
)

// draws are n choices of each of two sub-streams of src, the second's
// drawn first if swap.
func draws(src *faults.Source, n int, swap bool) (a, b []uint64) {
	x, y := src.Sub("a"), src.Sub("b")
	if swap {
		for range n {
			b = append(b, y.Choose(1000))
		}
	}
	for range n {
		a = append(a, x.Choose(1000))
	}
	if !swap {
		for range n {
			b = append(b, y.Choose(1000))
		}
	}
	return a, b
}

// TestSubStreamsDrawApart: a seed's sub-streams are functions of the seed
// and their names alone, whatever is drawn from the others and in what
// order; different seeds and names draw differently.
func TestSubStreamsDrawApart(t *testing.T) {
	a1, b1 := draws(faults.NewSource(7), 50, false)
	a2, b2 := draws(faults.NewSource(7), 50, true)
	a3, _ := draws(faults.NewSource(8), 50, false)
	if !slices.Equal(a1, a2) || !slices.Equal(b1, b2) {
		t.Fatal("the order of draws across sub-streams moved their choices")
	}
	if slices.Equal(a1, b1) || slices.Equal(a1, a3) {
		t.Fatal("two sub-streams, or two seeds, drew the same choices")
	}
}

// TestSourcesOfOneRun: a seed's run, the same choices replayed, and the
// same choices as a fuzzer's bytes (for any seed) draw the same plan; the
// empty string of bytes is the seed's own run.
func TestSourcesOfOneRun(t *testing.T) {
	for seed := uint64(1); seed <= 100; seed++ {
		src := faults.NewSource(seed)
		want := faults.Draw(src, space())
		c := src.Choices()
		for name, other := range map[string]*faults.Source{
			"replay":           faults.Replay(c, nil),
			"empty bytes":      faults.FromBytes(seed, nil),
			"the seed's bytes": faults.FromBytes(seed+1, c.Bytes()),
		} {
			if got := faults.Draw(other, space()); !reflect.DeepEqual(got, want) {
				t.Fatalf("seed %d: %s drew another run", seed, name)
			}
		}
	}
}

// TestShrinkFindsTheSmallestChoices: over a list drawn by Repeat, Shrink
// finds the fewest and smallest elements that still hold what try
// checks, and never accepts choices that do not; a sub-stream that the
// smaller choices no longer draw is gone from them.
func TestShrinkFindsTheSmallestChoices(t *testing.T) {
	draw := func(src *faults.Source) (sum int64, n int) {
		s := src.Sub("list")
		s.Repeat(0, 20, func(int) { sum += s.Int(0, 100); n++ })
		if n > 3 {
			src.Sub("more").Repeat(0, 5, func(int) { src.Sub("more").Int(0, 9) })
		}
		return sum, n
	}
	src := faults.NewSource(3)
	if sum, _ := draw(src); sum < 150 {
		t.Fatalf("seed 3 draws a sum of %d; the test needs one of at least 150", sum)
	}
	runs, small, ok := 0, src.Choices(), false
	for more := true; more; {
		small, more = faults.Shrink(small, func(c *faults.Choices) (*faults.Choices, bool) {
			runs++
			r := faults.Replay(c, nil)
			sum, _ := draw(r)
			return r.Choices(), sum >= 150
		}, func() bool { return runs >= 2000 })
		ok = ok || more
	}
	sum, n := draw(faults.Replay(small, nil))
	if !ok || sum < 150 || n != 2 || sum > 151 {
		t.Fatalf("shrunk to %d elements summing to %d (accepted %v, %d runs); want 2 summing to 150 or 151", n, sum, ok, runs)
	}
}

// TestMutateDrawsValidRuns: mutated choices, replayed with the seed's own
// behind them, draw valid runs, most of them other than the first.
func TestMutateDrawsValidRuns(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	changed := 0
	for seed := uint64(1); seed <= 200; seed++ {
		src := faults.NewSource(seed)
		run := faults.Draw(src, space())
		donor := faults.NewSource(seed + 1000)
		faults.Draw(donor, space())
		c, what := src.Choices(), ""
		for range 3 {
			c, what = c.Mutate(rng, nil, donor.Choices())
		}
		got := faults.Draw(faults.Replay(c, faults.NewSource(seed)), space())
		if err := got.Validate(5, 90*time.Second); err != nil {
			t.Fatalf("seed %d, after %q: %v", seed, what, err)
		}
		if !reflect.DeepEqual(got, run) {
			changed++
		}
	}
	if changed < 100 {
		t.Errorf("mutations changed %d runs of 200", changed)
	}
}

// TestWithinKeepsOrLeavesOut: a plan's part with every choice the
// largest is the plan; with every choice 0 it is one node and nothing.
func TestWithinKeepsOrLeavesOut(t *testing.T) {
	p := swarm(11)
	if got := faults.Within(faults.WithLargest(faults.NewSource(1), "x").Sub("x"), p, 5); got.Nodes != 5 || !reflect.DeepEqual(got.Plan, p.ForNodes(5)) {
		t.Fatalf("Within with every choice the largest is not the plan: %+v", got)
	}
	got := faults.Within(faults.Replay(&faults.Choices{}, nil), p, 5)
	if got.Nodes != 1 || len(got.Plan.Events)+len(got.Plan.Clocks)+len(got.Plan.Apps)+len(got.Plan.Settings) != 0 || got.Plan.Initial != nil ||
		got.Plan.S3 != (faults.Knobs{}) || got.Plan.HealAt != p.HealAt {
		t.Fatalf("Within of no choices: %+v", got)
	}
}
