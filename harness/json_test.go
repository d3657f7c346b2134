package harness_test

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/s3lease/s3lease/harness"
	"github.com/s3lease/s3lease/harness/elector"
	"github.com/s3lease/s3lease/sim"
)

// TestRunJSONRoundTrip: a real run's history, trace, violations and
// excuses, written as JSON and read back, are what they were. Seeds are
// swept until one has violations, excuses and requests never answered, so
// every custom encoding is exercised.
func TestRunJSONRoundTrip(t *testing.T) {
	sc := harness.Swarm("json-roundtrip", elector.Protocol(elector.DefaultSettings))
	type doc struct {
		H *sim.History
		E []sim.Event
		X []harness.Excused
	}
	seen := map[string]bool{}
	for seed := uint64(1); seed <= 300 && len(seen) < 3; seed++ {
		o, err := harness.RunSeed(sc, seed, true)
		if err != nil {
			t.Fatal(err)
		}
		h := o.Result.History
		in := doc{h, o.Result.Trace.Events, o.Excused}
		data, err := json.Marshal(in)
		if err != nil {
			t.Fatal(err)
		}
		var out doc
		if err := json.Unmarshal(data, &out); err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		if !reflect.DeepEqual(in, out) {
			t.Fatalf("seed %d: the run changed on its way through JSON", seed)
		}
		if len(o.Excused) > 0 {
			seen["excused"] = true
		}
		if len(h.Faults) > 0 {
			seen["faults"] = true
		}
		for _, op := range h.S3 {
			if op.Return < 0 {
				seen["unanswered"] = true
			}
		}
	}
	if len(seen) < 3 {
		t.Fatalf("300 seeds exercised only %v of excused violations, faults and unanswered requests", seen)
	}
}
