package simrun

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/s3lease/s3lease/harness"
	nightly "github.com/s3lease/s3lease/internal/campaign"
	"github.com/s3lease/s3lease/internal/cmdline"
	"github.com/s3lease/s3lease/internal/schema"
)

const campaignUsage = `usage:
  simrun campaign -out DIR [-scenario NAME] [-seeds N] [-duration D] [-start S] [-workers N] [-shard I/N] [-keep K] [-check-determinism] [-fail-outside] [-junit FILE] [-json] [-coverage]

Runs a scenario's seeds as the nightly job does: the -seeds seeds from
-start; with -duration alone, every seed from -start until the duration is
spent; with both, the range, cut short by the duration. With -shard I/N it
runs only the seeds s of the range with (s - start) % N == I, so that N
machines cover the range exactly once ('simrun merge' adds up their
reports). Everything is kept in DIR, each file written atomically:

  DIR/state.json                               progress (and coverage), saved twice a second and at exit
  DIR/report.json                              the report, saved with the state, coverage included
  DIR/failures/<signature>/seed-S.json         a failing seed's reproducer ('simrun replay FILE')
  DIR/failures/<signature>/seed-S.trace.txt    its readable trace
  DIR/failures/<signature>/seed-S.html         its page: verdict, timeline, S3 history, plan, trace

Failures are grouped by signature: each group counts all its seeds and
keeps the first -keep reproducers, each with its trace and page. Running the same command again on DIR
resumes a campaign that was stopped or killed: the seeds done are skipped,
and counted. -duration is the campaign's wall time over all its sessions.
SIGINT or SIGTERM stop it cleanly: the running seeds finish, the state and
the report are saved, the summary printed, and the exit status is 130
(SIGINT) or 143 (SIGTERM), as shells expect; a second signal kills at once.
Progress goes to stderr (a line redrawn twice a second on a terminal, a
line every 5 s otherwise; -quiet: none); the summary to stdout.

Exit status: 0 every seed passed; 1 an unsafe seed; 2 usage (bad flags, a
DIR that cannot be written or holds another campaign's state); 3 liveness
failures (and no unsafe, crashed or nondeterministic seed); 4 crashes or
nondeterminism (and no unsafe seed), or an error of the harness; 5 only
inconclusive seeds.

flags:
`

const mergeUsage = `usage:
  simrun merge -out FILE [-junit FILE] [-json] [-coverage] REPORT...

Merges the reports (DIR/report.json) of shards of one campaign into one
report: counts, coverage and signature groups summed, reproducer paths made
relative to FILE's directory. Reports of different scenarios, ranges or
determinism checks, or of shards that share seeds, are refused.

Reports that cover only some shards of the range make an incomplete
merge: the merged report says "complete": false and lists the shards
"missing", the JUnit file has a failing testcase "incomplete" naming them,
and stderr says so.

Exit status: as for campaign, of the merged counts (0 every seed passed,
1 unsafe, 4 crashes or nondeterminism, 3 liveness, 5 inconclusive, the
first that applies); 7 when shards are missing and every seed the reports
cover passed (a failing seed's status wins over 7: the documents and
stderr still say which shards are missing); 2 for bad usage, an unreadable
report or reports that do not merge.

flags:
`

// cmdCampaign runs `simrun campaign`.
func (cli *program) cmdCampaign(args []string, stdout, stderr io.Writer) (int, error) {
	fs := cmdline.NewFlagsUsage("campaign", stderr, campaignUsage)
	out := fs.String("out", "", "the campaign's `DIR` (created if need be; an existing campaign there is resumed)")
	scenario := cli.scenarioFlag(fs)
	seeds := fs.Uint64("seeds", 1000, "the number of seeds in the range (unbounded if only -duration is given)")
	duration := fs.Duration("duration", 0, "stop after this wall time over all sessions (0: no limit)")
	start := fs.Uint64("start", 1, "the first seed of the range")
	workers := fs.Int("workers", runtime.GOMAXPROCS(0), "parallel runs")
	shardFlag := fs.String("shard", "0/1", "run shard `I/N` of the range: the seeds s with (s - start) % N == I")
	keep := fs.Int("keep", nightly.DefaultKeep, "reproducers kept on disk per signature (all are counted)")
	check := fs.Bool("check-determinism", false, "run every seed twice and compare the trace hashes")
	junit := fs.String("junit", "", "also write the report as JUnit XML to `FILE` (- for standard output)")
	asJSON := fs.Bool("json", false, "print the report as JSON")
	showCoverage := fs.Bool("coverage", false, "list the coverage points no seed reached, by name (the summary counts them)")
	failOutside := failOutsideFlag(fs)
	quiet := quietFlag(fs)
	if err := cmdline.Parse(fs, args); err != nil {
		return 0, err
	}
	switch {
	case *out == "":
		return 0, fmt.Errorf("%w: campaign needs -out DIR", errUsage)
	case cmdline.IsSet(fs, "seeds") && *seeds == 0:
		return 0, fmt.Errorf("%w: -seeds must be at least 1", errUsage)
	case *duration < 0:
		return 0, fmt.Errorf("%w: -duration must not be negative, got %v", errUsage, *duration)
	case *workers < 1:
		return 0, fmt.Errorf("%w: -workers must be at least 1, got %d", errUsage, *workers)
	case *keep < 0:
		return 0, fmt.Errorf("%w: -keep must not be negative, got %d", errUsage, *keep)
	}
	if !cmdline.IsSet(fs, "seeds") && *duration > 0 {
		*seeds = 0 // unbounded: the duration ends the campaign
	}
	shard, err := nightly.ParseShard(*shardFlag)
	if err != nil {
		return 0, fmt.Errorf("%w: -shard: %v", errUsage, err)
	}
	sc, err := cli.lookup(*scenario)
	if err != nil {
		return 0, err
	}
	c, err := nightly.Open(nightly.Config{
		Dir: *out, Scenario: sc, Start: *start, Seeds: *seeds, Duration: *duration, Shard: shard,
		Workers: *workers, Keep: *keep, CheckDeterminism: *check, FailOutside: *failOutside, Program: cli.invoke,
		WriteTrace: func(w io.Writer, o *harness.Outcome) error { return cli.printReplay(w, w, o, nil, "", false, false) },
	})
	if err != nil {
		return 0, cmdline.BadInput(fmt.Errorf("-out %s: %w", *out, err))
	}
	if err := checkOutput("-junit", *junit); err != nil { // after Open: -junit may name a file in DIR
		return 0, err
	}
	text, err := textOutput(stdout, stderr, *asJSON, "-junit", *junit)
	if err != nil {
		return 0, err
	}

	ctx, caught := cmdline.StopOnSignal()
	defer caught.Release()
	stopProgress := cli.showProgress(stderr, *quiet, func() progressReport { return campaignProgress(c.Progress()) })
	before := c.Progress()
	rep, runErr := c.Run(ctx)
	stopProgress()
	sig := caught.Caught()
	interrupted := sig != nil
	after := c.Progress()

	if *junit != "" {
		var buf bytes.Buffer
		if err := nightly.WriteJUnit(&buf, rep, cli.invoke); err != nil {
			return 0, err
		}
		if err := writeOutput(stdout, "-junit", *junit, buf.Bytes()); err != nil {
			return 0, err
		}
	}
	if *asJSON {
		data, err := rep.Marshal()
		if err != nil {
			return 0, err
		}
		if _, err := stdout.Write(data); err != nil {
			return 0, err
		}
	} else {
		cli.printReport(text, rep, *out, *showCoverage)
		session := after.Session
		fmt.Fprintf(text, "this session: %d seeds in %.2fs with %d workers: %.0f seeds/s",
			session, after.SessionElapsed.Seconds(), *workers, after.Rate())
		if before.Done > 0 {
			fmt.Fprintf(text, " (resumed after %d seeds done)", before.Done)
		}
		fmt.Fprintln(text)
		fmt.Fprintf(text, "report: %s\n", filepath.Join(*out, nightly.ReportFile))
	}
	switch {
	case runErr != nil:
		return 0, runErr
	case interrupted:
		fmt.Fprintf(stderr, "simrun: interrupted by %v; report written, state saved in %s: run the same command to resume\n", sig, filepath.Join(*out, nightly.StateFile))
		return cmdline.SignalStatus(sig), nil
	case !rep.Complete && rep.Seeds > 0:
		fmt.Fprintf(stderr, "simrun: the duration is spent with %d of %d seeds done; the same command with a longer -duration resumes\n",
			after.Done, after.Total)
	}
	return reportCode(rep), nil
}

// cmdMerge runs `simrun merge`.
func (cli *program) cmdMerge(args []string, stdout, stderr io.Writer) (int, error) {
	fs := cmdline.NewFlagsUsage("merge", stderr, mergeUsage)
	out := fs.String("out", "", "write the merged report to `FILE` (- for standard output)")
	junit := fs.String("junit", "", "also write the merged report as JUnit XML to `FILE` (- for standard output)")
	asJSON := fs.Bool("json", false, "print the merged report as JSON")
	showCoverage := fs.Bool("coverage", false, "list the coverage points no seed of any shard reached, by name (the summary counts them)")
	files, err := cmdline.ParseFiles(fs, args)
	if err != nil {
		return 0, err
	}
	switch {
	case *out == "":
		return 0, fmt.Errorf("%w: merge needs -out FILE", errUsage)
	case len(files) == 0:
		return 0, fmt.Errorf("%w: merge needs at least one REPORT", errUsage)
	}
	if err := errors.Join(checkOutput("-out", *out), checkOutput("-junit", *junit)); err != nil {
		return 0, err
	}
	text, err := textOutput(stdout, stderr, *asJSON, "-out", *out, "-junit", *junit)
	if err != nil {
		return 0, err
	}
	// Reproducer paths become relative to the merged report's directory
	// (the current one, for a report on standard output).
	outDir, err := filepath.Abs(filepath.Dir(*out))
	if err != nil {
		return 0, fmt.Errorf("-out: %w", err)
	}
	var reports []*nightly.Report
	for _, path := range files {
		r, err := nightly.ReadReportFile(path)
		if err != nil {
			return 0, cmdline.BadInput(err)
		}
		dir, err := filepath.Abs(filepath.Dir(path))
		if err != nil {
			return 0, cmdline.BadInput(err)
		}
		for i := range r.Groups {
			for j, p := range r.Groups[i].Reproducers {
				r.Groups[i].Reproducers[j] = rebase(p, dir, outDir)
			}
		}
		reports = append(reports, r)
	}
	merged, err := nightly.Merge(cli.invoke, reports...)
	if err != nil {
		return 0, cmdline.BadInput(err)
	}
	data, err := merged.Marshal()
	if err != nil {
		return 0, err
	}
	if err := writeOutput(stdout, "-out", *out, data); err != nil {
		return 0, err
	}
	if *junit != "" {
		var buf bytes.Buffer
		if err := nightly.WriteJUnit(&buf, merged, cli.invoke); err != nil {
			return 0, err
		}
		if err := writeOutput(stdout, "-junit", *junit, buf.Bytes()); err != nil {
			return 0, err
		}
	}
	if *asJSON {
		if _, err := stdout.Write(data); err != nil {
			return 0, err
		}
	} else {
		cli.printReport(text, merged, filepath.Dir(*out), *showCoverage)
		fmt.Fprintf(text, "merged %d reports into %s\n", len(reports), outputName(*out))
	}
	code := reportCode(merged)
	if len(merged.Missing) > 0 {
		fmt.Fprintf(stderr, "simrun: merge: incomplete: no report covers shard(s) %s of the range\n", shardList(merged.Missing))
		if code == exitOK {
			code = exitIncomplete
		}
	}
	return code, nil
}

// shardList writes shards as "1/4, 3/4", eliding past ten.
func shardList(ss []nightly.Shard) string {
	var b strings.Builder
	for i, s := range ss {
		if i == 10 {
			fmt.Fprintf(&b, ", and %d more", len(ss)-10)
			break
		}
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(s.String())
	}
	return b.String()
}

// rebase makes the path p, relative to the directory from, relative to the
// directory to (both absolute), in slash form.
func rebase(p, from, to string) string {
	if filepath.IsAbs(filepath.FromSlash(p)) {
		return p
	}
	abs := filepath.Join(from, filepath.FromSlash(p))
	rel, err := filepath.Rel(to, abs)
	if err != nil {
		return filepath.ToSlash(abs)
	}
	return filepath.ToSlash(rel)
}

// reportCode is the exit status of a report: its worst verdict's
// (a nondeterministic seed counts as crashed).
func reportCode(r *nightly.Report) int { return r.Worst().ExitCode() }

// campaignProgress is a campaign's progress as a progress report.
func campaignProgress(p nightly.Progress) progressReport {
	r := progressReport{Label: p.Scenario + " " + p.Shard.String(), Unit: "seeds", Done: p.Done, Total: p.Total,
		Failures: p.Failures, Rate: p.Rate(), Elapsed: p.Elapsed, Extra: fmt.Sprintf("%d signatures", p.Signatures)}
	r.ETA, r.HasETA = p.ETA()
	return r
}

// printReport prints a report: its counts, its coverage (with
// showCoverage, the points no seed reached), then each signature group
// with its first seeds, reproducers and replay command. dir is where the
// report's relative reproducer paths start.
func (cli *program) printReport(w io.Writer, r *nightly.Report, dir string, showCoverage bool) {
	shards := make([]string, len(r.Shards))
	for i, s := range r.Shards {
		shards[i] = s.String()
	}
	rng := fmt.Sprintf("seeds %d..%d", r.Start, r.Start+r.Seeds-1)
	if r.Seeds == 0 {
		rng = fmt.Sprintf("seeds from %d", r.Start)
	}
	state := "incomplete"
	switch {
	case len(r.Missing) > 0:
		state = "incomplete: shard(s) " + shardList(r.Missing) + " missing"
	case r.Complete:
		state = "complete"
	}
	fmt.Fprintf(w, "campaign %s shard %s, %s: %d seeds run (%s)", r.Scenario, strings.Join(shards, ","), rng, r.SeedsRun, state)
	printCounts(w, &r.Counts, r.CheckDeterminism, "seeds")
	printCoverage(w, r.Coverage, r.SeedsRun, showCoverage)
	if len(r.Groups) > 0 {
		fmt.Fprintf(w, "%d failure signatures:\n", len(r.Groups))
	}
	for _, g := range r.Groups {
		fmt.Fprintf(w, "  %d seeds: %s\n", g.Count, g.Signature)
		seeds := make([]string, len(g.FirstSeeds))
		for i, s := range g.FirstSeeds {
			seeds[i] = fmt.Sprint(s)
		}
		fmt.Fprintf(w, "    first seeds: %s\n", strings.Join(seeds, ", "))
		if len(g.Reproducers) > 0 {
			first := filepath.Join(dir, filepath.FromSlash(g.Reproducers[0]))
			fmt.Fprintf(w, "    %d reproducers kept, first %s\n    replay: %s\n", len(g.Reproducers), first, cli.repro(harness.Repro{File: first}))
		} else {
			fmt.Fprintf(w, "    replay: %s\n", g.Replay)
		}
	}
	fmt.Fprintf(w, "wall %.2fs over all sessions: %.0f seeds/s\n", r.Wall.D().Seconds(), r.SeedsPerSecond)
	if m := r.Memory; m != nil {
		fmt.Fprintf(w, "memory: live heap %.1f MiB after %d seeds, %.1f MiB after %d (peak %.1f MiB); %.1f MiB from the system at most\n",
			mib(m.FirstLiveHeap), m.FirstSeeds, mib(m.LastLiveHeap), m.LastSeeds, mib(m.PeakLiveHeap), mib(m.PeakTotal))
		if m.Samples >= 2*schema.MemoryMeanOf {
			fmt.Fprintf(w, "memory: live heap %.1f MiB on average over the first %d samples, %.1f MiB over the last %d (%+.0f%%)\n",
				mib(m.FirstMeanLiveHeap), schema.MemoryMeanOf, mib(m.LastMeanLiveHeap), schema.MemoryMeanOf,
				100*(float64(m.LastMeanLiveHeap)/float64(max(m.FirstMeanLiveHeap, 1))-1))
		}
	}
}

// mib is bytes in mebibytes.
func mib(b uint64) float64 { return float64(b) / (1 << 20) }
