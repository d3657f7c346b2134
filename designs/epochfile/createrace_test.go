package epochfile

import (
	"fmt"
	"testing"

	"github.com/s3lease/s3lease/designs/internal/designtest"
	"github.com/s3lease/s3lease/harness"
)

// TestCreateRace: on every seed, epoch 1 and the epoch after each of the
// three releases were each raced for by every node, and exactly one create
// of each was applied (200) while the others were refused (412); no key
// was ever created twice; the safe form survives.
func TestCreateRace(t *testing.T) {
	designtest.Sweep(t, CreateRace, seedsOr(300), func(o *harness.Outcome) error {
		if err := survives(o); err != nil {
			return err
		}
		type race struct{ won, refused int }
		races := map[string]*race{}
		for _, c := range designtest.Calls(o.Result.Trace) {
			if !isCreate(c) || c.Apply == nil {
				continue
			}
			r := races[c.Key]
			if r == nil {
				r = &race{}
				races[c.Key] = r
			}
			switch {
			case c.Applied(200):
				r.won++
			case c.Applied(412):
				r.refused++
			}
		}
		raced := 0
		for key, r := range races {
			if r.won > 1 {
				return fmt.Errorf("%s was created %d times", key, r.won)
			}
			if r.won == 1 && r.refused >= o.Result.History.Nodes-1 {
				raced++
			}
		}
		if want := createRaceRounds + 1; raced < want {
			return fmt.Errorf("%d epochs raced for by every node with one winner; want %d", raced, want)
		}
		return nil
	})
}
