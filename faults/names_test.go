package faults_test

import (
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/s3lease/s3lease/faults"
	"github.com/s3lease/s3lease/harness/elector"
	"github.com/s3lease/s3lease/protocol"
	"github.com/s3lease/s3lease/sim"
)

// drawNames are the names the generator draws for seed, for a protocol
// that accepts identities of up to maxLen bytes.
func drawNames(seed uint64, maxLen int) []string {
	sp := space()
	sp.Bounds.MaxIdentityLen = maxLen
	sp.Configure = func([]faults.Settings, int) (faults.Bounds, bool) { return sp.Bounds, true }
	return faults.Draw(faults.NewSource(seed), sp).Names
}

// TestSwarmNamesAreWhatTheElectorAccepts: over seeds, names are drawn on
// about one seed in five, every one is an identity protocol.NewElector
// accepts, a seed always draws the same names, and across seeds every
// spelling appears: the longest identity (exactly MaxIdentityLen bytes,
// ending in a character of several bytes), quotes and backslashes,
// non-ASCII, and control characters. A protocol that declares no limit
// gets none.
func TestSwarmNamesAreWhatTheElectorAccepts(t *testing.T) {
	var drawn, longest, quoted, nonASCII, control, loneControl, endsInBackslash int
	for seed := uint64(1); seed <= 2000; seed++ {
		names := drawNames(seed, protocol.MaxIdentityLen)
		if drawNames(seed, 0) != nil {
			t.Fatalf("seed %d: names for a protocol that takes none", seed)
		}
		if names == nil {
			continue
		}
		drawn++
		if again := drawNames(seed, protocol.MaxIdentityLen); strings.Join(again, "|") != strings.Join(names, "|") {
			t.Fatalf("seed %d: names %q, then %q", seed, names, again)
		}
		for i, n := range names {
			cfg := elector.DefaultSettings.Config(sim.Env{Store: (*s3.Client)(nil), Identity: n, Bucket: "b", Key: "k"})
			if _, err := protocol.NewElector(cfg); err != nil {
				t.Fatalf("seed %d: node %d's name %q: %v", seed, i, n, err)
			}
			if !utf8.ValidString(n) || slices.Contains(names[:i], n) {
				t.Fatalf("seed %d: node %d's name %q is not UTF-8 or another node's too", seed, i, n)
			}
			switch {
			case strings.HasSuffix(n, `\`):
				// A backslash at the very end: JSON's escape of it is the
				// last thing in the string.
				if q, _ := json.Marshal(n); !strings.HasSuffix(string(q), `\\"`) || strings.Count(string(q), `\`) != 2 {
					t.Fatalf("seed %d: node %d's name %q is written %s", seed, i, n, q)
				}
				endsInBackslash++
			case isASCII(n) && strings.Contains(n, "\x1f") && !strings.ContainsAny(n, "\x01\t"):
				// One control character, and nothing else JSON escapes.
				if q, _ := json.Marshal(n); strings.Count(string(q), `\`) != 1 || !strings.Contains(string(q), `\u001f`) {
					t.Fatalf("seed %d: node %d's name %q is written %s", seed, i, n, q)
				}
				loneControl++
			case len(n) == protocol.MaxIdentityLen:
				r, size := utf8.DecodeLastRuneInString(n)
				if size < 2 || r == utf8.RuneError {
					t.Fatalf("seed %d: the longest name ends in %q", seed, r)
				}
				longest++
			case strings.ContainsAny(n, `"\`):
				quoted++
			case strings.ContainsAny(n, "\x01\u2028"):
				control++
			case !isASCII(n):
				nonASCII++
			}
		}
	}
	if drawn < 300 || drawn > 500 {
		t.Errorf("names drawn on %d seeds of 2000; want about one in five", drawn)
	}
	if longest == 0 || quoted == 0 || nonASCII == 0 || control == 0 || loneControl == 0 || endsInBackslash == 0 {
		t.Errorf("spellings: longest %d, quoted %d, non-ASCII %d, control %d, a lone control character %d, a backslash at the end %d; want each",
			longest, quoted, nonASCII, control, loneControl, endsInBackslash)
	}
}

func isASCII(s string) bool {
	for i := range len(s) {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// TestPlanNamesAreValidated: a plan's names must be one per node, none
// empty, all UTF-8.
func TestPlanNamesAreValidated(t *testing.T) {
	for _, names := range [][]string{{"a"}, {"a", ""}, {"a", "\xff"}} {
		p := &faults.Plan{HealAt: faults.Duration(time.Second), Names: names}
		if err := p.Validate(2, 10*time.Second); !errors.Is(err, faults.ErrInvalidPlan) {
			t.Errorf("names %q: %v, want ErrInvalidPlan", names, err)
		}
	}
	p := &faults.Plan{HealAt: faults.Duration(time.Second), Names: []string{"a", `b "c"`}}
	if err := p.Validate(2, 10*time.Second); err != nil {
		t.Errorf("names %q: %v", p.Names, err)
	}
}

// TestSwarmNameKinds: every kind names its node, within the limit, and
// the kinds cover the spellings, the longest name and n<node> (kinds 4 and
// 5, as they always were), then the late spellings.
func TestSwarmNameKinds(t *testing.T) {
	seen := map[string]bool{}
	for k := range faults.NameKinds {
		n := faults.SwarmName(3, k, protocol.MaxIdentityLen)
		if !strings.Contains(n, "3") || len(n) > protocol.MaxIdentityLen || seen[n] {
			t.Errorf("kind %d: name %q", k, n)
		}
		seen[n] = true
	}
	if n := faults.SwarmName(3, 4, protocol.MaxIdentityLen); len(n) != protocol.MaxIdentityLen || faults.SwarmName(3, 5, protocol.MaxIdentityLen) != "n3" {
		t.Errorf("kinds 4 and 5 are not the longest name and n3")
	}
	if faults.SwarmName(3, faults.NameKinds-2, protocol.MaxIdentityLen) != "n3\x1fshard" || faults.SwarmName(3, faults.NameKinds-1, protocol.MaxIdentityLen) != `n3-host\` {
		t.Errorf("the last two kinds are not the late spellings")
	}
	if n := faults.SwarmName(3, faults.NameKinds, protocol.MaxIdentityLen); n != "n3" {
		t.Errorf("kind NameKinds: %q, want n3", n)
	}
	if n := faults.SwarmName(3, 0, 4); n != "n3" {
		t.Errorf("a spelling over the limit: %q, want n3", n)
	}
}
