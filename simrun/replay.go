package simrun

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"

	"github.com/s3lease/s3lease/harness"
	"github.com/s3lease/s3lease/internal/cmdline"
	"github.com/s3lease/s3lease/internal/htmlreport"
	"github.com/s3lease/s3lease/internal/schema"
	"github.com/s3lease/s3lease/linearizability"
	"github.com/s3lease/s3lease/sim"
)

const replayUsage = `usage:
  simrun replay [-scenario NAME] -seed S [-o FILE] [-html FILE] [-json] [-bodies] [-expect VERDICT] [-fail-outside]
  simrun replay FILE [-html FILE] [-json] [-bodies] [-expect recorded|VERDICT] [-fail-outside]

Replays one run and prints its trace, plan, verdict and hash: a seed of a
scenario, or a reproducer file (as -o, 'simrun shrink' or a person wrote
it). -o writes the run's reproducer, plan and signature included; -html
writes a self-contained page that shows the run: verdict, violations, a
timeline of every node's terms, faults, S3 requests and fenced writes,
porcupine's view of the S3 history, the plan and the trace. A file
whose run does not show the signature it expects is reported on stderr
("expected X, got Y").

Exit status: the run's verdict's (0 pass, 1 unsafe, 3 liveness, 4
crashed, 5 inconclusive, 6 blocked), or 2 for bad usage or a bad file.
With -expect, the status says instead whether the run shows what was
expected, so that a corpus of reproducers gates CI:

  0  reproduces as expected: the signature the file records (-expect
     recorded), or the verdict named (-expect unsafe, -expect pass, ...)
  8  no longer fails: a failure was expected, and the run passes
  9  fails differently: the run fails, but not as expected (another
     verdict or other checkers; or a pass was expected)

flags:
`

// Exit statuses of replay -expect when the run does not show what was
// expected.
const (
	exitNoLongerFails    = 8
	exitFailsDifferently = 9
)

func (cli *program) cmdReplay(args []string, stdout, stderr io.Writer) (int, error) {
	fs := cmdline.NewFlagsUsage("replay", stderr, replayUsage)
	scenario := cli.scenarioFlag(fs)
	seed := fs.Uint64("seed", 0, "the seed to replay")
	out := fs.String("o", "", "with -seed: write the run's reproducer to `FILE` (atomically; - for standard output)")
	asJSON := fs.Bool("json", false, "print the trace and verdict as one JSON document")
	s3 := s3Flag(fs)
	page := fs.String("html", "", "also write the run as a self-contained HTML page to `FILE` (atomically; - for standard output)")
	expectFlag := fs.String("expect", "", "exit 0 if the run shows `WHAT`, 8 if it no longer fails, 9 if it fails otherwise: recorded (the signature the reproducer FILE records) or a verdict (pass, unsafe, liveness, ...)")
	failOutside := failOutsideFlag(fs)
	bodies := fs.Bool("bodies", false, "print the body of every PutObject sent and GetObject answered with its trace line (in -json: the events' body)")
	files, err := cmdline.ParseFiles(fs, args)
	if err != nil {
		return 0, err
	}
	var want *harness.Signature // what -expect asks for; with a verdict, only its verdict counts
	switch *expectFlag {
	case "":
	case "recorded":
		if len(files) != 1 {
			return 0, fmt.Errorf("%w: -expect recorded compares the run with what its reproducer FILE records: give a FILE", errUsage)
		}
	default:
		v, err := harness.ParseVerdict(*expectFlag)
		if err != nil {
			return 0, fmt.Errorf("%w: -expect %q: want recorded or a verdict (pass, unsafe, liveness, crashed, inconclusive, blocked)", errUsage, *expectFlag)
		}
		want = &harness.Signature{Verdict: v.String()}
	}
	text, err := textOutput(stdout, stderr, *asJSON, "-o", *out, "-html", *page)
	if err != nil {
		return 0, err
	}
	path3 := *s3
	o, rep, path, err := cli.runNamed(fs, "replay", files, *scenario, *seed, path3, *failOutside, "o")
	if err != nil {
		return 0, err
	}
	if rep == nil && *out != "" {
		sc, err := cli.lookup(o.Scenario)
		if err != nil {
			return 0, err
		}
		data, err := harness.ReproducerFor(sc, o).Marshal()
		if err != nil {
			return 0, err
		}
		if err := writeOutput(stdout, "-o", *out, data); err != nil {
			return 0, err
		}
		fmt.Fprintf(stderr, "simrun: wrote the reproducer of %s seed %d (%s) to %s\n", o.Scenario, o.Seed, harness.SignatureOf(o), outputName(*out))
	}
	sig := harness.SignatureOf(o)
	var expect *harness.Signature
	if rep != nil {
		expect = rep.Expect
	}
	if *expectFlag == "recorded" {
		if expect == nil {
			return 0, badInput("%s: -expect recorded: the file records no expected signature", path)
		}
		want = expect
	}
	if *page != "" {
		data, err := cli.replayPage(o, path)
		if err != nil {
			return 0, err
		}
		if err := writeOutput(stdout, "-html", *page, data); err != nil {
			return 0, err
		}
		fmt.Fprintf(stderr, "simrun: wrote the page of %s seed %d (%s) to %s\n", o.Scenario, o.Seed, o.Verdict, outputName(*page))
	}
	if err := cli.printReplay(text, stderr, o, rep, path, *asJSON, *bodies); err != nil {
		return 0, err
	}
	name := path
	if name == "" {
		name = fmt.Sprintf("%s seed %d", o.Scenario, o.Seed)
	}
	switch {
	case want != nil:
		return judgeReplay(stderr, name, *want, *expectFlag != "recorded", sig), nil
	case expect != nil && !expect.Equal(sig):
		fmt.Fprintf(stderr, "simrun: %s: expected %s, got %s\n", path, expect, sig)
	}
	return o.Verdict.ExitCode(), nil
}

// judgeReplay is the exit status of replay -expect: whether the run of
// name, whose signature is got, shows want (its verdict alone, with
// verdictOnly), said in one line on w.
func judgeReplay(w io.Writer, name string, want harness.Signature, verdictOnly bool, got harness.Signature) int {
	switch {
	case got.Equal(want) || verdictOnly && got.Verdict == want.Verdict:
		fmt.Fprintf(w, "simrun: %s: reproduces as expected: %s\n", name, got)
		return exitOK
	case got.Verdict == harness.Pass.String():
		fmt.Fprintf(w, "simrun: %s: no longer fails: expected %s, the run passes\n", name, want)
		return exitNoLongerFails
	}
	fmt.Fprintf(w, "simrun: %s: fails differently: expected %s, got %s\n", name, want, got)
	return exitFailsDifferently
}

// printReplay prints a replayed run: as one JSON document, or as its plan,
// trace, terms, verdict and hash; with bodies, the trace's bodies too. rep
// and path are the reproducer file, if the run came from one.
func (cli *program) printReplay(stdout, stderr io.Writer, o *harness.Outcome, rep *harness.Reproducer, path string, asJSON, bodies bool) error {
	res := o.Result
	sig := harness.SignatureOf(o)
	if asJSON {
		events := res.Trace.Events
		if !bodies {
			events = slices.Clone(events)
			for i := range events {
				events[i].Body = ""
			}
		}
		doc := schema.Replay{Header: schema.NewHeader(schema.CommandReplay), Scenario: o.Scenario, Seed: o.Seed, Verdict: o.Verdict.String(), Signature: sig, Hash: hashString(res.Hash()),
			Steps: res.Steps, Violations: o.Violations, Outside: o.Outside, Excused: o.Excused, Plan: o.Plan,
			Terms: res.History.Terms, Events: events}
		if rep != nil {
			doc.Expect = rep.Expect
		}
		if doc.Violations == nil {
			doc.Violations = []linearizability.Violation{}
		}
		if res.Failure != nil {
			doc.Failure = res.Failure.Error()
		}
		return schema.Write(stdout, doc)
	}
	fmt.Fprintf(stdout, "# %s seed %d\n", o.Scenario, o.Seed)
	if rep != nil {
		fmt.Fprintf(stdout, "# reproducer %s: %d nodes, %v", path, res.History.Nodes, res.History.End)
		if rep.Expect != nil {
			fmt.Fprintf(stdout, ", expects %s", rep.Expect)
		}
		fmt.Fprintln(stdout)
	}
	plan, err := json.Marshal(o.Plan)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "# plan: %s\n", plan)
	for _, why := range o.Outside {
		fmt.Fprintf(stdout, "# outside the assumptions: %s\n", why)
	}
	var opts []sim.TextOption
	if bodies {
		opts = append(opts, sim.WithBodies())
	}
	if err := res.Trace.WriteText(stdout, opts...); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "\nterms:\n")
	for _, t := range res.History.Terms {
		end := fmt.Sprint(t.End)
		if t.Open {
			end = "(open)"
		}
		fmt.Fprintf(stdout, "  n%d %s token %d: %v .. %s\n", t.Node, t.Identity, t.Token, t.Start, end)
	}
	if err := harness.WriteOutcome(stdout, o); err != nil {
		return err
	}
	if res.Failure != nil && res.Failure.Stack != "" {
		fmt.Fprintf(stderr, "%s\n", res.Failure.Stack)
	}
	fmt.Fprintf(stdout, "steps: %d\nhash: %s\n", res.Steps, hashString(res.Hash()))
	return nil
}

// replayPage is the HTML page of a replayed run. path is the reproducer
// file the run came from, if any: the page's replay command names it.
func (cli *program) replayPage(o *harness.Outcome, path string) ([]byte, error) {
	if path == "" {
		return cli.page("", o, "")
	}
	return cli.page(fmt.Sprintf("%s (%s seed %d): %s", path, o.Scenario, o.Seed, o.Verdict), o,
		cli.repro(harness.Repro{File: path}))
}

// page is the HTML page of a run, with its title (empty: the scenario,
// seed and verdict) and the command that replays it (empty: the
// scenario's seed).
func (cli *program) page(title string, o *harness.Outcome, replay string) ([]byte, error) {
	opt := htmlreport.Options{Replay: replay}
	if sc, err := cli.catalog.Lookup(o.Scenario); err == nil {
		opt.Scenario = &sc
	}
	if opt.Replay == "" {
		opt.Replay = cli.repro(harness.Repro{Scenario: o.Scenario, Seed: o.Seed, Flags: outsideFlags(o)})
	}
	if title == "" {
		title = fmt.Sprintf("%s seed %d: %s", o.Scenario, o.Seed, o.Verdict)
	}
	var buf bytes.Buffer
	if err := htmlreport.WriteOptions(&buf, title, o, opt); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// loadReproducerFile reads a reproducer file; a missing, unreadable,
// malformed or incompatible file is a usage error.
func loadReproducerFile(path string) (*harness.Reproducer, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, cmdline.BadInput(err)
	}
	defer f.Close()
	r, err := harness.LoadReproducer(f)
	if err != nil {
		return nil, badInput("%s: %w", path, err)
	}
	return r, nil
}

// runNamed runs, keeping its trace, the run a command names: the
// reproducer FILE among files, or -seed of -scenario. The flags in
// fileless may not be given with a FILE. It returns the outcome, and the
// reproducer and its path if the run came from a file.
func (cli *program) runNamed(fs *flag.FlagSet, cmd string, files []string, scenario string, seed uint64, path3 s3Path, failOutside bool, fileless ...string) (*harness.Outcome, *harness.Reproducer, string, error) {
	switch {
	case len(files) > 1:
		return nil, nil, "", fmt.Errorf("%w: %s takes one reproducer FILE, got %d arguments", errUsage, cmd, len(files))
	case len(files) == 1:
		path := files[0]
		for _, name := range append([]string{"seed", "scenario"}, fileless...) {
			if !cmdline.IsSet(fs, name) {
				continue
			}
			if name == "seed" || name == "scenario" {
				return nil, nil, "", fmt.Errorf("%w: %s -%s names a run, and so would the argument %q as a reproducer FILE: give -seed (and -scenario), or FILE alone",
					errUsage, cmd, name, path)
			}
			return nil, nil, "", fmt.Errorf("%w: %s FILE takes no -%s: the file names the run", errUsage, cmd, name)
		}
		rep, err := loadReproducerFile(path)
		if err != nil {
			return nil, nil, "", err
		}
		sc, err := cli.catalog.Resolve(rep)
		if err != nil {
			return nil, nil, "", badInput("%s: %w", path, err)
		}
		s, err := rep.Setup(sc)
		if err != nil {
			return nil, nil, "", badInput("%s: %w", path, err)
		}
		s.FailOutside = s.FailOutside || failOutside
		o, err := harness.RunSetup(path3.setup(s), true)
		if errors.Is(err, harness.ErrBadPlan) {
			return nil, nil, "", badInput("%s: %w", path, err)
		}
		if o != nil {
			o.Scenario, o.Seed = rep.Scenario, rep.Seed
		}
		return o, rep, path, err
	case !cmdline.IsSet(fs, "seed"):
		return nil, nil, "", fmt.Errorf("%w: %s needs -seed or a reproducer FILE", errUsage, cmd)
	}
	sc, err := cli.lookup(scenario)
	if err != nil {
		return nil, nil, "", err
	}
	if failOutside {
		sc = sc.FailingOutside()
	}
	o, err := harness.RunSeed(path3.scenario(sc), seed, true)
	return o, nil, "", err
}
