package sim

import (
	"encoding/json"
	"testing"
)

// TestFaultKindNames: every kind has a name of its own, which JSON carries
// and reads back; an event without a fault writes none, and a trace line
// written before the kind was typed still loads.
func TestFaultKindNames(t *testing.T) {
	seen := map[string]FaultKind{}
	for _, k := range FaultKinds() {
		name := k.String()
		if prev, dup := seen[name]; dup || name == "" {
			t.Fatalf("kind %d is named %q, like %d", k, name, prev)
		}
		seen[name] = k
		b, err := json.Marshal(Event{Kind: EvFault, Fault: k})
		var back Event
		if err != nil || json.Unmarshal(b, &back) != nil || back.Fault != k {
			t.Fatalf("%s: %s reads back as %v (%v)", k, b, back.Fault, err)
		}
	}
	if b, _ := json.Marshal(Event{Kind: EvS3Send}); string(b) != `{"node":0,"kind":"s3.send","at":"0s","local":"0s"}` {
		t.Fatalf("an event without a fault: %s", b)
	}
	var old Event
	if err := json.Unmarshal([]byte(`{"node":1,"kind":"fault","fault":"clock-stall","detail":"VM suspended for 3s: monotonic clock stops","at":"5s","local":"5s","for":"3s"}`), &old); err != nil || old.Fault != FaultClockStall {
		t.Fatalf("an old trace line: %+v, %v", old, err)
	}
	if err := json.Unmarshal([]byte(`{"kind":"fault","fault":"meteor"}`), &old); err == nil {
		t.Fatalf("an unknown fault kind loaded as %v", old.Fault)
	}
	for f := Delivered + 1; f < numFates; f++ {
		if f.String() != fateKinds[f].String() {
			t.Errorf("fate %s records the fault %s", f, fateKinds[f])
		}
	}
}
