package faults

import "fmt"

// NodeIdentity is one identity a plan gives a node, and the part of the
// plan that gives it.
type NodeIdentity struct {
	Node     int
	Identity string
	// Field names the part of the plan, as its JSON spells it: "names[1]",
	// "events[4].identity".
	Field string
}

// Identities lists every identity the plan can give a node of a run
// whose nodes are first named names (node i's default identity, with
// Names applied: Names[i] if given, else the run's): each name the plan
// gives (Names), the identity of a restart that names one, and, for an
// event with a role or a target or a crash or stop that restarts (whose
// Identity is a suffix), each name it can give, the name of every node it
// can hit with the suffix. Identities the plan does not give (a default
// "n<i>", the run's own names) are not listed.
func (p *Plan) Identities(names []string) []NodeIdentity {
	var out []NodeIdentity
	for i, name := range p.Names {
		if name != "" {
			out = append(out, NodeIdentity{Node: i, Identity: name, Field: fmt.Sprintf("names[%d]", i)})
		}
	}
	for k, e := range p.Events {
		if e.Identity == "" {
			continue
		}
		field := fmt.Sprintf("events[%d].identity", k)
		switch {
		case e.Role != "" || e.Target != "" || (e.Kind == Crash || e.Kind == Stop) && e.For > 0:
			for i, name := range names {
				if i == e.Node || e.Role != "" || e.Target != "" {
					out = append(out, NodeIdentity{Node: i, Identity: name + e.Identity, Field: field})
				}
			}
		case e.Kind == Restart:
			out = append(out, NodeIdentity{Node: e.Node, Identity: e.Identity, Field: field})
		}
	}
	return out
}
