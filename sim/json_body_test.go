package sim_test

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/s3lease/s3lease/sim"
)

// TestS3OpBodyReadsBackByteForByte: a request's body reads back from JSON
// byte for byte, whether it is valid UTF-8 (written as text, "body", as
// it always was) or not (Latin-1 updates, a stray byte: written as
// base64, "bodyBase64", which JSON text cannot spoil); a document written
// before bodyBase64 existed still reads.
func TestS3OpBodyReadsBackByteForByte(t *testing.T) {
	for _, body := range []string{
		`{"holder":"n1","token":7}`,
		`{"updates":"é € 💡 \u2028 <&>"}`,
		`{"previous":{"updates":"archives/` + strings.Repeat("\xe9\xe8\xe0\xfc", 4) + `"}}`,
		"\xff",
		"ok\x80",
	} {
		op := sim.S3Op{Node: 1, Incarnation: 1, Op: "PutObject", Key: "k", Call: 5, Return: 9, Status: 200, Body: body}
		b, err := json.Marshal(op)
		if err != nil {
			t.Fatal(err)
		}
		var back sim.S3Op
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatalf("%q: %v", body, err)
		}
		if back != op {
			t.Errorf("body %q reads back from %s as %q", body, b, back.Body)
		}
		if base64 := strings.Contains(string(b), `"bodyBase64"`); base64 == utf8.ValidString(body) {
			t.Errorf("body %q written as %s", body, b)
		}
	}
	old := `{"node":0,"identity":"n0","op":"PutObject","key":"k","call":"1ms","return":"2ms","status":200,"body":"{\"holder\":\"n0\"}"}`
	var op sim.S3Op
	if err := json.Unmarshal([]byte(old), &op); err != nil || op.Body != `{"holder":"n0"}` {
		t.Fatalf("an older document reads as %+v (%v)", op, err)
	}
	if b, _ := json.Marshal(op); string(b) != old {
		t.Errorf("a valid body is written as %s, not as before: %s", b, old)
	}
	both := `{"node":0,"op":"PutObject","key":"k","call":"1ms","body":"a","bodyBase64":"YQ=="}`
	if err := json.Unmarshal([]byte(both), &op); err == nil {
		t.Error("a request with both a body and a bodyBase64 reads")
	}
}

// TestS3OpIncarnationReadsBack: the incarnation that sent a request reads
// back from a history's JSON: written from the second on, the first
// implied for a node's request, none for a write from outside the nodes.
func TestS3OpIncarnationReadsBack(t *testing.T) {
	for _, op := range []sim.S3Op{
		{Node: 2, Incarnation: 1, Op: "GetObject", Key: "k", Call: 1, Return: 2, Status: 200},
		{Node: 2, Incarnation: 3, Op: "GetObject", Key: "k", Call: 1, Return: 2, Status: 200},
		{Node: -1, Op: "DeleteObject", Key: "k", Call: 1, Return: 1, Status: 204},
	} {
		b, err := json.Marshal(op)
		if err != nil {
			t.Fatal(err)
		}
		var back sim.S3Op
		if err := json.Unmarshal(b, &back); err != nil || back != op {
			t.Errorf("%+v reads back from %s as %+v (%v)", op, b, back, err)
		}
		if written := strings.Contains(string(b), `"incarnation"`); written != (op.Incarnation > 1) {
			t.Errorf("%s: incarnation written %v", b, written)
		}
	}
}
