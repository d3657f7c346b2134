package harness

import (
	"slices"
	"strconv"
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
// A torn read (S3 answered a read with the body of one version and the
// ETag of another) is a source of the same kind for a protocol that does
// not tolerate them: its reader was shown content that no version had,
// and what it writes next comes of the body while its If-Match names the
// other version. Its answer shows its reader content derived from the
// torn read (besides the version its ETag names), and the reader's next
// write derives from it, and hands over what it did, whatever its
// If-Match; from there its lineage runs as a foreign write's, until
// electors re-establish the chain after its answer.
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
// observation of absence against the last delete before it. A conditional
// write that succeeded replaced its content as it was when S3 applied it,
// which a simulated run's history records (sim.S3Op.Applied); where the
// instant is not known (a history recorded outside the simulator) it is
// taken to have replaced its content as it was when the write was sent, if
// that was still current and the write was answered (one never answered
// may land late: it is judged as next); if a write that
// replaced that content had been answered before, S3 can only have applied
// it once the content was written again: it is judged against the writes
// sent by its answer (or, with no answer, by the first answer that showed
// what it wrote). A term's
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
// a token no larger than faults.MaxNativeToken (a token electors can reach
// without someone else's help) above every such token of the terms acquired
// before F and the token of the record the lock object held before the run
// when electors could have written it (InitialRecordCheck); or, if a term
// acquired before F began later than that, at the start of the last such
// term. That one's acquisition was in flight when F
// wrote, and F replaced its record (had F not, the next takeover would have
// had to wait for its lease): its holder learns that it leads only after
// F's lineage went on without it. If F brought a token above
// faults.MaxNativeToken, the same holds from the last acquisition of an
// F-derived term that is spent (see Classes) instead of from F: a spent
// token that comes back (an elector that remembers the largest token it
// saw) spends the token space again. From then on the chain's tokens are
// above every token F can have hidden, every term that F hid has begun, and
// every term is judged in full.
//
// Watermarks. The watermark a term is handed comes with the record its
// acquisition took over (the version its If-Match names, the absence its
// If-None-Match: * needs, else what it last read), and its own records
// carry a watermark at or above it on. A term's watermark input derives
// from F (it is of F's hand-over lineage) if the record it took over did;
// a record derives from F if F wrote it (a restore of an elector's bytes
// included) or if its writer took over one that did. Unlike a token, a
// handed-on watermark is never re-established: each term publishes above
// what it was handed, and a watermark F brought back rides on for as many
// terms as it stays the highest. An entry at or below a watermark a term
// with a lower token published (RuleBelowPredecessor) is judged by the
// hand-over lineages of the entry's term and of the record that published
// the watermark: excused by the foreign writes whose lineage holds one and
// not the other, counted if they have the same (electors alone handed that
// watermark on); unless the term that published the watermark began after
// the entry's: its token is lower because tokens went down, and the entry
// is below it as that pair of terms' tokens are out of order, excused as
// they are. The checker also judges the terms of each hand-over
// lineage with the records of that lineage in full, and what it finds
// there that the whole history's reports hid is counted. The watermark's
// other rules (an entry above its term's published watermark, the
// watermark API's contract) are excused by a foreign write while the term
// ran (it replaced the record the published watermark is read from), or by
// one that wrote the record the term took over.
//
// Classes. An F-derived term that began before the chain was re-established
// after F is F's: it belongs to F's lineage. An F-derived term that is
// spent (its token is above faults.MaxNativeToken, or the record its
// acquisition took over was written under such a token) is F's whenever it
// began, and in a lineage of its own: only a foreign write brings tokens
// that high, and once the token space is spent acquisitions can only repeat
// the largest token or start again below it. Terms that are the same foreign writes' are one class;
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
	// foreign are the run's foreign writes, in the order they happened,
	// then its torn reads.
	foreign []foreignWrite
	// of holds, for each term of the history, the foreign writes whose
	// lineage it belongs to; class names its class ("" for the terms of
	// no lineage).
	of    []writeSet
	class []string
	// read holds, for each term, every foreign write whose content its
	// acquisition read, whenever it began.
	read []writeSet
	// handOver holds, for each term, the foreign writes of its hand-over
	// lineage, and direct those that wrote the record it took over;
	// published, the hand-over lineage of each record electors wrote, by
	// its unquoted ETag (traced).
	handOver, direct []writeSet
	published        map[string]writeSet
	// watermarks is the run's watermark history, if it has one, and
	// wmJudged what the watermark checker finds within its hand-over
	// lineages (checkWatermarks).
	watermarks *linearizability.WatermarkHistory
	wmJudged   []linearizability.Violation
	// judged are the violations the token checkers find within the
	// classes: judged in full; whole says the terms are one class, and the
	// whole history is judged in full.
	judged []linearizability.Violation
	whole  bool
	// spent says, for each term, that it holds a token above
	// faults.MaxNativeToken or took over a record that held one: the
	// token space is spent, and its acquisition may link to no previous
	// term (the elector links to no record that holds the largest token).
	spent []bool
}

// foreignWrite is one write of the lock object by someone else, or a
// torn read (torn).
type foreignWrite struct {
	// excuse is the index of its token excuse among the run's excuses.
	excuse int
	// op is the index of the write (the torn read) in History.S3, or -1 if
	// the history holds none; at is when it applied (when the torn answer
	// came).
	op int
	at time.Duration
	// torn: a torn read, whose content only its reader was shown.
	torn bool
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
	tr := traceLineage(h, fw)
	l := &lineage{foreign: fw, read: tr.read, handOver: tr.handOver, direct: tr.direct, published: tr.published}
	// spent: the term holds a token above faults.MaxNativeToken, or
	// started again below one (the record it took over held it).
	spent := make([]bool, len(h.Terms))
	for j, t := range h.Terms {
		spent[j] = t.Token > faults.MaxNativeToken || tr.tookToken[j] > faults.MaxNativeToken
	}
	l.of = make([]writeSet, len(h.Terms))
	for f := range l.foreign {
		from := l.foreign[f].at
		for j := range h.Terms {
			if spent[j] && l.read[j].has(f) {
				from = max(from, tr.acquired[j])
			}
		}
		l.foreign[f].reestablished = reestablished(h, tr.acquired, from, initial)
	}
	l.spent = spent
	l.class = make([]string, len(h.Terms))
	for j, t := range h.Terms {
		var own writeSet
		for _, f := range l.read[j].members() {
			if r := l.foreign[f].reestablished; spent[j] || r < 0 || t.Start < r {
				own.add(f)
			}
		}
		l.of[j] = own
		l.class[j] = setName(own)
		if spent[j] && !own.empty() {
			l.class[j] += "#" + strconv.Itoa(j)
		}
	}
	l.judged = l.judgeClasses(h)
	return l
}

// reestablished returns when electors re-established the chain after a
// foreign write, from at on (the write, or the last acquisition of a spent
// token of its lineage): the start of the first term begun after at, whose
// acquisition was sent after it (acquired), with a token of at most
// faults.MaxNativeToken and above initial and every such token of the
// terms acquired before at; or the start of a term acquired before at that
// began later still (an acquisition in flight), the last such; -1 if no
// term did.
func reestablished(h *sim.History, acquired []time.Duration, at time.Duration, initial uint64) time.Duration {
	top := initial
	for j := range h.Terms {
		if acquired[j] < at && h.Terms[j].Token <= faults.MaxNativeToken {
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
)

// excused returns the indices of the foreign writes that excuse violation
// v, judged as how says (byPair, byTerm). Its term is the last term of its
// nodes with its token begun by v.At. A violation byPair is excused by
// none if a class judged in full shows it; else by the foreign writes
// whose lineage its term belongs to, or, if that term is of no lineage,
// those of every term of its nodes begun by then.
func (l *lineage) excused(h *sim.History, v linearizability.Violation, how int) []int {
	if l == nil || len(v.Nodes) == 0 {
		return nil
	}
	if how == byPair && (l.whole || slices.ContainsFunc(l.judged, func(w linearizability.Violation) bool { return sameViolation(v, w) })) {
		return nil
	}
	last := -1
	for _, n := range v.Nodes {
		if j := termOf(h, n, v.Token, v.At); j > last {
			last = j
		}
	}
	if last >= 0 && !l.of[last].empty() {
		return l.of[last].members()
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
