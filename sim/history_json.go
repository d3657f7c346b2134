package sim

import (
	"bytes"
	"encoding/json"
	"fmt"
	"time"
	"unicode/utf8"
)

// The JSON forms of the history: camelCase names and durations as text
// ("1.5s"), as every document the harness writes. The Go fields stay
// time.Duration; only their encoding is text.

// textDuration is a time.Duration that reads and writes as text.
type textDuration time.Duration

// MarshalText formats the duration as time.Duration does.
func (d textDuration) MarshalText() ([]byte, error) { return []byte(time.Duration(d).String()), nil }

// UnmarshalText reads a duration as time.ParseDuration accepts it.
func (d *textDuration) UnmarshalText(b []byte) error {
	v, err := time.ParseDuration(string(b))
	if err != nil {
		return fmt.Errorf("sim: bad duration %q: %w", b, err)
	}
	*d = textDuration(v)
	return nil
}

// StrictUnmarshal decodes data into v, refusing fields v does not have.
// The harness's documents are versioned; a field no type knows is a
// document of another version or a mistake, never something to ignore.
func StrictUnmarshal(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	return dec.Decode(v)
}

// MarshalJSON writes the event with its times as text and its token as a
// string (JSONToken).
func (e Event) MarshalJSON() ([]byte, error) {
	type plain Event
	return json.Marshal(struct {
		plain
		At    textDuration `json:"at"`
		Local textDuration `json:"local"`
		For   string       `json:"for,omitempty"`
		Token JSONToken    `json:"token,omitempty"`
	}{plain(e), textDuration(e.At), textDuration(e.Local), optDuration(e.For), JSONToken(e.Token)})
}

// UnmarshalJSON reads what MarshalJSON writes.
func (e *Event) UnmarshalJSON(b []byte) error {
	type plain Event
	s := struct {
		*plain
		At    textDuration  `json:"at"`
		Local textDuration  `json:"local"`
		For   *textDuration `json:"for,omitempty"`
		Token JSONToken     `json:"token,omitempty"`
	}{plain: (*plain)(e)}
	if err := StrictUnmarshal(b, &s); err != nil {
		return err
	}
	e.At, e.Local, e.Token = time.Duration(s.At), time.Duration(s.Local), uint64(s.Token)
	e.For = 0
	if s.For != nil {
		e.For = time.Duration(*s.For)
	}
	return nil
}

// optDuration is d as text, or empty for zero (omitted).
func optDuration(d time.Duration) string {
	if d == 0 {
		return ""
	}
	return d.String()
}

// termJSON is the JSON form of a Term.
type termJSON struct {
	Node        int          `json:"node"`
	Identity    string       `json:"identity,omitempty"`
	Incarnation int          `json:"incarnation"`
	Token       JSONToken    `json:"token"`
	Start       textDuration `json:"start"`
	End         textDuration `json:"end"`
	Open        bool         `json:"open,omitempty"`
	// Returned is written only where it is not End.
	Returned *textDuration `json:"returned,omitempty"`
}

// MarshalJSON writes the term with camelCase names and times as text.
func (t Term) MarshalJSON() ([]byte, error) {
	j := termJSON{t.Node, t.Identity, t.Incarnation, JSONToken(t.Token),
		textDuration(t.Start), textDuration(t.End), t.Open, nil}
	if t.Returned != t.End && !t.Open {
		r := textDuration(t.Returned)
		j.Returned = &r
	}
	return json.Marshal(j)
}

// UnmarshalJSON reads what MarshalJSON writes.
func (t *Term) UnmarshalJSON(b []byte) error {
	var j termJSON
	if err := StrictUnmarshal(b, &j); err != nil {
		return err
	}
	*t = Term{Node: j.Node, Identity: j.Identity, Incarnation: j.Incarnation, Token: uint64(j.Token),
		Start: time.Duration(j.Start), End: time.Duration(j.End), Open: j.Open}
	switch {
	case j.Returned != nil:
		t.Returned = time.Duration(*j.Returned)
	case !j.Open:
		t.Returned = t.End
	}
	return nil
}

// faultSpanJSON is the JSON form of a FaultSpan.
type faultSpanJSON struct {
	Kind string       `json:"kind"`
	Node int          `json:"node"`
	From textDuration `json:"from"`
	To   textDuration `json:"to"`
	By   int64        `json:"by,omitempty"`
}

// MarshalJSON writes the fault with camelCase names and times as text.
func (f FaultSpan) MarshalJSON() ([]byte, error) {
	return json.Marshal(faultSpanJSON{f.Kind, f.Node, textDuration(f.From), textDuration(f.To), f.By})
}

// UnmarshalJSON reads what MarshalJSON writes.
func (f *FaultSpan) UnmarshalJSON(b []byte) error {
	var j faultSpanJSON
	if err := StrictUnmarshal(b, &j); err != nil {
		return err
	}
	*f = FaultSpan{Kind: j.Kind, Node: j.Node, From: time.Duration(j.From), To: time.Duration(j.To), By: j.By}
	return nil
}

// historyJSON is the JSON form of a History.
type historyJSON struct {
	Nodes   int           `json:"nodes"`
	End     textDuration  `json:"end"`
	Terms   []Term        `json:"terms"`
	Writes  []FencedWrite `json:"writes"`
	S3      []S3Op        `json:"s3"`
	Faults  []FaultSpan   `json:"faults,omitempty"`
	Answers []Answer      `json:"answers,omitempty"`
}

// MarshalJSON writes the history with camelCase names and times as text.
func (h History) MarshalJSON() ([]byte, error) {
	return json.Marshal(historyJSON{h.Nodes, textDuration(h.End), h.Terms, h.Writes, h.S3, h.Faults, h.Answers})
}

// UnmarshalJSON reads what MarshalJSON writes.
func (h *History) UnmarshalJSON(b []byte) error {
	var j historyJSON
	if err := StrictUnmarshal(b, &j); err != nil {
		return err
	}
	*h = History{Nodes: j.Nodes, End: time.Duration(j.End), Terms: j.Terms, Writes: j.Writes, S3: j.S3, Faults: j.Faults, Answers: j.Answers}
	return nil
}

// s3OpJSON is the JSON form of an S3Op; a request never answered has no
// "return", and one of a node's first incarnation no "incarnation". A body that is valid UTF-8 is written as text ("body"); one
// that is not, which JSON text cannot hold (encoding/json would write
// each stray byte as U+FFFD), as base64 ("bodyBase64"), so that every body
// reads back byte for byte, and every valid one is written as before.
type s3OpJSON struct {
	Node         int           `json:"node"`
	Identity     string        `json:"identity,omitempty"`
	Incarnation  int           `json:"incarnation,omitempty"` // written from the second on
	Op           string        `json:"op"`
	Key          string        `json:"key"`
	IfMatch      string        `json:"ifMatch,omitempty"`
	IfNoneMatch  string        `json:"ifNoneMatch,omitempty"`
	BodyETag     string        `json:"bodyETag,omitempty"`
	Call         textDuration  `json:"call"`
	Return       *textDuration `json:"return,omitempty"`
	Applied      *textDuration `json:"applied,omitempty"`
	Status       int           `json:"status,omitempty"`
	Code         string        `json:"code,omitempty"`
	ETag         string        `json:"etag,omitempty"`
	Body         string        `json:"body,omitempty"`
	BodyBase64   []byte        `json:"bodyBase64,omitempty"`
	TornBodyETag string        `json:"tornBodyETag,omitempty"`
}

// MarshalJSON writes the request with camelCase names and times as text.
func (o S3Op) MarshalJSON() ([]byte, error) {
	j := s3OpJSON{o.Node, o.Identity, 0, o.Op, o.Key, o.IfMatch, o.IfNoneMatch, o.BodyETag, textDuration(o.Call), nil, nil, o.Status, o.Code, o.ETag, o.Body, nil, o.TornBodyETag}
	if o.Incarnation > 1 {
		j.Incarnation = o.Incarnation
	}
	if !utf8.ValidString(o.Body) {
		j.Body, j.BodyBase64 = "", []byte(o.Body)
	}
	if o.Return >= 0 {
		r := textDuration(o.Return)
		j.Return = &r
	}
	if o.Applied >= 0 {
		a := textDuration(o.Applied)
		j.Applied = &a
	}
	return json.Marshal(j)
}

// UnmarshalJSON reads what MarshalJSON writes.
func (o *S3Op) UnmarshalJSON(b []byte) error {
	var j s3OpJSON
	if err := StrictUnmarshal(b, &j); err != nil {
		return err
	}
	*o = S3Op{Node: j.Node, Identity: j.Identity, Incarnation: j.Incarnation, Op: j.Op, Key: j.Key, IfMatch: j.IfMatch, IfNoneMatch: j.IfNoneMatch, BodyETag: j.BodyETag,
		Call: time.Duration(j.Call), Return: -1, Applied: -1, Status: j.Status, Code: j.Code, ETag: j.ETag, Body: j.Body, TornBodyETag: j.TornBodyETag}
	if o.Incarnation == 0 && o.Node >= 0 {
		o.Incarnation = 1 // the first is not written
	}
	if j.BodyBase64 != nil {
		if j.Body != "" {
			return fmt.Errorf("sim: a request with both a body and a bodyBase64")
		}
		o.Body = string(j.BodyBase64)
	}
	if j.Return != nil {
		o.Return = time.Duration(*j.Return)
	}
	if j.Applied != nil {
		o.Applied = time.Duration(*j.Applied)
	}
	return nil
}

// fencedWriteJSON is the JSON form of a FencedWrite.
type fencedWriteJSON struct {
	Node     int          `json:"node"`
	Token    JSONToken    `json:"token"`
	Sent     textDuration `json:"sent"`
	Applied  textDuration `json:"applied"`
	Accepted bool         `json:"accepted"`
	// CheckedAt is set for a write the application made after asking the
	// protocol's lease check.
	CheckedAt *textDuration `json:"checkedAt,omitempty"`
}

// MarshalJSON writes the write with camelCase names and times as text.
func (f FencedWrite) MarshalJSON() ([]byte, error) {
	j := fencedWriteJSON{f.Node, JSONToken(f.Token), textDuration(f.Sent), textDuration(f.Applied), f.Accepted, nil}
	if f.Checked {
		c := textDuration(f.CheckedAt)
		j.CheckedAt = &c
	}
	return json.Marshal(j)
}

// UnmarshalJSON reads what MarshalJSON writes.
func (f *FencedWrite) UnmarshalJSON(b []byte) error {
	var j fencedWriteJSON
	if err := StrictUnmarshal(b, &j); err != nil {
		return err
	}
	*f = FencedWrite{Node: j.Node, Token: uint64(j.Token), Sent: time.Duration(j.Sent), Applied: time.Duration(j.Applied), Accepted: j.Accepted}
	if j.CheckedAt != nil {
		f.Checked, f.CheckedAt = true, time.Duration(*j.CheckedAt)
	}
	return nil
}
