package elector

import (
	"encoding/json"
	"fmt"
	"iter"
	"math"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/s3lease/s3lease/harness"
	"github.com/s3lease/s3lease/linearizability"
	"github.com/s3lease/s3lease/protocol"
	"github.com/s3lease/s3lease/sim"
)

// RecordAuditCheck names the violations of AuditRecords: a lock
// record a node wrote that does not say what its writer knew. Every reader
// of the lock object relies on it (the next holder's hand-over, an operator
// reading the audit link), and a node always knows what it writes and what
// it replaces, whatever the faults: these violations are never excused.
const RecordAuditCheck = "record-audit"

// The rules of RecordAuditCheck.
const (
	// RuleRecordCanonical: the body is not a valid record, or not the bytes
	// json.Marshal writes for the record it holds (protocol.Record.Encode
	// promises both).
	RuleRecordCanonical = "canonical"
	// RuleRecordHolder: the record's holder is not the identity of the node
	// that wrote it.
	RuleRecordHolder = "holder"
	// RuleRecordLink: the record's link to the term before it is not the
	// one the body it replaced (its If-Match) calls for. A renewal or a
	// release keeps its term's holder, token, lease, acquisition time and
	// link, and never lowers the watermark; a takeover of a record takes a
	// higher token, links to that record (its holder cut at MaxIdentityLen
	// bytes on a character boundary, token, nonce, watermark, updates, and
	// ended "released" if it was released, else "expired") and starts
	// from its watermark; a takeover of anything else (no valid record,
	// the largest token) and a create link to nothing.
	RuleRecordLink = "link"
	// RuleRecordLease: the record states a lease (leaseDurationMillis)
	// other than its writer's configured lease rounded up to whole
	// milliseconds: a record never understates the lease its writer keeps
	// to, and states no more than it (judged by Settings.AuditRecords,
	// which knows the node's settings).
	RuleRecordLease = "lease"
	// RuleRecordFloor: a node acquired a term with a token not above a token
	// it had already seen since it last started: one of a valid record it read
	// (the largest token excepted, which no token can follow) or of a term it
	// acquired itself; or with the largest token, which only a token seen,
	// plus one, can be (the largest token's own successor stays the largest).
	// The elector promises every acquisition the highest token it has seen
	// plus one, or more (protocol's package documentation); a node that
	// forgets one hands out a token that fenced resources may already have
	// passed, and the tokens of successive terms then fall wherever a foreign
	// delete or overwrite lets them, which the fencing checkers excuse. This
	// rule is the node's own, so no fault excuses it.
	RuleRecordFloor = "floor"
	// RuleRecordDecode: protocol.DecodeRecord, with which the elector reads
	// the lock object (and operators' tools read it too), read a body that a
	// node read otherwise than the record format says: it took a body that is
	// no valid record, refused a valid one, read other values, or named
	// another rule than the first one the body breaks
	// (protocol.RecordError.Field). The reference is readRecord's, with
	// encoding/json; each body is judged once, at the first read that returned
	// it.
	RuleRecordDecode = "decode"
	// RuleRecordReadings: the audit's fast reading of bodies (by their
	// difference from the bodies they replaced) and its reference reading
	// (encoding/json) disagree, on a body read by both or on a run's
	// violations: a bug in the audit, which no run may pass over. The
	// reference reads every body the fast reading cannot, one in 64
	// of the others, and every body of a run in which the audit
	// finds a violation.
	RuleRecordReadings = "readings-agree"
)

// AuditRecords judges every body a node wrote to the lock object
// that S3 applied (sim.S3Op.Body) against the documented record format and
// against the body its If-Match names: every rule of RecordAuditCheck but
// the lease, which needs the writer's settings (Settings.AuditRecords and
// the AuditWrites of Protocol judge them all). Bodies
// are read with encoding/json and the record rules are written out here,
// not taken from the elector's codec: the judge of what the records say
// must not share the code it judges.
func AuditRecords(h *sim.History) []linearizability.Violation {
	return auditRecords(h, nil)
}

// AuditRecords is AuditRecords (the function) for nodes that run settings
// s, with the lease rule: every record states s.LeaseDuration rounded up
// to whole milliseconds (RuleRecordLease).
func (s Settings) AuditRecords(h *sim.History) []linearizability.Violation {
	return auditRecords(h, func(int) time.Duration { return s.LeaseDuration })
}

// auditWrites is the AuditWrites of Protocol: Settings.AuditRecords, each
// node's records held to the lease of its own protocol (node), the
// LeaseDuration of its settings, which Protocol states as
// Assumptions.Lease: under a plan that gives nodes settings of their own,
// each node's own.
func auditWrites(h *sim.History, node func(int) harness.Protocol) []linearizability.Violation {
	return auditRecords(h, func(i int) time.Duration { return node(i).Assumptions.Lease })
}

// auditRecords judges the records of h; lease, if set, is the lease each
// node is configured with.
//
// Most bodies are read by their difference from the body they replaced
// (records_fast.go); a run in which the audit so finds any violation is
// judged again with every body read by the reference, and that judgement
// is the audit's.
func auditRecords(h *sim.History, lease func(node int) time.Duration) []linearizability.Violation {
	a := newRecordAudit(h, lease)
	out := a.audit(h)
	if len(out) > 0 && a.fastReadings > 0 {
		ref := newRecordAudit(h, lease)
		ref.referenceOnly = true
		if refOut := ref.audit(h); !sameViolations(out, refOut) {
			a.disagree(nil, "the audit with bodies read by their difference from the bodies they replaced found %d violations, the audit with every body read by the reference %d", len(out), len(refOut))
			out = refOut
		}
	}
	return append(out, a.disagreements...)
}

// audit applies the rules of RecordAuditCheck to h.
func (a *recordAudit) audit(h *sim.History) []linearizability.Violation {
	var out []linearizability.Violation
	for i := range h.S3 {
		op := &h.S3[i]
		if op.Node < 0 || op.Op != "PutObject" || op.Body == "" {
			continue
		}
		if v, bad := a.judge(op); bad {
			out = append(out, v)
		}
	}
	out = append(out, a.floorViolations(h)...)
	return append(out, a.decodeViolations(h)...)
}

// sameViolations reports whether two lists of violations are the same.
func sameViolations(a, b []linearizability.Violation) bool {
	return slices.EqualFunc(a, b, func(x, y linearizability.Violation) bool {
		return x.Checker == y.Checker && x.Rule == y.Rule && x.At == y.At && x.Token == y.Token && x.Message == y.Message && slices.Equal(x.Nodes, y.Nodes)
	})
}

// newRecordAudit indexes the bodies of h's applied writes by ETag, and the
// body each node's first applied write of it replaced (its If-Match), by
// which a renewal is read.
func newRecordAudit(h *sim.History, lease func(node int) time.Duration) *recordAudit {
	n := 0
	for i := range h.S3 {
		if op := &h.S3[i]; op.Op == "PutObject" && op.Body != "" {
			n++
		}
	}
	a := &recordAudit{bodies: make(map[string]string, n), bases: make(map[string]string, n), decoded: make(map[string]*auditedBody, n), lease: lease}
	for i := range h.S3 {
		op := &h.S3[i]
		if op.Op != "PutObject" || op.Body == "" {
			continue
		}
		etag := unquote(op.BodyETag)
		if _, ok := a.bodies[etag]; ok {
			continue
		}
		a.bodies[etag] = op.Body
		// A base written before the body, so that reading by bases ends.
		if base := unquote(op.IfMatch); op.Node >= 0 && base != "" && base != "*" {
			if _, ok := a.bodies[base]; ok {
				a.bases[etag] = base
			}
		}
	}
	return a
}

// answered are the requests of the nodes that S3 answered with a success,
// in the order of the history: what the nodes learned from. A torn read
// (sim.S3Op.TornBodyETag) is not among them: the elector reads its body
// again rather than act on it (protocol.ETagMismatch), and it carries no
// one version to judge; nor is any read the elector read again at once
// (rereads).
func answered(h *sim.History) iter.Seq[*sim.S3Op] {
	return func(yield func(*sim.S3Op) bool) {
		rr := rereadsOf(h)
		for i := range h.S3 {
			if op := &h.S3[i]; op.Node >= 0 && op.Return >= 0 && op.Status == 200 && op.TornBodyETag == "" && !rr[op] && !yield(op) {
				return
			}
		}
	}
}

// auditViolation is a violation of rule (RecordAuditCheck) by op's node
// at at, about the record with token.
func auditViolation(rule string, op *sim.S3Op, at time.Duration, token uint64, message string) linearizability.Violation {
	return linearizability.Violation{Checker: RecordAuditCheck, Rule: rule, At: at, Nodes: []int{op.Node}, Token: token, Message: message}
}

// recordAudit holds the bodies of a history's applied writes by ETag, and
// each body's reading once read.
type recordAudit struct {
	bodies  map[string]string
	bases   map[string]string // by ETag, the ETag of the body a body's first write replaced
	decoded map[string]*auditedBody
	lease   func(node int) time.Duration
	// referenceOnly: every body is read by the reference; fastReadings
	// counts the bodies read otherwise.
	referenceOnly bool
	fastReadings  int
	// disagreements are where the fast readings and the reference's
	// disagree (RuleRecordReadings).
	disagreements []linearizability.Violation
	// scratch holds a body for protocol.DecodeRecord, which takes bytes.
	scratch []byte
}

// auditedBody is a body as the reference reads it: the record, or why it
// is none.
type auditedBody struct {
	rec   protocol.Record
	bad   string // why the body is no valid record; "" if it is one
	field string // the part of the record at fault, by its JSON key, as protocol.RecordError names it
	// body is the body; canonical, whether it is what json.Marshal writes
	// for rec, once known; run, the run a renewal rewrites, once found.
	body      string
	canonical canonicalness
	run       renewalRun
	// decodeJudged: the decode rule judged protocol.DecodeRecord on it.
	decodeJudged bool
}

// canonicalness is whether a body is the canonical form of its record,
// once known.
type canonicalness uint8

const (
	canonicalUnknown canonicalness = iota
	canonicalYes
	canonicalNo
)

// isCanonical reports whether b's body is what json.Marshal writes for
// its record, and that form.
func (b *auditedBody) isCanonical() (bool, []byte) {
	if b.canonical == canonicalYes {
		return true, nil
	}
	want, err := json.Marshal(b.rec)
	if err != nil || string(want) != b.body {
		b.canonical = canonicalNo
		return false, want
	}
	b.canonical = canonicalYes
	if i := strings.Index(b.body, renewalKey); i >= 0 {
		b.run, _ = scanRenewal(b.body, i)
	}
	return true, nil
}

// emptyETag is the ETag of an empty body.
const emptyETag = "d41d8cd98f00b204e9800998ecf8427e"

// read returns the reading of the body with ETag etag, if the history
// holds it: its fast reading by the body it replaced (fastReading) if it
// has one, else the reference's.
func (a *recordAudit) read(etag string) (*auditedBody, bool) {
	etag = unquote(etag)
	if b, ok := a.decoded[etag]; ok {
		return b, true
	}
	body, ok := a.bodies[etag]
	if !ok && etag != emptyETag {
		return nil, false
	}
	if base, ok := a.bases[etag]; ok && !a.referenceOnly {
		if was, _ := a.read(base); was.bad == "" {
			was.isCanonical()
			if b, ok := fastReading(body, was); ok {
				a.fastReadings++
				if sampled(etag) {
					b = a.crossCheck(b)
				}
				a.decoded[etag] = b
				return b, true
			}
		}
	}
	b := readRecord(body)
	a.decoded[etag] = b
	return b, true
}

// crossCheck reads the body of fast reading b with the reference, records
// a disagreement if the reference reads it otherwise, and returns the
// reference's reading.
func (a *recordAudit) crossCheck(b *auditedBody) *auditedBody {
	r := readRecord(b.body)
	switch ok, _ := r.isCanonical(); {
	case r.bad != "" || !sameRecord(r.rec, b.rec):
		a.disagree(b, "the fast reading of a body by the body it replaced is not the reference's: %.200q", b.body)
	case !ok:
		a.disagree(b, "the fast reading took a body for canonical that json.Marshal writes otherwise: %.200q", b.body)
	}
	return r
}

// disagree records a disagreement of the fast readings with the
// reference's, about body b if not nil.
func (a *recordAudit) disagree(b *auditedBody, format string, args ...any) {
	v := linearizability.Violation{Checker: RecordAuditCheck, Rule: RuleRecordReadings, Message: fmt.Sprintf(format, args...)}
	if b != nil {
		v.Token = b.rec.Token
	}
	a.disagreements = append(a.disagreements, v)
}

// judge returns the first rule that op's record breaks.
func (a *recordAudit) judge(op *sim.S3Op) (linearizability.Violation, bool) {
	r, _ := a.read(op.BodyETag)
	var v linearizability.Violation
	broke := func(rule, format string, args ...any) (linearizability.Violation, bool) {
		v = auditViolation(rule, op, op.Call, r.rec.Token,
			fmt.Sprintf("node %d (identity %q) wrote a record at %v ", op.Node, op.Identity, op.Call)+fmt.Sprintf(format, args...))
		return v, true
	}
	if r.bad != "" {
		return broke(RuleRecordCanonical, "that is no valid record (%s)", r.bad)
	}
	if ok, want := r.isCanonical(); !ok {
		return broke(RuleRecordCanonical, "whose bytes are not what json.Marshal writes for it: %.200q, want %.200q", op.Body, want)
	}
	if r.rec.Holder != op.Identity {
		return broke(RuleRecordHolder, "whose holder is %.80q", r.rec.Holder)
	}
	if a.lease != nil {
		if lease := a.lease(op.Node); r.rec.LeaseDurationMS != statedMillis(lease) {
			return broke(RuleRecordLease, "stating a lease of %d ms, but its lease is %v: %d ms rounded up", r.rec.LeaseDurationMS, lease, statedMillis(lease))
		}
	}
	if op.IfNoneMatch == "*" {
		if r.rec.Previous != nil {
			return broke(RuleRecordLink, "that creates the object and links to a term before it (%s)", describeTerm(r.rec.Previous))
		}
		return v, false
	}
	b, ok := a.read(op.IfMatch)
	if op.IfMatch == "" || !ok {
		return v, false // no body to judge the link against
	}
	rec, was := r.rec, b.rec
	switch {
	case b.bad == "" && rec.Token == was.Token && (was.Token < math.MaxUint64 || sameTerm(rec, was)):
		// A renewal or release of the term of the record it replaces.
		switch {
		case !sameTerm(rec, was):
			return broke(RuleRecordLink, "with the token %d of the record it replaced, whose term (holder %.80q, lease %d ms, acquired %v) it changes",
				rec.Token, was.Holder, was.LeaseDurationMS, was.AcquireTime)
		case !samePrevious(rec.Previous, was.Previous):
			return broke(RuleRecordLink, "renewing term %d with the link %s, where the record it replaced has %s",
				rec.Token, describeTerm(rec.Previous), describeTerm(was.Previous))
		case rec.Watermark.Before(was.Watermark):
			return broke(RuleRecordLink, "renewing term %d with the watermark %v, below the %v of the record it replaced", rec.Token, rec.Watermark, was.Watermark)
		}
	case b.bad == "" && was.Token < math.MaxUint64:
		// A takeover of a record.
		want := endOf(was)
		switch {
		case rec.Token < was.Token:
			return broke(RuleRecordLink, "with token %d, taking over a record with the higher token %d", rec.Token, was.Token)
		case !samePrevious(rec.Previous, want):
			return broke(RuleRecordLink, "with token %d linking to %s, but it replaced %s", rec.Token, describeTerm(rec.Previous), describeTerm(want))
		case !rec.Watermark.Equal(was.Watermark):
			return broke(RuleRecordLink, "with token %d and the watermark %v, but the record it took over handed %v", rec.Token, rec.Watermark, was.Watermark)
		}
	default:
		// A takeover of a body that is no record, or of the largest token.
		if rec.Previous != nil || !rec.Watermark.IsZero() {
			why := b.bad
			if why == "" {
				why = "its token has no successor"
			}
			return broke(RuleRecordLink, "linking to %s with the watermark %v, replacing a body that is no record to link to (%s)", describeTerm(rec.Previous), rec.Watermark, why)
		}
	}
	return v, false
}

// recordMaxLeaseMillis is the longest lease a record states, in
// milliseconds: 24 hours, as the record documentation states it
// (protocol.MaxLeaseDuration), written out here so that an elector whose
// bound is wrong is judged by the right one.
const recordMaxLeaseMillis = 24 * 60 * 60 * 1000

// readRecord reads body as the record documentation states it, with
// encoding/json: a JSON object of at most 64 KiB, whose holder is not
// empty, token at least 1, lease within (0, 24 h], nonce
// NonceLen lowercase hex digits, updates at most MaxUpdatesLen bytes, and
// whose previous term, if any, has a holder, a lower token, an ending
// "released" or "expired", and updates within the bound.
func readRecord(body string) *auditedBody {
	b := &auditedBody{body: body}
	if len(body) > 64<<10 {
		b.bad, b.field = fmt.Sprintf("%d bytes, more than 64 KiB", len(body)), "body"
		return b
	}
	if err := json.Unmarshal([]byte(body), &b.rec); err != nil {
		b.bad, b.field = err.Error(), "body"
		return b
	}
	r := &b.rec
	switch {
	case r.Holder == "":
		b.bad, b.field = "empty holder", "holder"
	case r.Token == 0:
		b.bad, b.field = "token 0", "token"
	case r.LeaseDurationMS <= 0 || r.LeaseDurationMS > recordMaxLeaseMillis:
		b.bad, b.field = fmt.Sprintf("lease of %d ms", r.LeaseDurationMS), "leaseDurationMs"
	case !lowerHex(r.Nonce, protocol.NonceLen):
		b.bad, b.field = fmt.Sprintf("nonce %q", r.Nonce), "nonce"
	case len(r.Updates) > protocol.MaxUpdatesLen:
		b.bad, b.field = fmt.Sprintf("updates of %d bytes", len(r.Updates)), "updates"
	case r.Previous == nil:
	case r.Previous.Holder == "":
		b.bad, b.field = "previous term without a holder", "previous.holder"
	case r.Previous.Token >= r.Token:
		b.bad, b.field = fmt.Sprintf("previous token %d not below token %d", r.Previous.Token, r.Token), "previous.token"
	case r.Previous.Ended != protocol.EndedReleased && r.Previous.Ended != protocol.EndedExpired:
		b.bad, b.field = fmt.Sprintf("previous term ended %q", r.Previous.Ended), "previous.ended"
	case len(r.Previous.Updates) > protocol.MaxUpdatesLen:
		b.bad, b.field = fmt.Sprintf("previous updates of %d bytes", len(r.Previous.Updates)), "previous.updates"
	}
	return b
}

// statedMillis is the lease a record states for a configured lease d:
// d in whole milliseconds, rounded up.
func statedMillis(d time.Duration) int64 {
	ms := int64(d / time.Millisecond)
	if d%time.Millisecond != 0 {
		ms++
	}
	return ms
}

// lowerHex reports whether s is n lowercase hex digits.
func lowerHex(s string, n int) bool {
	if len(s) != n {
		return false
	}
	for _, c := range []byte(s) {
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// endOf is the link a takeover of r must write.
func endOf(r protocol.Record) *protocol.PreviousTerm {
	holder := r.Holder
	if len(holder) > protocol.MaxIdentityLen {
		n := protocol.MaxIdentityLen
		for n > 0 && !utf8.RuneStart(holder[n]) {
			n--
		}
		holder = holder[:n]
	}
	ended := protocol.EndedExpired
	if r.Released {
		ended = protocol.EndedReleased
	}
	return &protocol.PreviousTerm{Holder: holder, Token: r.Token, Nonce: r.Nonce, Ended: ended, Watermark: r.Watermark, Updates: r.Updates}
}

// sameTerm reports whether two records are of one term.
func sameTerm(a, b protocol.Record) bool {
	return a.Holder == b.Holder && a.Token == b.Token && a.LeaseDurationMS == b.LeaseDurationMS && a.AcquireTime.Equal(b.AcquireTime)
}

// samePrevious reports whether two links are equal.
func samePrevious(a, b *protocol.PreviousTerm) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.Holder == b.Holder && a.Token == b.Token && a.Nonce == b.Nonce && a.Ended == b.Ended &&
		a.Watermark.Equal(b.Watermark) && a.Updates == b.Updates
}

// describeTerm renders a link for a message.
func describeTerm(p *protocol.PreviousTerm) string {
	if p == nil {
		return "no term"
	}
	return fmt.Sprintf("term %d of %.80q (nonce %q, %s, watermark %v, %d bytes of updates)", p.Token, p.Holder, p.Nonce, p.Ended, p.Watermark, len(p.Updates))
}

// unquote strips an ETag's quotes.
func unquote(etag string) string {
	if n := len(etag); n > 2 && etag[0] == '"' && etag[n-1] == '"' && etag[1] != '"' && etag[n-2] != '"' {
		return etag[1 : n-1] // one pair of quotes, the common case
	}
	return strings.Trim(etag, `"`)
}
