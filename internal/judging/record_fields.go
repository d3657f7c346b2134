package judging

import (
	"encoding/json"
	"errors"

	"github.com/s3lease/s3lease/sim"
)

// RecordFields are the fields of a record that every record format the
// harness writes names (faults.EncodeRecord's generic form, the
// elector's): its holder, its token and whether it is released, as
// encoding/json reads a body into them. The judges read records so, never
// with a protocol's own codec, which they judge.
type RecordFields struct {
	Holder   string
	Token    uint64
	Released bool
	// Err is json.Unmarshal's error.
	Err error
}

// ReadRecordFields is body, a body of h's writes, read by json.Unmarshal
// into the fields "holder" (a string), "token" (a uint64) and "released"
// (a bool): once per distinct body while the harness judges h (Shared),
// for every judge that reads it.
func ReadRecordFields(h *sim.History, body string) RecordFields {
	if _, judged := judgements.Load(h); judged {
		if r, ok := Shared(h, recordFieldsKey{}, readAllRecordFields)[body]; ok {
			return r
		}
	}
	return readRecordFields(body)
}

// ReadRecordToken is what json.Unmarshal reads of body, a body of h's
// writes, into its one field "token" (a uint64), and its error: by
// ReadRecordFields where that reading stands for it (no error, or a
// syntax error, which fails before any field), else by a reading of its
// own (an error of another field).
func ReadRecordToken(h *sim.History, body string) (uint64, error) {
	r := ReadRecordFields(h, body)
	var syntax *json.SyntaxError
	if r.Err == nil || errors.As(r.Err, &syntax) {
		return r.Token, r.Err
	}
	var t struct {
		Token uint64 `json:"token"`
	}
	err := json.Unmarshal([]byte(body), &t)
	return t.Token, err
}

// recordFieldsKey is the key of readAllRecordFields among what a run's
// judges share.
type recordFieldsKey struct{}

// readAllRecordFields reads every distinct body of h's writes
// (readRecordFields), each from the body written before it where that
// reading stands for its own (sameFieldsAs).
func readAllRecordFields(h *sim.History) map[string]RecordFields {
	n := 0
	for i := range h.S3 {
		if h.S3[i].Body != "" {
			n++
		}
	}
	out := make(map[string]RecordFields, n)
	var last string // the last body read without error
	for i := range h.S3 {
		body := h.S3[i].Body
		if body == "" {
			continue
		}
		if _, ok := out[body]; ok {
			continue
		}
		if last != "" && sameFieldsAs(last, body) {
			out[body] = out[last]
		} else {
			out[body] = readRecordFields(body)
		}
		if out[body].Err == nil {
			last = body
		}
	}
	return out
}

// readRecordFields reads body (ReadRecordFields).
func readRecordFields(body string) RecordFields {
	var r struct {
		Holder   string `json:"holder"`
		Token    uint64 `json:"token"`
		Released bool   `json:"released"`
	}
	err := json.Unmarshal([]byte(body), &r)
	return RecordFields{Holder: r.Holder, Token: r.Token, Released: r.Released, Err: err}
}
