package sim

import (
	"encoding/json"
	"time"
)

// Answer is one answer a node's protocol gave its application or an
// operator who asked (a Caller: IsLeader, Lease, Leader, Healthy), or one
// call of its OnNewLeader callback (AskNewLeader). The checkers of what a
// protocol tells its application judge each against the rest of the
// history, at its instant and on the node's clock.
type Answer struct {
	Node, Incarnation int
	Ask               Ask
	// At is the true time of the answer; Local the node's monotonic
	// reading then, on which a protocol measures its terms.
	At, Local time.Duration
	// Aimed: the question was asked at an aimed instant (Caller.Aim).
	Aimed bool
	// Yes is the answer of IsLeader and Lease (the node leads), of Leader
	// (LeaderView.Self) and of Healthy (no error).
	Yes bool
	// Token is Lease's token (when Yes), or the token of the record Leader
	// names.
	Token uint64
	// Holder is the identity Leader names ("": no live holder), or the one
	// OnNewLeader was called with.
	Holder string
	// Observed and Age are Leader's: whether the node observed the lock
	// yet, and how long before the answer, on its monotonic clock.
	Observed bool
	Age      time.Duration
	// Tolerance is Healthy's argument; Problem its error, "" if healthy.
	Tolerance time.Duration
	Problem   string
}

// answerJSON is the JSON form of an Answer.
type answerJSON struct {
	Node        int          `json:"node"`
	Incarnation int          `json:"incarnation"`
	Ask         Ask          `json:"ask"`
	At          textDuration `json:"at"`
	Local       textDuration `json:"local"`
	Aimed       bool         `json:"aimed,omitempty"`
	Yes         bool         `json:"yes,omitempty"`
	Token       JSONToken    `json:"token,omitempty"`
	Holder      string       `json:"holder,omitempty"`
	Observed    bool         `json:"observed,omitempty"`
	Age         textDuration `json:"age,omitempty"`
	Tolerance   textDuration `json:"tolerance,omitempty"`
	Problem     string       `json:"problem,omitempty"`
}

// MarshalJSON writes the answer with camelCase names and times as text.
func (a Answer) MarshalJSON() ([]byte, error) {
	return json.Marshal(answerJSON{a.Node, a.Incarnation, a.Ask, textDuration(a.At), textDuration(a.Local), a.Aimed, a.Yes,
		JSONToken(a.Token), a.Holder, a.Observed, textDuration(a.Age), textDuration(a.Tolerance), a.Problem})
}

// UnmarshalJSON reads what MarshalJSON writes.
func (a *Answer) UnmarshalJSON(b []byte) error {
	var j answerJSON
	if err := StrictUnmarshal(b, &j); err != nil {
		return err
	}
	*a = Answer{Node: j.Node, Incarnation: j.Incarnation, Ask: j.Ask, At: time.Duration(j.At), Local: time.Duration(j.Local),
		Aimed: j.Aimed, Yes: j.Yes, Token: uint64(j.Token), Holder: j.Holder, Observed: j.Observed, Age: time.Duration(j.Age),
		Tolerance: time.Duration(j.Tolerance), Problem: j.Problem}
	return nil
}
