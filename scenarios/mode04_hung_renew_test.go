package scenarios

import (
	"strings"
	"testing"

	"github.com/s3lease/s3lease/faults"
	"github.com/s3lease/s3lease/harness/elector"
	"github.com/s3lease/s3lease/sim"
)

// TestHungRenew: the node leading when S3 turns slow sends a renewal that
// would be answered more than a lease later; the elector abandons it at
// its request timeout, while S3 has not even applied it, and the leader's
// term ends exactly at its deadline, RenewDeadline after the send of its
// last successful renewal, while S3 is still slow.
func TestHungRenew(t *testing.T) {
	outs := runSeeds(t, HungRenew, 40)
	checkSurvives(t, outs...)
	s := elector.DefaultSettings
	for _, o := range outs {
		var slow faults.Event
		for _, e := range o.Plan.Events {
			if e.Kind == faults.SlowS3 {
				slow = e
			}
		}
		from, to := slow.At.D(), slow.At.D()+slow.For.D()
		if 2*slow.By.D() <= s.LeaseDuration {
			t.Errorf("seed %d: S3 is only %v slower on each leg, a request would not hang past the lease", o.Seed, slow.By)
		}
		var leader sim.Term
		for _, term := range o.Result.History.Terms {
			if term.Start < from && (term.Open || term.End > from) {
				leader = term
			}
		}
		if leader.Token == 0 {
			t.Errorf("seed %d: nobody led when S3 became slow at %v", o.Seed, from)
			continue
		}
		var hung, lastOK sim.Event
		for _, e := range events(o, sim.EvS3Send, leader.Node) {
			if e.Op != "PutObject" || e.At < leader.Start {
				continue
			}
			if e.At >= from {
				hung = e
				break
			}
			if r, ok := byCall(o, sim.EvS3Return, e.Call); ok && r.Status == 200 {
				lastOK = e
			}
		}
		if hung.Call == 0 || !strings.HasPrefix(hung.Cond, "If-Match:") {
			t.Errorf("seed %d: n%d sent no renewal while S3 was slow: %v", o.Seed, leader.Node, hung)
			continue
		}
		cut, ok := byCall(o, sim.EvS3Abandon, hung.Call)
		if !ok || cut.At != hung.At+s.RequestTimeout || !strings.Contains(cut.Detail, "deadline exceeded") {
			t.Errorf("seed %d: n%d's hung renewal %v was not cut at its request timeout: %v", o.Seed, leader.Node, hung, cut)
		}
		if a, ok := byCall(o, sim.EvS3Apply, hung.Call); ok && a.At <= cut.At {
			t.Errorf("seed %d: the renewal was applied at %v, before it was cut at %v", o.Seed, a.At, cut.At)
		}
		deadline := lastOK.At + s.RenewDeadline
		unlead := false
		for _, e := range events(o, sim.EvUnlead, leader.Node) {
			unlead = unlead || e.Token == leader.Token && e.At == leader.End
		}
		if !unlead {
			t.Errorf("seed %d: no unlead event of n%d's term %d", o.Seed, leader.Node, leader.Token)
		}
		if lastOK.Call == 0 || leader.Open || leader.End > deadline || leader.End >= to {
			t.Errorf("seed %d: n%d's term (%v-%v, open %v) did not end by its deadline %v while S3 was slow until %v",
				o.Seed, leader.Node, leader.Start, leader.End, leader.Open, deadline, to)
		}
	}
}
