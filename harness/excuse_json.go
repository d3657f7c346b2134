package harness

import (
	"encoding/json"
	"time"

	"github.com/s3lease/s3lease/faults"
	"github.com/s3lease/s3lease/linearizability"
	"github.com/s3lease/s3lease/sim"
)

// excuseJSON is the JSON form of an Excuse: camelCase names, times as text.
type excuseJSON struct {
	Fault  sim.FaultSpan   `json:"fault"`
	Node   int             `json:"node"`
	From   faults.Duration `json:"from"`
	To     faults.Duration `json:"to"`
	Tokens bool            `json:"tokens,omitempty"`
	Clock  bool            `json:"clock,omitempty"`
	Why    string          `json:"why"`
	Kind   string          `json:"kind,omitempty"`
}

// MarshalJSON writes the excuse with camelCase names and times as text.
func (e Excuse) MarshalJSON() ([]byte, error) {
	return json.Marshal(excuseJSON{e.Fault, e.Node, faults.Duration(e.From), faults.Duration(e.To), e.Tokens, e.Clock, e.Why, e.Kind})
}

// UnmarshalJSON reads what MarshalJSON writes.
func (e *Excuse) UnmarshalJSON(b []byte) error {
	var j excuseJSON
	if err := sim.StrictUnmarshal(b, &j); err != nil {
		return err
	}
	*e = Excuse{Fault: j.Fault, Node: j.Node, From: time.Duration(j.From), To: time.Duration(j.To), Tokens: j.Tokens, Clock: j.Clock, Why: j.Why, Kind: j.Kind}
	return nil
}

// excusedJSON is the JSON form of an Excused: the violation as an object of
// its own beside its excuses (the embedded Violation's own encoding would
// otherwise stand for the whole).
type excusedJSON struct {
	Violation linearizability.Violation `json:"violation"`
	Excuses   []Excuse                  `json:"excuses"`
}

// MarshalJSON writes the violation and its excuses.
func (x Excused) MarshalJSON() ([]byte, error) {
	return json.Marshal(excusedJSON{x.Violation, x.Excuses})
}

// UnmarshalJSON reads what MarshalJSON writes.
func (x *Excused) UnmarshalJSON(b []byte) error {
	var j excusedJSON
	if err := sim.StrictUnmarshal(b, &j); err != nil {
		return err
	}
	*x = Excused{Violation: j.Violation, Excuses: j.Excuses}
	return nil
}
