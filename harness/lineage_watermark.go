package harness

import (
	"slices"
	"strconv"
	"strings"

	"github.com/s3lease/s3lease/linearizability"
	"github.com/s3lease/s3lease/sim"
)

// checkWatermarks returns what the watermark checker finds in the run's
// watermark history wh, and, with foreign writes (l not nil), what it
// finds within the terms and records of one hand-over lineage that the
// whole history's reports hid (see lineage); l keeps wh and the latter,
// to judge them (watermarkExcused).
func (l *lineage) checkWatermarks(h *sim.History, wh linearizability.WatermarkHistory) []linearizability.Violation {
	found := linearizability.CheckWatermarks(wh)
	if l == nil {
		return found
	}
	l.watermarks = &wh
	var names []string
	subs := map[string]*linearizability.WatermarkHistory{}
	sub := func(name string) *linearizability.WatermarkHistory {
		if subs[name] == nil {
			names = append(names, name)
			subs[name] = &linearizability.WatermarkHistory{}
		}
		return subs[name]
	}
	for _, w := range wh.Writes {
		name := setName(l.entryLineage(h, w))
		if j := termOf(h, w.Node, w.Token, w.At); j >= 0 && l.spent[j] {
			// A token of a spent token space orders nothing: its term's
			// entries are judged apart, with no predecessor.
			name += "#" + strconv.Itoa(j)
		}
		s := sub(name)
		s.Writes = append(s.Writes, w)
	}
	for _, p := range wh.Publications {
		s := sub(setName(l.published[strings.Trim(p.ETag, `"`)]))
		s.Publications = append(s.Publications, p)
	}
	if len(names) < 2 {
		return found
	}
	for _, name := range names {
		for _, v := range linearizability.CheckWatermarks(*subs[name]) {
			if v.Rule == linearizability.RuleBelowPredecessor && !slices.ContainsFunc(found, func(w linearizability.Violation) bool { return sameViolation(v, w) }) {
				l.wmJudged = append(l.wmJudged, v)
			}
		}
	}
	return append(found, l.wmJudged...)
}

// entryLineage is the hand-over lineage of the term entry w was written
// under (none if no term of its node with its token had begun).
func (l *lineage) entryLineage(h *sim.History, w linearizability.StampedWrite) writeSet {
	if j := termOf(h, w.Node, w.Token, w.At); j >= 0 {
		return l.handOver[j]
	}
	return nil
}

// setName names a set of foreign writes, for grouping.
func setName(b writeSet) string {
	var s strings.Builder
	for _, f := range b.members() {
		s.WriteString(strconv.Itoa(f) + ",")
	}
	return s.String()
}

// watermarkExcused returns the indices of the foreign writes that excuse
// watermark violation v (see lineage). An entry at or below a
// predecessor's watermark: those whose hand-over lineage holds the entry's
// term or the record that published the watermark, and not both, and, if
// the watermark's term began after the entry's (tokens went down), those
// that excuse that pair of terms' tokens; none if the checker found it
// within one lineage. Any other rule: those that
// wrote while v's term ran (up to v), and those that wrote the record it
// took over.
func (l *lineage) watermarkExcused(h *sim.History, v linearizability.Violation) []int {
	if l == nil || len(v.Nodes) == 0 || slices.ContainsFunc(l.wmJudged, func(w linearizability.Violation) bool { return sameViolation(v, w) }) {
		return nil
	}
	if v.Rule == linearizability.RuleBelowPredecessor {
		if l.watermarks == nil {
			return nil
		}
		for _, w := range l.watermarks.Writes {
			if w.Node != v.Nodes[0] || w.Token != v.Token {
				continue
			}
			if p, below := l.watermarks.Predecessor(w); below && max(w.At, p.Known) == v.At {
				entry, pub := l.entryLineage(h, w), l.published[strings.Trim(p.ETag, `"`)]
				var apart writeSet
				for _, f := range slices.Clone(entry).union(pub).members() {
					if entry.has(f) != pub.has(f) {
						apart.add(f)
					}
				}
				// A predecessor that began after the entry's term has
				// its lower token from tokens that went down: the
				// violation follows from that one, excused as it is.
				jw, jp := termOf(h, w.Node, w.Token, w.At), publisher(h, p)
				if jw >= 0 && jp >= 0 && h.Terms[jp].Start > h.Terms[jw].Start && l.class[jp] != l.class[jw] {
					apart = apart.union(l.of[jw]).union(l.of[jp])
				}
				// An entry's term of a spent token space may have been
				// handed no watermark at all (its acquisition linked to
				// no previous term): the doing of the foreign writes of
				// its lineage, which spent the tokens.
				if jw >= 0 && l.spent[jw] {
					apart = apart.union(l.of[jw])
				}
				return apart.members()
			}
		}
		return nil
	}
	j := termOf(h, v.Nodes[0], v.Token, v.At)
	if j < 0 {
		return nil
	}
	by := slices.Clone(l.direct[j])
	for f, fw := range l.foreign {
		if !fw.torn && fw.at >= h.Terms[j].Start && fw.at <= v.At {
			by.add(f)
		}
	}
	return by.members()
}

// publisher returns the index of the term that published p: the last term
// with p's token, of the node that wrote p's record, begun by the time p
// was known; -1 if none.
func publisher(h *sim.History, p linearizability.Publication) int {
	for i := range h.S3 {
		if op := &h.S3[i]; op.Node >= 0 && op.Op == "PutObject" && op.BodyETag == p.ETag {
			return termOf(h, op.Node, p.Token, p.Known)
		}
	}
	return -1
}
