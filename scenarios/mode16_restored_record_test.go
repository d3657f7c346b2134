package scenarios

import (
	"crypto/md5"
	"encoding/hex"
	"testing"

	"github.com/s3lease/s3lease/faults"
	"github.com/s3lease/s3lease/harness"
	"github.com/s3lease/s3lease/sim"
)

// TestRestoredRecord: every PutObject the electors made has an ETag of its
// own (no ABA among their writes), here and in the reference scenario; the
// outside tool's two restores have one and the same ETag, the MD5 of the
// body; on some seeds a candidate that timed the first restore takes the
// second for the same record and acquires it (If-Match succeeds) less than
// a lease after it was written, and on some of those it had not seen the
// current leader's record, so two nodes lead with one token (reported as
// expected: foreign writes are outside the elector's assumptions). Every
// run still passes: no stale write accepted, a leader after the heal.
func TestRestoredRecord(t *testing.T) {
	// Inside the assumptions too (the reference scenario, with rolling
	// restarts and releases), no elector write repeats an ETag.
	for _, o := range runSeeds(t, Reference, 10) {
		checkSurvives(t, o)
		for id, etag := range repeatedETags(s3Calls(o)) {
			t.Errorf("reference seed %d: PutObject #%d repeats ETag %s", o.Seed, id, etag)
		}
	}

	sum := md5.Sum([]byte(modeBRestoredRecord))
	restored := `"` + hex.EncodeToString(sum[:]) + `"`
	outs := runSeeds(t, RestoredRecord, 30)
	aba, overlaps, shared, refused := 0, 0, 0, 0
	for _, o := range outs {
		checkOutsideButPass(t, o)
		if hasOverlap(o) {
			overlaps++
		}
		for _, v := range o.Excused {
			if v.Checker == "unique-holder" {
				shared++
				break
			}
		}
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
		restores := faultEvents(o, faults.Overwrite)
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
		// ABA: a node that had read the first restore acquires the second
		// less than a lease after it was written.
		second := restores[1].At
		for _, c := range puts(calls, anyNode) {
			if c.Cond != "If-Match:"+restored || !c.applied200() || c.Send.At < second || c.Send.At >= second+harness.DefaultElectorSettings.LeaseDuration {
				continue
			}
			timedBefore := false
			for _, g := range calls {
				if g.Node == c.Node && g.Op == "GetObject" && g.Apply != nil && g.Apply.ETag == restored && g.Apply.At < second {
					timedBefore = true
				}
			}
			if timedBefore {
				aba++
				t.Logf("seed %d: n%d took the second restore (written at %v) at %v, as the record it had timed since the first; expected: %v",
					o.Seed, c.Node, second, c.Apply.At, o.Excused)
				break
			}
		}
		if len(events(o, sim.EvLead, anyNode)) < 2 {
			t.Errorf("seed %d: leadership never moved", o.Seed)
		}
	}
	t.Logf("%d of %d seeds: a restored ETag mistaken for an unchanged record; %d seeds with overlapping leaders, %d with one token handed to two nodes; %d fenced writes refused",
		aba, len(outs), overlaps, shared, refused)
	if aba == 0 || overlaps == 0 || shared == 0 {
		t.Errorf("want seeds where a candidate takes the second restore for the first, and where that makes two leaders share a token")
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
