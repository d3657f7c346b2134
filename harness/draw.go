package harness

import (
	"encoding/json"
	"fmt"

	"github.com/s3lease/s3lease/faults"
	"github.com/s3lease/s3lease/sim"
	"pgregory.net/rapid"
)

// Draw is one whole drawn run: the simulator's seed, the world's size and
// length, the protocol and the plan, as Swarm draws it from a stream of
// choices (DrawRun). Check, Fuzz and the CLI's swarm all draw this way:
// the same choices give the same run whichever reads them.
type Draw struct {
	Seed     uint64          `json:"seed"`
	Nodes    int             `json:"nodes"`
	Duration faults.Duration `json:"duration"`
	// Protocol is the protocol the run uses (with the plan's settings, if
	// any: Configured).
	Protocol Protocol     `json:"-"`
	Plan     *faults.Plan `json:"plan"`
}

// DrawRun draws a run of protocol p with the given simulator seed, its
// plan from src: the run Swarm(p.Name, p) draws from those choices.
func DrawRun(src *faults.Source, seed uint64, p Protocol) Draw {
	s := Swarm(p.Name, p).Draw(seed, src)
	return Draw{Seed: seed, Nodes: s.Config.Nodes, Duration: faults.Duration(s.Config.Duration), Protocol: p, Plan: s.Plan}
}

// RapidSource is the stream of choices rapid draws: each choice one of
// rapid's integers in its range (rapid favours small ones and the ends),
// so that rapid's shrinker, shrinking its own bit stream, shrinks the run.
func RapidSource(t *rapid.T) *faults.Source { return faults.FromOrigin(rapidOrigin{t}) }

type rapidOrigin struct{ t *rapid.T }

func (o rapidOrigin) Choose(path string, n uint64) uint64 {
	if n <= 1 {
		return 0
	}
	return rapid.Uint64Range(0, n-1).Draw(o.t, path)
}

// Check confirms that the run is valid: its plan passes Validate, gives
// the nodes only settings and identities the protocol takes (ErrBadPlan),
// and its liveness phase is long enough for liveness to be judged.
func (r Draw) Check() error {
	if r.Nodes < 1 || r.Nodes > MaxReproNodes {
		return fmt.Errorf("generator drew %d nodes", r.Nodes)
	}
	if err := r.Plan.Validate(r.Nodes, r.Duration.D()); err != nil {
		return fmt.Errorf("generator drew an invalid plan: %w", err)
	}
	p, err := Configured(r.Protocol, r.Plan, r.Nodes)
	if err == nil {
		err = checkIdentities(p, r.Plan, &sim.Config{Nodes: r.Nodes})
	}
	if err != nil {
		return fmt.Errorf("generator drew a plan the protocol refuses: %w", err)
	}
	if b := r.Protocol.LivenessBound; r.Duration.D() <= r.Plan.HealAt.D()+b {
		return fmt.Errorf("generator drew a run of %v healing at %v: liveness (bound %v) would not be judged",
			r.Duration, r.Plan.HealAt, b)
	}
	return nil
}

// Reproducer is the run as a reproducer of scenario, which must build the
// world the run assumes: World with the run's seed, and the run's protocol
// (a scenario made by Swarm for it). Its Setup is then the run exactly,
// and the file it marshals to replays it with `simrun replay`.
func (r Draw) Reproducer(scenario string) *Reproducer {
	return &Reproducer{Version: ReproVersion, Scenario: scenario, Seed: r.Seed, Nodes: r.Nodes,
		Duration: r.Duration, Plan: clonePlan(r.Plan)}
}

// RunDraw checks the run and judges it: World with the run's seed, nodes
// and duration, its plan and its protocol.
func RunDraw(r Draw) (*Outcome, error) {
	if err := r.Check(); err != nil {
		return nil, err
	}
	return RunSetup(r.Setup(), false)
}

// Setup is the drawn run, ready to run: the world of its seed with its
// nodes and duration, its plan (a copy) and its protocol.
func (r Draw) Setup() Setup {
	cfg := World(r.Seed)
	cfg.Nodes, cfg.Duration = r.Nodes, r.Duration.D()
	return Setup{Config: cfg, Plan: clonePlan(r.Plan), Protocol: r.Protocol}
}

// Describe renders a judged run for a failure message: the run as JSON,
// its verdict and violations, and how it left the assumptions.
func Describe(r Draw, o *Outcome) string {
	b, _ := json.MarshalIndent(r, "", "  ")
	msg := fmt.Sprintf("run of %s (%d fault events):\n%s\nverdict %s", r.Protocol.Name, len(r.Plan.Events), b, SignatureOf(o))
	for _, v := range o.Violations {
		msg += fmt.Sprintf("\n  %v", v)
	}
	if o.Result != nil && o.Result.Failure != nil {
		msg += "\n  " + o.Result.Failure.Error()
	}
	if len(o.Outside) > 0 {
		msg += fmt.Sprintf("\noutside the assumptions: %v", o.Outside)
	}
	return msg
}
