package linearizability

import (
	"cmp"
	"math"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/anishathalye/porcupine"
	"github.com/s3lease/s3lease/sim"
)

// s3Kind is an S3 operation the model knows.
type s3Kind uint8

const (
	s3Put s3Kind = iota
	s3Get
	s3Head
	s3Delete
)

var s3KindNames = [...]string{s3Put: sim.OpPutObject, s3Get: sim.OpGetObject, s3Head: sim.OpHeadObject, s3Delete: sim.OpDeleteObject}

// s3KindOf returns the kind of an S3Op's operation; ok is false for
// operations the model leaves out (ListObjectsV2).
func s3KindOf(op string) (k s3Kind, ok bool) {
	for i, name := range s3KindNames {
		if op == name {
			return s3Kind(i), true
		}
	}
	return 0, false
}

// s3Input is a request as the model sees it. The porcupine Input is a
// *s3Input, so that a set of pending writes can point at its members.
type s3Input struct {
	// id is the request's index in History.S3: it orders pending writes.
	id          int
	node        int
	kind        s3Kind
	key         string
	ifMatch     string
	ifNoneMatch string
	// bodyETag is the ETag a PutObject's body has, the one it stores.
	bodyETag string
	// like is, for an unanswered write, the first unanswered write of the
	// history with the same effect (kind, preconditions and body), or nil
	// if there is none before it. Writes with the same effect are
	// interchangeable while pending.
	like *s3Input
}

// s3Unseen stands for the body ETag of a write of unknown outcome that no
// request of the history mentions (see s3Operations). It is no quoted hex
// string, so it matches no precondition and no answer.
const s3Unseen = "?"

// effect returns the first unanswered write with in's effect.
func (in *s3Input) effect() *s3Input {
	if in.like != nil {
		return in.like
	}
	return in
}

// s3Output is the answer the client saw: the porcupine Output. unknown
// means no answer came (the request timed out, was abandoned or its answer
// was lost); status, code and etag are then empty. Status 0 is an error
// without an answer from S3, such as no connection; code is then the
// error's text.
type s3Output struct {
	unknown bool
	status  int
	code    string
	etag    string
}

// s3State is what the model knows of one key: absent, or present with an
// ETag. It is comparable, so porcupine's default equality (==) applies.
type s3State struct {
	present bool
	etag    string
}

// answerKind classifies an answer by what it says about the request's effect.
type answerKind uint8

const (
	// answerDetermined: the store judged the request and this is its
	// judgement; it must be the one the model computes.
	answerDetermined answerKind = iota
	// answerNotApplied: a 409 ConditionalRequestConflict ("retry the
	// upload") or a 403 AccessDenied (the caller may not make the
	// request): S3 refused the request without applying it; or a 429,
	// which S3 never answers: a throttling proxy in front of it refused
	// the request before it reached S3.
	answerNotApplied
	// answerEither: no answer, no connection, or a 5xx other than 501: the
	// request may or may not have taken effect.
	answerEither
)

// classify tells what an answer says about its request's effect.
func classify(out s3Output) answerKind {
	switch {
	case out.unknown || out.status == 0:
		return answerEither
	case out.status == http.StatusConflict, out.status == http.StatusForbidden, out.status == http.StatusTooManyRequests:
		return answerNotApplied
	case out.status >= 500 && out.status != http.StatusNotImplemented:
		return answerEither
	}
	return answerDetermined
}

// s3Apply is the store's judgement of in against s (the AWS dialect, as
// sim.Store implements it): the answer it gives and the key's next state.
func s3Apply(s s3State, in *s3Input) (s3Output, s3State) {
	hasIfMatch, hasIfNone := in.ifMatch != "", in.ifNoneMatch != ""
	fail := func(status int, code string) (s3Output, s3State) {
		return s3Output{status: status, code: code}, s
	}
	switch in.kind {
	case s3Put:
		switch {
		case hasIfMatch && hasIfNone, hasIfNone && in.ifNoneMatch != "*":
			return fail(http.StatusNotImplemented, "NotImplemented")
		case hasIfNone && s.present:
			return fail(http.StatusPreconditionFailed, "PreconditionFailed")
		case hasIfMatch && !s.present:
			return fail(http.StatusNotFound, "NoSuchKey")
		case hasIfMatch && !etagMatch(in.ifMatch, s.etag):
			return fail(http.StatusPreconditionFailed, "PreconditionFailed")
		}
		return s3Output{status: http.StatusOK, etag: in.bodyETag}, s3State{present: true, etag: in.bodyETag}
	case s3Get, s3Head:
		switch {
		case !s.present && in.kind == s3Head:
			// A HEAD answer has no body: the SDK names the error after
			// the status text.
			return fail(http.StatusNotFound, "NotFound")
		case !s.present:
			return fail(http.StatusNotFound, "NoSuchKey")
		case hasIfMatch && in.ifMatch != "*" && !etagMatch(in.ifMatch, s.etag):
			return fail(http.StatusPreconditionFailed, "PreconditionFailed")
		case hasIfNone && (in.ifNoneMatch == "*" || etagMatch(in.ifNoneMatch, s.etag)):
			return fail(http.StatusNotModified, "NotModified")
		}
		return s3Output{status: http.StatusOK, etag: s.etag}, s
	default: // s3Delete
		if hasIfMatch {
			switch {
			case !s.present:
				return fail(http.StatusNotFound, "NoSuchKey")
			case in.ifMatch != "*" && !etagMatch(in.ifMatch, s.etag):
				return fail(http.StatusPreconditionFailed, "PreconditionFailed")
			}
		}
		// The SDK reports S3's 204 as success, which the history records
		// as 200.
		return s3Output{status: http.StatusOK}, s3State{}
	}
}

// etagMatch reports whether a precondition header names etag, as the
// store compares them: quotes around either are ignored.
func etagMatch(header, etag string) bool {
	return strings.Trim(header, `"`) == strings.Trim(etag, `"`)
}

// s3Next lists the states the key can be in after a request in, answered
// out, took effect (or not) in state s; none if S3 cannot have given that
// answer in s. This is the nondeterministic step of the object store; an
// answer that says nothing about the request's effect leads to two states,
// applied and not applied.
func s3Next(s s3State, in *s3Input, out s3Output) []s3State {
	want, next := s3Apply(s, in)
	switch classify(out) {
	case answerNotApplied:
		return []s3State{s}
	case answerEither:
		if next == s {
			return []s3State{s}
		}
		return []s3State{s, next}
	}
	if out.status != want.status || out.code != want.code || out.etag != want.etag {
		return nil
	}
	return []s3State{next}
}

// A write whose answer never came may take effect at any instant after it
// was sent, or never. Porcupine can express this as an operation that
// returns at infinity, but then it tries every position for every such
// write: its search grows about fourfold with each one, and an illegal
// history with a dozen of them takes longer than any sensible timeout.
// s3Model therefore keeps those writes in its state instead. An unanswered
// write is linearized at the instant it was sent, where it joins the
// pending writes; before each later request takes effect, any pending
// write may take effect, once, in any order, or stay pending for ever.
// This accepts exactly the histories that the operation returning at
// infinity would (TestS3ModelMatchesInfinityModel compares the two).

// s3Possibility is one state the key may be in, with the unanswered writes
// that may still take effect.
type s3Possibility struct {
	key s3State
	// pending is sorted by id and never modified once built.
	pending []*s3Input
}

// s3Possibilities is the model's state: every possibility consistent with
// the requests linearized so far. It is kept free of dominated members (a
// possibility whose key state another shares with a superset of its
// pending writes: that other can do all it can) and sorted, so that equal
// sets have equal representations.
type s3Possibilities []s3Possibility

// s3Step is the model's Step: the possibilities after the request in,
// answered out, took effect; ok is false if there are none.
func s3Step(state, input, output any) (bool, any) {
	ps, in, out := state.(s3Possibilities), input.(*s3Input), output.(s3Output)
	if len(ps) == 1 && len(ps[0].pending) == 0 && classify(out) == answerDetermined {
		// The common case, without allocating when the key is unchanged.
		want, k := s3Apply(ps[0].key, in)
		switch {
		case out != want:
			return false, nil
		case k == ps[0].key:
			return true, state
		}
		return true, s3Possibilities{{key: k}}
	}
	var next s3Possibilities
	if out.unknown {
		// Reads without an answer are not checked (see s3Operations), so
		// in is a write: it joins the pending writes.
		next = make(s3Possibilities, len(ps))
		for i, p := range ps {
			next[i] = s3Possibility{key: p.key, pending: withPending(p.pending, in)}
		}
		next.sort()
		return true, next
	}
	for _, p := range settle(ps) {
		for _, k := range s3Next(p.key, in, out) {
			next, _ = next.add(s3Possibility{key: k, pending: p.pending})
		}
	}
	next.sort()
	return len(next) > 0, next
}

// settle adds to ps every possibility reached by letting pending writes
// take effect, one at a time, in any order. Possibilities that end up
// dominated need no expanding: whatever follows from them follows from
// what dominates them.
func settle(ps s3Possibilities) s3Possibilities {
	var all, work s3Possibilities
	for _, p := range ps {
		if len(p.pending) > 0 {
			work = append(work, p)
		}
	}
	if len(work) == 0 {
		return ps
	}
	all = slices.Clone(ps)
	for len(work) > 0 {
		p := work[len(work)-1]
		work = work[:len(work)-1]
		for j, w := range p.pending {
			if j > 0 && slices.ContainsFunc(p.pending[:j], func(v *s3Input) bool { return v.effect() == w.effect() }) {
				// Pending writes with one effect are interchangeable: let
				// the first take effect, so that the possibilities that
				// follow are equal rather than merely alike.
				continue
			}
			_, k := s3Apply(p.key, w)
			if k == p.key {
				// No effect: p without w is dominated by p.
				continue
			}
			q := s3Possibility{key: k, pending: without(p.pending, j)}
			var added bool
			if all, added = all.add(q); added && len(q.pending) > 0 {
				work = append(work, q)
			}
		}
	}
	return all
}

// add returns ps with p added, unless a member dominates p; members that p
// dominates are dropped. It reports whether p was added.
func (ps s3Possibilities) add(p s3Possibility) (s3Possibilities, bool) {
	for _, q := range ps {
		if q.key == p.key && subset(p.pending, q.pending) {
			return ps, false
		}
	}
	out := ps[:0:0]
	for _, q := range ps {
		if q.key != p.key || !subset(q.pending, p.pending) {
			out = append(out, q)
		}
	}
	return append(out, p), true
}

func (ps s3Possibilities) sort() {
	slices.SortFunc(ps, func(a, b s3Possibility) int {
		if c := cmp.Compare(s3KeyOrder(a.key), s3KeyOrder(b.key)); c != 0 {
			return c
		}
		if c := strings.Compare(a.key.etag, b.key.etag); c != 0 {
			return c
		}
		return slices.CompareFunc(a.pending, b.pending, func(x, y *s3Input) int { return cmp.Compare(x.id, y.id) })
	})
}

func s3KeyOrder(s s3State) int {
	if s.present {
		return 1
	}
	return 0
}

// withPending returns pending with w added, in id order.
func withPending(pending []*s3Input, w *s3Input) []*s3Input {
	i, _ := slices.BinarySearchFunc(pending, w.id, func(x *s3Input, id int) int { return cmp.Compare(x.id, id) })
	out := make([]*s3Input, 0, len(pending)+1)
	out = append(out, pending[:i]...)
	out = append(out, w)
	return append(out, pending[i:]...)
}

// without returns pending without its j-th member.
func without(pending []*s3Input, j int) []*s3Input {
	out := make([]*s3Input, 0, len(pending)-1)
	out = append(out, pending[:j]...)
	return append(out, pending[j+1:]...)
}

// subset reports whether a is a subset of b; both are sorted by id.
func subset(a, b []*s3Input) bool {
	if len(a) > len(b) {
		return false
	}
	j := 0
	for _, x := range a {
		for j < len(b) && b[j].id < x.id {
			j++
		}
		if j == len(b) || b[j] != x {
			return false
		}
		j++
	}
	return true
}

func s3Equal(a, b any) bool {
	x, y := a.(s3Possibilities), b.(s3Possibilities)
	return slices.EqualFunc(x, y, func(p, q s3Possibility) bool {
		return p.key == q.key && slices.Equal(p.pending, q.pending)
	})
}

// s3Hash is FNV-1a over the possibilities' key states and pending ids.
func s3Hash(state any) uint64 {
	h := uint64(14695981039346656037)
	mix := func(v uint64) { h = (h ^ v) * 1099511628211 }
	for _, p := range state.(s3Possibilities) {
		mix(uint64(s3KeyOrder(p.key)))
		for i := 0; i < len(p.key.etag); i++ {
			mix(uint64(p.key.etag[i]))
		}
		for _, w := range p.pending {
			mix(uint64(w.id))
		}
		mix(math.MaxUint64)
	}
	return h
}

// s3Partition splits a history by key, keys in order of first appearance.
func s3Partition(history []porcupine.Operation) [][]porcupine.Operation {
	var parts [][]porcupine.Operation
	var keys []string
	for _, op := range history {
		key := op.Input.(*s3Input).key
		i := indexOf(keys, key)
		if i < 0 {
			i = len(keys)
			keys = append(keys, key)
			parts = append(parts, nil)
		}
		parts[i] = append(parts[i], op)
	}
	return parts
}

// s3PartitionEvent splits an event history by key; a return event goes
// with its call.
func s3PartitionEvent(history []porcupine.Event) [][]porcupine.Event {
	var parts [][]porcupine.Event
	var keys []string
	partOf := make(map[int]int)
	for _, e := range history {
		i, ok := partOf[e.Id]
		if !ok {
			key := e.Value.(*s3Input).key
			if i = indexOf(keys, key); i < 0 {
				i = len(keys)
				keys = append(keys, key)
				parts = append(parts, nil)
			}
			partOf[e.Id] = i
		}
		parts[i] = append(parts[i], e)
	}
	return parts
}

// indexOf is a linear search: a run touches one key, or a few.
func indexOf(keys []string, key string) int {
	for i, k := range keys {
		if k == key {
			return i
		}
	}
	return -1
}

// describeS3Operation renders an operation for porcupine's visualisation:
// `n3 PutObject If-Match:"0cc175b9" body "92eb5ffe" -> 412 PreconditionFailed`.
func describeS3Operation(input, output any) string {
	in, out := input.(*s3Input), output.(s3Output)
	var b strings.Builder
	b.WriteString(nodeName(in.node))
	b.WriteByte(' ')
	b.WriteString(s3KindNames[in.kind])
	if in.ifMatch != "" {
		b.WriteString(" If-Match:" + shortETag(in.ifMatch))
	}
	if in.ifNoneMatch != "" {
		b.WriteString(" If-None-Match:" + shortETag(in.ifNoneMatch))
	}
	if in.kind == s3Put {
		b.WriteString(" body " + shortETag(in.bodyETag))
	}
	b.WriteString(" -> ")
	switch {
	case out.unknown:
		b.WriteString("no answer")
	case out.status == 0:
		b.WriteString("no connection")
	default:
		b.WriteString(strconv.Itoa(out.status))
		if out.code != "" {
			b.WriteString(" " + out.code)
		}
		if out.etag != "" {
			b.WriteString(" " + shortETag(out.etag))
		}
	}
	return b.String()
}

// describeKey renders a key state: `absent` or `present "92eb5ffe"`.
func describeKey(s s3State) string {
	if !s.present {
		return "absent"
	}
	return "present " + shortETag(s.etag)
}

// describeS3State renders the model's state: its possibilities, each with
// the unanswered writes that may still take effect:
// `present "92eb5ffe" | absent, pending S3[12] S3[40]`.
func describeS3State(state any) string {
	var b strings.Builder
	for i, p := range state.(s3Possibilities) {
		if i > 0 {
			b.WriteString(" | ")
		}
		b.WriteString(describeKey(p.key))
		switch n := len(p.pending); {
		case n > 3:
			b.WriteString(", " + strconv.Itoa(n) + " unanswered writes pending")
		case n > 0:
			b.WriteString(", pending")
			for _, w := range p.pending {
				b.WriteString(" S3[" + strconv.Itoa(w.id) + "]")
			}
		}
	}
	return b.String()
}

// s3Meta is an operation's porcupine Metadata: where it sits in the
// history, for the visualisation's tooltip.
type s3Meta struct {
	index int
	op    *sim.S3Op
}

func describeS3Metadata(info any) string {
	m, ok := info.(*s3Meta)
	if !ok {
		return ""
	}
	var b strings.Builder
	b.WriteString("S3[" + strconv.Itoa(m.index) + "] key " + strconv.Quote(m.op.Key) + ", sent at " + m.op.Call.String())
	if m.op.Return < 0 {
		b.WriteString(", no answer")
	} else {
		b.WriteString(", answered at " + m.op.Return.String())
	}
	for _, f := range [...]struct{ name, v string }{
		{"If-Match", m.op.IfMatch}, {"If-None-Match", m.op.IfNoneMatch},
		{"body ETag", m.op.BodyETag}, {"answer ETag", m.op.ETag},
	} {
		if f.v != "" {
			b.WriteString(", " + f.name + " " + f.v)
		}
	}
	if m.op.Status == 0 && m.op.Code != "" {
		b.WriteString(", error: " + m.op.Code)
	}
	return b.String()
}

// nodeName names a client: "n3", or "outside" for a request from no node.
func nodeName(node int) string {
	if node < 0 {
		return "outside"
	}
	return "n" + strconv.Itoa(node)
}

// shortETag shortens a quoted ETag to its first 8 hex digits, for
// descriptions only.
func shortETag(etag string) string {
	if etag == s3Unseen {
		return "(unseen)"
	}
	hex := strings.Trim(etag, `"`)
	if len(hex) > 8 {
		hex = hex[:8]
	}
	if hex == "*" {
		return hex
	}
	return `"` + hex + `"`
}

// s3Model is the object store as porcupine checks it, partitioned by key.
var s3Model = porcupine.Model{
	Partition:                 s3Partition,
	PartitionEvent:            s3PartitionEvent,
	Init:                      func() any { return s3Possibilities{{}} },
	Step:                      s3Step,
	Equal:                     s3Equal,
	Hash:                      s3Hash,
	DescribeOperation:         describeS3Operation,
	DescribeState:             describeS3State,
	DescribeOperationMetadata: describeS3Metadata,
}
