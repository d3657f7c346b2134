package scenarios

import (
	"fmt"
	"sort"
	"time"

	"github.com/s3lease/s3lease/faults"
	"github.com/s3lease/s3lease/sim"
)

// Scenario is a named, documented way to run a protocol: the world, the
// protocol and what goes wrong, as a function of the seed.
type Scenario struct {
	// Name is how the scenario is chosen on the command line.
	Name string
	// Doc tells the scenario's story in a sentence or two.
	Doc string
	// Expect says what the production elector is expected to do.
	Expect Expectation
	// Build makes the run for a seed.
	Build func(seed uint64) Setup
	_     struct{}
}

// Expectation is what a scenario expects of the production elector.
type Expectation string

const (
	// Survives: inside the elector's assumptions; no violation, no overlap,
	// a leader once faults heal.
	Survives Expectation = "survives"
	// Fenced: the scenario leaves the elector's assumptions; two leaders
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
type Setup struct {
	Config   sim.Config
	Plan     *faults.Plan
	Protocol Protocol
}

var registry = map[string]Scenario{}

// register adds a scenario; names are unique.
func register(s Scenario) Scenario {
	if _, dup := registry[s.Name]; dup {
		panic("scenarios: duplicate scenario " + s.Name)
	}
	registry[s.Name] = s
	return s
}

// Lookup returns the scenario called name.
func Lookup(name string) (Scenario, error) {
	s, ok := registry[name]
	if !ok {
		return Scenario{}, fmt.Errorf("unknown scenario %q (see 'simrun list'; known: %v)", name, Names())
	}
	return s, nil
}

// Names returns the names of all scenarios, sorted.
func Names() []string {
	names := make([]string, 0, len(registry))
	for n := range registry {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// baseConfig is the world every scenario starts from: five nodes for a
// minute against AWS-flavoured S3 with realistic latencies.
func baseConfig(seed uint64, p Protocol) sim.Config {
	return sim.Config{
		Seed:          seed,
		Nodes:         5,
		Duration:      60 * time.Second,
		Candidate:     p.Candidate,
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

// Reference is the scenario of the benchmark: five nodes, one simulated
// minute, clocks with offsets and drift within the elector's bound, and
// rolling restarts: some nodes are asked to stop (releasing their lease if
// they lead) and come back a little later, some under a new identity.
var Reference = register(Scenario{
	Name:   "reference",
	Doc:    "5 nodes, 60 s, clock offsets and drift within bounds, rolling restarts with release",
	Expect: Survives,
	Build: func(seed uint64) Setup {
		p := Elector(DefaultElectorSettings)
		return Setup{Config: baseConfig(seed, p), Plan: rollingRestarts(seed, 5), Protocol: p}
	},
})

// rollingRestarts is the reference plan: every node a clock within the
// elector's drift bound; about half the nodes stopped between 5 s and 35 s
// and restarted one to three seconds later.
func rollingRestarts(seed uint64, nodes int) *faults.Plan {
	c := sim.NewRandomChooser(seed ^ 0x726f6c6c696e67)
	p := &faults.Plan{HealAt: faults.Duration(40 * time.Second)}
	for i := range nodes {
		p.Clocks = append(p.Clocks, faults.ClockSetting{
			Node:     i,
			Offset:   faults.Duration(time.Duration(c.Choose(sim.ChooseSetup, uint64(4*time.Second))) - 2*time.Second),
			DriftPPM: int64(c.Choose(sim.ChooseSetup, 401)) - 200,
		})
		if c.Choose(sim.ChooseSetup, 2) == 0 {
			continue
		}
		stopAt := 5*time.Second + time.Duration(c.Choose(sim.ChooseSetup, uint64(30*time.Second)))
		down := time.Second + time.Duration(c.Choose(sim.ChooseSetup, uint64(2*time.Second)))
		identity := ""
		if c.Choose(sim.ChooseSetup, 2) == 0 {
			identity = fmt.Sprintf("n%d-r", i)
		}
		p.Events = append(p.Events,
			faults.Event{Kind: faults.Stop, At: faults.Duration(stopAt), Node: i},
			faults.Event{Kind: faults.Restart, At: faults.Duration(stopAt + down), Node: i, Identity: identity})
	}
	return p
}
