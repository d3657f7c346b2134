package faults

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// TestEditRewritesARecordEveryWay: over edits 1..3,000 of one record,
// every kind of edit happens: bodies that are no JSON, JSON whose fields
// encoding/json reads otherwise, the same record written otherwise (a
// field twice with its own value, a string escaped throughout), names in
// other case, unknown fields, fields missing. An edit is a function of
// its number, edit 0 leaves the body as it is, and a body that is no JSON
// object is left as it is.
func TestEditRewritesARecordEveryWay(t *testing.T) {
	body := []byte(`{"holder":"n1","token":7,"leaseDurationMs":6000,"nonce":"0123456789abcdef","released":true}`)
	var orig map[string]any
	if err := json.Unmarshal(body, &orig); err != nil {
		t.Fatal(err)
	}
	seen := map[string]int{}
	for e := uint64(1); e <= 3000; e++ {
		got := Edit(body, e)
		if !bytes.Equal(got, Edit(body, e)) {
			t.Fatalf("edit %d is not a function of its number", e)
		}
		var m map[string]any
		switch {
		case json.Unmarshal(got, &m) != nil:
			seen["no JSON object"]++
		case strings.Contains(string(got), `\u`):
			if equalJSON(m, orig) {
				seen["escaped, the same record"]++
			}
		case strings.Contains(string(got), `"x-`):
			seen["unknown field"]++
		case len(m) < len(orig):
			seen["field missing or renamed"]++
		case equalJSON(m, orig) && bytes.Count(got, []byte(":")) > len(orig):
			seen["a field twice, the same record"]++
		case !equalJSON(m, orig):
			seen["another value"]++
		}
	}
	for _, kind := range []string{"no JSON object", "escaped, the same record", "unknown field", "field missing or renamed",
		"a field twice, the same record", "another value"} {
		if seen[kind] == 0 {
			t.Errorf("no edit of 1..3000 gave %s (%v)", kind, seen)
		}
	}
	if got := Edit(body, 0); !bytes.Equal(got, body) {
		t.Errorf("edit 0 changed the body to %s", got)
	}
	for _, other := range []string{"", "no json", "[1,2]", `"x"`, "{}", `{"a":1} {"b":2}`} {
		if got := Edit([]byte(other), 5); string(got) != other {
			t.Errorf("edit 5 of %q gave %q", other, got)
		}
	}
}

func equalJSON(a, b map[string]any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return bytes.Equal(x, y)
}
