package htmlreport

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/s3lease/s3lease/faults"
	"github.com/s3lease/s3lease/harness"
	"github.com/s3lease/s3lease/protocol"
	"github.com/s3lease/s3lease/sim"
)

// TestStatementsOnThePage: a protocol that keeps its lock in the row store
// has its statements drawn on its lanes' request rows, captioned "SQL",
// coloured by their answers (a row written, none, a refused connection),
// each with its statement, the server's apply and the answer in its
// tooltip; the legend says so.
func TestStatementsOnThePage(t *testing.T) {
	// Each node claims the row while it is free, every second; a claim
	// that returns a row leads for a second.
	claim := func() sim.Statement {
		return sim.Statement{Op: "claim", Key: "lock", Cond: "free", Apply: func(row any, now time.Time) (any, sim.RowResult) {
			if until, ok := row.(time.Time); ok && now.Before(until) {
				return row, sim.RowResult{Tag: "UPDATE 0"}
			}
			return now.Add(1500 * time.Millisecond), sim.RowResult{Tag: "UPDATE 1", Rows: 1}
		}}
	}
	p := harness.Protocol{Name: "row-claims", NoFencingTokens: true, Assumptions: protocol.Assumptions{Lease: time.Second, MaxPause: time.Second},
		Candidate: func(ctx context.Context, env sim.Env) error {
			for ctx.Err() == nil {
				if r, err := env.Rows.Exec(ctx, claim()); err == nil && r.Rows == 1 {
					lctx, cancel := env.Clock.WithTimeout(ctx, time.Second)
					env.Lead(lctx, 0)
					cancel()
				}
				if env.Clock.Sleep(ctx, time.Second) != nil {
					break
				}
			}
			return nil
		}}
	cfg := harness.World(1)
	cfg.Nodes, cfg.Duration = 2, 6*time.Second
	plan := &faults.Plan{HealAt: faults.Duration(3 * time.Second),
		Events: []faults.Event{{Kind: faults.Partition, At: 0, Node: 1, For: faults.Duration(500 * time.Millisecond)}}}
	o, err := harness.RunSetup(harness.Setup{Config: cfg, Plan: plan, Protocol: p}, true)
	if err != nil {
		t.Fatal(err)
	}
	page := render(t, "row claims", o)
	if !strings.Contains(string(page), "an SQL statement alike") {
		t.Error("the legend does not say how statements are drawn")
	}
	root := parsePage(t, page)
	var caps []string
	for _, c := range root.withClass("row-cap") {
		caps = append(caps, c.textOf())
	}
	if strings.Count(strings.Join(caps, " "), "SQL") != 2 || strings.Contains(strings.Join(caps, " "), "S3") {
		t.Errorf("row captions %q: want SQL on both lanes", caps)
	}
	classes := map[string]int{}
	for _, g := range root.withClass("s3") {
		title := g.children[0].textOf()
		if !strings.Contains(title, "claim lock free by n") {
			t.Errorf("tooltip %q", title)
		}
		for _, c := range []string{"s3-ok", "s3-412", "s3-none"} {
			if g.hasClass(c) {
				classes[c]++
				want := map[string]string{"s3-ok": "applied by the SQL server at", "s3-412": "UPDATE 0: no row", "s3-none": "SQLSTATE 08001"}[c]
				if !strings.Contains(title, want) {
					t.Errorf("%s tooltip %q lacks %q", c, title, want)
				}
			}
		}
	}
	if classes["s3-ok"] == 0 || classes["s3-412"] == 0 || classes["s3-none"] != 1 {
		t.Errorf("statements by class %v: want rows written, none, and the one refused connection", classes)
	}
}
