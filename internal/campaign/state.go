package campaign

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/s3lease/s3lease/faults"
	"github.com/s3lease/s3lease/harness"
	"github.com/s3lease/s3lease/internal/schema"
)

// StateVersion is the version of DIR/state.json this package writes and
// reads.
const StateVersion = 1

// StateFile, ReportFile and FailuresDir are the names of a campaign
// directory's state, report and failures.
const (
	StateFile   = "state.json"
	ReportFile  = "report.json"
	FailuresDir = "failures"
)

// State is a campaign's progress as DIR/state.json holds it: which campaign
// it is (scenario, shard, range, determinism check: a campaign resumes only
// its own state), the seeds done, the counts and the groups. Every seed
// counted is in Done and every seed in Done is counted, once.
type State struct {
	Version          int    `json:"version"`
	Scenario         string `json:"scenario"`
	Shard            Shard  `json:"shard"`
	Start            uint64 `json:"start"`
	Seeds            uint64 `json:"seeds,omitempty"` // 0: unbounded, the duration limits the campaign
	CheckDeterminism bool   `json:"checkDeterminism,omitempty"`
	FailOutside      bool   `json:"failOutside,omitempty"`
	// Duration is the wall-clock budget the last session was given (over
	// all sessions); Elapsed the wall time of all sessions so far.
	Duration faults.Duration `json:"duration,omitempty"`
	Elapsed  faults.Duration `json:"elapsed"`
	Done     DoneSeeds       `json:"done"`
	Counts   Counts          `json:"counts"`
	Groups   []Group         `json:"groups"`
	// Coverage is what the seeds done reached of their coverage points;
	// a state written before campaigns kept it has none, and the seeds
	// it counts are then missing from the coverage's runs.
	Coverage *schema.Coverage `json:"coverage,omitempty"`
}

// DoneSeeds is the set of a shard's completed seeds, compactly: every seed
// of the shard below Next, and the seeds in Above (sorted, each above
// Next), Count in all.
type DoneSeeds struct {
	Count uint64   `json:"count"`
	Next  uint64   `json:"next"`
	Above []uint64 `json:"above,omitempty"`
}

// LoadState reads DIR/state.json. A missing file is an error satisfying
// errors.Is(err, fs.ErrNotExist); a malformed or inconsistent one wraps
// ErrBadState.
func LoadState(dir string) (*State, error) {
	path := filepath.Join(dir, StateFile)
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var st State
	if err := dec.Decode(&st); err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrBadState, path, err)
	}
	if st.Version != StateVersion {
		return nil, fmt.Errorf("%w: %s: version %d; this harness reads version %d", ErrBadState, path, st.Version, StateVersion)
	}
	if _, err := st.doneSet(); err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrBadState, path, err)
	}
	if err := st.checkGroups(); err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrBadState, path, err)
	}
	if err := checkCoverage(st.Coverage, st.Counts.Seeds()); err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrBadState, path, err)
	}
	return &st, nil
}

// doneSet converts Done to shard indices, checking it.
func (st *State) doneSet() (doneSet, error) {
	sh := st.Shard
	if err := sh.Validate(); err != nil {
		return doneSet{}, err
	}
	total := shardSeeds(sh, st.Start, st.Seeds)
	index := func(seed uint64) (uint64, error) {
		if !sh.Owns(st.Start, seed) {
			return 0, fmt.Errorf("done seed %d is not of shard %s from %d", seed, sh, st.Start)
		}
		return sh.index(st.Start, seed), nil
	}
	var d doneSet
	var err error
	if d.next, err = index(st.Done.Next); err != nil {
		return d, err
	}
	if d.next > total {
		return d, fmt.Errorf("done seeds up to %d are beyond the range", st.Done.Next)
	}
	for _, s := range st.Done.Above {
		k, err := index(s)
		if err != nil {
			return d, err
		}
		if k >= total || k <= d.next || (len(d.above) > 0 && k <= d.above[len(d.above)-1]) {
			return d, fmt.Errorf("done seeds above %d are not increasing within the range", st.Done.Next)
		}
		d.above = append(d.above, k)
	}
	if d.count() != st.Done.Count || st.Counts.Seeds() != d.count() {
		return d, fmt.Errorf("%d seeds done (%d recorded) but %d counted", d.count(), st.Done.Count, st.Counts.Seeds())
	}
	return d, nil
}

// checkGroups checks that the groups hold the failures, once each.
func (st *State) checkGroups() error {
	var sum uint64
	seen := map[string]bool{}
	for _, g := range st.Groups {
		if want := signatureText(g.Verdict, g.Checkers); g.Signature != want || !verdicts[g.Verdict] || g.Verdict == harness.Pass.String() {
			return fmt.Errorf("group %q: bad signature (want %q)", g.Signature, want)
		}
		if seen[g.Signature] {
			return fmt.Errorf("group %q twice", g.Signature)
		}
		seen[g.Signature] = true
		if !slices.IsSorted(g.FirstSeeds) || len(g.FirstSeeds) > FirstSeeds {
			return fmt.Errorf("group %q: first seeds not sorted", g.Signature)
		}
		sum += g.Count
	}
	if sum != st.Counts.Failures() {
		return fmt.Errorf("%d failures counted but %d in groups", st.Counts.Failures(), sum)
	}
	return nil
}

// checkCoverage checks a coverage tally of seeds seeds: consistent, and
// no set counted in more runs than there were.
func checkCoverage(c *schema.Coverage, seeds uint64) error {
	if c == nil {
		return nil
	}
	if err := c.Check(); err != nil {
		return err
	}
	for _, s := range c.Sets {
		if s.Runs > seeds {
			return fmt.Errorf("coverage set %q counted in %d runs of %d seeds", s.Name, s.Runs, seeds)
		}
	}
	return nil
}

// signatureText is the text of a group's signature.
func signatureText(verdict string, checkers []string) string {
	return harness.Signature{Verdict: verdict, Checkers: checkers}.String()
}

// sameCampaign reports how st differs from the campaign of cfg, or "".
func (st *State) sameCampaign(cfg *Config) string {
	if st.Scenario != cfg.Scenario.Name || st.Shard != cfg.Shard || st.Start != cfg.Start ||
		st.Seeds != cfg.Seeds || st.CheckDeterminism != cfg.CheckDeterminism || st.FailOutside != cfg.FailOutside {
		return fmt.Sprintf("it holds the campaign %s, not %s",
			describe(st.Scenario, st.Shard, st.Start, st.Seeds, st.CheckDeterminism, st.FailOutside),
			describe(cfg.Scenario.Name, cfg.Shard, cfg.Start, cfg.Seeds, cfg.CheckDeterminism, cfg.FailOutside))
	}
	return ""
}

func describe(scenario string, sh Shard, start, seeds uint64, check, failOutside bool) string {
	s := fmt.Sprintf("of scenario %s, shard %s, %s", scenario, sh, rangeString(start, seeds))
	if check {
		s += ", checking determinism"
	}
	if failOutside {
		s += ", failing overlaps outside the assumptions"
	}
	return s
}
