package harness

import (
	"slices"
	"testing"
)

// TestSuggestCloseNames: an unknown scenario name gets the close names as
// suggestions, and a name close to none gets none.
func TestSuggestCloseNames(t *testing.T) {
	names := []string{"pause-past-lease", "reference", "swarm", "zoo/no-nonce", "zoo/no-watchdog"}
	for name, want := range map[string][]string{
		"swam":       {`"swarm"`},
		"swram":      {`"swarm"`},
		"refrence":   {`"reference"`},
		"no-nonce":   {`"zoo/no-nonce"`},
		"pause-past": {`"pause-past-lease"`},
		"xyzzy":      nil,
	} {
		if got := Suggest(name, names); !slices.Equal(got, want) {
			t.Errorf("Suggest(%q) = %v, want %v", name, got, want)
		}
	}
}
