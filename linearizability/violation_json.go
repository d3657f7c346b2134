package linearizability

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/s3lease/s3lease/sim"
)

// violationJSON is the JSON form of a Violation: camelCase names, the time
// as text ("12.5s"), the nodes as a list.
type violationJSON struct {
	Checker string        `json:"checker"`
	Rule    string        `json:"rule,omitempty"`
	At      string        `json:"at"`
	Nodes   []int         `json:"nodes"`
	Token   sim.JSONToken `json:"token,omitempty"`
	Message string        `json:"message"`
}

// MarshalJSON writes the violation as an object with camelCase names.
func (v Violation) MarshalJSON() ([]byte, error) {
	nodes := v.Nodes
	if nodes == nil {
		nodes = []int{}
	}
	return json.Marshal(violationJSON{v.Checker, v.Rule, v.At.String(), nodes, sim.JSONToken(v.Token), v.Message})
}

// UnmarshalJSON reads what MarshalJSON writes.
func (v *Violation) UnmarshalJSON(b []byte) error {
	var j violationJSON
	if err := sim.StrictUnmarshal(b, &j); err != nil {
		return err
	}
	at, err := time.ParseDuration(j.At)
	if err != nil {
		return fmt.Errorf("linearizability: violation at %q: %w", j.At, err)
	}
	*v = Violation{Checker: j.Checker, Rule: j.Rule, At: at, Nodes: j.Nodes, Token: uint64(j.Token), Message: j.Message}
	if len(v.Nodes) == 0 {
		v.Nodes = nil
	}
	return nil
}

// overlapJSON is the JSON form of an Overlap.
type overlapJSON struct {
	Nodes  []int           `json:"nodes"`
	Tokens []sim.JSONToken `json:"tokens"`
	From   string          `json:"from"`
	To     string          `json:"to"`
}

// MarshalJSON writes the overlap with its nodes and tokens as lists and its
// times as text.
func (o Overlap) MarshalJSON() ([]byte, error) {
	return json.Marshal(overlapJSON{o.Nodes[:], []sim.JSONToken{sim.JSONToken(o.Tokens[0]), sim.JSONToken(o.Tokens[1])}, o.From.String(), o.To.String()})
}

// UnmarshalJSON reads what MarshalJSON writes.
func (o *Overlap) UnmarshalJSON(b []byte) error {
	var j overlapJSON
	if err := sim.StrictUnmarshal(b, &j); err != nil {
		return err
	}
	if len(j.Nodes) != 2 || len(j.Tokens) != 2 {
		return fmt.Errorf("linearizability: an overlap has two nodes and two tokens, got %d and %d", len(j.Nodes), len(j.Tokens))
	}
	from, err1 := time.ParseDuration(j.From)
	to, err2 := time.ParseDuration(j.To)
	if err1 != nil || err2 != nil {
		return fmt.Errorf("linearizability: overlap from %q to %q: bad duration", j.From, j.To)
	}
	*o = Overlap{Nodes: [2]int{j.Nodes[0], j.Nodes[1]}, Tokens: [2]uint64{uint64(j.Tokens[0]), uint64(j.Tokens[1])}, From: from, To: to}
	return nil
}
