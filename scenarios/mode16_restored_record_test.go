package scenarios

import (
	"crypto/md5"
	"encoding/hex"
	"testing"

	"github.com/s3lease/s3lease/harness"
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
	for _, o := range runSeeds(t, Reference, 10) {
		checkSurvives(t, o)
		for id, etag := range repeatedETags(s3Calls(o)) {
			t.Errorf("reference seed %d: PutObject #%d repeats ETag %s", o.Seed, id, etag)
		}
	}

	lease := harness.DefaultElectorSettings.LeaseDuration
	sum := md5.Sum([]byte(modeBRestoredRecord))
	restored := `"` + hex.EncodeToString(sum[:]) + `"`
	outs := runSeeds(t, RestoredRecord, 30)
	retimed, races, overlaps, refused := 0, 0, 0, 0
	for _, o := range outs {
		checkOutsideButPass(t, o)
		refused += len(refusedWrites(o))
		calls := s3Calls(o)
		// The electors' writes: one ETag each, none the restored body's.
		for id, etag := range repeatedETags(calls) {
			t.Errorf("seed %d: PutObject #%d repeats ETag %s", o.Seed, id, etag)
		}
		for _, c := range puts(calls, anyNode) {
			if c.applied200() && c.Apply.ETag == restored {
				t.Errorf("seed %d: PutObject #%d has the restored body's ETag", o.Seed, c.ID)
			}
		}
		restores := faultEvents(o, sim.FaultOverwrite)
		if len(restores) != 2 {
			t.Fatalf("seed %d: %d restores in the trace; want 2", o.Seed, len(restores))
		}
		// Each restore's ETag, as the first request S3 applied after it
		// saw it, if that was a read (an elector's write may land first).
		// Requests are in the order they were sent; S3 applies them in
		// another, so the first applied is the earliest apply.
		for _, r := range restores {
			var first *s3Call
			for _, c := range calls {
				if c.Apply != nil && c.Apply.At >= r.At && c.Apply.Status == 200 && (first == nil || c.Apply.At < first.Apply.At) {
					first = c
				}
			}
			if first != nil && first.Op == "GetObject" && first.Apply.ETag != restored {
				t.Errorf("seed %d: the first read after the restore at %v saw ETag %s; want %s", o.Seed, r.At, first.Apply.ETag, restored)
			}
		}
		// Every takeover of the second restore: either its node had read
		// that restore and timed it for a lease from its first such read,
		// or it decided on a read S3 applied before the restore (a race).
		second := restores[1].At
		raced := false
		for _, c := range puts(calls, anyNode) {
			if c.Cond != "If-Match:"+restored || !c.applied200() || c.Apply.At < second {
				continue
			}
			var firstSeen, lastRead *s3Call
			for _, g := range calls {
				if g.Node != c.Node || g.Op != "GetObject" || g.Return == nil || g.Return.At > c.Send.At {
					continue
				}
				lastRead = g
				if g.applied200() && g.Apply.At > second && g.Apply.ETag == restored && firstSeen == nil {
					firstSeen = g
				}
			}
			switch {
			case firstSeen != nil:
				retimed++
				if c.Send.At < firstSeen.Return.At+lease {
					t.Errorf("seed %d: n%d took the second restore at %v, %v after its first read of it; want a lease (%v)",
						o.Seed, c.Node, c.Send.At, c.Send.At-firstSeen.Return.At, lease)
				}
			case lastRead != nil && lastRead.Apply != nil && lastRead.Apply.At < second:
				raced = true
				t.Logf("seed %d: n%d's takeover, decided on a read applied at %v, landed at %v on the second restore (written at %v): a race If-Match cannot see",
					o.Seed, c.Node, lastRead.Apply.At, c.Apply.At, second)
			default:
				t.Errorf("seed %d: n%d took the second restore at %v without having read it", o.Seed, c.Node, c.Send.At)
			}
		}
		if raced {
			races++
		}
		if hasOverlap(o) {
			overlaps++
			if !raced {
				t.Errorf("seed %d: leaders overlapped without a takeover racing the second restore: %v", o.Seed, o.Overlaps)
			}
		}
		if raced {
			// Two takeovers both succeeded, one against each restore: each
			// took its token from its own wall clock before it knew of the
			// other, so S3's order of the two need not be their tokens'.
			for _, v := range o.Excused {
				t.Logf("seed %d: %v", o.Seed, v.Violation)
			}
		} else {
			tokensRise(t, o, restores[0].At)
		}
		if len(events(o, sim.EvLead, anyNode)) < 2 {
			t.Errorf("seed %d: leadership never moved", o.Seed)
		}
	}
	t.Logf("%d of %d seeds: the second restore taken over after a lease of its own; %d with a takeover racing it; %d with overlapping leaders; %d fenced writes refused",
		retimed, len(outs), races, overlaps, refused)
	if retimed == 0 {
		t.Errorf("want seeds where a node takes the second restore over after timing it afresh")
	}
}

// repeatedETags returns the PutObjects S3 applied whose ETag an
// earlier applied PutObject already had, by call.
func repeatedETags(calls []*s3Call) map[uint64]string {
	seen := map[string]bool{}
	repeated := map[uint64]string{}
	for _, c := range puts(calls, anyNode) {
		if !c.applied200() {
			continue
		}
		if seen[c.Apply.ETag] {
			repeated[c.ID] = c.Apply.ETag
		}
		seen[c.Apply.ETag] = true
	}
	return repeated
}
