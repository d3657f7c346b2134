package harness

import (
	"cmp"
	"slices"
	"strings"
	"time"

	"github.com/s3lease/s3lease/faults"
	"github.com/s3lease/s3lease/internal/judging"
	"github.com/s3lease/s3lease/sim"
)

// traced is what traceLineage finds in a history, from its foreign
// writes. Per term of the history:
type traced struct {
	// read: the foreign writes whose derived content the term's
	// incarnation had been shown by its start.
	read []writeSet
	// handOver: the foreign writes that the record its acquisition took
	// over derives from through hand-overs (the watermark it was handed
	// came with that record); direct: those that wrote that record
	// themselves.
	handOver, direct []writeSet
	// acquired: when it was acquired, the send of its incarnation's last
	// write of an object before it began (its start if none).
	acquired []time.Duration
	// tookToken: the token of the term that wrote the record its
	// acquisition took over (the largest, if that record's ETag was
	// written under several; 0 if unknown or written by someone else).
	tookToken []uint64
	// published holds, for each version an elector wrote (by its unquoted
	// ETag), the hand-over lineage of the record it carries.
	published map[string]writeSet
}

// objectContent is what an object key holds: the version with an ETag
// (unquoted), or, with etag "", no object.
type objectContent struct{ key, etag string }

// mayHaveApplied reports whether S3 may have applied op: it succeeded, or
// no answer says it did not.
func mayHaveApplied(op *sim.S3Op) bool {
	return op.Status == 200 || op.Return < 0 || op.Status == 0 || op.Status >= 500
}

// written is the content op's write leaves, if it is a write that S3 may
// have applied.
func written(op *sim.S3Op) (objectContent, bool) {
	if op.Node < 0 && op.Status != 200 || !mayHaveApplied(op) {
		return objectContent{}, false
	}
	switch op.Op {
	case "PutObject":
		return objectContent{op.Key, strings.Trim(op.BodyETag, `"`)}, true
	case "DeleteObject":
		return objectContent{op.Key, ""}, true
	}
	return objectContent{}, false
}

// showed is the content op's answer showed its node, if it showed one.
func showed(op *sim.S3Op) (objectContent, bool) {
	ifMatch := strings.Trim(op.IfMatch, `"`)
	switch {
	case op.Op == "GetObject" || op.Op == "HeadObject":
		switch op.Status {
		case 200:
			return objectContent{op.Key, strings.Trim(op.ETag, `"`)}, true
		case 404:
			return objectContent{op.Key, ""}, true
		case 304:
			if m := strings.Trim(op.IfNoneMatch, `"`); m != "" && m != "*" {
				return objectContent{op.Key, m}, true
			}
		}
	case op.Status != 200:
	case (op.Op == "PutObject" || op.Op == "DeleteObject") && ifMatch != "" && ifMatch != "*":
		return objectContent{op.Key, ifMatch}, true
	case op.Op == "PutObject" && op.IfNoneMatch == "*":
		return objectContent{op.Key, ""}, true
	}
	return objectContent{}, false
}

// replaced is the content a conditional write op replaced if S3 applied
// it (the version its If-Match names, the absence an If-None-Match: *
// needs), if it is conditional.
func replaced(op *sim.S3Op) (objectContent, bool) {
	if m := strings.Trim(op.IfMatch, `"`); m != "" && m != "*" {
		return objectContent{op.Key, m}, true
	}
	if op.Op == "PutObject" && op.IfNoneMatch == "*" {
		return objectContent{op.Key, ""}, true
	}
	return objectContent{}, false
}

// version is one write of a content: when it was sent, and the foreign
// writes it derives from: through what its writer had been shown (read),
// through the records it took over (handOver); foreign says someone else
// wrote it; token is the token of the term it was written under, once
// known (0 until then, and for someone else's).
type version struct {
	at             time.Duration
	read, handOver writeSet
	foreign        bool
	token          uint64
}

// lineages of a content as an answer at some instant shows it: the
// union over every write of its ETag sent by then, or the last delete;
// token is the largest token they were written under.
type lineages struct {
	read, handOver, direct writeSet
	token                  uint64
}

// with returns l with the members of t added to each lineage (l's sets
// are not changed).
func (l lineages) with(t writeSet) lineages {
	if t.empty() {
		return l
	}
	l.read = slices.Clone(l.read).union(t)
	l.handOver = slices.Clone(l.handOver).union(t)
	l.direct = slices.Clone(l.direct).union(t)
	return l
}

// contentLineage returns the lineages of c in vs (c's writes) as an
// answer at at shows it.
func contentLineage(vs []*version, c objectContent, at time.Duration) lineages {
	var out lineages
	last := time.Duration(-1)
	for _, v := range vs {
		if v.at > at || c.etag == "" && v.at < last {
			continue
		}
		if c.etag == "" {
			out, last = lineages{}, v.at
		}
		out.read = out.read.union(v.read)
		out.handOver = out.handOver.union(v.handOver)
		out.token = max(out.token, v.token)
		if v.foreign {
			out.direct = out.direct.union(v.handOver)
		}
	}
	return out
}

// firstShown returns the first of at (instants content was shown) from
// from on, or end if none: a write of the content that no answer came
// for was applied by then, if ever it was.
func firstShown(at []time.Duration, from, end time.Duration) time.Duration {
	for _, t := range at {
		if t >= from && t < end {
			end = t
		}
	}
	return end
}

// The events traceLineage follows: answers at their arrival, terms at
// their start, writes at their send; at one instant in that order (a node
// that begins a term or sends a write the instant an answer came acted on
// it; a write it sends the instant its term begins is the term's first
// renewal, not its acquisition).
const (
	evAnswer = iota
	evTerm
	evWrite
)

// lineageEvent is one event: its instant, kind, and the index of its
// request in History.S3 (answer, write) or of its term in History.Terms.
type lineageEvent struct {
	at   time.Duration
	kind int
	i    int
}

// lineageEvents returns the events of h's nodes, in order.
func lineageEvents(h *sim.History) []lineageEvent {
	evs := make([]lineageEvent, 0, 2*len(h.S3)+len(h.Terms))
	for i := range h.S3 {
		if op := &h.S3[i]; op.Node >= 0 {
			evs = append(evs, lineageEvent{op.Call, evWrite, i})
			if op.Return >= 0 {
				evs = append(evs, lineageEvent{op.Return, evAnswer, i})
			}
		}
	}
	for j := range h.Terms {
		evs = append(evs, lineageEvent{h.Terms[j].Start, evTerm, j})
	}
	slices.SortFunc(evs, func(a, b lineageEvent) int {
		// cmp.Or of the three, without computing those it does not need.
		switch {
		case a.at != b.at:
			return cmp.Compare(a.at, b.at)
		case a.kind != b.kind:
			return a.kind - b.kind
		}
		return a.i - b.i
	})
	return evs
}

// traceLineage follows the content of the lock object through h from the
// foreign writes fw (see lineage).
func traceLineage(h *sim.History, fw []foreignWrite) traced {
	foreignOf, tornOf := map[int]int{}, map[int]int{}
	for f, w := range fw {
		switch {
		case w.op < 0:
		case w.torn:
			tornOf[w.op] = f
		default:
			foreignOf[w.op] = f
		}
	}
	cs := indexContents(h, foreignOf)
	versions, observed := cs.versions, cs.observed
	// replacedAt is, for each conditional write, as of when it is taken
	// to have replaced the content it names.
	replacedAt := map[int]time.Duration{}
	type incarnation struct{ node, inc int }
	seen := map[incarnation]writeSet{}
	// last is the content an incarnation's last answer showed it; took,
	// what its last write took over.
	last := map[incarnation]lineages{}
	took := map[incarnation]lineages{}
	// torn holds the torn read an incarnation's last answer was, if it was
	// one: what it writes next comes of the body that read showed, not of
	// the version its ETag names, whatever its If-Match.
	torn := map[incarnation]writeSet{}
	sent := map[incarnation]time.Duration{}
	// cur is an incarnation's last term begun (its index + 1); pending,
	// its last write, which was written under that term unless it is the
	// acquisition of the next.
	cur := map[incarnation]int{}
	pending := map[incarnation]*version{}
	evs := lineageEvents(h)
	out := traced{
		read: make([]writeSet, len(h.Terms)), handOver: make([]writeSet, len(h.Terms)), direct: make([]writeSet, len(h.Terms)),
		acquired: make([]time.Duration, len(h.Terms)), tookToken: make([]uint64, len(h.Terms)), published: publishedByForeign(h, foreignOf),
	}
	for _, e := range evs {
		switch e.kind {
		case evWrite:
			op := &h.S3[e.i]
			k := incarnation{op.Node, op.Incarnation}
			if op.Op != "PutObject" && op.Op != "DeleteObject" {
				continue
			}
			sent[k] = op.Call
			// A conditional write replaced the content it names as S3
			// held it when it applied: at that instant, where the history
			// knows it (a simulated run); else as sent, if it was still
			// current then and the write was answered; if a write that
			// replaced it had been answered, as written again by the time
			// the answer came; with no answer (a request that may land
			// late), as written again by the time an answer first showed
			// what it wrote (a restore writes an elector's bytes again).
			// An unconditional one carries what its node last read.
			c, ok := written(op)
			from := last[k]
			if r, cond := replaced(op); cond {
				until := op.Call
				switch {
				case op.Applied >= op.Call:
					until = op.Applied
				case op.Return < 0 || cs.superseded(r, op.Call):
					if until = op.Return; until < 0 {
						until = firstShown(observed[c], op.Call, h.End)
					}
				}
				replacedAt[e.i] = until
				from = contentLineage(versions[r], r, until).with(torn[k])
			}
			took[k] = from
			if !ok {
				continue
			}
			v := &version{at: op.Call, read: slices.Clone(seen[k]).union(from.read), handOver: from.handOver}
			versions[c] = append(versions[c], v)
			if j := cur[k] - 1; j >= 0 {
				v.token = h.Terms[j].Token // unless it acquires the next
			}
			if t := spentToken(h, op.Body); t > 0 {
				v.token = t // whether or not a term begins on it
			}
			pending[k] = v
			if c.etag != "" {
				out.published[c.etag] = out.published[c.etag].union(from.handOver)
			}
		case evAnswer:
			op := &h.S3[e.i]
			if c, ok := showed(op); ok {
				k := incarnation{op.Node, op.Incarnation}
				at, cond := replacedAt[e.i]
				if !cond {
					at = op.Return
				}
				var t writeSet
				if f, ok := tornOf[e.i]; ok {
					t.add(f)
				}
				torn[k] = t
				shown := contentLineage(versions[c], c, at).with(t)
				seen[k] = seen[k].union(shown.read)
				last[k] = shown
			}
		case evTerm:
			t := &h.Terms[e.i]
			k := incarnation{t.Node, t.Incarnation}
			out.read[e.i] = slices.Clone(seen[k])
			out.handOver[e.i] = slices.Clone(took[k].handOver)
			out.direct[e.i] = slices.Clone(took[k].direct)
			out.tookToken[e.i] = took[k].token
			out.acquired[e.i] = t.Start
			if at, ok := sent[k]; ok {
				out.acquired[e.i] = at
			}
			if v := pending[k]; v != nil && v.at == out.acquired[e.i] {
				v.token = t.Token
			}
			pending[k], cur[k] = nil, e.i+1
		}
	}
	return out
}

// contents indexes a history by the lock object's contents.
type contents struct {
	// versions holds every write of each content: the writes from
	// outside the nodes from the start (a foreign write derives from
	// itself), the electors' as traceLineage meets them.
	versions map[objectContent][]*version
	// observed holds when answers showed each content.
	observed map[objectContent][]time.Duration
	// takers holds, for each content, the conditional writes that
	// replaced it and were answered so: when sent, when answered.
	takers map[objectContent][][2]time.Duration
}

// indexContents indexes h; foreignOf maps the index in h.S3 of each
// foreign write to its index among the run's foreign writes.
func indexContents(h *sim.History, foreignOf map[int]int) *contents {
	cs := &contents{versions: map[objectContent][]*version{}, observed: map[objectContent][]time.Duration{}, takers: map[objectContent][][2]time.Duration{}}
	for i := range h.S3 {
		op := &h.S3[i]
		if c, ok := written(op); ok && op.Node < 0 {
			var self writeSet
			if f, ok := foreignOf[i]; ok {
				self.add(f)
			}
			cs.versions[c] = append(cs.versions[c], &version{at: op.Call, read: self, handOver: self, foreign: true})
		}
		if op.Node < 0 || op.Return < 0 {
			continue
		}
		if c, ok := showed(op); ok {
			cs.observed[c] = append(cs.observed[c], op.Return)
		}
		if r, ok := replaced(op); ok && op.Status == 200 {
			cs.takers[r] = append(cs.takers[r], [2]time.Duration{op.Call, op.Return})
		}
	}
	return cs
}

// superseded reports whether content c was no longer current at at: a
// write that replaced it was answered before, and c was not written again
// since that write was sent.
func (cs *contents) superseded(c objectContent, at time.Duration) bool {
	for _, w := range cs.takers[c] {
		if w[1] < at && !slices.ContainsFunc(cs.versions[c], func(v *version) bool { return v.at > w[0] && v.at < at }) {
			return true
		}
	}
	return false
}

// publishedByForeign is the lineage of each record a foreign write wrote,
// by its unquoted ETag: the write itself. A record someone else writes
// (again) publishes its watermark anew, at that write.
func publishedByForeign(h *sim.History, foreignOf map[int]int) map[string]writeSet {
	out := map[string]writeSet{}
	for i := range h.S3 {
		f, ok := foreignOf[i]
		if !ok {
			continue
		}
		if c, ok := written(&h.S3[i]); ok && c.etag != "" {
			var self writeSet
			self.add(f)
			out[c.etag] = out[c.etag].union(self)
		}
	}
	return out
}

// spentToken is the token a record's body states (in the generic form
// faults.EncodeRecord writes, a "token" field), if it is above
// faults.MaxNativeToken: a write of such a record spends the token space
// whether or not its writer began a term on it (an acquisition answered
// too late to lead on still took the token); 0 otherwise.
func spentToken(h *sim.History, body string) uint64 {
	if !strings.Contains(body, `"token"`) {
		return 0
	}
	if t, err := judging.ReadRecordToken(h, body); err == nil && t > faults.MaxNativeToken {
		return t
	}
	return 0
}
