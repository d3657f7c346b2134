package harness

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"

	"github.com/s3lease/s3lease/faults"
	"github.com/s3lease/s3lease/sim"
)

// A guided campaign runs a scenario the way a coverage-guided fuzzer runs
// its target: it keeps, as its corpus, the streams of choices
// (faults.Choices) of the runs that reached something no run before them
// had: a coverage point (Outcome.Reached: the protocol's points and the
// harness's run shapes), or a point as many times as no run before
// (counted in buckets, 1, 2, 3, 4-7, 8-15, 16-31, 32-127, 128 or more, as
// AFL counts the hits of an edge); and derives most new runs from them by
// mutating their choices (faults.Choices.Mutate: a choice changed, an
// element of a family deleted or repeated, a family left out or grafted
// from another run), the world's seed changed now and then. It mutates
// the stream the scenario draws its run from (Scenario.Draw), never a
// plan, so it knows nothing of fault kinds and reaches every family the
// generator draws. The other runs are fresh seeds of the scenario, in
// order, as a plain campaign runs them; a scenario that draws no stream
// (no Draw) runs fresh seeds only.
//
// Every run is a Reproducer (the scenario, the world's seed, the plan and
// the duration), so a failure replays with `simrun replay FILE` like any
// other. The campaign is a function of its configuration: the runs are
// derived in batches from the corpus as it stood before the batch, by a
// generator seeded with GuidedConfig.Seed, and judged in the order they
// were derived whatever the number of workers: each as soon as every run
// before it in its batch has run, so that a campaign told to end at a
// failure ends there, without waiting for the rest of the batch.

// GuidedBatch is the number of runs a guided campaign derives from one
// state of its corpus, unless told otherwise.
const GuidedBatch = 16

// GuidedConfig is a guided campaign.
type GuidedConfig struct {
	// Scenario is what runs: each run is its Build(seed), with the nodes,
	// duration and plan its Draw draws from derived choices.
	Scenario Scenario
	// Seed seeds the campaign's own generator: which corpus plan to
	// derive from and how.
	Seed uint64
	// Start is the first fresh seed; fresh runs take Start, Start+1, ...
	Start uint64
	// Runs is the budget: the number of runs.
	Runs uint64
	// Workers run a batch's runs at once (GOMAXPROCS if < 1).
	Workers int
	// Batch is the number of runs derived from one state of the corpus
	// (GuidedBatch if < 1).
	Batch int
	// Setup, if set, changes every run's Setup before it runs (the real
	// SDK's client, say); it must not change the plan.
	Setup func(Setup) Setup
	// Done is called for every run, in order, once its batch has run; it
	// returns false to end the campaign there. It may keep the run.
	Done func(*GuidedRun) bool
}

// GuidedRun is one run of a guided campaign.
type GuidedRun struct {
	// N numbers the run, from 1.
	N uint64
	// Parent is the number of the corpus run it was derived from, 0 for
	// a fresh seed; Mutations say what was changed.
	Parent    uint64
	Mutations []string
	// Outcome is the judged run; Outcome.Seed is the world's seed and
	// Outcome.Plan the plan it ran.
	Outcome *Outcome
	// New counts what it reached first: coverage points, or points as
	// many times (in buckets) as no run before; NewPoints the points
	// alone. Covered is the number of points the campaign had reached with
	// it.
	New, NewPoints, Covered int

	scenario Scenario
}

// Reproducer is the run as a reproducer file's content, expecting its
// verdict.
func (r *GuidedRun) Reproducer() *Reproducer { return ReproducerFor(r.scenario, r.Outcome) }

// GuidedResult sums up a guided campaign.
type GuidedResult struct {
	// Runs were run: Fresh of fresh seeds, the others derived.
	Runs, Fresh uint64
	// Invalid counts the derived runs thrown away as invalid before they
	// ran (not counted in Runs).
	Invalid uint64
	// Corpus are the runs whose choices the corpus kept, in order: those
	// that reached a point no run before them had.
	Corpus []uint64
	// Coverage names the points; Reached holds those some run reached.
	Coverage []CoverageSet
	Reached  sim.Coverage
}

// corpusEntry is a run whose choices the corpus keeps.
type corpusEntry struct {
	n       uint64
	seed    uint64
	choices *faults.Choices
	reached sim.Coverage
}

// guidedJob is a run to make: its world's seed, the choices it draws its
// run from (nil for a scenario that draws none) and its Setup.
type guidedJob struct {
	n, parent uint64
	seed      uint64
	choices   *faults.Choices
	mutations []string
	setup     Setup
}

// Guided runs a guided campaign. It returns early, with what it ran, when
// ctx ends or Done says so; an error is the harness's (a run that could not
// be set up), never a verdict.
func Guided(ctx context.Context, cfg GuidedConfig) (*GuidedResult, error) {
	if cfg.Scenario.Build == nil {
		return nil, fmt.Errorf("%w: a guided campaign needs a scenario", ErrInvalidSetup)
	}
	batch := cfg.Batch
	if batch < 1 {
		batch = GuidedBatch
	}
	g := &guided{cfg: cfg, rng: rand.New(rand.NewPCG(cfg.Seed, cfg.Seed)), next: cfg.Start}
	res := &GuidedResult{}
	for res.Runs < cfg.Runs && ctx.Err() == nil {
		jobs := make([]guidedJob, 0, batch)
		g.weigh()
		for n := res.Runs + 1; n <= cfg.Runs && len(jobs) < batch; n++ {
			j, invalid := g.derive(n)
			res.Invalid += invalid
			jobs = append(jobs, j)
		}
		stop, err := g.batch(ctx, jobs, res)
		if err != nil || stop {
			res.Reached = g.reached.Clone()
			return res, err
		}
	}
	res.Reached = g.reached.Clone()
	return res, nil
}

// batch runs a batch's jobs and judges them in order: each run, as soon as
// it and every run before it in the batch have run, is counted, kept in
// the corpus if it reached something first, and handed to Done; a Done
// that says to end, or the end of ctx, stops the runs of the batch not
// started yet. It reports whether the campaign is to end.
func (g *guided) batch(ctx context.Context, jobs []guidedJob, res *GuidedResult) (bool, error) {
	cfg := g.cfg
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		mu    sync.Mutex
		outs  = make([]*Outcome, len(jobs))
		next  int
		ended bool
	)
	err := Work(ctx, cfg.Workers, Count(uint64(len(jobs))), func(i uint64) error {
		j := jobs[i]
		o, err := RunSetup(j.setup, false)
		if err != nil {
			return fmt.Errorf("guided run %d (%s seed %d): %w", j.n, cfg.Scenario.Name, j.seed, err)
		}
		o.Scenario, o.Seed = cfg.Scenario.Name, j.seed
		mu.Lock()
		defer mu.Unlock()
		outs[i] = o
		for ; !ended && next < len(jobs) && outs[next] != nil; next++ {
			if !g.judge(jobs[next], outs[next], res) {
				ended = true
				cancel()
			}
		}
		return nil
	})
	return ended || ctx.Err() != nil, err
}

// judge counts one run of the campaign, in order: its coverage, the
// corpus, the tallies, and Done, whose answer it returns.
func (g *guided) judge(j guidedJob, o *Outcome, res *GuidedResult) bool {
	if res.Coverage == nil {
		res.Coverage = o.Coverage
	}
	r := &GuidedRun{N: j.n, Parent: j.parent, Mutations: j.mutations, Outcome: o, scenario: g.cfg.Scenario}
	r.New, r.NewPoints = g.count(o.Reached)
	if r.New > 0 && j.choices != nil {
		g.corpus = append(g.corpus, corpusEntry{n: j.n, seed: j.seed, choices: j.choices, reached: o.Reached.Clone()})
		res.Corpus = append(res.Corpus, j.n)
	}
	r.Covered = g.reached.Count()
	res.Runs++
	if j.parent == 0 {
		res.Fresh++
	}
	return g.cfg.Done == nil || g.cfg.Done(r)
}

// guided is a campaign's state between batches.
type guided struct {
	cfg     GuidedConfig
	rng     *rand.Rand
	next    uint64 // the next fresh seed
	corpus  []corpusEntry
	reached sim.Coverage // every run's counts, added up
	// features are the (point, bucket) pairs some run reached, bit
	// point*8+bucket.
	features []uint64
	hits     []uint64 // runs that reached each point
	// weights are the corpus entries' weights for the batch being
	// derived, total their sum.
	weights []uint64
	total   uint64
}

// weigh weighs the corpus entries for the next batch.
func (g *guided) weigh() {
	g.weights, g.total = g.weights[:0], 0
	for i := range g.corpus {
		w := g.weight(&g.corpus[i])
		g.weights = append(g.weights, w)
		g.total += w
	}
}

// bucket is the bucket of a point reached n > 0 times.
func bucket(n uint32) int {
	switch {
	case n <= 3:
		return int(n) - 1
	case n < 8:
		return 3
	case n < 16:
		return 4
	case n < 32:
		return 5
	case n < 128:
		return 6
	}
	return 7
}

// count adds a run's points to the campaign's and returns how many
// (point, bucket) pairs and how many points no run had reached before.
func (g *guided) count(c sim.Coverage) (features, points int) {
	n := c.Len()
	if n > len(g.hits) {
		g.hits = append(g.hits, make([]uint64, n-len(g.hits))...)
		g.features = append(g.features, make([]uint64, (8*n+63)/64-len(g.features))...)
	}
	for i := range n {
		h := c.Hits(i)
		if h == 0 {
			continue
		}
		if !g.reached.Has(i) {
			points++
		}
		g.hits[i]++
		f := 8*i + bucket(h)
		if g.features[f>>6]&(1<<(f&63)) == 0 {
			g.features[f>>6] |= 1 << (f & 63)
			features++
		}
	}
	g.reached.Add(c)
	return features, points
}

// weight is how likely a corpus entry is to be derived from: the rarer
// the points it reached, the likelier (each point weighs 2^20 over the
// runs that reached it), in integers so that the draw is the same
// everywhere.
func (g *guided) weight(e *corpusEntry) uint64 {
	w := uint64(1)
	for i := range e.reached.Len() {
		if e.reached.Has(i) && i < len(g.hits) && g.hits[i] > 0 {
			w += (1 << 20) / g.hits[i]
		}
	}
	return w
}

// maxTries bounds the derivations tried for one run before it falls back
// to a fresh seed.
const maxTries = 20

// derive makes run n: a fresh seed on one run in four, or while the corpus
// is empty; otherwise the run drawn from choices derived from a corpus
// entry's, chosen by weight, by one or two mutations (faults.Choices.Mutate),
// the world's seed another on one run in eight. It returns the job and
// the number of derived runs it threw away as invalid.
func (g *guided) derive(n uint64) (guidedJob, uint64) {
	sc := g.cfg.Scenario
	if sc.Draw == nil || len(g.corpus) == 0 || g.rng.IntN(4) == 0 {
		return g.fresh(n), 0
	}
	var invalid uint64
	for range maxTries {
		x := g.rng.Uint64N(g.total)
		pi := 0
		for x >= g.weights[pi] {
			x -= g.weights[pi]
			pi++
		}
		parent := &g.corpus[pi]
		other := g.corpus[g.rng.IntN(len(g.corpus))].choices
		donorSeed := g.rng.Uint64() >> 1
		donor := faults.NewSource(donorSeed)
		sc.Draw(donorSeed, donor)
		j := guidedJob{n: n, parent: parent.n, seed: parent.seed}
		if g.rng.IntN(8) == 0 {
			j.seed = g.rng.Uint64() >> 1
			j.mutations = append(j.mutations, "another world seed")
		}
		c := parent.choices
		for k := 1 + g.rng.IntN(2); k > 0; k-- {
			var what string
			if c, what = c.Mutate(g.rng, other, donor.Choices()); what != "" {
				j.mutations = append(j.mutations, what)
			}
		}
		if len(j.mutations) == 0 {
			continue
		}
		src := faults.Replay(c, faults.NewSource(j.seed))
		d := sc.Draw(j.seed, src)
		j.choices = src.Choices()
		rep := &Reproducer{Version: ReproVersion, Scenario: sc.Name, Seed: j.seed, Nodes: d.Config.Nodes,
			Duration: faults.Duration(d.Config.Duration), Plan: d.Plan}
		var err error
		if j.setup, err = rep.Setup(sc); err != nil {
			invalid++
			continue
		}
		return g.finish(j), invalid
	}
	return g.fresh(n), invalid
}

// fresh makes run n of the next fresh seed, with the choices it draws.
func (g *guided) fresh(n uint64) guidedJob {
	sc, seed := g.cfg.Scenario, g.next
	g.next++
	j := guidedJob{n: n, seed: seed, setup: sc.Build(seed)}
	if sc.Draw != nil {
		src := faults.NewSource(seed)
		sc.Draw(seed, src)
		j.choices = src.Choices()
	}
	return g.finish(j)
}

// finish applies the campaign's Setup to a job's.
func (g *guided) finish(j guidedJob) guidedJob {
	if g.cfg.Setup != nil {
		j.setup = g.cfg.Setup(j.setup)
	}
	return j
}
