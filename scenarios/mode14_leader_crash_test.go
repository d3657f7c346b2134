package scenarios

import (
	"testing"
	"time"

	"github.com/s3lease/s3lease/harness/elector"
	"github.com/s3lease/s3lease/sim"
)

// TestLeaderCrash: when the leader crashes, its last record stays (possibly
// a renewal that lands after the crash); the next
// leader takes it over (If-Match its ETag) no earlier than a full lease
// after it first read that record (so no earlier than a lease after the
// record was written), and no later than LivenessBound after the last
// crashed node is back.
func TestLeaderCrash(t *testing.T) {
	s := elector.DefaultSettings
	outs := runSeeds(t, LeaderCrash, 30)
	crashes, strangers := 0, 0
	for _, o := range outs {
		checkSurvives(t, o)
		calls := s3Calls(o)
		leaderCrashes := 0
		for _, crash := range events(o, sim.EvCrash, anyNode) {
			term, leading := termAt(o, crash.Node, crash.At-1) // the crash ends the term
			if !leading {
				continue
			}
			leaderCrashes++
			// The crashed leader's last record: a renewal sent before the
			// crash may land after it.
			var last *s3Call
			for _, c := range puts(calls, crash.Node) {
				if c.applied200() && c.Send.At <= crash.At {
					last = c
				}
			}
			var next *sim.Event
			for _, l := range events(o, sim.EvLead, anyNode) {
				if l.At > crash.At {
					next = &l
					break
				}
			}
			if last == nil || next == nil {
				t.Errorf("seed %d: n%d (token %d) crashed at %v; last record %v, next lead %v", o.Seed, crash.Node, term.Token, crash.At, last, next)
				continue
			}
			etag := last.Apply.ETag
			// The new leader's incarnation started at its last start before
			// it led; its first read of the dead leader's record.
			var started time.Duration
			for _, st := range events(o, sim.EvStart, next.Node) {
				if st.At <= next.At {
					started = st.At
				}
			}
			firstSeen := time.Duration(-1)
			var acquire *s3Call
			for _, c := range calls {
				if c.Node != next.Node || c.Send.At < started || c.Send.At > next.At {
					continue
				}
				if c.Op == "GetObject" && firstSeen < 0 && c.Apply != nil && c.Apply.ETag == etag && c.Return != nil {
					firstSeen = c.Return.At
				}
				if c.Op == "PutObject" && c.answered() == 200 {
					acquire = c
				}
			}
			if firstSeen < 0 || acquire == nil || acquire.Cond != "If-Match:"+etag {
				t.Errorf("seed %d: n%d led at %v without timing and taking over the dead leader's record %s (first seen %v, acquired by %+v)", o.Seed, next.Node, next.At, etag, firstSeen, acquire)
				continue
			}
			if firstSeen > crash.At {
				strangers++
			}
			crashes++
			if next.At < firstSeen+s.LeaseDuration || next.At < last.Apply.At+s.LeaseDuration {
				t.Errorf("seed %d: n%d took over at %v, less than a lease after it first saw the record (%v) or after it was written (%v)", o.Seed, next.Node, next.At, firstSeen, last.Apply.At)
			}
			if limit := crash.At + 3*time.Second + elector.Protocol(s).LivenessBound; next.At > limit {
				t.Errorf("seed %d: n%d took over at %v, after %v (crash at %v + 3 s of restarts + the liveness bound)", o.Seed, next.Node, next.At, limit, crash.At)
			}
		}
		if leaderCrashes == 0 {
			t.Errorf("seed %d: no leader crashed", o.Seed)
		}
	}
	t.Logf("%d leader crashes, each taken over after a full lease; %d by a node that first saw the record after the crash", crashes, strangers)
}
