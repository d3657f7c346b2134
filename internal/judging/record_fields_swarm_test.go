package judging_test

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/s3lease/s3lease/harness"
	"github.com/s3lease/s3lease/internal/judging"
	"github.com/s3lease/s3lease/scenarios"
)

// TestReadRecordFieldsOnSwarmRuns: over the bodies of swarm runs, where
// most are read from the body before them, ReadRecordFields reads what
// json.Unmarshal reads, values and errors.
func TestReadRecordFieldsOnSwarmRuns(t *testing.T) {
	bodies := 0
	for seed := uint64(1); seed <= 200; seed++ {
		o, err := harness.RunSeed(scenarios.Swarm, seed, false)
		if err != nil {
			t.Fatal(err)
		}
		h := o.Result.History
		done := judging.Judging(h)
		for _, op := range h.S3 {
			if op.Body == "" {
				continue
			}
			var want struct {
				Holder   string `json:"holder"`
				Token    uint64 `json:"token"`
				Released bool   `json:"released"`
			}
			err := json.Unmarshal([]byte(op.Body), &want)
			got := judging.ReadRecordFields(h, op.Body)
			if g, w := fmt.Sprint(got.Holder, got.Token, got.Released, got.Err), fmt.Sprint(want.Holder, want.Token, want.Released, err); g != w {
				t.Fatalf("seed %d, body %s: ReadRecordFields reads %s, json.Unmarshal %s", seed, op.Body, g, w)
			}
			bodies++
		}
		done()
	}
	if bodies < 1000 {
		t.Errorf("only %d bodies in 200 runs", bodies)
	}
}
