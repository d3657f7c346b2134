package faults

import (
	"bytes"
	"errors"
	"fmt"
	"hash/fnv"
	"time"
	"unicode/utf8"
)

// The bounds of the production elector's record format, as its
// documentation states them (protocol.MaxIdentityLen, MaxUpdatesLen,
// MaxLeaseDuration, and the 64 KiB that protocol.DecodeRecord reads; a
// test of package harness holds them equal). A record beyond them is one
// no elector writes.
const (
	// MaxLease is the longest lease a record states (and an elector
	// takes); a record stating more is malformed.
	MaxLease = 24 * time.Hour
	// MaxIdentityLen is the longest identity an elector takes, and so the
	// longest holder of a record it writes; a takeover's link names at
	// most that much of a longer holder.
	MaxIdentityLen = 1024
	// MaxUpdatesLen is the longest updates text a record or its link
	// carries.
	MaxUpdatesLen = 1024
	// MaxBodyLen is the longest body read as a record.
	MaxBodyLen = 64 << 10
)

// The endings of a previous term that electors write (protocol.Ending).
const (
	EndedReleased = "released"
	EndedExpired  = "expired"
)

// Previous is a record's link to the term before it (protocol.PreviousTerm):
// that term's holder and token, how it ended, and what its last record
// published. Its nonce, the nonce of that last record, is derived from its
// fields (Nonce). Electors write a holder, a token below the record's, an
// ending "released" or "expired", and updates of at most MaxUpdatesLen
// bytes; anything else is a foreign write, which a reader must refuse.
type Previous struct {
	Holder    string    `json:"holder"`
	Token     uint64    `json:"token"`
	Ended     string    `json:"ended"`
	Watermark time.Time `json:"watermark,omitzero"`
	Updates   string    `json:"updates,omitempty"`
}

// Nonce is 16 lowercase hex digits derived from the link's fields: the
// nonce of the last record of the term it names.
func (p Previous) Nonce() string {
	h := fnv.New64a()
	fmt.Fprintf(h, "previous\x00%s\x00%d\x00%s\x00%d\x00%s", p.Holder, p.Token, p.Ended, p.Watermark.UnixNano(), p.Updates)
	return fmt.Sprintf("%016x", h.Sum64())
}

// validLink reports whether r's link (not nil) is one an elector writes:
// a holder of at most MaxIdentityLen bytes (a longer one is cut), a token
// below r's, an ending "released" or "expired", updates within the bound,
// and a watermark no higher than r's (a term starts from the watermark it
// was handed, and never lowers it).
func (r Record) validLink() bool {
	p := r.Previous
	return p.Holder != "" && len(p.Holder) <= MaxIdentityLen && p.Token < r.Token &&
		(p.Ended == EndedReleased || p.Ended == EndedExpired) && len(p.Updates) <= MaxUpdatesLen &&
		!r.Watermark.Before(p.Watermark)
}

// maxSize bounds Object.Size: a body a few times longer than any protocol
// reads is as good as one of a gigabyte, and costs the simulator less.
const maxSize = 4 * MaxBodyLen

// validate reports what in o cannot be written as the plan says: a
// record that validate refuses, or a size out of range.
func (o *Object) validate() error {
	if o.Size < 0 || o.Size > maxSize {
		return fmt.Errorf("size %d outside [0, %d]", o.Size, maxSize)
	}
	if o.Record != nil {
		return o.Record.validate()
	}
	return nil
}

// validate reports what in r a plan cannot hold exactly: a string that is
// not UTF-8 (a plan's JSON would hold another), a watermark that JSON
// cannot write (a year beyond 9999).
func (r *Record) validate() error {
	strs := []string{r.Holder, r.Updates}
	times := []time.Time{r.Watermark}
	if p := r.Previous; p != nil {
		strs = append(strs, p.Holder, p.Ended, p.Updates)
		times = append(times, p.Watermark)
	}
	for _, s := range strs {
		if !utf8.ValidString(s) {
			return fmt.Errorf("record string %.40q is not UTF-8", s)
		}
	}
	for _, t := range times {
		if _, err := t.MarshalJSON(); err != nil {
			return fmt.Errorf("record watermark: %w", err)
		}
	}
	return nil
}

// padKey is the name of the field that pads a record: no record has it,
// even read without regard to letter case (as encoding/json matches
// names).
const padKey = "x-padding"

// errNoPad is Pad's refusal of a body it cannot pad.
var errNoPad = errors.New("no JSON object to pad, or already that long")

// Pad brings the JSON object body to size bytes with an unknown field
// ("x-padding", a string of x's) before its closing brace: the same record
// to any reader that ignores unknown fields, only longer. A body that
// does not end in an object's closing brace, or that is too long for the
// field to fit, is returned as it is, with an error.
func Pad(body []byte, size int) ([]byte, error) {
	end := bytes.LastIndexByte(body, '}')
	if end < 0 || len(bytes.TrimSpace(body[end+1:])) > 0 {
		return body, errNoPad
	}
	head := bytes.TrimRight(body[:end], " \t\r\n")
	field := `,"` + padKey + `":"`
	if len(head) > 0 && head[len(head)-1] == '{' {
		field = field[1:]
	}
	n := size - len(body) - len(field) - 1 // and the string's closing quote
	if n < 0 {
		return body, errNoPad
	}
	out := make([]byte, 0, size)
	out = append(out, body[:end]...)
	out = append(out, field...)
	out = append(out, bytes.Repeat([]byte{'x'}, n)...)
	out = append(out, '"')
	return append(out, body[end:]...), nil
}
