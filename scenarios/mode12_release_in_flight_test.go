package scenarios

import (
	"slices"
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
	s := elector.DefaultSettings
	rs := runSeeds(t, ReleaseInFlight, 30)
	stops, inFlight, renewalFirst, timedOut := 0, 0, 0, 0
	for _, r := range rs {
		r.survives()
		evs := r.Result.Trace.Events
		sent := map[uint64]int{} // S3 call -> index of its send in the trace
		for i, e := range evs {
			if e.Kind == sim.EvS3Send {
				sent[e.Call] = i
			}
		}
		for si, stop := range evs {
			if stop.Kind != sim.EvStop {
				continue
			}
			n := stop.Node
			term, leading := r.termAt(n, stop.At-1) // its term ends at the stop
			if !leading {
				continue
			}
			stops++
			// The release: n's PutObjects sent after the stop, until its
			// restart; the renewal, one in flight at the stop.
			release := filter(r.puts(n), func(c *s3Call) bool { return sent[c.ID] > si && c.Send.At < stop.At+4*time.Second })
			renewal, _ := first(r.puts(n), func(c *s3Call) bool { return c.Send.At < stop.At && c.end() >= stop.At })
			if len(release) == 0 {
				r.errorf("n%d (token %d) stopped at %v and sent no release", n, term.Token, stop.At)
				continue
			}
			unlead := slices.IndexFunc(evs[si+1:], func(e sim.Event) bool { return e.Kind == sim.EvUnlead && e.Node == n })
			if unlead < 0 || si+1+unlead > sent[release[0].ID] {
				r.errorf("n%d's release #%d was sent before its application's term ended", n, release[0].ID)
			}
			// The release writes stop at the term's local deadline: 4 s after
			// the send of its last write answered 200.
			granted, _ := r.lastGrantSend(n, stop.At)
			for _, c := range release {
				if c.Send.At >= granted+s.RenewDeadline {
					r.errorf("n%d sent release #%d at %v, after its deadline %v", n, c.ID, c.Send.At, granted+s.RenewDeadline)
				}
			}
			released := release[len(release)-1].applied200()
			if !released {
				timedOut++
			}
			if renewal != nil {
				inFlight++
				switch {
				case renewal.Abandon == nil || renewal.Apply == nil:
					r.errorf("n%d's in-flight renewal #%d: abandon %v, apply %v; want abandoned by the node and judged by S3", n, renewal.ID, renewal.Abandon, renewal.Apply)
				case renewal.Apply.Status == 200:
					// The renewal applied: the first release attempt, If-Match
					// the record before it, got 412, and a later one released
					// the renewal's record.
					renewalFirst++
					if release[0].Apply == nil || release[0].Apply.Status != 412 || released && len(release) < 2 {
						r.errorf("n%d's renewal #%d applied after the stop, but the release went %v", n, renewal.ID, release)
					}
				case renewal.Apply.Status != 412 || !release[0].applied200():
					r.errorf("n%d's renewal #%d got %d; want the release to have applied first and the renewal refused", n, renewal.ID, renewal.Apply.Status)
				}
			}
			// Restarted 4 s later, the nodes take a released lease at once;
			// if the release did not make it by the deadline, they wait a
			// full lease.
			next, ok := r.leadAfter(stop.At, -1)
			restart := stop.At + 4*time.Second
			switch {
			case !ok || next.At < restart:
				r.errorf("after n%d's stop, next lead %v; want one after the restart at %v", n, next, restart)
			case released && next.At > restart+2*time.Second:
				r.errorf("n%d released, but the next lead %v came more than 2 s after the restart at %v", n, next, restart)
			case !released && next.At < restart+s.LeaseDuration:
				r.errorf("n%d did not release, yet the next lead %v came less than a lease after the restart at %v", n, next, restart)
			}
		}
	}
	t.Logf("%d leaders stopped, %d with a renewal in flight (%d of those renewals applied before the release); %d releases did not make it by the deadline", stops, inFlight, renewalFirst, timedOut)
	if stops < len(rs)*2 || inFlight < stops/2 || renewalFirst == 0 || renewalFirst == inFlight {
		t.Errorf("want every round to stop a leader, most with a renewal in flight, and both orders of renewal and release")
	}
}
