package relaxedlog

import (
	"slices"
	"strings"

	"github.com/s3lease/s3lease/linearizability"
	"github.com/s3lease/s3lease/sim"
)

// The judges, in two parts. AuditWrites judges what the history alone
// shows and holds whatever the faults, so that harness.Check judges it
// too: the elector's records in every domain's lock object
// (elector.Settings.AuditRecords, each lock object's requests alone) and
// the bags' lock objects, never written again with another list nor
// deleted (checkLocks). Audit judges a run of the design's scenarios, whose
// plans leave out foreign writes of the lock objects (withoutForeign), with
// its Log: the order of what readers accept at the end (checkOrder), what
// readers read (checkReads), the writers' verdicts (checkAcked), stamps and
// watermarks against expiry (checkExpiry), and the election of every
// domain but the first (whose terms the harness judges from the
// simulator's application): unique-holder and monotonic-tokens, as
// linearizability.CheckElection states them.

// AuditWrites judges what the nodes wrote in h: the design's
// harness.Protocol.AuditWrites.
func (c Config) AuditWrites(h *sim.History) []linearizability.Violation {
	s := readStored(c, h)
	var out []linearizability.Violation
	for _, k := range c.lockObjects(h) {
		out = append(out, c.Elector.AuditRecords(onKey(h, k))...)
	}
	return append(out, checkLocks(c, s)...)
}

// Audit judges a run's log l against its history h: the Setup.Audit of
// the design's scenarios.
func (c Config) Audit(h *sim.History, l *Log) []linearizability.Violation {
	s := readStored(c, h)
	out := checkOrder(c, s)
	out = append(out, checkReads(c, s, l)...)
	out = append(out, checkAcked(c, s, l)...)
	out = append(out, checkExpiry(c, h, l)...)
	return append(out, c.checkLeases(h, l)...)
}

// checkLeases judges the terms of every domain but the first with the
// election checkers (the first domain's terms are the history's, which
// the harness judges itself); the checker names say the domain.
func (c Config) checkLeases(h *sim.History, l *Log) []linearizability.Violation {
	var out []linearizability.Violation
	for _, d := range c.Domains[1:] {
		dh := &sim.History{Nodes: h.Nodes, End: h.End}
		for _, t := range l.Terms {
			if t.Domain == d {
				dh.Terms = append(dh.Terms, sim.Term{Node: t.Node, Identity: t.Identity, Incarnation: t.Incarnation,
					Token: t.Token, Start: t.At, End: t.End, Open: t.Open})
			}
		}
		for _, v := range linearizability.CheckElection(dh) {
			v.Checker = "domain " + d + " " + v.Checker
			out = append(out, v)
		}
	}
	return out
}

// onKey is h with only the S3 requests on key.
func onKey(h *sim.History, key string) *sim.History {
	out := *h
	out.S3 = nil
	for _, op := range h.S3 {
		if op.Key == key {
			out.S3 = append(out.S3, op)
		}
	}
	return &out
}

// lockObjects are the lock objects h shows requests on (every key that is
// not a bag's), sorted: the first domain's first, as the others' keys
// extend it (LockKey).
func (c Config) lockObjects(h *sim.History) []string {
	var keys []string
	for i := range h.S3 {
		if k := h.S3[i].Key; !slices.Contains(keys, k) {
			if _, kind := c.parse(k); kind == notBagKey && !strings.HasPrefix(k, c.Prefix) {
				keys = append(keys, k)
			}
		}
	}
	slices.Sort(keys)
	return keys
}
