package faults

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/s3lease/s3lease/sim"
)

// ErrInvalidPlan is wrapped by every error Validate and Decode return.
var ErrInvalidPlan = errors.New("faults: invalid plan")

// Plan is a fault plan: what goes wrong in one run, as data. Timed events
// hit chosen nodes at chosen instants; probability knobs give every S3
// request of the safety phase a chance of failing. At HealAt the safety
// phase ends: every fault is over, and the liveness phase begins.
type Plan struct {
	// HealAt is the end of the safety phase.
	HealAt Duration `json:"healAt"`
	// Settings give nodes protocol settings of their own, for a protocol
	// that takes them (harness.Protocol.Configure); a node not listed runs
	// the protocol as given.
	Settings []Settings `json:"settings,omitempty"`
	// Names, if given, are the nodes' identities: node i's first
	// incarnation is Names[i], and so is every restart that names none (a
	// restart with an identity suffix appends it). Nil: n0, n1, ...
	Names []string `json:"names,omitempty"`
	// Initial is what the lock object holds before time 0; nil: there is
	// no lock object.
	Initial *Object `json:"initial,omitempty"`
	// Apps are how nodes' applications use their terms; a node not listed
	// runs the default application (AppContext, no work).
	Apps []App `json:"apps,omitempty"`
	// Clocks sets nodes' clock offsets and drifts for the whole run.
	Clocks []ClockSetting `json:"clocks,omitempty"`
	// Events are the timed and aimed faults, in any order.
	Events []Event `json:"events,omitempty"`
	// S3 are the probability knobs of the safety phase.
	S3 Knobs `json:"s3"`
	// SDKAttempts, if set, is the number of attempts of the nodes' S3
	// clients (the SDK's standard retryer makes 3).
	SDKAttempts int `json:"sdkAttempts,omitempty"`
	// ErrorPages, if set, puts a proxy between the nodes and S3 that
	// answers every error with a page of its own (sim.ErrorPages): "plain"
	// (the SDK derives the code from the status) or "html" (no code at
	// all). Empty: S3's own error documents.
	ErrorPages string `json:"errorPages,omitempty"`
}

// ClockSetting is a node's clock offset and drift.
type ClockSetting struct {
	Node     int      `json:"node"`
	Offset   Duration `json:"offset"`
	DriftPPM int64    `json:"driftPPM"`
	// DriftUntil, if set, is when the drift ends and the clock runs at true
	// rate again (a clock disciplined once faults heal); 0: the whole run.
	// A drift beyond a protocol's bound should end by healAt, or the
	// healed phase is outside the assumptions too.
	DriftUntil Duration `json:"driftUntil,omitempty"`
}

// Knobs are chances, in parts per million, that an S3 request of the safety
// phase meets a fault. Integers keep the run the same on every machine.
type Knobs struct {
	// ConflictOnOverlapPPM: a conditional write applied while another
	// conditional write on the key is in flight is answered 409
	// ConditionalRequestConflict without being applied.
	ConflictOnOverlapPPM int64 `json:"conflictOnOverlapPPM,omitempty"`
	// ConflictPPM: any conditional write is answered 409.
	ConflictPPM int64 `json:"conflictPPM,omitempty"`
	// InternalBeforePPM and SlowDownPPM: answered 500 InternalError or 503
	// SlowDown without being applied. Behind a proxy whose error pages are
	// HTML (ErrorPages "html"), the proxy throttles instead of S3: its
	// answer is a 429 (sim.TooManyRequests), which the SDK does not retry.
	InternalBeforePPM int64 `json:"internalBeforePPM,omitempty"`
	SlowDownPPM       int64 `json:"slowDownPPM,omitempty"`
	// InternalAfterPPM: applied, but answered 500 InternalError.
	InternalAfterPPM int64 `json:"internalAfterPPM,omitempty"`
	// LostPPM: applied, and the answer is lost.
	LostPPM int64 `json:"lostPPM,omitempty"`
	// SlowPPM: the request (or, as often, its answer) is delayed by up to
	// SlowMax more: the long tail of S3 latency.
	SlowPPM int64    `json:"slowPPM,omitempty"`
	SlowMax Duration `json:"slowMax,omitempty"`
	// TornPPM: a GetObject that a write of its key races (one applied
	// between its send and its answer) is answered torn, with the body of
	// one version and the ETag of another, as versitygw v1.8.0 answered a
	// few in ten thousand (sim.RequestFault.TornPPM).
	TornPPM int64 `json:"tornPPM,omitempty"`
	// OpaqueETags: S3's ETags are not the MD5s of the bodies, as for a
	// bucket whose objects are under SSE-KMS (sim.Config.OpaqueETags).
	OpaqueETags bool `json:"opaqueETags,omitempty"`
}

// Kind names a fault event.
type Kind string

// The kinds of fault events. Timed kinds happen at At; aimed kinds
// (answer-*, refused, pause-before-write, write-delayed) hit the Nth request
// of Op, or the Nth fenced write, of Node, if that happens before HealAt.
// An event with a Role happens instead at the first moment at or after At
// when a node plays that role, and hits that node (see Role); Target
// widens it to every node or every follower.
const (
	Pause      Kind = "pause"       // the node's process stops for For
	Crash      Kind = "crash"       // the node's process dies
	Restart    Kind = "restart"     // a fresh process starts (Identity, or the node's default)
	Stop       Kind = "stop"        // the node's candidate is asked to stop (its context is cancelled)
	ClockJump  Kind = "clock-jump"  // the node's wall clock steps by By
	ClockStall Kind = "clock-stall" // the node's VM is suspended for For: no process, monotonic clock stopped
	Partition  Kind = "partition"   // the node cannot reach S3 for For (Blackhole: requests hang instead of failing; Denied: they are answered 403)
	SlowS3     Kind = "slow-s3"     // every S3 request takes By longer on each leg for For
	DeleteLock Kind = "delete-lock" // someone else deletes the lock object
	Overwrite  Kind = "overwrite"   // someone else overwrites the lock object with Record, or else Body
	Restore    Kind = "restore"     // someone else copies the lock object at At and writes the copy back, byte for byte, For later
	Linger     Kind = "linger"      // from At to HealAt, the node's application writes on for By after its term ends

	AnswerLost     Kind = "answer-lost"        // the Nth Op request is applied, its answer lost
	AnswerFailed   Kind = "answer-failed"      // the Nth Op request is applied, its answer replaced by Code
	Refused        Kind = "refused"            // the Nth Op request is answered Code without being applied
	AnswerDelayed  Kind = "answer-delayed"     // the Nth Op request's answer takes By longer
	RequestDelayed Kind = "request-delayed"    // the Nth Op request takes By longer to reach S3 (it lands late)
	AnswerPause    Kind = "answer-pause"       // the node pauses for For when the Nth Op answer arrives
	PauseBefore    Kind = "pause-before-write" // the node pauses for For between its lease check and its Nth fenced write
	WriteDelayed   Kind = "write-delayed"      // the node's Nth fenced write takes By longer to arrive
)

// Event is one fault.
type Event struct {
	Kind Kind     `json:"kind"`
	At   Duration `json:"at,omitempty"`
	Node int      `json:"node"`
	For  Duration `json:"for,omitempty"`
	By   Duration `json:"by,omitempty"`
	// Identity names a restarted process.
	Identity string `json:"identity,omitempty"`
	// Blackhole makes a partition hang requests instead of refusing them.
	Blackhole bool `json:"blackhole,omitempty"`
	// Denied makes a partition answer the node's requests 403
	// AccessDenied, without applying them, instead of failing to connect:
	// S3 is reachable, but refuses the node (its credentials were revoked
	// or expired, a bucket policy shuts it out).
	Denied bool `json:"denied,omitempty"`
	// Body is what an overwrite writes, unless Record is set.
	Body string `json:"body,omitempty"`
	// Record, if set, is what an overwrite writes: a lock record in the
	// protocol's own format (harness.Protocol.EncodeRecord).
	Record *Record `json:"record,omitempty"`
	// Role, if set, aims the event at a role instead of at Node and At
	// alone: it happens at the first moment at or after At when a node
	// plays the role, to that node (see Role).
	Role Role `json:"role,omitempty"`
	// Target, if set, widens the event to every node ("all") or to every
	// node that does not lead when it happens ("followers").
	Target Target `json:"target,omitempty"`
	// Op and Nth aim an answer-* fault at the Nth request of Op
	// ("PutObject", "GetObject"...) of Node; Nth also counts fenced writes
	// for pause-before-write.
	Op  string `json:"op,omitempty"`
	Nth int    `json:"nth,omitempty"`
	// Code is the S3 error of answer-failed and refused: "InternalError",
	// "SlowDown", and for refused also "ConditionalRequestConflict" (409),
	// "AccessDenied" (403) and "TooManyRequests" (429, a throttling proxy
	// in front of S3; behind HTML error pages, SlowDown is answered so too).
	Code string `json:"code,omitempty"`
	// Back is how many writes back a restore-own reaches (RestoreOwn).
	Back int `json:"back,omitempty"`
}

var kinds = map[Kind]bool{Pause: true, Crash: true, Restart: true, Stop: true, ClockJump: true, ClockStall: true,
	Partition: true, SlowS3: true, DeleteLock: true, Overwrite: true, Restore: true, RestoreOwn: true, Linger: true, AnswerLost: true,
	AnswerFailed: true, Refused: true, AnswerDelayed: true, RequestDelayed: true, AnswerPause: true, PauseBefore: true, WriteDelayed: true}

// Aimed reports whether events of kind k hit the Nth request or fenced
// write of a node rather than an instant.
func (k Kind) Aimed() bool {
	switch k {
	case AnswerLost, AnswerFailed, Refused, AnswerDelayed, RequestDelayed, AnswerPause, PauseBefore, WriteDelayed:
		return true
	}
	return false
}

var codes = map[string]func(op, id string) error{
	"InternalError":              sim.InternalError,
	"SlowDown":                   sim.SlowDown,
	"TooManyRequests":            sim.TooManyRequests,
	"ConditionalRequestConflict": sim.ConditionalRequestConflict,
	"AccessDenied":               sim.AccessDenied,
}

// Validate reports the first problem with the plan for a run of nodes nodes
// lasting duration.
func (p *Plan) Validate(nodes int, duration time.Duration) error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: %s", ErrInvalidPlan, fmt.Sprintf(format, args...))
	}
	if p.HealAt < 0 || p.HealAt.D() > duration {
		return bad("healAt %v outside the run [0, %v]", p.HealAt, duration)
	}
	if p.Names != nil && len(p.Names) != nodes {
		return bad("%d names for %d nodes", len(p.Names), nodes)
	}
	for i, n := range p.Names {
		if n == "" || !utf8.ValidString(n) {
			return bad("node %d's name %q is empty or not UTF-8", i, n)
		}
	}
	for _, c := range p.Clocks {
		if c.Node < 0 || c.Node >= nodes {
			return bad("clock setting for node %d of %d", c.Node, nodes)
		}
		if c.DriftPPM <= -1_000_000 || c.DriftPPM > 1_000_000 {
			return bad("node %d drift %d ppm outside (-1e6, 1e6]", c.Node, c.DriftPPM)
		}
		if c.DriftUntil < 0 || c.DriftUntil.D() > duration {
			return bad("node %d drift ends at %v, outside the run [0, %v]", c.Node, c.DriftUntil, duration)
		}
	}
	if p.S3.SlowMax < 0 {
		return bad("S3 slowMax is negative")
	}
	for _, v := range []int64{p.S3.ConflictOnOverlapPPM, p.S3.ConflictPPM, p.S3.InternalBeforePPM, p.S3.SlowDownPPM, p.S3.InternalAfterPPM, p.S3.LostPPM, p.S3.SlowPPM, p.S3.TornPPM} {
		if v < 0 || v > 1_000_000 {
			return bad("S3 knob %d ppm outside [0, 1e6]", v)
		}
	}
	if p.SDKAttempts < 0 || p.SDKAttempts > 10 {
		return bad("sdkAttempts %d outside [0, 10]", p.SDKAttempts)
	}
	if _, err := p.errorPages(); err != nil {
		return bad("%v", err)
	}
	if err := p.validateWorld(nodes); err != nil {
		return err
	}
	for i, e := range p.Events {
		where := fmt.Sprintf("event %d (%s)", i, e.Kind)
		if err := e.validateAim(); err != nil {
			return bad("%s: %v", where, err)
		}
		switch {
		case !kinds[e.Kind]:
			return bad("%s: unknown kind; known: %s", where, strings.Join(KindNames(), ", "))
		case e.Node < 0 || e.Node >= nodes:
			return bad("%s: node %d of %d", where, e.Node, nodes)
		case e.At < 0 || e.For < 0:
			return bad("%s: negative time", where)
		case e.Kind.Aimed() && e.Role == "" && (e.Op == "" && e.Kind != PauseBefore && e.Kind != WriteDelayed || e.Nth < 1):
			return bad("%s: aimed at no request (op %q, nth %d)", where, e.Op, e.Nth)
		case (e.Kind == AnswerFailed || e.Kind == Refused) && codes[e.Code] == nil:
			return bad("%s: code %q is not InternalError, SlowDown, TooManyRequests, ConditionalRequestConflict or AccessDenied", where, e.Code)
		case e.Kind == AnswerFailed && e.Code == "TooManyRequests":
			return bad("%s: a throttling proxy answers 429 before the request reaches S3; use refused for a 429", where)
		case e.Kind == AnswerFailed && e.Code == "ConditionalRequestConflict":
			return bad("%s: S3 never applies a write and answers 409; use refused for a 409", where)
		case e.Kind == AnswerFailed && e.Code == "AccessDenied":
			return bad("%s: S3 never applies a request and answers 403; use refused for a 403", where)
		case e.Denied && (e.Kind != Partition || e.Blackhole):
			return bad("%s: denied is a partition's, which answers 403 instead of failing to connect or hanging (blackhole)", where)
		case !e.Kind.Aimed() && e.Kind != Restart && e.Kind != Linger && e.At+e.For > p.HealAt:
			return bad("%s: lasts until %v, past healAt %v: faults must heal", where, (e.At + e.For), p.HealAt)
		case (e.Kind == Restart || e.Kind == Linger) && e.At > p.HealAt:
			return bad("%s: at %v, after healAt %v: after the heal nothing happens that the assumptions forbid", where, e.At, p.HealAt)
		}
		if e.Record != nil {
			if err := e.Record.validate(); err != nil {
				return bad("%s: %v", where, err)
			}
		}
	}
	return nil
}

// KindNames lists the event kinds, sorted.
func KindNames() []string {
	names := make([]string, 0, len(kinds))
	for k := range kinds {
		names = append(names, string(k))
	}
	sort.Strings(names)
	return names
}

// Decode reads a plan from JSON, refusing unknown fields.
func Decode(r io.Reader) (*Plan, error) {
	dec := json.NewDecoder(r)
	dec.DisallowUnknownFields()
	var p Plan
	if err := dec.Decode(&p); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalidPlan, err)
	}
	return &p, nil
}
