package linearizability

import (
	"cmp"
	"fmt"
	"slices"
	"time"
)

// The watermark checker judges seed 003's hand-off: applications write
// entries stamped with timestamps, each leader publishes through the lock
// record a watermark bounding the timestamps of what it and its
// predecessors wrote, and each new leader must write only above the
// watermark handed to it. Readers can then order every entry by its
// timestamp alone, across hand-overs, crashes and wall-clock steps.

// WatermarkChecker is the Checker name of the watermark checker's
// violations.
const WatermarkChecker = "watermark"

// The rules of the watermark checker.
const (
	// RuleBelowPredecessor: a leader wrote an entry stamped at or below a
	// watermark that a term with a lower token had published: a reader
	// ordering by timestamp would put it among its predecessors' entries.
	// This is what the hand-off exists to prevent.
	RuleBelowPredecessor = "below-predecessor"
	// RuleAboveOwn: a leader wrote an entry stamped above every watermark
	// of its own term published by then: if it dies now, its successor is
	// handed a lower bound and may write below the entry.
	RuleAboveOwn = "above-own-watermark"
)

// StampedWrite is one entry an application wrote under a term.
type StampedWrite struct {
	Node  int
	Token uint64
	// Stamp is the entry's timestamp, chosen by the application.
	Stamp time.Time
	// At is the true time at which it wrote the entry.
	At time.Duration
}

// Publication is a watermark the lock object held: a record of the term
// with Token, carrying Watermark, which S3 applied. Known is the earliest
// true time at which its writer could know it applied (its answer, a read
// that returned it, or a write conditioned on it that succeeded). ETag is
// the record's, as S3 gave it ("" if not known): it names the version, for
// a judge that traces where the watermark came from.
type Publication struct {
	Token     uint64
	Watermark time.Time
	Known     time.Duration
	ETag      string
}

// WatermarkHistory is what the watermark checker judges.
type WatermarkHistory struct {
	Writes       []StampedWrite
	Publications []Publication
}

// CheckWatermarks checks every write of h against the watermarks: none at
// or below a watermark a term with a lower token published
// (RuleBelowPredecessor), none above the highest watermark its own term
// had published when it was written (RuleAboveOwn). It reports the first
// offending write of each term and rule, ordered by time: the time it is
// witnessed, which for RuleBelowPredecessor is the later of the entry and
// the publication of the watermark it is below.
func CheckWatermarks(h WatermarkHistory) []Violation {
	pubs := h.byToken()
	type key struct {
		token uint64
		rule  string
	}
	reported := map[key]bool{}
	var out []Violation
	report := func(w StampedWrite, at time.Duration, rule, msg string) {
		if k := (key{w.Token, rule}); !reported[k] {
			reported[k] = true
			out = append(out, Violation{Checker: WatermarkChecker, Rule: rule, At: at, Nodes: []int{w.Node}, Token: w.Token, Message: msg})
		}
	}
	for _, w := range h.Writes {
		var own time.Time
		for _, p := range pubs {
			if p.Token == w.Token && p.Known <= w.At && p.Watermark.After(own) {
				own = p.Watermark
			}
		}
		if p, below := predecessor(pubs, w); below {
			// Witnessed once both the entry and the watermark exist: a
			// lower token published after the entry (tokens that went down
			// after a deletion of the lock object) is seen then.
			report(w, max(w.At, p.Known), RuleBelowPredecessor, fmt.Sprintf("node %d wrote an entry stamped %s under token %d at %v, not above the watermark %s published under token %d",
				w.Node, stamp(w.Stamp), w.Token, w.At, stamp(p.Watermark), p.Token))
		}
		if w.Stamp.After(own) {
			report(w, w.At, RuleAboveOwn, fmt.Sprintf("node %d wrote an entry stamped %s under token %d at %v, above the watermark %s its term had published by then",
				w.Node, stamp(w.Stamp), w.Token, w.At, stamp(own)))
		}
	}
	slices.SortStableFunc(out, compareViolations)
	return out
}

// Predecessor returns the publication that entry w is at or below, by
// RuleBelowPredecessor (the highest watermark published under a lower
// token, the first such in token order), and whether w is at or below it.
func (h WatermarkHistory) Predecessor(w StampedWrite) (Publication, bool) {
	return predecessor(h.byToken(), w)
}

// byToken returns h's publications ordered by token, then by when they
// were known.
func (h WatermarkHistory) byToken() []Publication {
	pubs := slices.Clone(h.Publications)
	slices.SortFunc(pubs, func(a, b Publication) int {
		return cmp.Or(cmp.Compare(a.Token, b.Token), cmp.Compare(a.Known, b.Known))
	})
	return pubs
}

// predecessor is Predecessor over pubs, sorted by token.
func predecessor(pubs []Publication, w StampedWrite) (Publication, bool) {
	var pred Publication
	found := false
	for _, p := range pubs {
		if p.Token < w.Token && p.Watermark.After(pred.Watermark) {
			pred, found = p, true
		}
	}
	return pred, found && !w.Stamp.After(pred.Watermark)
}

func stamp(t time.Time) string {
	if t.IsZero() {
		return "(none)"
	}
	return t.UTC().Format(time.RFC3339Nano)
}
