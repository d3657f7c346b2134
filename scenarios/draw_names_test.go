package scenarios

import (
	"testing"

	"pgregory.net/rapid"

	"github.com/s3lease/s3lease/harness"
)

// TestGeneratorDrawsNamesAndSpellings: the generator behind Check and
// Fuzz gives the elector's nodes drawn names and the record before the run
// other spellings and edits, on some draws, and every plan it draws is
// valid.
func TestGeneratorDrawsNamesAndSpellings(t *testing.T) {
	names, spelled, edited := 0, 0, 0
	rapid.Check(t, func(t *rapid.T) {
		r := drawElector(harness.RapidSource(t), 1)
		if err := r.Check(); err != nil {
			t.Fatal(err)
		}
		if r.Plan.Names != nil {
			names++
		}
		if in := r.Plan.Initial; in != nil && in.Spelling != 0 {
			spelled++
		}
		if in := r.Plan.Initial; in != nil && in.Edit != 0 {
			edited++
		}
	})
	if names == 0 || spelled == 0 || edited == 0 {
		t.Errorf("over rapid's draws: %d with names, %d with a spelled record, %d with an edited one; want some of each", names, spelled, edited)
	}
}
