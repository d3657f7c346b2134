package campaign

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"math"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/s3lease/s3lease/faults"
	"github.com/s3lease/s3lease/harness"
	"github.com/s3lease/s3lease/internal/htmlreport"
	"github.com/s3lease/s3lease/internal/schema"
	"github.com/s3lease/s3lease/sim"
)

// Errors of Open and Merge.
var (
	// ErrBadConfig: the configuration makes no campaign.
	ErrBadConfig = errors.New("bad campaign configuration")
	// ErrIncompatible: the directory's state belongs to another campaign,
	// or reports to merge are not shards of one campaign.
	ErrIncompatible = errors.New("incompatible campaign")
	// ErrBadState: the directory's state.json is malformed or inconsistent.
	ErrBadState = errors.New("bad campaign state")
	// ErrBadReport: a report is malformed or inconsistent.
	ErrBadReport = errors.New("bad campaign report")
	// ErrDir: the directory cannot be created or written.
	ErrDir = errors.New("campaign directory not writable")
)

// DefaultKeep is the number of reproducers per signature a campaign keeps
// unless told otherwise (simrun's -keep).
const DefaultKeep = 20

// DefaultSaveInterval is how often a running campaign saves its state.
const DefaultSaveInterval = 500 * time.Millisecond

// Config is a campaign.
type Config struct {
	// Dir holds the campaign's state, report and failures.
	Dir string
	// Scenario is the scenario whose seeds run.
	Scenario harness.Scenario
	// Start and Seeds are the range, Seeds seeds from Start; Seeds 0 means
	// every seed from Start, for as long as Duration allows.
	Start, Seeds uint64
	// Duration, if not 0, limits the campaign's wall time over all its
	// sessions: a resumed campaign has what its earlier sessions left.
	Duration time.Duration
	// Shard is the part of the range to run; the zero Shard is Whole.
	Shard Shard
	// Workers is the number of seeds run at once (0: GOMAXPROCS).
	Workers int
	// Keep is the most reproducers a signature keeps on disk (0: none).
	Keep int
	// CheckDeterminism runs every seed twice and compares the trace hashes.
	CheckDeterminism bool
	// SaveInterval is how often the state is saved (0: DefaultSaveInterval).
	SaveInterval time.Duration
	// WriteTrace writes the readable trace of a failing seed, run again
	// with its trace kept (nil: WriteTrace).
	WriteTrace func(w io.Writer, o *harness.Outcome) error
	// Program is how the replay commands the campaign writes invoke
	// simrun (harness.Repro.Program; empty: harness.DefaultCommand).
	Program string
	// FailOutside judges every seed with harness.Setup.FailOutside: an
	// overlap of leaders that a fault outside the protocol's assumptions
	// accounts for fails the seed. The state and the report record it:
	// a campaign resumes, and reports merge, only with the same.
	FailOutside bool
}

// replayFlags are the flags a replay command of the campaign's seeds
// adds to scenario and seed.
func replayFlags(failOutside bool) []string {
	if failOutside {
		return []string{"-fail-outside"}
	}
	return nil
}

func (cfg *Config) check() error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: %s", ErrBadConfig, fmt.Sprintf(format, args...))
	}
	if cfg.Shard == (Shard{}) {
		cfg.Shard = Whole
	}
	if cfg.Workers <= 0 {
		cfg.Workers = runtime.GOMAXPROCS(0)
	}
	if cfg.SaveInterval <= 0 {
		cfg.SaveInterval = DefaultSaveInterval
	}
	if cfg.WriteTrace == nil {
		cfg.WriteTrace = WriteTrace
	}
	switch {
	case cfg.Dir == "":
		return bad("no directory")
	case cfg.Scenario.Name == "" || cfg.Scenario.Build == nil:
		return bad("no scenario")
	case cfg.Shard.Validate() != nil:
		return bad("%v", cfg.Shard.Validate())
	case cfg.Duration < 0:
		return bad("negative duration %v", cfg.Duration)
	case cfg.Seeds == 0 && cfg.Duration == 0:
		return bad("neither a number of seeds nor a duration: the campaign would not end")
	case cfg.Keep < 0:
		return bad("negative keep %d", cfg.Keep)
	case cfg.Seeds > 0 && (cfg.Start+cfg.Seeds-1 < cfg.Start || cfg.Start+cfg.Seeds-1 > math.MaxUint64-cfg.Shard.Count):
		return bad("range of %d seeds from %d overflows", cfg.Seeds, cfg.Start)
	case cfg.Shard.Size(cfg.Seeds) == 0 && cfg.Seeds > 0:
		return bad("shard %s of %s is empty", cfg.Shard, rangeString(cfg.Start, cfg.Seeds))
	}
	return nil
}

// Campaign is an open campaign directory.
type Campaign struct {
	cfg   Config
	total uint64 // seeds of the shard

	mu      sync.Mutex
	done    doneSet
	cursor  uint64 // the next index to consider handing out
	counts  Counts
	groups  map[string]*group          // by signature text
	files   map[string]map[uint64]bool // slug → seeds whose reproducer is on disk
	prior   time.Duration              // wall time of earlier sessions
	began   time.Time                  // this session's start (zero before Run)
	ended   time.Duration              // this session's length, once Run returns
	stopped bool
	session uint64 // seeds done by this session
	memory  memorySampler
	// coverage is what the seeds done reached of their coverage points.
	coverage schema.Coverage

	saveMu sync.Mutex
}

type group struct {
	Group
	slug     string
	reserved int // reproducers being written
}

// Open opens the campaign directory cfg.Dir, creating it if need be: a new
// campaign, or the one its state.json holds, which must be cfg's (same
// scenario, shard, range, determinism check and FailOutside: ErrIncompatible
// otherwise). It scans the failures on disk and writes the state, which
// also proves the directory writable (ErrDir otherwise).
func Open(cfg Config) (*Campaign, error) {
	if err := cfg.check(); err != nil {
		return nil, err
	}
	if cfg.FailOutside {
		cfg.Scenario = cfg.Scenario.FailingOutside()
	}
	c := &Campaign{cfg: cfg, total: shardSeeds(cfg.Shard, cfg.Start, cfg.Seeds),
		groups: map[string]*group{}, files: map[string]map[uint64]bool{}}
	if err := os.MkdirAll(filepath.Join(cfg.Dir, FailuresDir), 0o755); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrDir, err)
	}
	st, err := LoadState(cfg.Dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return nil, err
	default:
		if why := st.sameCampaign(&c.cfg); why != "" {
			return nil, fmt.Errorf("%w: %s: %s", ErrIncompatible, filepath.Join(cfg.Dir, StateFile), why)
		}
		c.done, _ = st.doneSet()
		c.counts = st.Counts
		if st.Coverage != nil {
			if err := c.coverage.Merge(st.Coverage); err != nil {
				return nil, fmt.Errorf("%w: %s: %v", ErrBadState, filepath.Join(cfg.Dir, StateFile), err)
			}
		}
		c.prior = st.Elapsed.D()
		for _, g := range st.Groups {
			g.Dir = path.Join(FailuresDir, Slug(g.Verdict, g.Checkers))
			g.FirstSeeds = slices.Clone(g.FirstSeeds)
			c.groups[g.Signature] = &group{Group: g, slug: Slug(g.Verdict, g.Checkers)}
		}
	}
	c.cursor = c.done.next
	if err := c.scan(); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrDir, err)
	}
	if err := c.save(); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrDir, err)
	}
	return c, nil
}

// scan finds the reproducers on disk and removes the temporary files of
// writes that a kill interrupted.
func (c *Campaign) scan() error {
	removeTemps := func(dir string, entries []os.DirEntry) error {
		for _, e := range entries {
			if n := e.Name(); strings.HasPrefix(n, ".") && strings.Contains(n, ".tmp") && e.Type().IsRegular() {
				if err := os.Remove(filepath.Join(dir, n)); err != nil {
					return err
				}
			}
		}
		return nil
	}
	top, err := os.ReadDir(c.cfg.Dir)
	if err != nil {
		return err
	}
	if err := removeTemps(c.cfg.Dir, top); err != nil {
		return err
	}
	failures := filepath.Join(c.cfg.Dir, FailuresDir)
	dirs, err := os.ReadDir(failures)
	if err != nil {
		return err
	}
	for _, d := range dirs {
		if !d.IsDir() {
			continue
		}
		dir := filepath.Join(failures, d.Name())
		entries, err := os.ReadDir(dir)
		if err != nil {
			return err
		}
		if err := removeTemps(dir, entries); err != nil {
			return err
		}
		for _, e := range entries {
			if seed, ok := reproFile(e.Name()); ok && e.Type().IsRegular() {
				if c.files[d.Name()] == nil {
					c.files[d.Name()] = map[uint64]bool{}
				}
				c.files[d.Name()][seed] = true
			}
		}
	}
	return nil
}

// reproFile parses "seed-<S>.json".
func reproFile(name string) (uint64, bool) {
	num, ok := strings.CutPrefix(name, "seed-")
	if !ok {
		return 0, false
	}
	if num, ok = strings.CutSuffix(num, ".json"); !ok {
		return 0, false
	}
	s, err := strconv.ParseUint(num, 10, 64)
	return s, err == nil && strconv.FormatUint(s, 10) == num
}

// ReproducerPath and TracePath are where a group's seed is kept, relative
// to the campaign directory.
func ReproducerPath(slug string, seed uint64) string { return seedFile(slug, seed, ".json") }

// PagePath is where a kept seed's HTML page is: see ReproducerPath.
func PagePath(slug string, seed uint64) string { return seedFile(slug, seed, ".html") }

// TracePath is where a kept seed's readable trace is: see ReproducerPath.
func TracePath(slug string, seed uint64) string { return seedFile(slug, seed, ".trace.txt") }

func seedFile(slug string, seed uint64, ext string) string {
	return path.Join(FailuresDir, slug, "seed-"+strconv.FormatUint(seed, 10)+ext)
}

// Run runs the campaign until its shard of the range is done, its duration
// is spent, ctx is cancelled or a run fails to run (an error of the
// harness, not a verdict). It stops handing out seeds, waits for those
// running, saves the state and returns the report. Run may be called once.
func (c *Campaign) Run(ctx context.Context) (*Report, error) {
	c.mu.Lock()
	if !c.began.IsZero() {
		c.mu.Unlock()
		return nil, errors.New("campaign: Run called twice")
	}
	c.began = time.Now()
	c.mu.Unlock()
	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	if c.cfg.Duration > 0 {
		var cancelDeadline context.CancelFunc
		runCtx, cancelDeadline = context.WithDeadline(runCtx, c.began.Add(c.cfg.Duration-c.prior))
		defer cancelDeadline()
	}
	var errMu sync.Mutex
	var firstErr error
	fail := func(err error) {
		errMu.Lock()
		if firstErr == nil {
			firstErr = err
		}
		errMu.Unlock()
		cancel()
	}
	stopSaver, saverDone := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(saverDone)
		tick := time.NewTicker(c.cfg.SaveInterval)
		defer tick.Stop()
		for {
			select {
			case <-stopSaver:
				return
			case <-tick.C:
				c.mu.Lock()
				c.memory.sample(c.session)
				c.mu.Unlock()
				if err := c.save(); err != nil {
					fail(fmt.Errorf("campaign: saving the state: %w", err))
					return
				}
			}
		}
	}()
	if err := harness.Work(runCtx, c.cfg.Workers, func() (uint64, bool) { return c.take(runCtx) }, c.runIndex); err != nil {
		fail(err)
	}
	close(stopSaver)
	<-saverDone
	c.mu.Lock()
	c.ended, c.stopped = time.Since(c.began), true
	c.memory.sample(c.session)
	c.mu.Unlock()
	if err := c.save(); err != nil && firstErr == nil {
		firstErr = fmt.Errorf("campaign: saving the state: %w", err)
	}
	return c.Report(), firstErr
}

// take hands out the next seed not done, in order.
func (c *Campaign) take(ctx context.Context) (uint64, bool) {
	if ctx.Err() != nil {
		return 0, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for c.cursor < c.total {
		k := c.cursor
		c.cursor++
		if !c.done.has(k) {
			return k, true
		}
	}
	return 0, false
}

// seedRun is one seed's outcome as the campaign counts it.
type seedRun struct {
	seed    uint64
	o       *harness.Outcome
	counts  Counts
	fail    bool   // not a pass
	key     string // the signature's text
	verdict string
	sig     harness.Signature
	nondet  bool
	hashes  [2]uint64
	// coverage and reached are the run's coverage sets and the points it
	// reached (harness.Outcome), kept when its result is released.
	coverage []harness.CoverageSet
	reached  sim.Coverage
}

// runIndex runs the shard's k-th seed, keeps its failure and marks it done.
func (c *Campaign) runIndex(k uint64) error {
	r, err := c.runSeed(c.cfg.Shard.Seed(c.cfg.Start, k))
	if err != nil {
		return err
	}
	var g *group
	if r.fail {
		if g, err = c.keep(&r); err != nil {
			return err
		}
	} else {
		r.o.Result.Release() // counted: later seeds reuse its buffers
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.done.add(k) {
		c.counts.Add(r.counts)
		if err := c.coverage.Add(r.coverage, r.reached, r.seed); err != nil {
			return fmt.Errorf("campaign: %s seed %d: %w", c.cfg.Scenario.Name, r.seed, err)
		}
		c.session++
		if g != nil {
			g.Count++
			g.FirstSeeds = insertSeed(g.FirstSeeds, r.seed)
		}
	}
	return nil
}

// runSeed runs a seed (twice, checking determinism) and judges it. A panic
// of the harness itself (protocol panics are the simulator's to catch) is
// an error, as is a run that cannot be set up.
func (c *Campaign) runSeed(seed uint64) (r seedRun, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("campaign: %s seed %d: harness panic: %v\n%s", c.cfg.Scenario.Name, seed, p, debug.Stack())
		}
	}()
	o, err := harness.RunSeed(c.cfg.Scenario, seed, false)
	if err != nil {
		return r, fmt.Errorf("campaign: %s seed %d: %w", c.cfg.Scenario.Name, seed, err)
	}
	r = seedRun{seed: seed, o: o, sig: harness.SignatureOf(o), coverage: o.Coverage, reached: o.Reached}
	if c.cfg.CheckDeterminism {
		again, err := harness.RunSeed(c.cfg.Scenario, seed, false)
		if err != nil {
			return r, fmt.Errorf("campaign: %s seed %d (second run): %w", c.cfg.Scenario.Name, seed, err)
		}
		// The trace hashes, not the verdicts: a verdict may also depend on
		// the wall-clock bound of the S3 check (Inconclusive).
		r.hashes = [2]uint64{o.Result.Hash(), again.Result.Hash()}
		r.nondet = r.hashes[0] != r.hashes[1]
		again.Result.Release()
	}
	r.counts = schema.CountsOf(o)
	if r.nondet {
		*r.counts.Of(o.Verdict), r.counts.Nondeterministic = 0, 1
		r.sig = harness.Signature{Verdict: Nondeterministic}
	}
	r.fail = r.counts.Pass == 0
	r.verdict, r.key = r.sig.Verdict, r.sig.String()
	return r, nil
}

// keep finds the failure's group and, if the group has room and the seed
// no reproducer yet, writes its trace and reproducer.
func (c *Campaign) keep(r *seedRun) (*group, error) {
	c.mu.Lock()
	g := c.groups[r.key]
	if g == nil {
		slug := Slug(r.verdict, r.sig.Checkers)
		g = &group{slug: slug, Group: Group{Signature: r.key, Verdict: r.verdict, Checkers: slices.Clone(r.sig.Checkers),
			FirstSeeds: []uint64{}, Dir: path.Join(FailuresDir, slug)}}
		c.groups[r.key] = g
	}
	if c.files[g.slug] == nil {
		c.files[g.slug] = map[uint64]bool{}
	}
	files := c.files[g.slug]
	write := !files[r.seed] && len(files)+g.reserved < c.cfg.Keep
	if write {
		g.reserved++
	}
	c.mu.Unlock()
	if !write {
		return g, nil
	}
	err := c.writeFailure(g.slug, r)
	c.mu.Lock()
	g.reserved--
	if err == nil {
		files[r.seed] = true
	}
	c.mu.Unlock()
	return g, err
}

// writeFailure writes a failing seed's trace and HTML page, then its
// reproducer, each atomically: a reproducer on disk always has its trace
// and page beside it.
func (c *Campaign) writeFailure(slug string, r *seedRun) error {
	if err := os.MkdirAll(filepath.Join(c.cfg.Dir, FailuresDir, slug), 0o755); err != nil {
		return err
	}
	traced, err := harness.RunSeed(c.cfg.Scenario, r.seed, true)
	if err != nil {
		return fmt.Errorf("campaign: %s seed %d (traced run): %w", c.cfg.Scenario.Name, r.seed, err)
	}
	var buf bytes.Buffer
	if r.nondet {
		fmt.Fprintf(&buf, "# nondeterministic: two runs of %s seed %d gave trace hashes %016x and %016x; the trace below is of a third run\n",
			r.o.Scenario, r.seed, r.hashes[0], r.hashes[1])
	}
	if h, h0 := traced.Result.Hash(), r.o.Result.Hash(); h != h0 {
		fmt.Fprintf(&buf, "# nondeterministic: this run's trace hash %016x differs from the campaign run's %016x\n", h, h0)
	}
	if err := c.cfg.WriteTrace(&buf, traced); err != nil {
		return err
	}
	if err := harness.WriteFileAtomic(filepath.Join(c.cfg.Dir, filepath.FromSlash(TracePath(slug, r.seed))), buf.Bytes()); err != nil {
		return err
	}
	buf.Reset()
	title := fmt.Sprintf("%s seed %d: %s", traced.Scenario, r.seed, traced.Verdict)
	replay := harness.Repro{Program: c.cfg.Program, File: filepath.Join(c.cfg.Dir, filepath.FromSlash(ReproducerPath(slug, r.seed)))}
	if err := htmlreport.WriteOptions(&buf, title, traced, htmlreport.Options{Replay: replay.Command(), Scenario: &c.cfg.Scenario}); err != nil {
		return err
	}
	if err := harness.WriteFileAtomic(filepath.Join(c.cfg.Dir, filepath.FromSlash(PagePath(slug, r.seed))), buf.Bytes()); err != nil {
		return err
	}
	rep := harness.ReproducerFor(c.cfg.Scenario, r.o)
	if r.o.Verdict == harness.Inconclusive {
		// Inconclusive depends on the S3 check's wall-clock bound, and
		// reproducer files expect only verdicts a run decides by itself.
		rep.Expect = nil
	}
	data, err := rep.Marshal()
	if err != nil {
		return err
	}
	return harness.WriteFileAtomic(filepath.Join(c.cfg.Dir, filepath.FromSlash(ReproducerPath(slug, r.seed))), data)
}

// WriteTrace is the default Config.WriteTrace: harness.WriteTrace.
func WriteTrace(w io.Writer, o *harness.Outcome) error { return harness.WriteTrace(w, o) }

// elapsedLocked is the campaign's wall time over all sessions.
func (c *Campaign) elapsedLocked() time.Duration {
	switch {
	case c.stopped:
		return c.prior + c.ended
	case !c.began.IsZero():
		return c.prior + time.Since(c.began)
	}
	return c.prior
}

func (c *Campaign) stateLocked() *State {
	st := &State{Version: StateVersion, Scenario: c.cfg.Scenario.Name, Shard: c.cfg.Shard, Start: c.cfg.Start,
		Seeds: c.cfg.Seeds, CheckDeterminism: c.cfg.CheckDeterminism, FailOutside: c.cfg.FailOutside, Duration: faults.Duration(c.cfg.Duration),
		Elapsed: faults.Duration(c.elapsedLocked()), Counts: c.counts, Groups: c.groupsLocked(), Coverage: c.coverageLocked(),
		Done: DoneSeeds{Count: c.done.count(), Next: c.cfg.Shard.Seed(c.cfg.Start, c.done.next)}}
	for _, k := range c.done.above {
		st.Done.Above = append(st.Done.Above, c.cfg.Shard.Seed(c.cfg.Start, k))
	}
	return st
}

// groupsLocked is a copy of the groups that counted a seed, sorted.
func (c *Campaign) groupsLocked() []Group {
	gs := []Group{}
	for _, g := range c.groups {
		if g.Count == 0 {
			continue // found, but not yet counted
		}
		cg := g.Group
		cg.Checkers, cg.FirstSeeds = slices.Clone(g.Checkers), slices.Clone(g.FirstSeeds)
		gs = append(gs, cg)
	}
	sortGroups(gs)
	return gs
}

// coverageLocked is a copy of the campaign's coverage, or nil if no seed
// counted any.
func (c *Campaign) coverageLocked() *schema.Coverage {
	if len(c.coverage.Sets) == 0 {
		return nil
	}
	cp := &schema.Coverage{}
	_ = cp.Merge(&c.coverage) // a copy: the sets are one campaign's
	return cp
}

// Report returns the campaign's report as it stands.
func (c *Campaign) Report() *Report {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.reportLocked()
}

func (c *Campaign) reportLocked() *Report {
	r := &Report{Header: schema.NewHeader(schema.CommandCampaign), Scenario: c.cfg.Scenario.Name, Shards: []Shard{c.cfg.Shard}, Start: c.cfg.Start,
		Seeds: c.cfg.Seeds, CheckDeterminism: c.cfg.CheckDeterminism, FailOutside: c.cfg.FailOutside, Complete: c.cfg.Seeds > 0 && c.done.count() == c.total,
		SeedsRun: c.counts.Seeds(), Counts: c.counts, Groups: c.groupsLocked(), Coverage: c.coverageLocked()}
	if wall := c.elapsedLocked(); wall > 0 {
		r.Wall = faults.Duration(wall)
		r.SeedsPerSecond = float64(r.SeedsRun) / wall.Seconds()
	}
	if c.memory.m.Samples > 0 {
		m := c.memory.m
		r.Memory = &m
	}
	for i := range r.Groups {
		g := &r.Groups[i]
		slug := c.groups[g.Signature].slug
		for _, s := range slices.Sorted(maps.Keys(c.files[slug])) {
			g.Reproducers = append(g.Reproducers, ReproducerPath(slug, s))
		}
		g.Replay = harness.Repro{Program: c.cfg.Program, Scenario: c.cfg.Scenario.Name, Seed: g.FirstSeeds[0], Flags: replayFlags(c.cfg.FailOutside)}.Command()
	}
	return r
}

// save writes state.json, then report.json, each atomically.
func (c *Campaign) save() error {
	c.saveMu.Lock()
	defer c.saveMu.Unlock()
	c.mu.Lock()
	st, rep := c.stateLocked(), c.reportLocked()
	c.mu.Unlock()
	data, err := marshal(st)
	if err != nil {
		return err
	}
	if err := harness.WriteFileAtomic(filepath.Join(c.cfg.Dir, StateFile), data); err != nil {
		return err
	}
	if data, err = rep.Marshal(); err != nil {
		return err
	}
	return harness.WriteFileAtomic(filepath.Join(c.cfg.Dir, ReportFile), data)
}

// Progress is a running campaign's progress.
type Progress struct {
	Scenario string
	Shard    Shard
	// Done is the number of seeds done over all sessions, Total the
	// shard's (0: unbounded), Session those done by this session.
	Done, Total, Session uint64
	// Failures are the seeds that did not pass (all sessions), in
	// Signatures groups.
	Failures   uint64
	Signatures int
	// Elapsed is the wall time over all sessions, SessionElapsed this
	// session's; Budget the Duration (0: none).
	Elapsed, SessionElapsed, Budget time.Duration
}

// Progress returns the campaign's progress now.
func (c *Campaign) Progress() Progress {
	c.mu.Lock()
	defer c.mu.Unlock()
	p := Progress{Scenario: c.cfg.Scenario.Name, Shard: c.cfg.Shard, Done: c.done.count(), Session: c.session,
		Failures: c.counts.Failures(), Elapsed: c.elapsedLocked(), Budget: c.cfg.Duration}
	if c.cfg.Seeds > 0 {
		p.Total = c.total
	}
	for _, g := range c.groups {
		if g.Count > 0 {
			p.Signatures++
		}
	}
	p.SessionElapsed = p.Elapsed - c.prior
	return p
}

// Rate is this session's seeds per second.
func (p Progress) Rate() float64 {
	if p.SessionElapsed <= 0 {
		return 0
	}
	return float64(p.Session) / p.SessionElapsed.Seconds()
}

// ETA estimates the wall time left: the seeds left at this session's rate,
// or the budget left if that is sooner. ok is false if there is no
// estimate (no count, or no rate yet).
func (p Progress) ETA() (eta time.Duration, ok bool) {
	rate := p.Rate()
	if p.Total == 0 || rate <= 0 {
		return 0, false
	}
	eta = time.Duration(float64(p.Total-p.Done) / rate * float64(time.Second))
	if p.Budget > 0 {
		eta = min(eta, max(p.Budget-p.Elapsed, 0))
	}
	return eta, true
}
