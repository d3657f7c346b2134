package scenarios

import (
	"slices"
	"testing"

	"github.com/s3lease/s3lease/harness"
	"github.com/s3lease/s3lease/sim"
)

// tornReads returns the run's torn answers (sim.FaultTornRead on an
// EvS3Return), each with the request its node sent next (nil if none).
func (r *run) tornReads() (torn []*s3Call, next []*s3Call) {
	calls := r.s3()
	for i, c := range calls {
		if c.Return == nil || c.Return.Fault != sim.FaultTornRead {
			continue
		}
		torn = append(torn, c)
		n, _ := first(calls[i+1:], func(d *s3Call) bool { return d.Node == c.Node && d.Send.At >= c.Return.At })
		next = append(next, n)
	}
	return torn, next
}

// TestTornRead: on every seed S3 answers reads torn at the hand-overs,
// the elector reads each torn body again (the next request of its node is
// a GetObject, never a write conditioned on the torn read's ETag), and
// the run stays inside its assumptions and passes; leadership moves at
// each of the four stops.
func TestTornRead(t *testing.T) {
	total := 0
	for _, r := range runSeeds(t, TornRead, 10) {
		r.survives()
		torn, next := r.tornReads()
		total += len(torn)
		if len(torn) == 0 {
			r.errorf("no read answered torn")
		}
		for i, c := range torn {
			if n := next[i]; n != nil && n.Op != "GetObject" {
				r.errorf("n%d's read #%d was answered torn at %v; its next request is %s %s, not a read", c.Node, c.ID, c.Return.At, n.Op, n.Cond)
			}
		}
		if leads := len(r.events(sim.EvLead, anyNode)); leads < len(tornReadAt)+1 {
			r.errorf("%d terms; want one per hand-over and the first", leads)
		}
	}
	t.Logf("%d torn reads in 10 seeds, each read again", total)
}

// TestTornReadTrusted: the lock that believes torn bodies is caught on
// most seeds, and every catch comes of a torn read: its node wrote next,
// If-Match the torn read's ETag (the new term's), and on most of them a
// token was handed out twice (the released record's plus one, the new
// leader's own).
func TestTornReadTrusted(t *testing.T) {
	caught, twice := 0, 0
	rs := runSeeds(t, TornReadTrusted, 10)
	for _, r := range rs {
		torn, next := r.tornReads()
		acted := false
		for i, n := range next {
			acted = acted || n != nil && n.Op == "PutObject" && n.Cond == "If-Match:"+torn[i].Return.ETag
		}
		if r.Verdict != harness.Unsafe {
			continue
		}
		caught++
		if !acted {
			r.errorf("caught (%s) without a write conditioned on a torn read's ETag", harness.SignatureOf(r.Outcome))
		}
		if slices.Contains(harness.SignatureOf(r.Outcome).Checkers, "unique-holder") {
			twice++
		}
	}
	t.Logf("%d of %d seeds caught, %d with a token handed out twice", caught, len(rs), twice)
	if caught < len(rs)/2 || twice == 0 {
		t.Errorf("%d of %d seeds caught, %d with a token handed out twice; want most caught, some twice", caught, len(rs), twice)
	}
}
