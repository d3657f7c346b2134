package scenarios

import (
	"fmt"
	"sort"
	"time"

	"github.com/s3lease/s3lease/sim"
)

// Scenario is a named, documented way to run a protocol: the world it runs
// in and what happens to it, as a function of the seed.
type Scenario struct {
	// Name is how the scenario is chosen on the command line.
	Name string
	// Doc says in a sentence or two what the scenario does.
	Doc string
	// Config builds the run for a seed.
	Config func(seed uint64) sim.Config
	_      struct{}
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
		return Scenario{}, fmt.Errorf("unknown scenario %q (known: %v)", name, Names())
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

// baseConfig is the world every scenario starts from: five nodes running the
// production elector for a minute against AWS-flavoured S3 with realistic
// latencies.
func baseConfig(seed uint64) sim.Config {
	return sim.Config{
		Seed:          seed,
		Nodes:         5,
		Duration:      60 * time.Second,
		Candidate:     ProductionElector(DefaultElectorSettings),
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

// Reference is the default scenario: five nodes, one simulated minute,
// clocks with small offsets and drift within the elector's assumed bound,
// and rolling restarts: some nodes are asked to stop (releasing their lease
// if they lead) and come back a little later, some under a new identity.
var Reference = register(Scenario{
	Name: "reference",
	Doc:  "5 nodes, 60 s, clock offsets and drift within bounds, rolling restarts with release",
	Config: func(seed uint64) sim.Config {
		cfg := baseConfig(seed)
		cfg.Setup = rollingRestarts
		return cfg
	},
})

// rollingRestarts gives every node a clock within the elector's drift bound
// and schedules, for about half the nodes, a graceful stop followed by a
// restart.
func rollingRestarts(w *sim.World) {
	c := w.Chooser()
	for i := 0; i < w.Nodes(); i++ {
		n := w.Node(i)
		_ = n.SetClock(sim.ClockModel{
			Offset:   time.Duration(c.Choose(sim.ChooseSetup, uint64(4*time.Second))) - 2*time.Second,
			DriftPPM: int64(c.Choose(sim.ChooseSetup, 401)) - 200,
		})
		if c.Choose(sim.ChooseSetup, 2) == 0 {
			continue
		}
		stopAt := 5*time.Second + time.Duration(c.Choose(sim.ChooseSetup, uint64(45*time.Second)))
		down := time.Second + time.Duration(c.Choose(sim.ChooseSetup, uint64(2*time.Second)))
		identity := ""
		if c.Choose(sim.ChooseSetup, 2) == 0 {
			identity = fmt.Sprintf("n%d-r", i)
		}
		w.At(stopAt, -1, n.Stop)
		w.At(stopAt+down, -1, func() { n.Restart(identity) })
	}
}
