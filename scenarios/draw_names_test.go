package scenarios

import (
	"testing"

	"pgregory.net/rapid"

	"github.com/s3lease/s3lease/harness"
	"github.com/s3lease/s3lease/protocol"
)

// TestGeneratorDrawsNamesAndSpellings: the generator behind Check and
// Fuzz gives the elector's nodes drawn names and the record before the run
// other spellings and edits, on some draws, and every plan it draws is
// valid, with every identity a restart gives a node within the elector's
// limit.
func TestGeneratorDrawsNamesAndSpellings(t *testing.T) {
	names, spelled, edited := 0, 0, 0
	rapid.Check(t, func(t *rapid.T) {
		r := drawElector(harness.RapidSource(t), 1)
		if err := r.Check(); err != nil {
			t.Fatal(err)
		}
		if r.Plan.Names != nil {
			names++
			// A restart under a new identity (a name and a suffix) must
			// leave an identity the elector accepts.
			for _, e := range r.Plan.Events {
				for _, n := range r.Plan.Names {
					if len(n)+len(e.Identity) > protocol.MaxIdentityLen {
						t.Fatalf("name of %d bytes with the restart suffix %q: over %d", len(n), e.Identity, protocol.MaxIdentityLen)
					}
				}
			}
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
