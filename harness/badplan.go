package harness

import (
	"fmt"
	"strconv"
	"unicode/utf8"

	"github.com/s3lease/s3lease/faults"
	"github.com/s3lease/s3lease/sim"
)

// ErrBadPlan is wrapped by the errors RunSetup returns for a plan that
// the protocol's own configuration refuses: settings its Configure
// refuses (or settings for a protocol that takes none), an identity
// longer than its MaxIdentityLen or not UTF-8. Each names the part of the
// plan and the protocol's rule. Such a plan is bad input, not a run the
// protocol failed: `simrun` exits 2 with the message, and the generator
// (faults.Draw within the bounds a Space gives) never draws one.
var ErrBadPlan = fmt.Errorf("%w: a plan the protocol refuses", ErrInvalidSetup)

// checkIdentities refuses, with ErrBadPlan, an identity that plan gives a
// node of the run of cfg (faults.Plan.Identities) and that the protocol
// the node runs does not take: longer than its MaxIdentityLen, or not
// UTF-8 (a protocol that states no MaxIdentityLen takes any).
func checkIdentities(p Protocol, plan *faults.Plan, cfg *sim.Config) error {
	names := make([]string, cfg.Nodes)
	for i := range names {
		switch {
		case i < len(plan.Names) && plan.Names[i] != "":
			names[i] = plan.Names[i]
		case i < len(cfg.Identities) && cfg.Identities[i] != "":
			names[i] = cfg.Identities[i]
		default:
			names[i] = "n" + strconv.Itoa(i)
		}
	}
	for _, id := range plan.Identities(names) {
		q := p.Node(id.Node)
		limit := q.MaxIdentityLen
		if limit <= 0 {
			limit = p.MaxIdentityLen
		}
		switch {
		case limit <= 0:
		case len(id.Identity) > limit:
			return fmt.Errorf("%w: %s gives node %d an identity of %d bytes; protocol %q takes identities of at most %d bytes (MaxIdentityLen)",
				ErrBadPlan, id.Field, id.Node, len(id.Identity), q.Name, limit)
		case !utf8.ValidString(id.Identity):
			return fmt.Errorf("%w: %s gives node %d an identity that is not UTF-8 (%.40q); protocol %q takes identities of UTF-8 text",
				ErrBadPlan, id.Field, id.Node, id.Identity, q.Name)
		}
	}
	return nil
}
