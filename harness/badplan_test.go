package harness_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/s3lease/s3lease/faults"
	"github.com/s3lease/s3lease/harness"
	"github.com/s3lease/s3lease/harness/elector"
	"github.com/s3lease/s3lease/protocol"
	"github.com/s3lease/s3lease/zoo"
)

// TestBadPlansAreRefused: a plan that gives a node an identity or
// settings the protocol's own configuration refuses is not run: RunSetup
// returns ErrBadPlan, naming the part of the plan and the rule. The same
// plans within the rules run.
func TestBadPlansAreRefused(t *testing.T) {
	p := elector.Protocol(elector.DefaultSettings)
	heal := faults.Duration(20 * time.Second)
	longest := strings.Repeat("x", protocol.MaxIdentityLen)
	names := func(first string) []string { return []string{first, "n1", "n2"} }
	for _, c := range []struct {
		name string
		plan faults.Plan
		says string // "" if it runs
	}{
		{"longest name", faults.Plan{Names: names(longest)}, ""},
		{"name too long", faults.Plan{Names: names(longest + "y")}, "names[0] gives node 0 an identity of 1025 bytes"},
		{"name not UTF-8", faults.Plan{Names: names("n\xff")}, "names[0] gives node 0 an identity that is not UTF-8"},
		{"restart too long", faults.Plan{Events: []faults.Event{{Kind: faults.Restart, At: faults.Duration(time.Second), Node: 1, Identity: longest + "y"}}},
			"events[0].identity gives node 1 an identity of 1025 bytes"},
		{"suffix too long", faults.Plan{Names: names(longest), Events: []faults.Event{{Kind: faults.Crash, At: faults.Duration(time.Second), For: faults.Duration(time.Second), Node: 0, Identity: "-r"}}},
			"events[0].identity gives node 0 an identity of 1026 bytes"},
		{"suffix at a role", faults.Plan{Names: names(longest[:1023]), Events: []faults.Event{{Kind: faults.Crash, At: faults.Duration(time.Second), For: faults.Duration(time.Second), Role: faults.RoleLeader, Identity: "-r"}}},
			"events[0].identity gives node 0 an identity of 1025 bytes"},
		{"settings refused", faults.Plan{Settings: []faults.Settings{{Node: 2, Lease: faults.Duration(time.Second), RenewDeadline: faults.Duration(2 * time.Second), RetryPeriod: faults.Duration(300 * time.Millisecond)}}},
			"settings[0] (node 2): protocol \"elector\" refuses them: s3lease: invalid config: RenewDeadline (2s) must be less than LeaseDuration (1s)"},
	} {
		plan := c.plan
		plan.HealAt = heal
		cfg := harness.World(1)
		cfg.Nodes, cfg.Duration = 3, 40*time.Second
		o, err := harness.RunSetup(harness.Setup{Config: cfg, Plan: &plan, Protocol: p}, false)
		switch {
		case c.says == "" && err != nil:
			t.Errorf("%s: %v; want it run", c.name, err)
		case c.says == "" && o.Verdict != harness.Pass:
			t.Errorf("%s: %s; want a pass", c.name, harness.SignatureOf(o))
		case c.says != "" && (!errors.Is(err, harness.ErrBadPlan) || !errors.Is(err, harness.ErrInvalidSetup) || !strings.Contains(err.Error(), c.says)):
			t.Errorf("%s: %v; want ErrBadPlan saying %q", c.name, err, c.says)
		}
	}
	// A protocol that states no longest identity takes any.
	q := zoo.Careful().Protocol()
	cfg := harness.World(1)
	cfg.Nodes, cfg.Duration = 3, 40*time.Second
	if _, err := harness.RunSetup(harness.Setup{Config: cfg, Plan: &faults.Plan{HealAt: heal, Names: names(longest + "y")}, Protocol: q}, false); err != nil {
		t.Errorf("the careful lock, which states no longest identity, refuses a long one: %v", err)
	}
}

// TestGeneratorDrawsNoBadPlan: over many seeds, the generator (faults.Draw,
// with the settings the protocol's Configure takes) never draws a plan the
// protocol refuses, for the elector (settings, names up to the longest,
// restarts under new identities) and for the zoo's careful lock.
func TestGeneratorDrawsNoBadPlan(t *testing.T) {
	const seeds = 5000
	for _, p := range []harness.Protocol{elector.Protocol(elector.DefaultSettings), zoo.Careful().Protocol()} {
		longest, settings := 0, 0
		for seed := uint64(1); seed <= seeds; seed++ {
			d := harness.DrawRun(faults.NewSource(seed), seed, p)
			if err := d.Check(); err != nil {
				t.Fatalf("%s seed %d: %v", p.Name, seed, err)
			}
			for _, n := range d.Plan.Names {
				if len(n) == p.MaxIdentityLen {
					longest++
				}
			}
			if len(d.Plan.Settings) > 0 {
				settings++
			}
		}
		t.Logf("%s: %d seeds, %d names of the longest length, %d plans with settings", p.Name, seeds, longest, settings)
		if settings == 0 || p.MaxIdentityLen > 0 && longest == 0 {
			t.Errorf("%s: %d names of the longest length, %d plans with settings; the test draws nothing near the rules", p.Name, longest, settings)
		}
	}
}

// TestCheckRefusesBadPlanReproducer: Check replaying (-harness.replay) a
// reproducer whose plan the protocol refuses fails, saying which part of
// the plan and which rule, without running it.
func TestCheckRefusesBadPlanReproducer(t *testing.T) {
	p := elector.Protocol(elector.DefaultSettings)
	path := filepath.Join(t.TempDir(), "bad.json")
	rep := `{"version":1,"scenario":"elector","seed":1,"plan":{"healAt":"30s","names":["` + strings.Repeat("x", protocol.MaxIdentityLen+1) + `","n1","n2","n3","n4"]}}`
	if err := os.WriteFile(path, []byte(rep), 0o644); err != nil {
		t.Fatal(err)
	}
	setFlag(t, "harness.replay", path)
	rec := &harness.Recorder{TestName: "TestUser"}
	harness.Check(rec, p)
	rec.Done()
	if !rec.Failed() || !strings.Contains(rec.Errors(), "names[0] gives node 0 an identity of 1025 bytes") || strings.Contains(rec.Logs(), "verdict:") {
		t.Errorf("Check -harness.replay of a bad plan: failed %v, errors %q, logs %.300q; want a failure naming names[0], no run", rec.Failed(), rec.Errors(), rec.Logs())
	}
}
