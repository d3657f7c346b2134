package relaxedlog

import (
	"fmt"
	"slices"
	"strings"

	"github.com/s3lease/s3lease/linearizability"
)

// ClosedCheck is the checker of closed bags: once a bag's lock object
// exists, the set of messages readers accept from it never changes. Its
// rules: the lock object is never written again with another list
// (RuleRewritten) nor deleted (RuleDeleted); every reader that found the
// bag closed accepted exactly the first list (RuleChanged); and every
// message a reader accepted while the bag was open is on it
// (RuleRetracted), or readers would take back what they had accepted.
const ClosedCheck = "closed-bags"

// The rules of ClosedCheck.
const (
	RuleRewritten = "rewritten"
	RuleDeleted   = "deleted"
	RuleChanged   = "changed"
	RuleRetracted = "retracted"
)

// checkLocks judges the lock objects' writes in the history
// (RuleRewritten, RuleDeleted).
func checkLocks(cfg Config, s stored) []linearizability.Violation {
	var out []linearizability.Violation
	for _, b := range s.order() {
		g := s.bags[b]
		for _, l := range g.locks[min(1, len(g.locks)):] {
			if first := g.locks[0]; !slices.Equal(l.Items, first.Items) {
				out = append(out, linearizability.Violation{Checker: ClosedCheck, Rule: RuleRewritten, At: l.At, Nodes: nodes(first.Node, l.Node),
					Message: fmt.Sprintf("bag %s: its lock object, written by n%d with %s, was written again by n%d with %s",
						cfg.dir(b), first.Node, itemsText(first.Items), l.Node, itemsText(l.Items))})
			}
		}
		for _, d := range g.deleted {
			out = append(out, linearizability.Violation{Checker: ClosedCheck, Rule: RuleDeleted, At: d.At, Nodes: nodes(d.Node),
				Message: fmt.Sprintf("bag %s: n%d deleted its lock object", cfg.dir(b), d.Node)})
		}
	}
	return out
}

// checkReads judges what readers accepted against the first list of each
// bag's lock object (RuleChanged, RuleRetracted).
func checkReads(cfg Config, s stored, l *Log) []linearizability.Violation {
	var out []linearizability.Violation
	for _, r := range l.Reads {
		for _, v := range r.Views {
			g := s.bags[v.Bag]
			if g == nil || len(g.locks) == 0 {
				continue
			}
			first := g.locks[0]
			if v.Closed && !slices.Equal(v.Items, first.Items) {
				out = append(out, linearizability.Violation{Checker: ClosedCheck, Rule: RuleChanged, At: r.At, Nodes: nodes(r.Node, first.Node),
					Message: fmt.Sprintf("bag %s: n%d read it closed with %s, but its lock object was first written (by n%d) with %s",
						cfg.dir(v.Bag), r.Node, itemsText(v.Items), first.Node, itemsText(first.Items))})
				continue
			}
			for _, k := range v.Items {
				if _, ok := slices.BinarySearch(first.Items, k); !v.Closed && !ok {
					out = append(out, linearizability.Violation{Checker: ClosedCheck, Rule: RuleRetracted, At: r.At, Nodes: nodes(r.Node, first.Node),
						Message: fmt.Sprintf("bag %s: n%d accepted %s while the bag was open, and its lock object (by n%d) leaves it out: readers took it back",
							cfg.dir(v.Bag), r.Node, k, first.Node)})
					break
				}
			}
		}
	}
	return out
}

// itemsText names a list of messages, briefly.
func itemsText(items []string) string {
	if len(items) <= 4 {
		return "[" + strings.Join(items, " ") + "]"
	}
	return fmt.Sprintf("[%s ... %s] (%d messages)", strings.Join(items[:2], " "), items[len(items)-1], len(items))
}
