package relaxedlog

import (
	"context"
	"fmt"
	"hash/fnv"
	"time"

	"github.com/s3lease/s3lease/harness/elector"
	"github.com/s3lease/s3lease/protocol"
	"github.com/s3lease/s3lease/sim"
)

// closeHorizon is how far back a process starts closing bags.
const closeHorizon = 10 * time.Second

// process is one incarnation of a node: an elector per domain it wants,
// the writer of its leases, a closer and a reader.
type process struct {
	cfg    Config
	env    sim.Env
	client *Client
	writer *Writer
	reader *Reader
	// electorStore, if set, wraps the store an elector of domain uses
	// (a judge's recorder).
	electorStore func(domain int, s sim.S3Client) sim.S3Client
}

// watch is how a simulation watches the processes of a run, and how a
// story shapes them: both nil-able.
type watch struct {
	// rec records the run's Log.
	rec *Recorder
	// stall, if set, is called on a process after it stamped a message and
	// before it sends it: a story's stand-in for a process that stops
	// between the two (a pause the story times to the bags' closing).
	stall func(env sim.Env, m Message)
	// link, if set, is the store a process's bags client uses in place of
	// the node's: a story's slow link.
	link func(env sim.Env, s sim.S3Client) sim.S3Client
}

// candidate runs the design on a node, watched by w (nil: not watched).
func (c Config) candidate(w *watch) sim.Candidate {
	return func(ctx context.Context, env sim.Env) error {
		store := env.Store
		if w != nil && w.link != nil {
			store = w.link(env, store)
		}
		client, err := NewClient(c, fmt.Sprintf("%d.%d", env.Node, env.Incarnation), env.Clock, store, env.Bucket)
		if err != nil {
			return err
		}
		p := &process{cfg: c, env: env, client: client}
		if w != nil && w.rec != nil {
			client.Hooks, p.electorStore = w.rec.observe(env)
		}
		if w != nil && w.stall != nil {
			stamped := client.Hooks.Stamped
			client.Hooks.Stamped = func(m Message) {
				if stamped != nil {
					stamped(m)
				}
				w.stall(env, m)
			}
		}
		p.writer, p.reader = NewWriter(client), NewReader(client)
		return p.run(ctx)
	}
}

// run runs the process until ctx ends, and returns once every part has.
func (p *process) run(ctx context.Context) error {
	var done []context.Context
	spawn := func(f func()) {
		d, finished := context.WithCancel(context.Background())
		p.env.Clock.Go(func() {
			defer finished()
			f()
		})
		done = append(done, d)
	}
	var errs []error
	for _, i := range p.cfg.wants(p.env.Node) {
		e, err := p.elector(i)
		if err != nil {
			return err
		}
		spawn(func() {
			if err := e.Run(ctx); err != nil {
				errs = append(errs, err)
			}
		})
	}
	spawn(func() { p.every(ctx, p.cfg.WriteEvery, p.write) })
	spawn(func() { p.closeBags(ctx) })
	spawn(func() { p.every(ctx, p.cfg.ReadEvery, p.read) })
	for _, d := range done {
		for p.env.Clock.Sleep(d, time.Hour) == nil {
		}
	}
	if len(errs) > 0 {
		return errs[0]
	}
	return nil
}

// elector is the production elector of domain i for this process: the
// run's lock object for the first domain, whose terms the simulator's
// application leads (Env.Lead), so that the harness judges them.
func (p *process) elector(i int) (*protocol.Elector, error) {
	cfg := p.cfg.Elector.Config(p.env)
	cfg.Key = p.cfg.LockKey(p.env.Key, i)
	if p.electorStore != nil {
		cfg.Store = p.electorStore(i, p.env.Store)
	}
	deadline := NewDeadline(cfg)
	deadline.Hook(&cfg.Metrics)
	name, hooks := p.cfg.Domains[i], p.client.Hooks
	var e *protocol.Elector
	cfg.Callbacks.OnStartedLeading = func(ctx context.Context, lease protocol.Lease) {
		if hooks.Began != nil {
			hooks.Began(name, lease)
		}
		p.writer.Hold(i, e, lease, deadline)
		if i == 0 {
			p.env.Lead(ctx, lease.Token)
		} else {
			for p.env.Clock.Sleep(ctx, time.Hour) == nil {
			}
		}
		if hooks.Ended != nil {
			hooks.Ended(name, lease.Token)
		}
		p.writer.Drop(i, lease.Token, cfg.Assumptions().Term)
	}
	var err error
	if e, err = protocol.NewElector(cfg); err != nil {
		return nil, err
	}
	if i == 0 {
		elector.ReportLease(p.env, e)
	}
	return e, nil
}

// every calls f every period until ctx ends.
func (p *process) every(ctx context.Context, period time.Duration, f func(context.Context)) {
	for p.env.Clock.Sleep(ctx, period) == nil {
		f(ctx)
	}
}

func (p *process) write(ctx context.Context) {
	_, _ = p.writer.Append(ctx) // its outcome goes to the hooks; the next message tries again
}

func (p *process) read(ctx context.Context) {
	_, _ = p.reader.Messages(ctx) // an error (a failed request) is retried at the next reading
}

// closeBags is the closers' metronome: it closes every bag in turn, from
// closeHorizon back, each once the process's wall clock puts it Grace
// past its bucket (plus a jitter below CloseJitter, the process's own for
// the bag, so that closers do not all race), and retries a close that
// fails after a tenth of a second.
func (p *process) closeBags(ctx context.Context) {
	clk := p.env.Clock
	next := p.cfg.BagOf(clk.Now().Add(-closeHorizon))
	for ctx.Err() == nil {
		due := next.Start().Add(p.cfg.Bucket + p.cfg.Grace + p.jitter(next, p.cfg.CloseJitter))
		if wait := due.Sub(clk.Now()); wait > 0 {
			_ = clk.Sleep(ctx, min(wait, time.Second)) // the wall clock may step: look again
			continue
		}
		if _, err := p.client.Close(ctx, next); err != nil {
			_ = clk.Sleep(ctx, 100*time.Millisecond)
			continue
		}
		next += Bag(p.cfg.Bucket.Milliseconds())
	}
}

// jitter is this process's delay for closing bag b: less than limit, from
// its name and the bag.
func (p *process) jitter(b Bag, limit time.Duration) time.Duration {
	if limit <= 0 {
		return 0
	}
	h := fnv.New64a()
	fmt.Fprintf(h, "%s/%d", p.client.name, int64(b))
	return time.Duration(h.Sum64() % uint64(limit))
}
