package relaxedlog

import (
	"context"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/s3lease/s3lease/faults"
	"github.com/s3lease/s3lease/harness"
	"github.com/s3lease/s3lease/sim"
)

// story is a scenario of cfg with instruments of its own: draw makes a
// run and the instruments that shape it, and the run is recorded and
// judged as Config.Scenario's are.
type story struct {
	cfg       Config
	name, doc string
	expect    harness.Expectation
	draw      func(seed uint64, src *faults.Source) (harness.Setup, watch)
}

// story is the story of c named name.
func (c Config) story(name, doc string, expect harness.Expectation, draw func(seed uint64, src *faults.Source) (harness.Setup, watch)) story {
	return story{cfg: c, name: name, doc: doc, expect: expect, draw: draw}
}

// scenario is the story as the harness runs it.
func (s story) scenario() harness.Scenario {
	return harness.Drawn(harness.Scenario{Name: s.name, Doc: s.doc, Expect: s.expect,
		Draw: func(seed uint64, src *faults.Source) harness.Setup {
			su, _ := s.observed(seed, src)
			return su
		}})
}

// observed is the story's run for seed drawn from src, with its recorder.
func (s story) observed(seed uint64, src *faults.Source) (harness.Setup, *Recorder) {
	su, w := s.draw(seed, src)
	return s.cfg.observed(s.name, su, w)
}

// run is the story's run for seed, as the scenario's Build makes it,
// with its recorder.
func (s story) run(seed uint64) (harness.Setup, *Recorder) {
	return s.observed(seed, faults.NewSource(seed))
}

// stage is what a story's instruments share in one run: its world, and
// what they have done. Its start is the run's Config.Setup.
type stage struct {
	w    *sim.World
	held Message       // the message a stall holds or held; Key "" until one is
	seen time.Duration // when the held message's bag's prelock was first seen; -1 before
}

func (st *stage) start(w *sim.World) { *st = stage{w: w, seen: -1} }

// setup is a story's world for seed: nodes for d, its Config.Setup
// starting st.
func (st *stage) setup(seed uint64, nodes int, d time.Duration) sim.Config {
	cfg := harness.World(seed)
	cfg.Nodes, cfg.Duration = nodes, d
	cfg.Setup = st.start
	return cfg
}

// holdLimit bounds how long a stall holds a message.
const holdLimit = time.Minute

// hold is a stall that holds the first message node stamps at or after
// true time from until its bag's prelock exists, and after more: a process
// stopped between stamping and sending, woken as the bag's close begins.
// It looks at the simulated store itself, sending nothing.
func (st *stage) hold(cfg Config, node int, from, after time.Duration) func(sim.Env, Message) {
	return func(env sim.Env, m Message) {
		if env.Node != node || st.held.Key != "" || st.w.Now() < from {
			return
		}
		st.held = m
		prelock := cfg.PrelockObject(cfg.BagOf(m.Stamp))
		for begun := st.w.Now(); st.w.Now()-begun < holdLimit; {
			if _, _, ok := st.w.Store().Object(env.Bucket, prelock); ok && st.seen < 0 {
				st.seen = st.w.Now()
			}
			if st.seen >= 0 && st.w.Now() >= st.seen+after {
				return
			}
			_ = env.Clock.Sleep(context.Background(), 5*time.Millisecond)
		}
	}
}

// slowList is a link on which node's listings of the held message's bag
// reach S3 by late more than the others: a closer slow to list.
func (st *stage) slowList(cfg Config, node int, by time.Duration) func(sim.Env, sim.S3Client) sim.S3Client {
	return func(env sim.Env, s sim.S3Client) sim.S3Client {
		if env.Node != node {
			return s
		}
		return &slowLister{S3Client: s, st: st, cfg: cfg, env: env, by: by}
	}
}

type slowLister struct {
	sim.S3Client
	st  *stage
	cfg Config
	env sim.Env
	by  time.Duration
}

func (l *slowLister) ListObjectsV2(ctx context.Context, in *s3.ListObjectsV2Input, opts ...func(*s3.Options)) (*s3.ListObjectsV2Output, error) {
	if h := l.st.held; h.Key != "" && in != nil && in.Prefix != nil && *in.Prefix == l.cfg.DataPrefix(l.cfg.BagOf(h.Stamp)) {
		if err := l.env.Clock.Sleep(ctx, l.by); err != nil {
			return nil, err
		}
	}
	return l.S3Client.ListObjectsV2(ctx, in, opts...)
}

// partitioned cuts nodes off from S3 from at for d.
func partitioned(at, d time.Duration, nodes ...int) []faults.Event {
	var out []faults.Event
	for _, n := range nodes {
		out = append(out, faults.Event{Kind: faults.Partition, At: faults.Duration(at), Node: n, For: faults.Duration(d)})
	}
	return out
}
