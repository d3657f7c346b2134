package protocol

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"
	"unicode/utf8"
)

// ErrMalformedRecord is wrapped by every DecodeRecord error.
var ErrMalformedRecord = errors.New("malformed lock record")

// RecordError is what a DecodeRecord error holds (errors.As finds it): the
// rule of the record format that a body breaks. Field names the part at
// fault by its JSON key: "holder", "token", "leaseDurationMs", "nonce",
// "updates", "previous.holder", "previous.token", "previous.nonce",
// "previous.ended" or "previous.updates"; or "body" for a body that is not a JSON object of
// the record's shape (Err is then encoding/json's error) or is longer than
// 64 KiB. A RecordError wraps ErrMalformedRecord, and Err if set. Encode
// refuses a record with the same errors, and with one more: a field that
// would not read back as it is (Field is then any of the record's JSON
// keys, "previous." and a key for the link's).
type RecordError struct {
	Field   string
	Problem string
	Err     error
}

func (e *RecordError) Error() string {
	if e.Err != nil {
		return ErrMalformedRecord.Error() + ": " + e.Err.Error()
	}
	return ErrMalformedRecord.Error() + ": " + e.Problem
}

// Unwrap returns ErrMalformedRecord and Err, if set.
func (e *RecordError) Unwrap() []error {
	if e.Err != nil {
		return []error{ErrMalformedRecord, e.Err}
	}
	return []error{ErrMalformedRecord}
}

// NonceLen is the length of Record.Nonce: 16 lowercase hex digits.
const NonceLen = 16

// maxRecordSize bounds the body of a lock object: DecodeRecord rejects a
// longer one, Encode does not write one, and an elector reads no more.
const maxRecordSize = 64 << 10

// Record is the JSON body of the lock object. Every write carries a fresh
// Nonce, so no two bodies are equal and ETags never repeat.
type Record struct {
	// Holder is the identity of the elector that wrote the record.
	Holder string `json:"holder"`
	// Token is the fencing token of the holder's term; it is at least 1.
	Token uint64 `json:"token"`
	// LeaseDurationMS is the holder's LeaseDuration in milliseconds,
	// rounded up; followers wait at least this long.
	LeaseDurationMS int64 `json:"leaseDurationMs"`
	// AcquireTime and RenewTime are the holder's wall clock when the term
	// began and when this record was written. For humans only: no elector
	// compares them with its own clock.
	AcquireTime time.Time `json:"acquireTime"`
	RenewTime   time.Time `json:"renewTime"`
	// Nonce is unique to this write (NonceLen hex digits).
	Nonce string `json:"nonce"`
	// Released reports that the holder gave the lease up; the next
	// candidate may take it at once.
	Released bool `json:"released,omitempty"`
	// Watermark bounds the application timestamps of everything written
	// under this term and the terms it follows: the holder published it
	// (Elector.SetWatermark), or inherited it from the previous term. Zero
	// if none was ever published on this chain of records.
	Watermark time.Time `json:"watermark,omitzero"`
	// Updates says where the holder's updates went (a log, a prefix), as
	// it published it; UTF-8 text of at most MaxUpdatesLen bytes.
	Updates string `json:"updates,omitempty"`
	// Previous links to the term before this one; nil for the first term
	// of a newly created object.
	Previous *PreviousTerm `json:"previous,omitempty"`
}

// MaxUpdatesLen bounds Record.Updates and PreviousTerm.Updates, in bytes of
// UTF-8.
const MaxUpdatesLen = 1024

// Ending says how a term ended.
type Ending string

const (
	// EndedReleased means the holder released the lease.
	EndedReleased Ending = "released"
	// EndedExpired means a candidate took the lease over after it saw the
	// record unchanged for a full lease.
	EndedExpired Ending = "expired"
)

// PreviousTerm is the audit link from a record to the term it replaced.
type PreviousTerm struct {
	Holder string `json:"holder"`
	Token  uint64 `json:"token"`
	// Nonce is the nonce of the last record of that term.
	Nonce string `json:"nonce"`
	Ended Ending `json:"ended"`
	// Watermark and Updates are what the last record of that term
	// published: the watermark handed over, and where its updates went.
	Watermark time.Time `json:"watermark,omitzero"`
	Updates   string    `json:"updates,omitempty"`
}

// LeaseDuration returns LeaseDurationMS as a Duration.
func (r Record) LeaseDuration() time.Duration {
	return time.Duration(r.LeaseDurationMS) * time.Millisecond
}

// Encode returns the JSON body of r, which DecodeRecord reads back as r
// exactly (its times as the same instants). It fails, writing nothing, for
// any other record: one whose fields break the format (a *RecordError, as
// DecodeRecord gives for such a body; a string that is not UTF-8 is one,
// since JSON would write U+FFFD for each byte that is not), one with a time
// that has no RFC 3339 form (a year outside 0 to 9999: encoding/json's
// error), one whose body would be longer than DecodeRecord accepts (64
// KiB), and one with a field that would read back as something else (a
// *RecordError naming it: a time zone offset with seconds, which RFC 3339
// drops). Encode checks the last the sure way: it decodes what it wrote,
// with DecodeRecord's fast parser, and compares.
//
// The body is byte for byte what json.Marshal(r) returns; the common case is
// written by hand (see record_fast.go), anything else by encoding/json.
func (r Record) Encode() ([]byte, error) {
	if err := r.check(); err != nil {
		return nil, fmt.Errorf("s3lease: encode record: %w", err)
	}
	body, ok := r.appendJSON(make([]byte, 0, r.encodedSizeHint()))
	if !ok {
		var err error
		if body, err = json.Marshal(r); err != nil {
			return nil, err
		}
	}
	return r.readsBack(body, DecodeRecord)
}

// encodeRecordJSON is Encode done entirely by encoding/json: the reference
// the fast encoder is tested and benchmarked against.
func encodeRecordJSON(r Record) ([]byte, error) {
	if err := r.check(); err != nil {
		return nil, fmt.Errorf("s3lease: encode record: %w", err)
	}
	body, err := json.Marshal(r)
	if err != nil {
		return nil, err
	}
	return r.readsBack(body, decodeRecordJSON)
}

// readsBack returns body, the encoding of r, if it is no longer than
// DecodeRecord accepts and decode reads it back as r; otherwise an error
// naming the first field that reads back otherwise.
func (r Record) readsBack(body []byte, decode func([]byte) (Record, error)) ([]byte, error) {
	if len(body) > maxRecordSize {
		return nil, fmt.Errorf("s3lease: encode record: %w: %d bytes, more than %d", ErrMalformedRecord, len(body), maxRecordSize)
	}
	got, err := decode(body)
	if err != nil {
		return nil, fmt.Errorf("s3lease: encode record: %w", err)
	}
	if field := r.differsFrom(got); field != "" {
		return nil, fmt.Errorf("s3lease: encode record: %w", &RecordError{Field: field, Problem: field + " does not read back as written"})
	}
	return body, nil
}

// differsFrom returns the JSON key of the first field in which r and o
// differ, times compared as instants; "" if they are the same record.
func (r Record) differsFrom(o Record) string {
	switch {
	case r.Holder != o.Holder:
		return "holder"
	case r.Token != o.Token:
		return "token"
	case r.LeaseDurationMS != o.LeaseDurationMS:
		return "leaseDurationMs"
	case !r.AcquireTime.Equal(o.AcquireTime):
		return "acquireTime"
	case !r.RenewTime.Equal(o.RenewTime):
		return "renewTime"
	case r.Nonce != o.Nonce:
		return "nonce"
	case r.Released != o.Released:
		return "released"
	case !r.Watermark.Equal(o.Watermark):
		return "watermark"
	case r.Updates != o.Updates:
		return "updates"
	case (r.Previous == nil) != (o.Previous == nil):
		return "previous"
	case r.Previous == nil:
		return ""
	}
	p, q := r.Previous, o.Previous
	switch {
	case p.Holder != q.Holder:
		return "previous.holder"
	case p.Token != q.Token:
		return "previous.token"
	case p.Nonce != q.Nonce:
		return "previous.nonce"
	case p.Ended != q.Ended:
		return "previous.ended"
	case !p.Watermark.Equal(q.Watermark):
		return "previous.watermark"
	case p.Updates != q.Updates:
		return "previous.updates"
	}
	return ""
}

// errTooLarge is the error of DecodeRecord for a body over maxRecordSize.
var errTooLarge = fmt.Errorf("s3lease: %w", &RecordError{Field: "body", Problem: fmt.Sprintf("larger than %d bytes", maxRecordSize)})

// DecodeRecord parses a lock object body. Its errors hold a *RecordError
// that names the rule the body breaks; they wrap ErrMalformedRecord and,
// for a JSON syntax or type error, the encoding/json error. A body longer
// than 64 KiB is malformed.
//
// It gives exactly what decodeRecordJSON gives: a body in the shape Encode
// writes is parsed by hand (see record_fast.go), anything else by
// encoding/json.
func DecodeRecord(body []byte) (Record, error) {
	if len(body) > maxRecordSize {
		return Record{}, errTooLarge
	}
	r, ok := decodeRecordFast(body)
	if !ok {
		return decodeRecordJSON(body)
	}
	if err := r.check(); err != nil {
		return Record{}, fmt.Errorf("s3lease: %w", err)
	}
	return r, nil
}

// decodeRecordJSON is DecodeRecord done entirely by encoding/json: the
// fallback of the fast parser, and the reference it is tested against.
func decodeRecordJSON(body []byte) (Record, error) {
	if len(body) > maxRecordSize {
		return Record{}, errTooLarge
	}
	var r Record
	if err := json.Unmarshal(body, &r); err != nil {
		return Record{}, fmt.Errorf("s3lease: %w", &RecordError{Field: "body", Err: err})
	}
	if err := r.check(); err != nil {
		return Record{}, fmt.Errorf("s3lease: %w", err)
	}
	return r, nil
}

func (r Record) check() error {
	bad := func(field, format string, args ...any) error {
		return &RecordError{Field: field, Problem: fmt.Sprintf(format, args...)}
	}
	switch {
	case r.Holder == "":
		return bad("holder", "empty holder")
	case r.Token == 0:
		return bad("token", "token 0")
	case r.LeaseDurationMS <= 0 || r.LeaseDurationMS > int64(MaxLeaseDuration/time.Millisecond):
		// Compared in milliseconds: in nanoseconds a long enough lease
		// overflows, to a negative Duration or around to a short one.
		return bad("leaseDurationMs", "lease duration %d ms outside (0, %v]", r.LeaseDurationMS, MaxLeaseDuration)
	case !utf8.ValidString(r.Holder):
		return bad("holder", "holder of %d bytes is not UTF-8", len(r.Holder))
	case !validNonce(r.Nonce):
		return bad("nonce", "nonce %q is not %d lowercase hex digits", r.Nonce, NonceLen)
	case len(r.Updates) > MaxUpdatesLen:
		return bad("updates", "updates of %d bytes, more than %d", len(r.Updates), MaxUpdatesLen)
	case !utf8.ValidString(r.Updates):
		return bad("updates", "updates of %d bytes are not UTF-8", len(r.Updates))
	}
	if p := r.Previous; p != nil {
		switch {
		case p.Holder == "":
			return bad("previous.holder", "previous term has an empty holder")
		case p.Token >= r.Token:
			return bad("previous.token", "previous token %d is not below token %d", p.Token, r.Token)
		case !utf8.ValidString(p.Nonce):
			return bad("previous.nonce", "previous nonce of %d bytes is not UTF-8", len(p.Nonce))
		case p.Ended != EndedReleased && p.Ended != EndedExpired:
			return bad("previous.ended", "previous term ended %q", p.Ended)
		case !utf8.ValidString(p.Holder):
			return bad("previous.holder", "previous holder of %d bytes is not UTF-8", len(p.Holder))
		case len(p.Updates) > MaxUpdatesLen:
			return bad("previous.updates", "previous updates of %d bytes, more than %d", len(p.Updates), MaxUpdatesLen)
		case !utf8.ValidString(p.Updates):
			return bad("previous.updates", "previous updates of %d bytes are not UTF-8", len(p.Updates))
		}
	}
	return nil
}

func validNonce(s string) bool {
	if len(s) != NonceLen {
		return false
	}
	for i := range len(s) {
		c := s[i]
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}
