package relaxedlog

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/s3lease/s3lease/linearizability"
)

// OrderCheck is the checker of the log's order: in each domain, every
// message readers accept from a later term of the domain's lease (a
// higher token) is stamped above every accepted message of the earlier
// terms. A message written under several leases is held to each.
const OrderCheck = "log-order"

// checkOrder judges the order of what readers accept at the end of the
// run: one violation per domain and later term, naming its lowest message
// and the highest message of the earlier terms that it is not above.
func checkOrder(cfg Config, s stored) []linearizability.Violation {
	var out []linearizability.Violation
	for _, d := range cfg.Domains {
		type entry struct {
			m     storedMessage
			token uint64
		}
		var es []entry
		for _, b := range s.order() {
			for _, k := range s.accepted(b) {
				if m, ok := s.messages[k]; ok {
					if t, ok := m.Token(d); ok {
						es = append(es, entry{m, t})
					}
				}
			}
		}
		slices.SortFunc(es, func(a, b entry) int {
			return cmp.Or(cmp.Compare(a.token, b.token), a.m.Stamp.Compare(b.m.Stamp), cmp.Compare(a.m.Key, b.m.Key))
		})
		var top *storedMessage // the highest stamp of the terms before the current one
		var topToken uint64
		for i := 0; i < len(es); {
			j := i
			for j < len(es) && es[j].token == es[i].token {
				j++
			}
			if low := es[i].m; top != nil && !low.Stamp.After(top.Stamp) {
				out = append(out, linearizability.Violation{Checker: OrderCheck, At: max(low.At, top.At),
					Nodes: nodes(low.Node, top.Node), Token: es[i].token,
					Message: fmt.Sprintf("domain %s: message %s of term %d (n%d) is stamped %s, not above message %s of term %d (n%d), stamped %s: "+
						"a later term of the lease wrote at or below an earlier one", d, low.Key, es[i].token, low.Node, stampText(low.Stamp),
						top.Key, topToken, top.Node, stampText(top.Stamp))})
			}
			for k := i; k < j; k++ {
				if top == nil || es[k].m.Stamp.After(top.Stamp) {
					m := es[k].m
					top, topToken = &m, es[k].token
				}
			}
			i = j
		}
	}
	return out
}

// nodes is the ascending list of distinct nodes among ns (the history's
// -1, someone outside the nodes, left out).
func nodes(ns ...int) []int {
	var out []int
	for _, n := range ns {
		if n >= 0 && !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	slices.Sort(out)
	return out
}
