package faults_test

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"

	"pgregory.net/rapid"

	"github.com/s3lease/s3lease/faults"
)

// TestRespellKeepsTheDocument: any spelling of a JSON document is the same
// document to encoding/json, and the same bytes for the same spelling;
// spellings differ from the original; a body that is no JSON document is
// left as it is.
func TestRespellKeepsTheDocument(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		doc := map[string]any{
			"holder":  rapid.StringOf(rapid.Rune()).Draw(t, "holder"),
			"token":   rapid.Uint64().Draw(t, "token"),
			"nested":  map[string]any{"ended": rapid.SampledFrom([]string{"released", "expired", "a/b<c>&'d", "é💡"}).Draw(t, "ended")},
			"list":    []any{true, false, nil, 1.5},
			"updates": rapid.StringMatching(`[a-z/<>&'"\\é💡 ]{0,20}`).Draw(t, "updates"),
		}
		body, err := json.Marshal(doc)
		if err != nil {
			t.Fatal(err)
		}
		spelling := rapid.Uint64Min(1).Draw(t, "spelling")
		out := faults.Respell(body, spelling)
		if !bytes.Equal(out, faults.Respell(body, spelling)) {
			t.Fatalf("spelling %d gave two bodies", spelling)
		}
		var a, b any
		dec := json.NewDecoder(bytes.NewReader(body))
		dec.UseNumber()
		if err := dec.Decode(&a); err != nil {
			t.Fatal(err)
		}
		dec = json.NewDecoder(bytes.NewReader(out))
		dec.UseNumber()
		if err := dec.Decode(&b); err != nil {
			t.Fatalf("spelling %d of %s: %s does not decode: %v", spelling, body, out, err)
		}
		if !reflect.DeepEqual(a, b) {
			t.Fatalf("spelling %d of %s is another document: %s", spelling, body, out)
		}
	})
	if got := faults.Respell([]byte("not json"), 3); string(got) != "not json" {
		t.Errorf("a body that is no JSON became %q", got)
	}
	body := []byte(`{"a":"x/y","b":1,"c":"é"}`)
	differ := false
	for s := uint64(1); s < 20; s++ {
		differ = differ || !bytes.Equal(faults.Respell(body, s), body)
	}
	if !differ {
		t.Errorf("no spelling of %s differs from it", body)
	}
}
