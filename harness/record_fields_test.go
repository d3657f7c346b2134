package harness

import (
	"encoding/json"
	"testing"

	"github.com/s3lease/s3lease/sim"
)

// TestRecordFieldsForFewerFields: where ReadRecordFields says it stands
// for a struct of fewer fields (the token alone), json.Unmarshal into that
// struct reads the same values and fails alike; a body with an error in a
// field that struct does not have is left to the judge. Within a
// judgement, ReadRecordFields reads a body of the history once.
func TestRecordFieldsForFewerFields(t *testing.T) {
	for _, c := range []struct {
		body   string
		stands bool // ReadRecordFields stands for the struct of fewer fields
	}{
		{`{"holder":"n1","token":7,"released":true,"acquireTime":"2026-01-01T00:00:00Z"}`, true},
		{`{"HOLDER":"n1","token":7,"token":8,"extra":[1,2]}`, true},
		{`null`, true},
		{`{"holder":"n1","token":7`, true},                    // a syntax error fails before any field
		{`{"holder":5,"token":7}`, false},                     // an error of a field the struct does not have
		{`{"holder":"n1","token":7,"released":"yes"}`, false}, // another
		{`{"holder":"n1","token":-1}`, false},
		{`"n1"`, false},
	} {
		h := &sim.History{S3: []sim.S3Op{{Op: "PutObject", Body: c.body}}}
		done := judging(h)
		r := ReadRecordFields(h, c.body)
		if again := ReadRecordFields(h, c.body); again.Err != r.Err || again.Token != r.Token {
			t.Errorf("%s: read twice otherwise", c.body)
		}
		done()
		var fewer struct {
			Token uint64 `json:"token"`
		}
		err := json.Unmarshal([]byte(c.body), &fewer)
		if r.ForFewerFields() != c.stands {
			t.Errorf("%s: stands for fewer fields %v, want %v (%v)", c.body, r.ForFewerFields(), c.stands, r.Err)
		}
		if !c.stands {
			continue
		}
		if (err == nil) != (r.Err == nil) || fewer.Token != r.Token {
			t.Errorf("%s: ReadRecordFields reads token %d (%v), the struct of fewer fields %d (%v)", c.body, r.Token, r.Err, fewer.Token, err)
		}
	}
}
