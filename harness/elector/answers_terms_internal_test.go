package elector

import (
	"math"
	"testing"
	"time"

	"github.com/s3lease/s3lease/harness"
	"github.com/s3lease/s3lease/sim"
)

// TestReplacedIndexOnTheSwarm: the earliest replacement of each write of
// the lock object, as its index finds it (by the writes in the order of
// their sends), is the one a scan of every other write finds, for the
// writes of swarm seeds 1..40 and for writes sent before, at and after the
// answer of another.
func TestReplacedIndexOnTheSwarm(t *testing.T) {
	sc := harness.Swarm("swarm", Protocol(DefaultSettings))
	replaced := 0
	for seed := uint64(1); seed <= 40; seed++ {
		o, err := harness.RunSeed(sc, seed, false)
		if err != nil {
			t.Fatal(err)
		}
		l := newLockContents(o.Result.History)
		for i := range l.writes {
			w := &l.writes[i]
			want := l.replacedScan(w)
			if w.op.Return < 0 {
				want = math.MaxInt64
			}
			if w.replaced != want {
				t.Fatalf("seed %d: the write sent at %v, answered at %v: replaced at %v by the index, %v by the scan", seed, w.op.Call, w.op.Return, w.replaced, want)
			}
			if want != math.MaxInt64 {
				replaced++
			}
		}
	}
	if replaced == 0 {
		t.Fatal("no write of 40 seeds was replaced")
	}
	ms := func(n int) time.Duration { return time.Duration(n) * time.Millisecond }
	put := func(call, ret int) sim.S3Op {
		return sim.S3Op{Node: 0, Op: "PutObject", Call: ms(call), Return: ms(ret), Status: 200, Body: "{}", BodyETag: `"e"`}
	}
	h := &sim.History{S3: []sim.S3Op{put(0, 10), put(10, 30), put(11, 20), put(5, -1), put(40, 35)}}
	l := newLockContents(h)
	for i, want := range []time.Duration{ms(20), ms(35), ms(35), math.MaxInt64, math.MaxInt64} {
		if got := l.writes[i].replaced; got != want {
			t.Errorf("write %d (sent at %v, answered at %v): replaced at %v, want %v", i, h.S3[i].Call, h.S3[i].Return, got, want)
		}
	}
}
