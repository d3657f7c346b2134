package sim

import (
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// EventKind says what a trace event records.
type EventKind uint8

// The kinds of trace events.
const (
	EvStart      EventKind = iota // a node incarnation started its candidate
	EvS3Send                      // a node sent an S3 request
	EvS3Apply                     // S3 applied the request at one instant
	EvS3Return                    // the answer reached the node
	EvS3Abandon                   // the node's context ended before the answer arrived
	EvLead                        // the application was told it leads
	EvUnlead                      // the application saw its leadership end
	EvFenceSend                   // a leader sent a write to the fenced resource
	EvFenceApply                  // the fenced resource judged the write
	EvPause                       // a node's process stopped running
	EvResume                      // a paused node runs again
	EvCrash                       // a node's process died
	EvStop                        // a node's candidate was asked to stop (context cancelled)
	EvFault                       // a fault was injected
	EvPanic                       // protocol code panicked
	EvSQLSend                     // a node sent a statement to the row store
	EvSQLApply                    // the row store applied the statement at one instant
	EvSQLReturn                   // the answer reached the node
	EvSQLAbandon                  // the node's context ended before the answer arrived
	EvAnswer                      // the protocol answered its application or an operator (Answer)
	numEventKinds
)

var eventKindNames = [numEventKinds]string{
	"start", "s3.send", "s3.apply", "s3.return", "s3.abandon", "lead", "unlead",
	"fence.send", "fence.apply", "pause", "resume", "crash", "stop", "fault", "panic",
	"sql.send", "sql.apply", "sql.return", "sql.abandon", "answer",
}

// sql reports a kind of the row store's.
func (k EventKind) sql() bool { return k >= EvSQLSend && k <= EvSQLAbandon }

// String returns the kind's name as it appears in traces.
func (k EventKind) String() string {
	if k < numEventKinds {
		return eventKindNames[k]
	}
	return "kind(" + strconv.Itoa(int(k)) + ")"
}

// MarshalText encodes the kind by name.
func (k EventKind) MarshalText() ([]byte, error) { return []byte(k.String()), nil }

// UnmarshalText decodes a kind from its name.
func (k *EventKind) UnmarshalText(b []byte) error {
	for i, name := range eventKindNames {
		if name == string(b) {
			*k = EventKind(i)
			return nil
		}
	}
	return fmt.Errorf("sim: unknown event kind %q", b)
}

// Event is one line of a trace.
type Event struct {
	// At is true time since the start of the run.
	At time.Duration `json:"at"`
	// Node is the node the event happened on, or -1 for S3 and the fenced
	// resource.
	Node int `json:"node"`
	// Local is the node's wall-clock reading at At, as an offset from Epoch
	// (for S3 events, S3's own clock).
	Local time.Duration `json:"local"`
	Kind  EventKind     `json:"kind"`
	// Call numbers the request an S3 or fence event belongs to.
	Call uint64 `json:"call,omitempty"`
	// Op is the S3 operation ("PutObject", ...).
	Op  string `json:"op,omitempty"`
	Key string `json:"key,omitempty"`
	// Cond is the request's precondition ("If-Match:\"…\"", "If-None-Match:*").
	Cond string `json:"cond,omitempty"`
	// Status and Code are the HTTP status and S3 error code of an answer.
	Status int    `json:"status,omitempty"`
	Code   string `json:"code,omitempty"`
	ETag   string `json:"etag,omitempty"`
	Token  uint64 `json:"token,omitempty"`
	// Fault is the kind of fault an event records, and For its length or
	// size: tests and tools read these, not Detail.
	Fault FaultKind     `json:"fault,omitempty"`
	For   time.Duration `json:"for,omitempty"`
	// Detail is free text: an identity, a fault, a panic value, a body.
	Detail string `json:"detail,omitempty"`
	// Received, on an s3.return, is the error code the node received
	// where it is not S3's (Code): behind a proxy's error pages, the code
	// the SDK derived from the status, or "no code" for a page it could
	// not read. Body, if the trace keeps events, is a PutObject's body on
	// its s3.send and a GetObject's on its s3.return. Neither is hashed:
	// they print what the run did and change nothing in it.
	Received string `json:"received,omitempty"`
	Body     string `json:"body,omitempty"`
}

// Trace records every event of a run and keeps a running FNV-1a hash of
// them. Two runs with equal hashes made the same decisions in the same order
// at the same instants.
type Trace struct {
	Events []Event
	hash   uint64
	keep   bool
	// live is the run's, while it is under way: a trace of an abandoned run
	// takes no more events.
	live *liveness
}

// The running hash mixes each 64-bit word of an event into the state with a
// multiply and a shift (in the manner of FNV, a word at a time instead of a
// byte at a time). It is not cryptographic: it only has to make two
// different traces disagree, cheaply, on every machine alike.
const (
	hashOffset = 14695981039346656037
	hashPrime  = 0x9e3779b97f4a7c15
)

func newTrace(keep bool) *Trace { return &Trace{hash: hashOffset, keep: keep} }

// Hash returns the running hash of every event so far.
func (t *Trace) Hash() uint64 { return t.hash }

// Len returns the number of events recorded.
func (t *Trace) Len() int { return len(t.Events) }

func mix(h, v uint64) uint64 {
	h = (h ^ v) * hashPrime
	return h ^ h>>32
}

// mixStr mixes s and its length into h, eight bytes at a time.
func mixStr[S string | []byte](h uint64, s S) uint64 {
	h = mix(h, uint64(len(s)))
	for len(s) >= 8 {
		h = mix(h, uint64(s[0])|uint64(s[1])<<8|uint64(s[2])<<16|uint64(s[3])<<24|
			uint64(s[4])<<32|uint64(s[5])<<40|uint64(s[6])<<48|uint64(s[7])<<56)
		s = s[8:]
	}
	if len(s) > 0 {
		var w uint64
		for i := len(s) - 1; i >= 0; i-- {
			w = w<<8 | uint64(s[i])
		}
		h = mix(h, w)
	}
	return h
}

// add hashes e and, if the trace keeps events, appends it. Detail is
// hashed too: it is derived from the run's state.
func (t *Trace) add(e Event) {
	t.hashEvent(&e, nil)
	if t.keep {
		t.Events = append(t.Events, e)
	}
}

// addCond is add for an event whose Cond is the rendering of a request's
// preconditions (cond): the text is made only if the trace keeps events,
// and hashed from a buffer on the stack otherwise.
func (t *Trace) addCond(e Event, ifMatch, ifNoneMatch *string) {
	if t.keep || (ifMatch == nil && ifNoneMatch == nil) {
		if ifMatch != nil || ifNoneMatch != nil {
			e.Cond = cond(ifMatch, ifNoneMatch)
		}
		t.add(e)
		return
	}
	var buf [condBuf]byte
	t.hashEvent(&e, appendCond(buf[:0], ifMatch, ifNoneMatch))
}

// hashEvent mixes e into the running hash; cond, if not nil, stands for
// e.Cond.
func (t *Trace) hashEvent(e *Event, cond []byte) {
	if t.live != nil {
		t.live.check()
	}
	h := t.hash
	h = mix(h, uint64(e.At))
	h = mix(h, uint64(int64(e.Node)))
	h = mix(h, uint64(e.Local))
	h = mix(h, uint64(e.Kind)<<32|uint64(uint32(e.Status)))
	h = mix(h, e.Call)
	h = mix(h, e.Token)
	h = mixStr(h, e.Op)
	h = mixStr(h, e.Key)
	if cond != nil {
		h = mixStr(h, cond)
	} else {
		h = mixStr(h, e.Cond)
	}
	h = mixStr(h, e.Code)
	h = mixStr(h, e.ETag)
	h = mixStr(h, e.Detail)
	if e.Fault != NoFault {
		h = mixStr(h, e.Fault.String())
		h = mix(h, uint64(e.For))
	}
	t.hash = h
}

// fmtDur prints a duration as seconds with nanosecond precision, which
// reads well and sorts as text.
func fmtDur(d time.Duration) string {
	neg := d < 0
	if neg {
		d = -d
	}
	s := fmt.Sprintf("%d.%09ds", d/time.Second, d%time.Second)
	if neg {
		return "-" + s
	}
	return s
}

// String renders the event as one line of the readable trace, without
// its body (Text).
func (e Event) String() string { return e.Text(false) }

// Text renders the event as one line of the readable trace: an answer as
// the node received it, and with bodies, the body it carries.
func (e Event) Text(bodies bool) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%16s ", fmtDur(e.At))
	if e.Node >= 0 {
		fmt.Fprintf(&b, "n%-2d [wall %s] ", e.Node, fmtDur(e.Local))
	} else if e.Kind.sql() {
		fmt.Fprintf(&b, "sql [wall %s] ", fmtDur(e.Local))
	} else {
		fmt.Fprintf(&b, "s3  [wall %s] ", fmtDur(e.Local))
	}
	fmt.Fprintf(&b, "%-11s", e.Kind)
	if e.Call != 0 {
		fmt.Fprintf(&b, " #%d", e.Call)
	}
	for _, f := range [...]struct{ k, v string }{{"", e.Op}, {"key=", e.Key}, {"", e.Cond}} {
		if f.v != "" {
			b.WriteString(" " + f.k + f.v)
		}
	}
	if e.Status != 0 {
		fmt.Fprintf(&b, " -> %d", e.Status)
		if code := cmp.Or(e.Received, e.Code); code != "" {
			b.WriteString(" " + code)
		}
	} else if e.Code != "" && e.Kind.sql() {
		b.WriteString(" -> " + e.Code) // a command tag or an SQLSTATE
	}
	if e.ETag != "" {
		b.WriteString(" etag=" + e.ETag)
	}
	if e.Token != 0 {
		fmt.Fprintf(&b, " token=%d", e.Token)
	}
	if e.Detail != "" {
		b.WriteString(" " + e.Detail)
	}
	if bodies && e.Body != "" {
		b.WriteString(" body=" + bodyText(e.Body))
	}
	return b.String()
}

// bodyText is a body as a trace line shows it: as it is if it is one line
// of printable UTF-8 (a JSON record), else quoted.
func bodyText(body string) string {
	for _, r := range body {
		if !unicode.IsPrint(r) || r == utf8.RuneError {
			return strconv.Quote(body)
		}
	}
	return body
}

// TextOption changes how WriteText renders a trace.
type TextOption func(*textOptions)

type textOptions struct{ bodies bool }

// WithBodies prints the bodies of the S3 events that carry one (the
// trace must have kept its events: Config.KeepTrace).
func WithBodies() TextOption { return func(o *textOptions) { o.bodies = true } }

// WriteText writes the readable trace, one event per line (Event.Text).
func (t *Trace) WriteText(w io.Writer, opts ...TextOption) error {
	var o textOptions
	for _, opt := range opts {
		opt(&o)
	}
	for _, e := range t.Events {
		if _, err := io.WriteString(w, e.Text(o.bodies)+"\n"); err != nil {
			return err
		}
	}
	return nil
}

// WriteJSON writes the trace as JSON lines, one event per line.
func (t *Trace) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	for _, e := range t.Events {
		if err := enc.Encode(e); err != nil {
			return err
		}
	}
	return nil
}
