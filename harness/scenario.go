package harness

import (
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/s3lease/s3lease/faults"
	"github.com/s3lease/s3lease/linearizability"
	"github.com/s3lease/s3lease/sim"
)

// Scenario is a named, documented way to run a protocol: the world, the
// protocol and what goes wrong, as a function of the seed.
type Scenario struct {
	// Name is how the scenario is chosen on the command line and how
	// reproducer files name it.
	Name string
	// Doc tells the scenario's story in a sentence or two.
	Doc string
	// Expect says what the scenario's protocol is expected to do.
	Expect Expectation
	// Build makes the run for a seed.
	Build func(seed uint64) Setup
	_     struct{}
}

// Expectation is what a scenario expects of its protocol.
type Expectation string

const (
	// Survives: inside the protocol's assumptions; no violation, no overlap,
	// a leader once faults heal.
	Survives Expectation = "survives"
	// Fenced: the scenario leaves the protocol's assumptions; two leaders
	// may overlap, and fencing must reject every stale write.
	Fenced Expectation = "outside assumptions, fenced"
	// Either: each run is judged by where its plan falls; survives inside
	// the assumptions, fenced outside them.
	Either Expectation = "survives inside, fenced outside"
	// Caught: the scenario runs a deliberately broken protocol, and the
	// harness must report the violation.
	Caught Expectation = "broken protocol, caught"
)

// Setup is one run ready to go: the world, its fault plan and the protocol.
//
// The protocol's candidate is the one every node runs: Config.Candidate must
// be left nil (RunSetup refuses a Setup that sets it), so that no second
// copy of the candidate can disagree with the protocol that is judged.
type Setup struct {
	Config   sim.Config
	Plan     *faults.Plan
	Protocol Protocol
	// Audit, if set, judges a finished run by a property of the scenario's
	// own (an application-level one, say) besides the election checkers.
	// Its violations are judged like theirs: a write of the lock object by
	// someone else excuses those from that write on (as token violations);
	// any other counts. A Setup that is run several times (exploration,
	// shrinking) must keep its audit's state per run (Config.Setup is
	// called at the start of every run).
	Audit func(*sim.Result) []linearizability.Violation
}

// registry holds every scenario a process knows by name: the stories of
// package scenarios, the zoo's, and those a user registers through simrun
// or Check. Reproducer files name a scenario, so they are replayable in any
// process that registered it.
var registry = struct {
	sync.RWMutex
	m map[string]Scenario
}{m: map[string]Scenario{}}

// Register adds a scenario and returns it; names are unique, and
// registering a second scenario under a name already taken is an error.
func Register(s Scenario) (Scenario, error) {
	if s.Name == "" || s.Build == nil {
		return s, fmt.Errorf("harness: a scenario needs a name and a Build function (got name %q)", s.Name)
	}
	registry.Lock()
	defer registry.Unlock()
	if _, dup := registry.m[s.Name]; dup {
		return s, fmt.Errorf("harness: scenario %q is registered already", s.Name)
	}
	registry.m[s.Name] = s
	return s, nil
}

// MustRegister is Register for package-level declarations: a duplicate
// name is a programming error, and it panics.
func MustRegister(s Scenario) Scenario {
	s, err := Register(s)
	if err != nil {
		panic(err)
	}
	return s
}

// replace registers s under its name, replacing any scenario of that name.
// Check uses it, so that a test that runs twice in one process (-count)
// keeps working.
func replace(s Scenario) {
	registry.Lock()
	defer registry.Unlock()
	registry.m[s.Name] = s
}

// Lookup returns the scenario called name.
func Lookup(name string) (Scenario, error) {
	registry.RLock()
	s, ok := registry.m[name]
	registry.RUnlock()
	if !ok {
		hint := ""
		if close := suggest(name, Names()); len(close) > 0 {
			hint = fmt.Sprintf("; did you mean %s?", strings.Join(close, " or "))
		}
		return Scenario{}, fmt.Errorf("unknown scenario %q%s ('%s list' lists them all; a protocol registered with simrun.Protocol in a program of your own is known to that program only)", name, hint, Command())
	}
	return s, nil
}

// Names returns the names of all registered scenarios, sorted.
func Names() []string {
	registry.RLock()
	defer registry.RUnlock()
	names := make([]string, 0, len(registry.m))
	for n := range registry.m {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// World is the world every run starts from unless a scenario says
// otherwise: five nodes for a minute against AWS-flavoured S3 with
// realistic latencies. It names no candidate: the protocol of a Setup
// brings it.
func World(seed uint64) sim.Config {
	return sim.Config{
		Seed:          seed,
		Nodes:         5,
		Duration:      60 * time.Second,
		Bucket:        "sim-bucket",
		Key:           "leader.json",
		Dialect:       sim.DialectAWS,
		S3Request:     sim.Latency{Min: 2 * time.Millisecond, Max: 40 * time.Millisecond},
		S3Response:    sim.Latency{Min: 2 * time.Millisecond, Max: 40 * time.Millisecond},
		FenceRequest:  sim.Latency{Min: 1 * time.Millisecond, Max: 10 * time.Millisecond},
		FenceResponse: sim.Latency{Min: 1 * time.Millisecond, Max: 10 * time.Millisecond},
		WriteInterval: 500 * time.Millisecond,
		MaxSteps:      2_000_000,
	}
}

// suggest returns the names close to name: those within a small edit
// distance, or that contain it or are contained in it, quoted, at most
// three.
func suggest(name string, names []string) []string {
	var out []string
	for _, n := range names {
		d := editDistance(name, n)
		if d <= max(1, len(name)/4) || len(name) >= 3 && (strings.Contains(n, name) || strings.Contains(name, n)) {
			out = append(out, fmt.Sprintf("%q", n))
			if len(out) == 3 {
				break
			}
		}
	}
	return out
}

// editDistance is the Levenshtein distance between a and b, in bytes.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
