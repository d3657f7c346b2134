package scenarios

import (
	"testing"
	"time"

	"github.com/s3lease/s3lease/harness/elector"
	"github.com/s3lease/s3lease/sim"
)

// TestLeaderCrash: when the leader crashes, its last record stays (possibly
// a renewal that lands after the crash); the next leader takes it over
// (If-Match its ETag) no earlier than a full lease after it first read that
// record (so no earlier than a lease after the record was written), and no
// later than LivenessBound after the last crashed node is back.
func TestLeaderCrash(t *testing.T) {
	s := elector.DefaultSettings
	crashes, strangers := 0, 0
	for _, r := range runSeeds(t, LeaderCrash, 30) {
		r.survives()
		leaderCrashes := 0
		for _, crash := range r.events(sim.EvCrash, anyNode) {
			term, leading := r.termAt(crash.Node, crash.At-1) // the crash ends the term
			if !leading {
				continue
			}
			leaderCrashes++
			// The crashed leader's last record: a renewal sent before the
			// crash may land after it.
			var last *s3Call
			for _, c := range r.puts(crash.Node) {
				if c.applied200() && c.Send.At <= crash.At {
					last = c
				}
			}
			next, ok := r.leadAfter(crash.At, -1)
			if last == nil || !ok {
				r.errorf("n%d (token %d) crashed at %v; last record %v, next lead %v", crash.Node, term.Token, crash.At, last, next)
				continue
			}
			etag := last.Apply.ETag
			// The new leader's incarnation started at its last start before
			// it led; its first read of the dead leader's record, and the
			// write that took it over.
			var started time.Duration
			for _, st := range r.events(sim.EvStart, next.Node) {
				if st.At <= next.At {
					started = st.At
				}
			}
			mine := filter(r.s3(), func(c *s3Call) bool { return c.Node == next.Node && c.Send.At >= started && c.Send.At <= next.At })
			seen, read := first(mine, func(c *s3Call) bool {
				return c.Op == "GetObject" && c.Apply != nil && c.Apply.ETag == etag && c.Return != nil
			})
			acquired := filter(mine, func(c *s3Call) bool { return c.Op == "PutObject" && c.answered() == 200 })
			if !read || len(acquired) == 0 || acquired[len(acquired)-1].Cond != "If-Match:"+etag {
				r.errorf("n%d led at %v without timing and taking over the dead leader's record %s (read %+v, acquired by %+v)", next.Node, next.At, etag, seen, acquired)
				continue
			}
			firstSeen := seen.Return.At
			if firstSeen > crash.At {
				strangers++
			}
			crashes++
			if next.At < firstSeen+s.LeaseDuration || next.At < last.Apply.At+s.LeaseDuration {
				r.errorf("n%d took over at %v, less than a lease after it first saw the record (%v) or after it was written (%v)", next.Node, next.At, firstSeen, last.Apply.At)
			}
			if limit := crash.At + 3*time.Second + elector.Protocol(s).LivenessBound; next.At > limit {
				r.errorf("n%d took over at %v, after %v (crash at %v + 3 s of restarts + the liveness bound)", next.Node, next.At, limit, crash.At)
			}
		}
		if leaderCrashes == 0 {
			r.errorf("no leader crashed")
		}
	}
	t.Logf("%d leader crashes, each taken over after a full lease; %d by a node that first saw the record after the crash", crashes, strangers)
}
