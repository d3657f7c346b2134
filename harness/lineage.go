package harness

import (
	"cmp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/s3lease/s3lease/faults"
	"github.com/s3lease/s3lease/linearizability"
	"github.com/s3lease/s3lease/sim"
)

// The lineage of the lock object's content decides which token violations
// a write of the lock object by someone other than the electors (a foreign
// write: the content before the run that no elector wrote, an overwrite, a
// delete, a restore) excuses. Such a write can make the next acquisition
// take a token that is not above an earlier one (it hid higher tokens,
// brought back an old record), or one above every later one (it wrote a
// token near the top of the token space); it cannot make two acquisitions
// that both know what the electors wrote since share a token.
//
// Derived content. Every request the history records is read as what it
// shows its node: a GetObject or HeadObject answered 200 shows the version
// with the ETag it returned, one answered 404 the absence of the object,
// one answered 304 the version its If-None-Match names; a PutObject or
// DeleteObject If-Match that succeeded shows the version it replaced, a
// PutObject If-None-Match: * that succeeded the absence. A version is
// content derived from foreign write F if F wrote it (F's body, or the
// absence F's delete left), or if an elector wrote it after its
// incarnation had been shown content derived from F (before the write was
// sent), or replaced content derived from F (If-Match). An observation of a
// version is judged against every write of its ETag sent before the answer
// came (a restore writes an elector's bytes again, with their ETag), an
// observation of absence against the last delete before it. A term's
// acquisition read F's content, directly or through records derived from
// it (the term is F-derived), if its incarnation had been shown content
// derived from F by the time the term began: its token comes from what
// the incarnation had seen.
//
// Re-established. A term was acquired when its incarnation sent its last
// write of an object before the term began (a write sent the instant it
// began is its first renewal). The electors have re-established the chain
// after F at the start of the first term acquired after F (in a correct
// elector, an F-derived one: it conditioned its write on what F left), with
// a token above the token of every term acquired before F
// and of the record the lock object held before the run when electors
// could have written it (InitialRecordCheck), and no larger than
// faults.MaxNativeToken: a token electors can reach without someone else's
// help; or, if a term acquired before F began later than that, at the
// start of the last such term. That one's acquisition was in flight when F
// wrote, and F replaced its record (had F not, the next takeover would have
// had to wait for its lease): its holder learns that it leads only after
// F's lineage went on without it. From then on the chain's tokens are above
// every token F can have hidden, every term that F hid has begun, and every
// term is judged in full.
//
// Classes. An F-derived term that began before the chain was re-established
// after F is F's: it belongs to F's lineage. An F-derived term with a token
// above faults.MaxNativeToken is F's whenever it began, and in a lineage of
// its own: only a foreign write brings tokens that high, and once the token
// space is spent acquisitions can only repeat the largest token or start
// again below it. Terms that are the same foreign writes' are one class;
// the other terms are another. The token checkers (unique-holder,
// monotonic-tokens, fencing's shared-epoch and superseded rules,
// lease-check) judge each class in full, on the history of its terms and
// the fenced writes sent under them; a violation they find there is never
// excused by a foreign write. A violation of the whole history that no
// class shows is between terms of two classes, and is excused by the
// foreign writes whose lineage one of its terms belongs to (the later
// term's, or else every term's of its nodes). The fence's own rules (a
// stale write accepted, a current one refused) are judged on the whole
// history and never excused.
type lineage struct {
	// foreign are the run's foreign writes, in the order they happened.
	foreign []foreignWrite
	// of holds, for each term of the history, the foreign writes whose
	// lineage it belongs to; class names its class ("" for the terms of
	// no lineage).
	of    []writeSet
	class []string
	// read holds, for each term, every foreign write whose content its
	// acquisition read, whenever it began.
	read []writeSet
	// judged are the violations the token checkers find within the
	// classes: judged in full; whole says the terms are one class, and the
	// whole history is judged in full.
	judged []linearizability.Violation
	whole  bool
}

// foreignWrite is one write of the lock object by someone else.
type foreignWrite struct {
	// excuse is the index of its token excuse among the run's excuses.
	excuse int
	// op is the index of the write in History.S3, or -1 if the history
	// holds none; at is when it applied.
	op int
	at time.Duration
	// reestablished is when electors re-established the chain after it,
	// or -1 if they never did.
	reestablished time.Duration
}

// writeSet is a set of foreign writes, by index.
type writeSet []uint64

func (b writeSet) has(i int) bool { return i/64 < len(b) && b[i/64]&(1<<(i%64)) != 0 }

func (b *writeSet) add(i int) {
	for len(*b) <= i/64 {
		*b = append(*b, 0)
	}
	(*b)[i/64] |= 1 << (i % 64)
}

// union returns b with every member of c added (b may be changed).
func (b writeSet) union(c writeSet) writeSet {
	for len(b) < len(c) {
		b = append(b, 0)
	}
	for i, w := range c {
		b[i] |= w
	}
	return b
}

func (b writeSet) empty() bool {
	for _, w := range b {
		if w != 0 {
			return false
		}
	}
	return true
}

// members lists the set's members, ascending.
func (b writeSet) members() []int {
	var out []int
	for i := range len(b) * 64 {
		if b.has(i) {
			out = append(out, i)
		}
	}
	return out
}

// foreignOps pairs the foreign-write fault spans fs (their kinds as
// faults records them) with the requests of node -1 in h.S3 that made
// them: the first not yet paired at the fault's instant. A span the
// history holds no request for gets -1.
func foreignOps(h *sim.History, fs []sim.FaultSpan) []int {
	out := make([]int, len(fs))
	used := make([]bool, len(h.S3))
	for k, f := range fs {
		out[k] = -1
		for i := range h.S3 {
			if op := &h.S3[i]; op.Node < 0 && !used[i] && op.Call == f.From {
				used[i], out[k] = true, i
				break
			}
		}
	}
	return out
}

// newLineage traces the lineage of h's terms from the foreign writes fw
// (op and at set; excuse set by the caller); initial is the token of a
// record the lock object held before the run that electors could have
// written (0: none). It returns nil if fw is empty.
func newLineage(h *sim.History, fw []foreignWrite, initial uint64) *lineage {
	if len(fw) == 0 {
		return nil
	}
	l := &lineage{foreign: fw}
	var acquired []time.Duration
	l.read, acquired = derivedTerms(h, fw)
	l.of = make([]writeSet, len(h.Terms))
	for f := range l.foreign {
		l.foreign[f].reestablished = reestablished(h, acquired, l.foreign[f].at, initial)
	}
	l.class = make([]string, len(h.Terms))
	for j, t := range h.Terms {
		var b strings.Builder
		var own writeSet
		for _, f := range l.read[j].members() {
			if r := l.foreign[f].reestablished; t.Token > faults.MaxNativeToken || r < 0 || t.Start < r {
				own.add(f)
				b.WriteString(strconv.Itoa(f) + ",")
			}
		}
		if t.Token > faults.MaxNativeToken && !own.empty() {
			b.WriteString("#" + strconv.Itoa(j))
		}
		l.of[j] = own
		l.class[j] = b.String()
	}
	l.judged = l.judgeClasses(h)
	return l
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

// derivedTerms returns, for each term of h, the foreign writes of fw
// whose derived content its incarnation had been shown by the term's
// start, and when the term was acquired: the send of its incarnation's
// last write of an object before it began (its start if none).
func derivedTerms(h *sim.History, fw []foreignWrite) ([]writeSet, []time.Duration) {
	foreignOf := map[int]int{}
	for f, w := range fw {
		if w.op >= 0 {
			foreignOf[w.op] = f
		}
	}
	type version struct {
		at    time.Duration
		taint writeSet
	}
	// versions holds every write of each content: the writes from outside
	// the nodes from the start (a foreign write's taint is itself), the
	// electors' as they are sent.
	versions := map[objectContent][]version{}
	for i := range h.S3 {
		if c, ok := written(&h.S3[i]); ok && h.S3[i].Node < 0 {
			var taint writeSet
			if f, ok := foreignOf[i]; ok {
				taint.add(f)
			}
			versions[c] = append(versions[c], version{h.S3[i].Call, taint})
		}
	}
	// shown is the taint of content c as an answer at at shows it: that of
	// every write of its ETag sent by then, or of the last delete.
	shown := func(c objectContent, at time.Duration) writeSet {
		var out writeSet
		last := time.Duration(-1)
		for _, v := range versions[c] {
			switch {
			case v.at > at:
			case c.etag != "":
				out = out.union(v.taint)
			case v.at >= last:
				out, last = v.taint, v.at
			}
		}
		return out
	}
	type incarnation struct{ node, inc int }
	seen := map[incarnation]writeSet{}
	sent := map[incarnation]time.Duration{}
	// Events: answers at their arrival, terms at their start, writes at
	// their send; at one instant in that order (a node that begins a term
	// or sends a write the instant an answer came acted on it; a write it
	// sends the instant its term begins is the term's first renewal, not
	// its acquisition).
	const (
		answer = iota
		term
		write
	)
	type event struct {
		at   time.Duration
		kind int
		i    int
	}
	evs := make([]event, 0, 2*len(h.S3)+len(h.Terms))
	for i := range h.S3 {
		op := &h.S3[i]
		if op.Node >= 0 {
			evs = append(evs, event{op.Call, write, i})
		}
		if op.Node >= 0 && op.Return >= 0 {
			evs = append(evs, event{op.Return, answer, i})
		}
	}
	for j := range h.Terms {
		evs = append(evs, event{h.Terms[j].Start, term, j})
	}
	slices.SortFunc(evs, func(a, b event) int {
		switch {
		case a.at != b.at:
			return cmp.Compare(a.at, b.at)
		case a.kind != b.kind:
			return a.kind - b.kind
		}
		return a.i - b.i
	})
	out := make([]writeSet, len(h.Terms))
	acquired := make([]time.Duration, len(h.Terms))
	for _, e := range evs {
		switch e.kind {
		case write:
			op := &h.S3[e.i]
			if op.Op == "PutObject" || op.Op == "DeleteObject" {
				sent[incarnation{op.Node, op.Incarnation}] = op.Call
			}
			c, ok := written(op)
			if !ok {
				continue
			}
			taint := slices.Clone(seen[incarnation{op.Node, op.Incarnation}])
			if m := strings.Trim(op.IfMatch, `"`); m != "" && m != "*" {
				// It replaced the version of that ETag S3 held when it
				// applied: any written by the time its answer came.
				until := op.Return
				if until < 0 {
					until = h.End
				}
				taint = taint.union(shown(objectContent{op.Key, m}, until))
			}
			versions[c] = append(versions[c], version{op.Call, taint})
		case answer:
			op := &h.S3[e.i]
			if c, ok := showed(op); ok {
				k := incarnation{op.Node, op.Incarnation}
				seen[k] = seen[k].union(shown(c, op.Return))
			}
		case term:
			t := &h.Terms[e.i]
			k := incarnation{t.Node, t.Incarnation}
			out[e.i] = slices.Clone(seen[k])
			acquired[e.i] = t.Start
			if at, ok := sent[k]; ok {
				acquired[e.i] = at
			}
		}
	}
	return out, acquired
}

// reestablished returns when electors re-established the chain after a
// foreign write at at: the start of the first term begun after it, whose
// acquisition was sent after it (acquired), with a token of at most
// faults.MaxNativeToken and above initial and the token of every term
// acquired before the write; or the start of a term acquired before the
// write that began later still (an acquisition in flight when the write
// replaced its record), the last such; -1 if no term did.
func reestablished(h *sim.History, acquired []time.Duration, at time.Duration, initial uint64) time.Duration {
	top := initial
	for j := range h.Terms {
		if acquired[j] < at {
			top = max(top, h.Terms[j].Token)
		}
	}
	for j := range h.Terms {
		if t := &h.Terms[j]; t.Start >= at && acquired[j] >= at && t.Token <= faults.MaxNativeToken && t.Token > top {
			r := t.Start
			for k := range h.Terms {
				if acquired[k] < at {
					r = max(r, h.Terms[k].Start)
				}
			}
			return r
		}
	}
	return -1
}

// judgeClasses runs the token checkers on each class of h's terms, with
// the fenced writes sent under them, and returns what they find, less the
// fence's own rules (judged on the whole history). With one class it finds
// nothing: the whole history is that class, judged as it is.
func (l *lineage) judgeClasses(h *sim.History) []linearizability.Violation {
	var names []string
	for _, c := range l.class {
		if !slices.Contains(names, c) {
			names = append(names, c)
		}
	}
	if len(names) < 2 {
		l.whole = true
		return nil
	}
	var out []linearizability.Violation
	for _, name := range names {
		sub := &sim.History{Nodes: h.Nodes, End: h.End}
		for j, t := range h.Terms {
			if l.class[j] == name {
				sub.Terms = append(sub.Terms, t)
			}
		}
		for i := range h.Writes {
			if j := termOf(h, h.Writes[i].Node, h.Writes[i].Token, h.Writes[i].Sent); j >= 0 && l.class[j] == name {
				sub.Writes = append(sub.Writes, h.Writes[i])
			}
		}
		for _, v := range append(linearizability.CheckElection(sub), linearizability.CheckLeaseChecks(sub)...) {
			if v.Rule != linearizability.RuleStaleAccepted && v.Rule != linearizability.RuleCurrentRefused {
				out = append(out, v)
			}
		}
	}
	return out
}

// termOf returns the index of the last term of node with token that began
// by at, or -1.
func termOf(h *sim.History, node int, token uint64, at time.Duration) int {
	found := -1
	for j := range h.Terms {
		if t := &h.Terms[j]; t.Node == node && t.Token == token && t.Start <= at {
			found = j
		}
	}
	return found
}

// extra returns the violations the classes show that found (the whole
// history's) does not: a class judged in full can show what the first
// violation of the whole history hid (monotonic-tokens reports only the
// first).
func (l *lineage) extra(found []linearizability.Violation) []linearizability.Violation {
	if l == nil {
		return nil
	}
	var out []linearizability.Violation
	for _, v := range l.judged {
		if !slices.ContainsFunc(found, func(w linearizability.Violation) bool { return sameViolation(v, w) }) {
			out = append(out, v)
		}
	}
	return out
}

// sameViolation reports whether a and b are the same violation.
func sameViolation(a, b linearizability.Violation) bool {
	return a.Checker == b.Checker && a.Rule == b.Rule && a.At == b.At && a.Token == b.Token && a.Message == b.Message && slices.Equal(a.Nodes, b.Nodes)
}

// How a violation is judged against the lineage (lineage.excused).
const (
	// byPair: a violation between two terms (a token handed out twice or
	// going down, and what follows from it), excused if no class shows it.
	byPair = iota
	// byTerm: a token at or below the record's before the run, excused if
	// its term belongs to a foreign write's lineage.
	byTerm
	// byHandOver: an entry below a watermark, or the watermark API's
	// contract: excused if its term's acquisition read a foreign write's
	// content (directly or through records derived from it), whenever it
	// began, or if a term with a lower token that began after it did (the
	// watermark it is below may be that term's), or by a foreign write
	// while it ran (its published watermark is read from the lock
	// object, which that write replaced). The watermark a term is
	// handed comes through the records, and a chain whose tokens electors
	// re-established can still hand on a watermark a foreign write brought
	// back.
	byHandOver
)

// excused returns the indices of the foreign writes that excuse violation
// v, judged as how says (byPair, byTerm, byHandOver). Its term is the last
// term of its nodes with its token begun by v.At. A violation byPair is
// excused by none if a class judged in full shows it; else by the foreign
// writes whose lineage its term belongs to, or, if that term is of no
// lineage, those of every term of its nodes begun by then.
func (l *lineage) excused(h *sim.History, v linearizability.Violation, how int) []int {
	if l == nil || len(v.Nodes) == 0 {
		return nil
	}
	if how == byPair && (l.whole || slices.ContainsFunc(l.judged, func(w linearizability.Violation) bool { return sameViolation(v, w) })) {
		return nil
	}
	sets := l.of
	if how == byHandOver {
		sets = l.read
	}
	last := -1
	for _, n := range v.Nodes {
		if j := termOf(h, n, v.Token, v.At); j > last {
			last = j
		}
	}
	if last >= 0 && !sets[last].empty() {
		return sets[last].members()
	}
	if how == byHandOver && last >= 0 {
		// The watermark it is below may be one a later term with a lower
		// token published (tokens that went down after a foreign write),
		// and a foreign write while the term ran replaced the record its
		// published watermark is read from.
		var later writeSet
		for f, w := range l.foreign {
			if w.at >= h.Terms[last].Start && w.at <= v.At {
				later.add(f)
			}
		}
		for j, t := range h.Terms {
			if t.Token < v.Token && t.Start > h.Terms[last].Start && t.Start <= v.At {
				later = later.union(l.read[j])
			}
		}
		return later.members()
	}
	if how != byPair {
		return nil
	}
	var all writeSet
	for j, t := range h.Terms {
		if t.Start <= v.At && slices.Contains(v.Nodes, t.Node) {
			all = all.union(l.of[j])
		}
	}
	return all.members()
}
