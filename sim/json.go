package sim

import (
	"bytes"
	"encoding/json"
	"fmt"
	"time"
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

// MarshalJSON writes the event with its times as text.
func (e Event) MarshalJSON() ([]byte, error) {
	type plain Event
	return json.Marshal(struct {
		plain
		At    textDuration `json:"at"`
		Local textDuration `json:"local"`
		For   string       `json:"for,omitempty"`
	}{plain(e), textDuration(e.At), textDuration(e.Local), optDuration(e.For)})
}

// UnmarshalJSON reads what MarshalJSON writes.
func (e *Event) UnmarshalJSON(b []byte) error {
	type plain Event
	s := struct {
		*plain
		At    textDuration  `json:"at"`
		Local textDuration  `json:"local"`
		For   *textDuration `json:"for,omitempty"`
	}{plain: (*plain)(e)}
	if err := StrictUnmarshal(b, &s); err != nil {
		return err
	}
	e.At, e.Local = time.Duration(s.At), time.Duration(s.Local)
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
	Token       uint64       `json:"token"`
	Start       textDuration `json:"start"`
	End         textDuration `json:"end"`
	Open        bool         `json:"open,omitempty"`
}

// MarshalJSON writes the term with camelCase names and times as text.
func (t Term) MarshalJSON() ([]byte, error) {
	return json.Marshal(termJSON{t.Node, t.Identity, t.Incarnation, t.Token,
		textDuration(t.Start), textDuration(t.End), t.Open})
}

// UnmarshalJSON reads what MarshalJSON writes.
func (t *Term) UnmarshalJSON(b []byte) error {
	var j termJSON
	if err := StrictUnmarshal(b, &j); err != nil {
		return err
	}
	*t = Term{Node: j.Node, Identity: j.Identity, Incarnation: j.Incarnation, Token: j.Token,
		Start: time.Duration(j.Start), End: time.Duration(j.End), Open: j.Open}
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
