package linearizability

import (
	"testing"
	"time"

	"github.com/s3lease/s3lease/sim"
)

// TestLeaseCheckJudgesWhatTheApplicationWasTold: a write whose sender was
// told it leads is judged against the terms that had begun when it was
// sent, whether or not the fence took it; writes sent before a later term
// began, and writes nobody checked, are not.
func TestLeaseCheckJudgesWhatTheApplicationWasTold(t *testing.T) {
	s := time.Second
	h := &sim.History{
		Terms: []sim.Term{
			{Node: 0, Token: 1, Start: 0, End: 10 * s},
			{Node: 1, Token: 2, Start: 5 * s, End: 20 * s},
		},
		Writes: []sim.FencedWrite{
			{Node: 0, Token: 1, Sent: 4 * s, Applied: 4 * s, Accepted: true, Checked: true, CheckedAt: 4 * s},
			{Node: 0, Token: 1, Sent: 6 * s, Applied: 6 * s, Accepted: true},                                   // not checked
			{Node: 0, Token: 1, Sent: 7 * s, Applied: 7 * s, Accepted: false, Checked: true, CheckedAt: 6 * s}, // refused, still a lie
			{Node: 0, Token: 1, Sent: 8 * s, Applied: 8 * s, Accepted: false, Checked: true, CheckedAt: 8 * s}, // same token: reported once
			{Node: 1, Token: 2, Sent: 9 * s, Applied: 9 * s, Accepted: true, Checked: true, CheckedAt: 9 * s},
		},
	}
	vs := CheckLeaseChecks(h)
	if len(vs) != 1 {
		t.Fatalf("violations %v; want one", vs)
	}
	v := vs[0]
	if v.Checker != LeaseCheckName || v.At != 7*s || v.Token != 1 || len(v.Nodes) != 2 {
		t.Fatalf("violation %+v; want lease-check at 7s, token 1, nodes 0 and 1", v)
	}
	if CheckLeaseChecks(&sim.History{Terms: h.Terms[:1], Writes: h.Writes}) != nil {
		t.Fatal("a single term: nothing to judge")
	}
}
