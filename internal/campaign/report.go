package campaign

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"io"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/s3lease/s3lease/faults"
	"github.com/s3lease/s3lease/harness"
	"github.com/s3lease/s3lease/internal/schema"
)

// ReportVersion is the version of the report format (report.json) this
// package writes and reads: the schema version of every document.
const ReportVersion = schema.Version

// FirstSeeds is how many of a group's seeds, the lowest, a report lists.
const FirstSeeds = 20

// Nondeterministic is the verdict and signature of a seed whose two runs
// (with CheckDeterminism) gave different trace hashes.
const Nondeterministic = "nondeterministic"

// Counts are the tallies of a campaign: schema.Counts, the same as
// `simrun run -json` prints.
type Counts = schema.Counts

// Group is the seeds that failed with one signature.
type Group struct {
	// Signature is harness.Signature's text ("unsafe: overlap"), or
	// "nondeterministic".
	Signature string `json:"signature"`
	// Verdict is unsafe, liveness, crashed, inconclusive or
	// nondeterministic; Checkers the signature's checkers.
	Verdict  string   `json:"verdict"`
	Checkers []string `json:"checkers,omitempty"`
	// Count is the number of seeds that failed so.
	Count uint64 `json:"count"`
	// FirstSeeds are the lowest of them, at most FirstSeeds.
	FirstSeeds []uint64 `json:"firstSeeds"`
	// Dir is the group's directory, relative to the campaign's (a merged
	// report has none: its reproducers come from several).
	Dir string `json:"dir,omitempty"`
	// Reproducers are the reproducer files kept on disk (relative to the
	// report's directory unless absolute), sorted by seed; Replay is the
	// command that replays the first seed. Reports only, not the state.
	Reproducers []string `json:"reproducers,omitempty"`
	Replay      string   `json:"replay,omitempty"`
}

// Report is the machine-readable result of a campaign (DIR/report.json), or
// of several shards' campaigns merged.
type Report struct {
	// Header names the schema version and the command: campaign, or merge
	// for a merged report.
	schema.Header
	Scenario string `json:"scenario"`
	// Shards are the shards the report covers: one for a campaign's, sorted.
	Shards []Shard `json:"shards"`
	// Start and Seeds are the range: Seeds seeds from Start, or every seed
	// from Start if Seeds is 0 (a campaign limited by its duration).
	Start            uint64 `json:"start"`
	Seeds            uint64 `json:"seeds,omitempty"`
	CheckDeterminism bool   `json:"checkDeterminism,omitempty"`
	// FailOutside: the seeds were judged with harness.Setup.FailOutside
	// (simrun campaign -fail-outside).
	FailOutside bool `json:"failOutside,omitempty"`
	// Complete: every seed of the report's part of the range has run (a
	// campaign's: its shard's part; a merged report's: the whole range, so
	// that a merge missing a shard is never complete).
	Complete bool `json:"complete"`
	// Missing are the shards of the range that no report covers (a merge
	// of some of a campaign's shards), in the finest sharding the reports
	// use; empty when the shards cover the range.
	Missing []Shard `json:"missing,omitempty"`
	// SeedsRun is the number of seeds run (over every session of a resumed
	// campaign), the sum of the verdict counts.
	SeedsRun uint64 `json:"seedsRun"`
	Counts
	// Groups are the failures by signature, most seeds first.
	Groups []Group `json:"groups"`
	// Wall is the campaign's wall time over all its sessions (of a merged
	// report: the longest shard's); SeedsPerSecond its throughput (merged:
	// the sum of the shards').
	Wall           faults.Duration `json:"wall"`
	SeedsPerSecond float64         `json:"seedsPerSecond"`
	// Memory is what the campaign's process held during its last session
	// (a merged report has none).
	Memory *schema.Memory `json:"memory,omitempty"`
	// Coverage is what the seeds run reached of their coverage points
	// (merged: added up over the shards).
	Coverage *schema.Coverage `json:"coverage,omitempty"`
}

// Worst returns the most serious verdict in the report, in the harness's
// order of severity (harness.Verdict.Worse); a nondeterministic seed
// counts as crashed. Pass if every seed passed.
func (r *Report) Worst() harness.Verdict { return r.Counts.Worst() }

// Marshal writes the report as indented JSON ending in a newline.
func (r *Report) Marshal() ([]byte, error) { return marshal(r) }

// marshal writes v as indented JSON ending in a newline, with lists of
// numbers or strings on one line.
func marshal(v any) ([]byte, error) {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return nil, err
	}
	b = flatList.ReplaceAllFunc(b, func(list []byte) []byte {
		return listBreak.ReplaceAllFunc(list, func(br []byte) []byte {
			switch br[0] {
			case ',':
				return []byte(", ")
			case '[':
				return []byte("[")
			}
			return nil
		})
	})
	return append(b, '\n'), nil
}

var (
	// flatList is a list of numbers or strings as MarshalIndent writes it;
	// strings hold no raw newline, so every newline in it is indentation.
	flatList  = regexp.MustCompile(`\[\n\s*(?:[0-9]+|"(?:[^"\\]|\\.)*")(?:,\n\s*(?:[0-9]+|"(?:[^"\\]|\\.)*"))*\n\s*\]`)
	listBreak = regexp.MustCompile(`(\[|,)?\n\s*`)
)

// ReadReport reads and checks a report.
func ReadReport(rd io.Reader) (*Report, error) {
	data, err := io.ReadAll(io.LimitReader(rd, 256<<20))
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var r Report
	if err := dec.Decode(&r); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrBadReport, err)
	}
	if !schema.Readable(r.Schema) {
		return nil, fmt.Errorf("%w: version %d; this harness reads versions %d to %d", ErrBadReport, r.Schema, schema.OldestVersion, ReportVersion)
	}
	if r.Command != schema.CommandCampaign && r.Command != schema.CommandMerge {
		return nil, fmt.Errorf("%w: a %q document, not a campaign's report", ErrBadReport, r.Command)
	}
	if r.Scenario == "" || len(r.Shards) == 0 {
		return nil, fmt.Errorf("%w: no scenario or no shards", ErrBadReport)
	}
	if r.SeedsRun != r.Counts.Seeds() {
		return nil, fmt.Errorf("%w: %d seeds run but %d counted", ErrBadReport, r.SeedsRun, r.Counts.Seeds())
	}
	var inGroups uint64
	for _, g := range r.Groups {
		inGroups += g.Count
	}
	if inGroups != r.Counts.Failures() {
		return nil, fmt.Errorf("%w: %d failures but %d in groups", ErrBadReport, r.Counts.Failures(), inGroups)
	}
	if err := checkCoverage(r.Coverage, r.SeedsRun); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrBadReport, err)
	}
	return &r, nil
}

// ReadReportFile reads the report at path.
func ReadReportFile(path string) (*Report, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r, err := ReadReport(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return r, nil
}

// Merge merges the reports of shards of one campaign: the same scenario,
// range, determinism check and FailOutside, and shards no two of which
// share a seed. Counts (what was judged included: unknown if a report of
// an older schema does not record it) and groups are summed, first seeds
// merged. Reproducer paths are
// kept as they are: make them relative to one place first (the caller
// knows where each report lives). Anything else is an error wrapping
// ErrIncompatible. The groups' replay commands invoke program
// (harness.Repro.Program).
func Merge(program string, reports ...*Report) (*Report, error) {
	if len(reports) == 0 {
		return nil, fmt.Errorf("%w: no reports to merge", ErrIncompatible)
	}
	a := reports[0]
	m := &Report{Header: schema.NewHeader(schema.CommandMerge), Scenario: a.Scenario, Start: a.Start, Seeds: a.Seeds,
		CheckDeterminism: a.CheckDeterminism, FailOutside: a.FailOutside, Complete: true}
	groups := map[string]*Group{}
	for i, r := range reports {
		switch {
		case r.Scenario != a.Scenario:
			return nil, fmt.Errorf("%w: report %d is of scenario %s, report 1 of %s", ErrIncompatible, i+1, r.Scenario, a.Scenario)
		case r.Start != a.Start || r.Seeds != a.Seeds:
			return nil, fmt.Errorf("%w: report %d covers %s, report 1 %s", ErrIncompatible, i+1, rangeString(r.Start, r.Seeds), rangeString(a.Start, a.Seeds))
		case r.CheckDeterminism != a.CheckDeterminism:
			return nil, fmt.Errorf("%w: report %d checked determinism %v, report 1 %v", ErrIncompatible, i+1, r.CheckDeterminism, a.CheckDeterminism)
		case r.FailOutside != a.FailOutside:
			return nil, fmt.Errorf("%w: report %d failed overlaps outside the assumptions %v, report 1 %v", ErrIncompatible, i+1, r.FailOutside, a.FailOutside)
		}
		for _, s := range r.Shards {
			if err := s.Validate(); err != nil {
				return nil, fmt.Errorf("%w: report %d: %v", ErrIncompatible, i+1, err)
			}
			for _, t := range m.Shards {
				if s.Overlaps(t) {
					return nil, fmt.Errorf("%w: report %d's shard %s overlaps shard %s of an earlier report", ErrIncompatible, i+1, s, t)
				}
			}
			m.Shards = append(m.Shards, s)
		}
		m.Complete = m.Complete && r.Complete
		m.SeedsRun += r.SeedsRun
		m.Counts.Add(r.Counts)
		m.Wall = max(m.Wall, r.Wall)
		m.SeedsPerSecond += r.SeedsPerSecond
		if r.Coverage != nil {
			if m.Coverage == nil {
				m.Coverage = &schema.Coverage{}
			}
			if err := m.Coverage.Merge(r.Coverage); err != nil {
				return nil, fmt.Errorf("%w: report %d: %v", ErrIncompatible, i+1, err)
			}
		}
		for _, g := range r.Groups {
			mg := groups[g.Signature]
			if mg == nil {
				mg = &Group{Signature: g.Signature, Verdict: g.Verdict, Checkers: slices.Clone(g.Checkers)}
				groups[g.Signature] = mg
			}
			mg.Count += g.Count
			mg.FirstSeeds = mergeSeeds(mg.FirstSeeds, g.FirstSeeds)
			mg.Reproducers = append(mg.Reproducers, g.Reproducers...)
		}
	}
	sortShards(m.Shards)
	m.Missing = missingShards(m.Shards)
	m.Complete = m.Complete && len(m.Missing) == 0
	for _, g := range groups {
		slices.SortFunc(g.Reproducers, func(x, y string) int {
			return cmp.Or(cmp.Compare(reproSeed(x), reproSeed(y)), strings.Compare(x, y))
		})
		if len(g.FirstSeeds) > 0 {
			g.Replay = harness.Repro{Program: program, Scenario: m.Scenario, Seed: g.FirstSeeds[0], Flags: replayFlags(m.FailOutside)}.Command()
		}
		m.Groups = append(m.Groups, *g)
	}
	sortGroups(m.Groups)
	if m.Groups == nil {
		m.Groups = []Group{}
	}
	return m, nil
}

func sortShards(s []Shard) {
	slices.SortFunc(s, func(a, b Shard) int {
		return cmp.Or(cmp.Compare(a.Count, b.Count), cmp.Compare(a.Index, b.Index))
	})
}

// sortGroups orders groups by count, most first, then by signature.
func sortGroups(gs []Group) {
	slices.SortFunc(gs, func(a, b Group) int {
		return cmp.Or(cmp.Compare(b.Count, a.Count), strings.Compare(a.Signature, b.Signature))
	})
}

// mergeSeeds merges two sorted lists of seeds, without duplicates, keeping
// the lowest FirstSeeds.
func mergeSeeds(a, b []uint64) []uint64 {
	out := slices.Compact(slices.Sorted(slices.Values(slices.Concat(a, b))))
	return out[:min(len(out), FirstSeeds)]
}

// insertSeed inserts seed into the sorted list of first seeds, keeping the
// lowest FirstSeeds.
func insertSeed(list []uint64, seed uint64) []uint64 {
	i, found := slices.BinarySearch(list, seed)
	if found || i >= FirstSeeds {
		return list
	}
	list = slices.Insert(list, i, seed)
	if len(list) > FirstSeeds {
		list = list[:FirstSeeds]
	}
	return list
}

var reproName = regexp.MustCompile(`seed-([0-9]+)\.json$`)

// reproSeed is the seed in a reproducer's file name, or 0.
func reproSeed(path string) uint64 {
	m := reproName.FindStringSubmatch(path)
	if m == nil {
		return 0
	}
	s, _ := strconv.ParseUint(m[1], 10, 64)
	return s
}

func rangeString(start, n uint64) string {
	if n == 0 {
		return fmt.Sprintf("seeds %d.. (unbounded)", start)
	}
	return fmt.Sprintf("seeds %d..%d", start, start+n-1)
}

// verdicts are the verdicts a signature may have, for the readable slug.
var verdicts = func() map[string]bool {
	m := map[string]bool{Nondeterministic: true}
	for _, v := range harness.Verdicts() {
		m[v.String()] = true
	}
	return m
}()

var cleanChecker = regexp.MustCompile(`^[a-z0-9-]+(/[a-z0-9-]+)?$`)

// Slug returns the directory name of a signature's failures: the verdict
// and the checkers joined by "_", with "/" written "." ("unsafe_overlap",
// "unsafe_fencing.stale-accepted_overlap"), one to one for signatures made
// of the usual names; any other signature gets a sanitised name starting
// "other-" and ending in a hash of the signature.
func Slug(verdict string, checkers []string) string {
	clean := verdicts[verdict]
	parts := []string{verdict}
	for _, c := range checkers {
		clean = clean && cleanChecker.MatchString(c)
		parts = append(parts, strings.ReplaceAll(c, "/", "."))
	}
	slug := strings.Join(parts, "_")
	if clean && len(slug) <= 120 {
		return slug
	}
	h := fnv.New32a()
	h.Write([]byte(verdict + "\x00" + strings.Join(checkers, "\x00")))
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(slug) {
		if b.Len() >= 80 {
			break
		}
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			b.WriteRune(r)
			dash = false
		} else if !dash {
			b.WriteByte('-')
			dash = true
		}
	}
	return fmt.Sprintf("other-%s-%08x", strings.Trim(b.String(), "-"), h.Sum32())
}

// missingShards returns the shards of the range that none of shards (which
// are disjoint) covers, as shards i/L of the least common multiple L of
// their counts: seeds s with (s - start) % L == i. For an L beyond
// 1<<16 it returns the residues it can tell are missing only when every
// count is the same.
func missingShards(shards []Shard) []Shard {
	l := uint64(1)
	for _, s := range shards {
		l = l / gcd(l, s.Count) * s.Count
		if l > 1<<16 {
			return missingSameCount(shards)
		}
	}
	var out []Shard
	for i := range l {
		covered := false
		for _, s := range shards {
			if i%s.Count == s.Index {
				covered = true
				break
			}
		}
		if !covered {
			out = append(out, Shard{Index: i, Count: l})
		}
	}
	return out
}

// missingSameCount is missingShards for shards of one count too large to
// enumerate with others: the first thousand missing indices among the
// first million.
func missingSameCount(shards []Shard) []Shard {
	n := shards[0].Count
	have := map[uint64]bool{}
	for _, s := range shards {
		if s.Count != n {
			return nil
		}
		have[s.Index] = true
	}
	var out []Shard
	for i := uint64(0); i < n && i < 1<<20 && len(out) < 1000; i++ {
		if !have[i] {
			out = append(out, Shard{Index: i, Count: n})
		}
	}
	return out
}
