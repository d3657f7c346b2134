package scenarios

import (
	"testing"
	"time"

	"github.com/s3lease/s3lease/harness/elector"
	"github.com/s3lease/s3lease/sim"
)

// TestReleaseInFlight: when the leader is stopped, its application's term
// ends (unlead) before the releasing PutObject is sent; a renewal in flight
// at the stop is abandoned by the node but still judged by S3, and the
// release wins the race either way (the renewal applied first and the
// release, after a 412, releases that record; or the release applied first
// and the renewal got 412); no release write is sent after the term's
// local deadline; the restarted nodes take a released lease at once and
// wait a full lease for one that was not released in time.
func TestReleaseInFlight(t *testing.T) {
	outs := runSeeds(t, ReleaseInFlight, 30)
	stops, inFlight, renewalFirst, timedOut := 0, 0, 0, 0
	for _, o := range outs {
		checkSurvives(t, o)
		tr := o.Result.Trace
		calls := s3Calls(o)
		index := map[uint64]int{} // S3 call -> index of its send in the trace
		for i, e := range tr.Events {
			if e.Kind == sim.EvS3Send {
				index[e.Call] = i
			}
		}
		for si, stop := range tr.Events {
			if stop.Kind != sim.EvStop {
				continue
			}
			n := stop.Node
			term, leading := termAt(o, n, stop.At-1) // its term ends at the stop
			if !leading {
				continue
			}
			stops++
			// The term ends: unlead of n at the stop or after it.
			unlead := -1
			for i := si + 1; i < len(tr.Events); i++ {
				if e := tr.Events[i]; e.Kind == sim.EvUnlead && e.Node == n {
					unlead = i
					break
				}
			}
			// The release: n's PutObjects sent after the stop, until its
			// restart.
			var release []*s3Call
			var renewal *s3Call
			for _, c := range puts(calls, n) {
				switch {
				case c.Send.At < stop.At && c.end() >= stop.At:
					renewal = c
				case index[c.ID] > si && c.Send.At < stop.At+4*time.Second:
					release = append(release, c)
				}
			}
			if len(release) == 0 {
				t.Errorf("seed %d: n%d (token %d) stopped at %v and sent no release", o.Seed, n, term.Token, stop.At)
				continue
			}
			if unlead < 0 || unlead > index[release[0].ID] {
				t.Errorf("seed %d: n%d's release #%d was sent before its application's term ended", o.Seed, n, release[0].ID)
			}
			// The release writes stop at the term's local deadline: 4 s after
			// the send of its last write answered 200.
			granted, _ := lastGrantSend(calls, n, stop.At)
			deadline := granted + elector.DefaultSettings.RenewDeadline
			released := release[len(release)-1].applied200()
			for _, c := range release {
				if c.Send.At >= deadline {
					t.Errorf("seed %d: n%d sent release #%d at %v, after its deadline %v", o.Seed, n, c.ID, c.Send.At, deadline)
				}
			}
			if !released {
				timedOut++
			}
			if renewal != nil {
				inFlight++
				if renewal.Abandon == nil || renewal.Apply == nil {
					t.Errorf("seed %d: n%d's in-flight renewal #%d: abandon %v, apply %v; want abandoned by the node and judged by S3", o.Seed, n, renewal.ID, renewal.Abandon, renewal.Apply)
				} else if renewal.Apply.Status == 200 {
					// The renewal applied: the first release attempt, If-Match
					// the record before it, got 412, and a later one released
					// the renewal's record.
					renewalFirst++
					if release[0].Apply == nil || release[0].Apply.Status != 412 || released && len(release) < 2 {
						t.Errorf("seed %d: n%d's renewal #%d applied after the stop, but the release went %v", o.Seed, n, renewal.ID, release)
					}
				} else if renewal.Apply.Status != 412 || !release[0].applied200() {
					t.Errorf("seed %d: n%d's renewal #%d got %d; want the release to have applied first and the renewal refused", o.Seed, n, renewal.ID, renewal.Apply.Status)
				}
			}
			// Restarted 4 s later, the nodes take a released lease at once;
			// if the release did not make it by the deadline, they wait a
			// full lease.
			var next *sim.Event
			for _, l := range events(o, sim.EvLead, anyNode) {
				if l.At > stop.At {
					next = &l
					break
				}
			}
			restart := stop.At + 4*time.Second
			switch {
			case next == nil || next.At < restart:
				t.Errorf("seed %d: after n%d's stop, next lead %v; want one after the restart at %v", o.Seed, n, next, restart)
			case released && next.At > restart+2*time.Second:
				t.Errorf("seed %d: n%d released, but the next lead %v came more than 2 s after the restart at %v", o.Seed, n, next, restart)
			case !released && next.At < restart+elector.DefaultSettings.LeaseDuration:
				t.Errorf("seed %d: n%d did not release, yet the next lead %v came less than a lease after the restart at %v", o.Seed, n, next, restart)
			}
		}
	}
	t.Logf("%d leaders stopped, %d with a renewal in flight (%d of those renewals applied before the release); %d releases did not make it by the deadline", stops, inFlight, renewalFirst, timedOut)
	if stops < len(outs)*2 || inFlight < stops/2 || renewalFirst == 0 || renewalFirst == inFlight {
		t.Errorf("want every round to stop a leader, most with a renewal in flight, and both orders of renewal and release")
	}
}
