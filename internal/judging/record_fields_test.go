package judging

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/s3lease/s3lease/sim"
)

// TestReadRecordFieldsAndToken: ReadRecordFields and ReadRecordToken read
// what json.Unmarshal reads into their fields, values and errors, within a
// judgement of the history (the run's one reading of each body) and
// outside it; the token too where the run's reading fails on a field the
// token alone does not have.
func TestReadRecordFieldsAndToken(t *testing.T) {
	bodies := []string{
		`{"holder":"n1","token":7,"released":true,"acquireTime":"2026-01-01T00:00:00Z"}`,
		`{"HOLDER":"n1","token":7,"token":8,"extra":[1,2]}`,
		`{"holder":"n1","holder":null}`,
		`null`,
		`{"holder":"n1","token":7`,                   // a syntax error fails before any field
		`{"holder":5,"token":7}`,                     // an error of a field the token alone does not have
		`{"holder":"n1","token":7,"released":"yes"}`, // another
		`{"holder":"n1","token":-1}`,
		`"n1"`,
	}
	h := &sim.History{}
	for _, b := range bodies {
		h.S3 = append(h.S3, sim.S3Op{Op: "PutObject", Body: b})
	}
	check := func(when string) {
		for _, b := range bodies {
			var fields struct {
				Holder   string `json:"holder"`
				Token    uint64 `json:"token"`
				Released bool   `json:"released"`
			}
			err := json.Unmarshal([]byte(b), &fields)
			r := ReadRecordFields(h, b)
			if got, want := fmt.Sprint(r.Holder, r.Token, r.Released, r.Err), fmt.Sprint(fields.Holder, fields.Token, fields.Released, err); got != want {
				t.Errorf("%s, %s: ReadRecordFields reads %s, json.Unmarshal %s", when, b, got, want)
			}
			var token struct {
				Token uint64 `json:"token"`
			}
			err = json.Unmarshal([]byte(b), &token)
			tok, tokErr := ReadRecordToken(h, b)
			if got, want := fmt.Sprint(tok, tokErr), fmt.Sprint(token.Token, err); got != want {
				t.Errorf("%s, %s: ReadRecordToken reads %s, json.Unmarshal %s", when, b, got, want)
			}
		}
	}
	done := Judging(h)
	check("judged")
	done()
	check("not judged")
}
