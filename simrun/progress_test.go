package simrun

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestProgressReportLine: one format for every command's progress: done
// of the total, the rate, the failures, what the work is made of, the
// time spent and left.
func TestProgressReportLine(t *testing.T) {
	for _, c := range []struct {
		r    progressReport
		want string
	}{
		{progressReport{Label: "swarm", Unit: "seeds", Done: 1200, Total: 10000, Failures: 2, Rate: 410, Elapsed: 3 * time.Second, ETA: 21 * time.Second, HasETA: true},
			"swarm: 1200/10000 seeds, 410 seeds/s, 2 failures, elapsed 3s, eta 21s"},
		{progressReport{Label: "swarm 3/8", Unit: "seeds", Done: 50, Rate: 10.4, Elapsed: 5 * time.Second, Extra: "1 signatures"},
			"swarm 3/8: 50 seeds, 10 seeds/s, 0 failures, 1 signatures, elapsed 5s"},
		{progressReport{Label: "shrink a.json", Unit: "runs", Done: 7, Total: 2000, Rate: 7, Elapsed: time.Second, NoFailures: true},
			"shrink a.json: 7/2000 runs, 7 runs/s, elapsed 1s"},
	} {
		if got := c.r.String(); got != c.want {
			t.Errorf("report = %q, want %q", got, c.want)
		}
	}
	p := newProgress("zoo", "seeds", 100)
	p.partsTotal, p.partUnit = 12, "scenarios"
	for i := range 10 {
		p.add(i%5 == 0)
	}
	p.finishPart()
	r := p.report()
	if r.Done != 10 || r.Failures != 2 || r.Total != 100 || !r.HasETA || r.Extra != "1 of 12 scenarios done" {
		t.Fatalf("after 10 seeds, 2 failed, 1 scenario done: %+v", r)
	}
}

// ticks returns a ticker for progress reports that ticks as the test
// sends on the channel.
func ticks() (chan time.Time, func(bool) (<-chan time.Time, func())) {
	ch := make(chan time.Time)
	return ch, func(bool) (<-chan time.Time, func()) { return ch, func() {} }
}

// TestProgressPrinter: without a terminal, a line per tick, nothing at the
// stop; on a terminal, the line redrawn in place at each tick, and ended at
// the stop; -quiet, nothing. The ticks are the test's: no wall time.
func TestProgressPrinter(t *testing.T) {
	for _, tty := range []bool{false, true} {
		cli := testCLI()
		ch, ticker := ticks()
		cli.ticker = ticker
		p := newProgress("swarm", "seeds", 100)
		var w bytes.Buffer
		// drawn says that the printer read the progress for a line: the
		// test goes on only then, so that each line shows what it expects.
		drawn := make(chan struct{}, 8)
		stop := cli.printProgress(&w, tty, func() progressReport {
			r := p.report()
			drawn <- struct{}{}
			return r
		})
		for range 10 {
			p.add(false)
		}
		ch <- time.Time{}
		<-drawn
		p.add(true)
		ch <- time.Time{}
		<-drawn
		stop()
		lines := regexp.MustCompile(`swarm: (\d+)/100 seeds, \d+ seeds/s, (\d) failures, elapsed \d+s(, eta \d+s)?`).FindAllStringSubmatch(w.String(), -1)
		switch {
		case !tty && (len(lines) != 2 || lines[0][1] != "10" || lines[1][1] != "11" || lines[1][2] != "1" || strings.Count(w.String(), "\n") != 2):
			t.Errorf("no terminal: %q; want two lines, of 10 and 11 seeds", w.String())
		case tty && (len(lines) != 3 || strings.Count(w.String(), "\r") != 3 || !strings.HasSuffix(w.String(), "\n") || strings.Count(w.String(), "\n") != 1):
			t.Errorf("terminal: %q; want the line drawn three times in place, then ended", w.String())
		}
	}
	cli := testCLI()
	_, cli.ticker = ticks()
	var w bytes.Buffer
	cli.showProgress(&w, true, newProgress("swarm", "seeds", 1).report)()
	if w.Len() != 0 {
		t.Errorf("quiet: %q", w.String())
	}
}

// TestEveryLongCommandReportsProgress: run, campaign, zoo, explore,
// coverage, bench and shrink each print their progress report on stderr
// when it ticks (here once, at once), and none with -quiet.
func TestEveryLongCommandReportsProgress(t *testing.T) {
	dir := t.TempDir()
	repro := filepath.Join(dir, "r.json")
	if code, _, errOut := simrun("replay", "-scenario", "naive-skew", "-seed", "1", "-o", repro); code != 1 {
		t.Fatalf("replay -o: exit %d: %s", code, errOut)
	}
	for _, c := range []struct {
		args  []string
		label string
	}{
		{[]string{"run", "-scenario", "reference", "-seeds", "4"}, "reference: "},
		{[]string{"campaign", "-out", filepath.Join(dir, "c"), "-scenario", "reference", "-seeds", "4"}, "reference 0/1: "},
		{[]string{"zoo", "-seeds", "2"}, "zoo: "},
		{[]string{"explore", "-depth", "4", "-executions", "5"}, "explore reference: "},
		{[]string{"coverage", "-scenario", "reference", "-seeds", "4"}, "reference: "},
		{[]string{"bench", "-scenario", "reference", "-seeds", "4"}, "reference: "},
		{[]string{"shrink", repro, "-budget", "5", "-o", filepath.Join(dir, "min.json")}, "shrink " + repro + ": "},
	} {
		for _, quiet := range []bool{false, true} {
			cli := testCLI()
			cli.ticker = func(bool) (<-chan time.Time, func()) {
				ch := make(chan time.Time, 1)
				ch <- time.Time{}
				return ch, func() {}
			}
			args := c.args
			if quiet {
				args = append(args[:len(args):len(args)], "-quiet")
			}
			os.RemoveAll(filepath.Join(dir, "c"))
			var out, errOut bytes.Buffer
			code := cli.run(args, &out, &errOut)
			if code == exitUsage || code == exitCrashed {
				t.Fatalf("simrun %q: exit %d: %s", args, code, errOut.String())
			}
			reported := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(c.label) + `\d+(/\d+)? \w+, \d+ \w+/s`).MatchString(errOut.String())
			if reported == quiet {
				t.Errorf("simrun %q: progress reported %v; stderr:\n%s", args, reported, errOut.String())
			}
		}
	}
}
