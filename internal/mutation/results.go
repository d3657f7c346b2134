package mutation

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// Results are the results recorded in a results file: one JSON Result per
// line, appended as each mutant finishes, so that a run that is killed
// loses nothing already recorded. The last line for a mutant signature and
// source hash wins.
type Results struct {
	path  string
	byKey map[string]Result
}

func resultKey(signature, sourceHash string) string { return signature + "\x00" + sourceHash }

// OpenResults reads the results file at path; a missing file holds no
// results. Lines that do not parse (the last line of a run killed while it
// wrote) are skipped.
func OpenResults(path string) (*Results, error) {
	rs := &Results{path: path, byKey: map[string]Result{}}
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return rs, nil
	}
	if err != nil {
		return nil, fmt.Errorf("mutation: results: %w", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64<<10), 16<<20)
	for sc.Scan() {
		var r Result
		if json.Unmarshal(sc.Bytes(), &r) != nil || r.Signature == "" {
			continue
		}
		rs.byKey[resultKey(r.Signature, r.SourceHash)] = r
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("mutation: results %s: %w", path, err)
	}
	return rs, nil
}

// Lookup returns the result recorded for a mutant of sources with hash
// sourceHash.
func (rs *Results) Lookup(signature, sourceHash string) (Result, bool) {
	r, ok := rs.byKey[resultKey(signature, sourceHash)]
	return r, ok
}

// Reusable reports whether recorded result r answers a run with seeds
// seeds and, if tests, the test suite: an invalid mutant stays invalid; a
// mutant killed by the swarm within seeds seeds is killed by a run of
// seeds; a mutant that passed at least seeds seeds of the swarm needs its
// tests run only if they were not.
func Reusable(r Result, seeds int, tests bool) bool {
	switch r.Status {
	case Invalid:
		return true
	case KilledBySwarm:
		if r.SeedsToCatch == 0 { // a panic or a timeout
			return true
		}
		return r.SeedsToCatch <= uint64(seeds)
	case KilledByTests:
		return r.Seeds >= seeds
	case Survived:
		return r.Seeds >= seeds && (r.Tested || !tests)
	}
	return false
}

// Append records r, in memory and at the end of the file (synced).
func (rs *Results) Append(r Result) error {
	rs.byKey[resultKey(r.Signature, r.SourceHash)] = r
	if err := os.MkdirAll(filepath.Dir(rs.path), 0o755); err != nil {
		return fmt.Errorf("mutation: results: %w", err)
	}
	line, err := json.Marshal(r)
	if err != nil {
		return fmt.Errorf("mutation: results: %w", err)
	}
	f, err := os.OpenFile(rs.path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return fmt.Errorf("mutation: results: %w", err)
	}
	_, err = f.Write(append(line, '\n'))
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("mutation: results %s: %w", rs.path, err)
	}
	return nil
}
