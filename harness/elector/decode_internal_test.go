package elector

import (
	"strings"
	"testing"
)

// TestDecodedOtherwise: the decode rule holds protocol.DecodeRecord to the
// reference reading of each body, and speaks up at every way of reading it
// otherwise: a valid record refused, a body that is none taken, another
// rule named, other values read. Each case pairs a body with a reading
// that differs from DecodeRecord's in one way, as a broken DecodeRecord
// would differ from the reference; with the reference's own reading of
// the body, nothing is reported.
func TestDecodedOtherwise(t *testing.T) {
	const nonce = `"nonce":"0123456789abcdef"`
	valid := `{"holder":"a","token":3,"leaseDurationMs":1000,` + nonce + `}`
	ended := `{"holder":"a","token":3,"leaseDurationMs":1000,` + nonce + `,"previous":{"holder":"b","token":2,"ended":"vanished"}}`
	other := *readRecord(valid)
	other.rec.Token = 4
	for _, c := range []struct {
		name, body string
		reading    *auditedBody
		want       string // in the report; "" for none
	}{
		{"a valid record", valid, readRecord(valid), ""},
		{"a body that is no record", `lock held by a`, readRecord(`lock held by a`), ""},
		{"a rule broken", ended, readRecord(ended), ""},
		{"a valid record refused", ended, &auditedBody{rec: readRecord(ended).rec}, "a valid record"},
		{"a body that is none taken", valid, &auditedBody{bad: "empty holder", field: "holder"}, "though it is none"},
		{"another rule named", ended, &auditedBody{bad: "previous updates", field: "previous.updates"}, "first rule it breaks is its previous.updates"},
		{"other values", valid, &other, "where the record is"},
	} {
		got := decodedOtherwise([]byte(c.body), c.reading)
		if (got == "") != (c.want == "") || !strings.Contains(got, c.want) {
			t.Errorf("%s: reported %q, want %q", c.name, got, c.want)
		}
	}
	if r := readRecord(ended); r.field != "previous.ended" {
		t.Errorf("the reference names the field %q of a previous term with an unknown ending", r.field)
	}
}
