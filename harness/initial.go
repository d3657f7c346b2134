package harness

import (
	"fmt"

	"github.com/s3lease/s3lease/faults"
	"github.com/s3lease/s3lease/linearizability"
	"github.com/s3lease/s3lease/protocol"
	"github.com/s3lease/s3lease/sim"
)

// InitialRecordCheck names the violations of the record the lock object
// held before the run, when the nodes could have written it (a native
// faults.Record, in the protocol's own format: Protocol.EncodeRecord; the
// live record of a node that is gone, say): it is a term like any other,
// whatever its spelling. No node may be handed a
// token at or below its token (RuleInitialToken), and, unless it is
// released, no node may lead before its lease could have run out on a
// clock within the drift bound (RuleInitialLease). A write of the lock
// object by someone else excuses the token for the terms of its lineage
// (whose acquisitions read its content before electors re-established the
// chain), and the lease for a lease and a term after it; a node whose
// clock left the assumptions is excused the lease.
const InitialRecordCheck = "initial-record"

// The rules of InitialRecordCheck.
const (
	RuleInitialToken = "token"
	RuleInitialLease = "lease"
)

// initialRecord judges h's terms against the record plan's lock object
// held before the run.
func initialRecord(p Protocol, plan *faults.Plan, h *sim.History) []linearizability.Violation {
	o := plan.Initial
	if o == nil || o.Record == nil || o.Foreign() || p.EncodeRecord == nil {
		return nil // no record, none electors could write, or not in the protocol's format
	}
	rec := o.Record
	lease := rec.Lease.D()
	if lease <= 0 {
		lease = p.StatedLease() // what the protocol's encoder writes for it
	}
	earliest := lease - protocol.DriftMargin(lease, p.Assumptions.MaxDriftPPM)
	var out []linearizability.Violation
	for _, t := range h.Terms {
		if !p.NoFencingTokens && t.Token <= rec.Token {
			out = append(out, linearizability.Violation{Checker: InitialRecordCheck, Rule: RuleInitialToken, At: t.Start, Nodes: []int{t.Node}, Token: t.Token,
				Message: fmt.Sprintf("node %d was handed token %d at %v, not above the token %d of the record %q held before the run", t.Node, t.Token, t.Start, rec.Token, rec.Holder)})
		}
		if !rec.Released && t.Start < earliest {
			out = append(out, linearizability.Violation{Checker: InitialRecordCheck, Rule: RuleInitialLease, At: t.Start, Nodes: []int{t.Node}, Token: t.Token,
				Message: fmt.Sprintf("node %d led from %v, before the lease of %v of the record %q held before the run could have run out (%v, on a clock within %d ppm)",
					t.Node, t.Start, lease, rec.Holder, earliest, p.Assumptions.MaxDriftPPM)})
		}
	}
	return out
}
