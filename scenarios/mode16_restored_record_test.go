package scenarios

import (
	"crypto/md5"
	"encoding/hex"
	"testing"

	"github.com/s3lease/s3lease/harness/elector"
	"github.com/s3lease/s3lease/sim"
)

// TestRestoredRecord: every PutObject the electors made has an ETag of its
// own (no ABA among their writes), here and in the reference scenario; the
// outside tool's two restores have one and the same ETag, the MD5 of the
// body, but not the same Last-Modified. A follower restarts its timing
// whenever anything S3 shows of the object changes, so no node that had
// read the second restore takes it over less than a lease after its first
// read of it, even when it had timed the first restore since long before
// (it used to take it at once and lead beside the node whose record the
// restore overwrote, on some seeds with that node's token). Tokens rise
// across both restores. What If-Match cannot tell remains: a takeover of the
// first restore decided on a read that S3 applied before the second
// restore, whose write lands after it, succeeds against the second; every
// overlap of leaders, and every token out of order, must come of such a
// race of one round trip.
func TestRestoredRecord(t *testing.T) {
	// Inside the assumptions too (the reference scenario, with rolling
	// restarts and releases), no elector write repeats an ETag.
	for _, r := range runSeeds(t, Reference, 10) {
		r.survives()
		r.etagsUnique("")
	}

	lease := elector.DefaultSettings.LeaseDuration
	sum := md5.Sum([]byte(modeBRestoredRecord))
	restored := `"` + hex.EncodeToString(sum[:]) + `"`
	rs := runSeeds(t, RestoredRecord, 30)
	retimed, races, overlaps, refused := 0, 0, 0, 0
	for _, r := range rs {
		r.outsideButPasses()
		refused += len(r.refused())
		r.etagsUnique(restored)
		restores := r.faults(sim.FaultOverwrite)
		if len(restores) != 2 {
			r.errorf("%d restores in the trace; want 2", len(restores))
			continue
		}
		// Each restore's ETag, as the first request S3 applied after it
		// saw it, if that was a read (an elector's write may land first).
		// Requests are in the order they were sent; S3 applies them in
		// another, so the first applied is the earliest apply.
		for _, f := range restores {
			var next *s3Call
			for _, c := range r.s3() {
				if c.applied200() && c.Apply.At >= f.At && (next == nil || c.Apply.At < next.Apply.At) {
					next = c
				}
			}
			if next != nil && next.Op == "GetObject" && next.Apply.ETag != restored {
				r.errorf("the first read after the restore at %v saw ETag %s; want %s", f.At, next.Apply.ETag, restored)
			}
		}
		// Every takeover of the second restore: either its node had read
		// that restore and timed it for a lease from its first such read,
		// or it decided on a read S3 applied before the restore (a race).
		second := restores[1].At
		raced := false
		for _, c := range r.puts(anyNode) {
			if c.Cond != "If-Match:"+restored || !c.applied200() || c.Apply.At < second {
				continue
			}
			reads := filter(r.s3(), func(g *s3Call) bool {
				return g.Node == c.Node && g.Op == "GetObject" && g.Return != nil && g.Return.At <= c.Send.At
			})
			firstSeen, seen := first(reads, func(g *s3Call) bool { return g.applied200() && g.Apply.At > second && g.Apply.ETag == restored })
			switch {
			case seen:
				retimed++
				if c.Send.At < firstSeen.Return.At+lease {
					r.errorf("n%d took the second restore at %v, %v after its first read of it; want a lease (%v)",
						c.Node, c.Send.At, c.Send.At-firstSeen.Return.At, lease)
				}
			case len(reads) > 0 && reads[len(reads)-1].Apply != nil && reads[len(reads)-1].Apply.At < second:
				raced = true
				t.Logf("seed %d: n%d's takeover, decided on a read applied at %v, landed at %v on the second restore (written at %v): a race If-Match cannot see",
					r.Seed, c.Node, reads[len(reads)-1].Apply.At, c.Apply.At, second)
			default:
				r.errorf("n%d took the second restore at %v without having read it", c.Node, c.Send.At)
			}
		}
		if raced {
			races++
		}
		if r.overlapped() {
			overlaps++
			if !raced {
				r.errorf("leaders overlapped without a takeover racing the second restore: %v", r.Overlaps)
			}
		}
		if raced {
			// Two takeovers both succeeded, one against each restore: each
			// took its token from its own wall clock before it knew of the
			// other, so S3's order of the two need not be their tokens'.
			for _, v := range r.Excused {
				t.Logf("seed %d: %v", r.Seed, v.Violation)
			}
		} else {
			r.tokensRise(restores[0].At)
		}
		if len(r.events(sim.EvLead, anyNode)) < 2 {
			r.errorf("leadership never moved")
		}
	}
	t.Logf("%d of %d seeds: the second restore taken over after a lease of its own; %d with a takeover racing it; %d with overlapping leaders; %d fenced writes refused",
		retimed, len(rs), races, overlaps, refused)
	if retimed == 0 {
		t.Errorf("want seeds where a node takes the second restore over after timing it afresh")
	}
}

// etagsUnique asserts that no PutObject S3 applied has the ETag an earlier
// applied PutObject had, nor the ETag restored (unless "").
func (r *run) etagsUnique(restored string) {
	r.t.Helper()
	seen := map[string]bool{}
	for _, c := range filter(r.puts(anyNode), (*s3Call).applied200) {
		if seen[c.Apply.ETag] || c.Apply.ETag == restored {
			r.errorf("PutObject #%d repeats ETag %s", c.ID, c.Apply.ETag)
		}
		seen[c.Apply.ETag] = true
	}
}
