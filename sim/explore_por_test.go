package sim

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/s3"
	"pgregory.net/rapid"
)

// The tests of this file compare the explorer with and without
// partial-order reduction on small scripted runs: nodes that read, write,
// list and delete two keys, lead and write to the fenced resource, and
// wait on timers, all with fixed latencies so that many events fall on one
// instant. Exhausted without a depth bound, both searches must reach the
// same set of outcomes (each the run's history as a set of timed entries,
// and the store's final contents).

// porOpKind is one step of a scripted node.
type porOpKind int

const (
	porGet porOpKind = iota
	porHead
	porPut    // unconditional
	porCAS    // If-Match the last ETag the node saw of the key, If-None-Match * if none
	porDelete // unconditional
	porList   // every key
	porLead   // lead for 3 ms with a token, writing to the fenced resource each ms
	porTimed  // a GetObject under a 2 ms timeout (a timer racing the answer)
	porKinds
)

type porOp struct {
	kind  porOpKind
	key   string
	sleep time.Duration // before the step
	token uint64
}

func (o porOp) String() string {
	return fmt.Sprintf("%v:%d:%s+%v", o.sleep, o.kind, o.key, o.token)
}

// porScript is a scripted run: each node's steps, and whether S3 may
// refuse a conditional write that overlaps another (a fault the explorer
// enumerates, reading the count of writes in flight).
type porScript struct {
	nodes   [][]porOp
	overlap bool
}

// drawScript makes a script from draw, which returns an integer in
// [lo, hi].
func drawScript(draw func(lo, hi int, label string) int) porScript {
	var s porScript
	n := draw(2, 3, "nodes")
	for i := range n {
		var ops []porOp
		for j := range draw(1, 3, fmt.Sprintf("steps of n%d", i)) {
			ops = append(ops, porOp{
				kind:  porOpKind(draw(0, int(porKinds)-1, fmt.Sprintf("n%d step %d", i, j))),
				key:   []string{"a", "b"}[draw(0, 1, "key")],
				sleep: time.Duration(draw(0, 2, "sleep")) * time.Millisecond,
				token: uint64(draw(1, 3, "token")),
			})
		}
		s.nodes = append(s.nodes, ops)
	}
	s.overlap = draw(0, 1, "overlap faults") == 1
	return s
}

// overlapFaults refuses, when the explorer says so, a conditional write
// sent while another on its key is in flight.
type overlapFaults struct{}

func (overlapFaults) RequestFault(w *World, r Request) RequestFault {
	if r.Conditional && r.Write && r.InFlight > 0 && w.Chooser().Choose(ChooseFault, 2) == 0 {
		return RequestFault{Fate: RefusedBefore, Err: ConditionalRequestConflict}
	}
	return RequestFault{}
}

func (s porScript) candidate(ctx context.Context, env Env) error {
	seen := map[string]string{}
	for i, op := range s.nodes[env.Node] {
		if op.sleep > 0 {
			if err := env.Clock.Sleep(ctx, op.sleep); err != nil {
				return nil
			}
		}
		b, k := env.Bucket, op.key
		switch op.kind {
		case porGet, porTimed:
			c, cancel := ctx, context.CancelFunc(func() {})
			if op.kind == porTimed {
				c, cancel = env.Clock.WithTimeout(ctx, 2*time.Millisecond)
			}
			out, err := env.Store.GetObject(c, &s3.GetObjectInput{Bucket: &b, Key: &k})
			cancel()
			if err == nil {
				seen[k] = *out.ETag
			}
		case porHead:
			if out, err := env.Store.HeadObject(ctx, &s3.HeadObjectInput{Bucket: &b, Key: &k}); err == nil {
				seen[k] = *out.ETag
			}
		case porPut, porCAS:
			in := &s3.PutObjectInput{Bucket: &b, Key: &k, Body: strings.NewReader(fmt.Sprintf("n%d step %d", env.Node, i))}
			if op.kind == porCAS {
				if e, ok := seen[k]; ok {
					in.IfMatch = &e
				} else {
					star := "*"
					in.IfNoneMatch = &star
				}
			}
			if out, err := env.Store.PutObject(ctx, in); err == nil {
				seen[k] = *out.ETag
			}
		case porDelete:
			_, _ = env.Store.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: &b, Key: &k})
			delete(seen, k)
		case porList:
			if out, err := env.Store.ListObjectsV2(ctx, &s3.ListObjectsV2Input{Bucket: &b}); err == nil {
				for _, o := range out.Contents {
					seen[*o.Key] = *o.ETag
				}
			}
		case porLead:
			lctx, cancel := env.Clock.WithTimeout(ctx, 3*time.Millisecond)
			env.Clock.Go(func() {
				env.Lead(lctx, op.token)
				cancel()
			})
		}
	}
	return nil
}

// outcome describes a run as a set: its history's entries, each with its
// times, in a canonical order, and the store's final contents.
func outcome(r *Result, w *World) string {
	h := r.History
	var lines []string
	for _, t := range h.Terms {
		lines = append(lines, fmt.Sprintf("term %+v", t))
	}
	for _, o := range h.S3 {
		lines = append(lines, fmt.Sprintf("s3 %+v", o))
	}
	for _, x := range h.Writes {
		lines = append(lines, fmt.Sprintf("fenced %+v", x))
	}
	for _, f := range h.Faults {
		lines = append(lines, fmt.Sprintf("fault %+v", f))
	}
	slices.Sort(lines)
	for _, k := range []string{"a", "b"} {
		_, etag, ok := w.Store().Object(w.Bucket(), k)
		lines = append(lines, fmt.Sprintf("store %s %v %s", k, ok, etag))
	}
	if r.Failure != nil {
		lines = append(lines, "failure "+r.Failure.Message)
	}
	return strings.Join(lines, "\n")
}

// porSearch is what one exploration of a script reached.
type porSearch struct {
	outcomes   map[string]bool
	executions int
	stopped    int
	pruned     int
	exhausted  bool
}

// explore runs every execution of s that ex enumerates, up to limit.
func (s porScript) explore(t fataler, ex *Explorer, limit int) porSearch {
	t.Helper()
	res := porSearch{outcomes: map[string]bool{}}
	for {
		var w *World
		cfg := Config{Seed: 1, Nodes: len(s.nodes), Duration: 15 * time.Millisecond, Candidate: s.candidate,
			Bucket: "b", Key: "a", S3Request: Latency{Min: time.Millisecond}, S3Response: Latency{Min: time.Millisecond},
			FenceRequest: Latency{Min: time.Millisecond}, FenceResponse: Latency{Min: time.Millisecond},
			WriteInterval: time.Millisecond, MaxSteps: 100_000, Chooser: ex,
			Setup: func(x *World) {
				w = x
				if s.overlap {
					x.SetFaults(overlapFaults{})
				}
			}}
		r, err := Run(cfg)
		if err != nil {
			t.Fatal(err)
		}
		if err := ex.Err(); err != nil {
			t.Fatal(err)
		}
		if !ex.StoppedEarly() {
			res.executions++
			res.outcomes[outcome(r, w)] = true
		}
		if ex.Executions >= limit {
			break
		}
		if !ex.Next() {
			res.exhausted = true
			break
		}
	}
	res.stopped, res.pruned = ex.Stopped, ex.Pruned
	return res
}

// fataler is what the searches need of a test: *testing.T or *rapid.T.
type fataler interface {
	Helper()
	Fatal(args ...any)
}

// porBounds enumerate every order and a fault where the script allows one;
// latencies are fixed, and there is no depth bound.
var porBounds = ExploreBounds{MaxFaults: 1}

const porLimit = 2_000

// compareSearches explores s fully and with reduction (with relation dep),
// and describes the outcomes the reduction missed; "" if none. It reports
// whether the full search was exhausted (the comparison means something).
func compareSearches(t fataler, s porScript, dep dependence) (missed string, full, reduced porSearch) {
	t.Helper()
	b := porBounds
	b.Full = true
	full = s.explore(t, NewExplorer(1, b), porLimit)
	ex := NewExplorer(1, porBounds)
	ex.por.dep = dep
	reduced = s.explore(t, ex, porLimit)
	for o := range full.outcomes {
		if !reduced.outcomes[o] {
			return o, full, reduced
		}
	}
	return "", full, reduced
}

// TestReductionReachesEveryOutcome: on scripted runs drawn at random, the
// reduced search reaches every outcome the full search reaches, with no
// more executions, and reaches nothing else.
func TestReductionReachesEveryOutcome(t *testing.T) {
	var runs, fullExecs, porExecs, stopped int
	rapid.Check(t, func(rt *rapid.T) {
		s := drawScript(func(lo, hi int, label string) int { return rapid.IntRange(lo, hi).Draw(rt, label) })
		missed, full, reduced := compareSearches(rt, s, dependent)
		if !full.exhausted {
			rt.Skipf("the full search of %v takes more than %d executions", s.nodes, porLimit)
		}
		if !reduced.exhausted {
			rt.Fatalf("the reduced search did not finish in %d executions where the full one took %d", porLimit, full.executions)
		}
		if missed != "" {
			rt.Fatalf("the reduced search (%d executions) missed an outcome of the full one (%d):\n%s", reduced.executions, full.executions, missed)
		}
		for o := range reduced.outcomes {
			if !full.outcomes[o] {
				rt.Fatalf("the reduced search reached an outcome the full one did not:\n%s", o)
			}
		}
		if reduced.executions > full.executions {
			rt.Fatalf("the reduced search ran %d executions, the full one %d", reduced.executions, full.executions)
		}
		runs++
		fullExecs += full.executions
		porExecs += reduced.executions
		stopped += reduced.stopped
	})
	t.Logf("%d scripts compared: %d executions of the full searches, %d of the reduced ones (and %d stopped early)", runs, fullExecs, porExecs, stopped)
}

// TestReductionStopsEquivalentExecutions: on two scripts where the sleep
// sets stop executions early as equivalent to ones explored (a timer and a
// fenced write racing an answer), the reduced search still reaches every
// outcome of the full one, and nothing else.
func TestReductionStopsEquivalentExecutions(t *testing.T) {
	for _, s := range []porScript{
		{nodes: [][]porOp{
			{{kind: porLead, key: "a", sleep: time.Millisecond, token: 2}, {kind: porList, sleep: time.Millisecond}},
			{{kind: porTimed, key: "a", sleep: 2 * time.Millisecond}},
		}, overlap: true},
		{nodes: [][]porOp{
			{{kind: porLead, key: "a", token: 2}, {kind: porTimed, key: "b", sleep: time.Millisecond}},
			{{kind: porGet, key: "a", sleep: 2 * time.Millisecond}},
		}, overlap: true},
	} {
		b := porBounds
		b.Full = true
		full := s.explore(t, NewExplorer(1, b), 50_000)
		reduced := s.explore(t, NewExplorer(1, porBounds), 50_000)
		if !full.exhausted || !reduced.exhausted {
			t.Fatalf("%v: a search did not finish (full %d executions, reduced %d)", s.nodes, full.executions, reduced.executions)
		}
		if reduced.stopped == 0 {
			t.Errorf("%v: no execution stopped early", s.nodes)
		}
		if !maps.Equal(full.outcomes, reduced.outcomes) {
			t.Errorf("%v: the full search reached %d outcomes, the reduced one %d, not the same", s.nodes, len(full.outcomes), len(reduced.outcomes))
		}
		t.Logf("%v: full %d executions, reduced %d and %d stopped early, %d pruned, %d outcomes", s.nodes, full.executions,
			reduced.executions, reduced.stopped, reduced.pruned, len(reduced.outcomes))
	}
}

// TestWrongDependenceIsCaught: the comparison can fail. Each relation below
// declares independent two steps that are not (two writes of one key, a
// read and a write of one key, two fenced writes, two steps of one node);
// on a script where the order of such steps matters, the reduced search
// then misses an outcome of the full one, while with the declared relation
// it misses none.
func TestWrongDependenceIsCaught(t *testing.T) {
	ms := time.Millisecond
	wrong := []struct {
		name   string
		skip   func(x, y *access) bool // a conflict the wrong relation ignores
		node   bool                    // the wrong relation ignores nodes
		script porScript
	}{
		{name: "writes of one key commute", skip: func(x, y *access) bool { return x.kind == accKey && y.kind == accKey && x.write && y.write },
			script: porScript{nodes: [][]porOp{{{kind: porPut, key: "a"}}, {{kind: porCAS, key: "a"}}}}},
		{name: "reads see no writes", skip: func(x, y *access) bool { return x.kind == accKey && y.kind == accKey && x.write != y.write },
			script: porScript{nodes: [][]porOp{{{kind: porGet, key: "a"}}, {{kind: porPut, key: "a"}}}}},
		{name: "fenced writes commute", skip: func(x, y *access) bool { return x.kind == accFence },
			script: porScript{nodes: [][]porOp{{{kind: porLead, token: 1}}, {{kind: porLead, token: 2}}}}},
		{name: "steps of one node commute", node: true,
			script: porScript{nodes: [][]porOp{
				{{kind: porList, sleep: ms}, {kind: porTimed, key: "b", sleep: ms}},
				{{kind: porTimed, key: "b"}, {kind: porDelete, key: "a"}, {kind: porDelete, key: "b", sleep: 2 * ms}}}}},
	}
	for _, w := range wrong {
		dep := func(a, b *footprint) bool {
			if a.global || b.global || !w.node && a.nodes&b.nodes != 0 {
				return true
			}
			for i := range a.acc {
				for j := range b.acc {
					if x, y := &a.acc[i], &b.acc[j]; x.conflicts(y) && (w.skip == nil || !w.skip(x, y)) {
						return true
					}
				}
			}
			return false
		}
		missed, full, reduced := compareSearches(t, w.script, dep)
		if !full.exhausted {
			t.Fatalf("%s: the full search of %v did not finish", w.name, w.script.nodes)
		}
		if missed == "" {
			t.Errorf("%s: the reduced search (%d executions) reached every outcome of the full one (%d): the comparison cannot tell this wrong relation",
				w.name, reduced.executions, full.executions)
			continue
		}
		if right, _, _ := compareSearches(t, w.script, dependent); right != "" {
			t.Fatalf("%s: the declared relation misses an outcome of %v too:\n%s", w.name, w.script.nodes, right)
		}
		t.Logf("%s: %d executions instead of %d, an outcome missed:\n%s", w.name, reduced.executions, full.executions, missed)
	}
}
