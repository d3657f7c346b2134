package elector

import (
	"fmt"
	"math/big"
	"time"

	"github.com/s3lease/s3lease/linearizability"
	"github.com/s3lease/s3lease/protocol"
)

// RulePaceTerm: the term the elector keeps and the bounds it states
// (protocol.Config.Assumptions, which its pace, its answers and the
// swarm's draws are judged and sized by) are not the package
// documentation's derivation from its configuration: a drift bound of
// ClockDriftPPM, or DefaultClockDriftPPM for 0; a term of
// min(RenewDeadline, floor(LeaseDuration*(1e6-ppm)/(1e6+ppm))), the
// longest a leader may keep after its last write's send for no follower on
// a clock within ppm to end the lease first; and a pause bound of
// LeaseDuration - RenewDeadline - floor(LeaseDuration*4*ppm/1e6). A term a
// nanosecond too long at a deadline drawn at its limit is unsafe only on
// a schedule no run can be expected to draw; the derivation shows it in
// every run.
const RulePaceTerm = "term"

// termRule judges got, the assumptions the elector states with settings s,
// against the documentation's derivation, computed here apart from the
// protocol's arithmetic.
func (s Settings) termRule(node int, got protocol.Assumptions) []linearizability.Violation {
	ppm := s.ClockDriftPPM
	if ppm == 0 {
		ppm = protocol.DefaultClockDriftPPM
	}
	want := protocol.Assumptions{
		Lease:       s.LeaseDuration,
		Term:        min(s.RenewDeadline, mulDiv(s.LeaseDuration, 1e6-ppm, 1e6+ppm)),
		MaxDriftPPM: ppm,
		MaxPause:    s.LeaseDuration - s.RenewDeadline - mulDiv(s.LeaseDuration, 4*ppm, 1e6),
	}
	if got.Term == want.Term && got.MaxDriftPPM == want.MaxDriftPPM && got.MaxPause == want.MaxPause && got.Lease == want.Lease {
		return nil
	}
	return []linearizability.Violation{{Checker: PaceCheck, Rule: RulePaceTerm, Nodes: []int{node},
		Message: fmt.Sprintf("n%d's elector (lease %v, renew deadline %v, drift bound %d ppm) states a term of %v, a drift bound of %d ppm and a pause bound of %v; its configuration gives %v, %d ppm and %v",
			node, s.LeaseDuration, s.RenewDeadline, s.ClockDriftPPM, got.Term, got.MaxDriftPPM, got.MaxPause, want.Term, want.MaxDriftPPM, want.MaxPause)}}
}

// mulDiv is floor(d*num/den) for d, num >= 0 and den > 0, exactly.
func mulDiv(d time.Duration, num, den int64) time.Duration {
	x := new(big.Int).Mul(big.NewInt(int64(d)), big.NewInt(num))
	return time.Duration(x.Quo(x, big.NewInt(den)).Int64())
}
