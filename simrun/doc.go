// Package simrun is the simrun command line as a library: every subcommand
// (run, replay, html, shrink, explore, zoo, bench, campaign, merge,
// coverage, list, version) over the scenarios a program gives it. There is
// no global list of scenarios: a program says what it knows, and knows
// exactly that. A user's own main is one line:
//
//	package main
//
//	import (
//		"example.com/mylock"
//		"github.com/s3lease/s3lease/simrun"
//	)
//
//	func main() {
//		simrun.Main(simrun.Command("go run ./cmd/mysimrun"), simrun.Protocol("mylock", mylock.Protocol()))
//	}
//
// The project's own cmd/simrun passes every scenario of the project (the
// stories of package scenarios, the zoo, the seed designs) and its tools
// (live mode, the mutation tool, vet), whose dependencies a user's program
// then does not link.
//
// It runs campaigns of many seeds of a scenario, the replay of one seed or
// one reproducer file as a readable trace or an HTML page, shrinking of
// failing runs, exhaustive exploration of small runs, the bug zoo (for a
// program given package zoo's scenarios), sharded nightly campaigns and
// their merged reports, coverage reports, and benchmarks of the simulator.
// Every command it prints to rerun something (a replay, a shrink, a path
// of the explorer) runs when pasted into a shell, through the program
// Command names.
//
// The long commands (run, campaign, zoo, explore, coverage, bench, shrink)
// report their progress on stderr, one format for all: a line every few
// seconds when stderr is no terminal (a CI log), a live line on a
// terminal; -quiet silences it.
//
// # What a pass says
//
// Every summary of runs (run, campaign, merge and its JUnit file, zoo)
// says what was judged, not only the verdicts: how many seeds stayed
// wholly inside the protocol's assumptions, and, per checker that judged
// a violation, how many it judged, how many faults outside the
// assumptions excused (by kind of fault: vm-suspend, pause, delete-lock,
// ...) and how many were counted (harness.Judged; the -json documents
// carry it as "judged"). When most seeds left the assumptions, a plain
// line says that a pass there means the fence held, not that leaders
// never overlapped.
//
// A protocol without fencing tokens (harness.Protocol.NoFencingTokens) is
// judged by overlaps alone, and outside its assumptions each overlap is
// two leaders acting at once in production: its summary names how many
// were excused. run, campaign and replay -fail-outside hold it to the
// higher bar: such an overlap fails the seed (unsafe, checker
// overlap/outside-assumptions), and the replay commands and reproducer
// files of its failures keep the bar. A campaign records it; one resumes,
// and reports merge, only with the same.
//
// # Building a program
//
// [Main] runs the subcommand named by the process's arguments and exits
// with its status; [Run] does the same for given arguments and writers,
// and returns the status. Each is given options ([Option]):
//
//   - [Protocol] adds a protocol as the swarm scenario of its name (the
//     name harness.Check gives its reproducer files, so that they replay
//     with `simrun replay FILE`); the first is the default scenario.
//   - [Scenarios] adds scenarios: scenarios.All(), zoo.All(), a design's,
//     or a user's own.
//   - [Command] says how the printed commands invoke the program;
//     without it, a built binary's invoke it as the user ran it (its name
//     if the PATH finds it, else the path typed), and a program go run
//     built invokes harness.DefaultCommand.
//   - [Tools] adds subcommands, each a [Tool] run with an [Env].
//
// A tool's error wrapping [ErrUsage] exits 2 with its message.
//
// # Exit status
//
// The status of the worst verdict judged (harness.Verdict.ExitCode): 0
// every run passed; 1 a safety violation was found; 3 a liveness failure
// (no stable leader once faults healed, a retry storm, a node slower than
// its own design); 4 a run crashed (a panic in protocol code, a run that
// stopped advancing); 5 a run was inconclusive (the linearizability check
// of its S3 history timed out); 6 code under simulation blocked outside
// the simulator. Besides:
//
//   - 2: bad input. Bad usage: a flag, flag value or argument (the message
//     says "usage:" and names the command's -h). A file whose content is
//     wrong: a malformed reproducer or report, reports that do not merge, a
//     directory that holds another campaign. An output path that cannot
//     take the file (harness.ErrBadPath): a directory, a directory that does
//     not exist, no permission, a read-only file system.
//   - 4: also simrun failing to do its work: a write that fails for any
//     other reason (a full disk, an I/O error), an error of the harness.
//   - 7: a merge that lacks some of a campaign's shards when every seed it
//     covers passed; a failing seed's status wins, and the merged report
//     and JUnit file still name the missing shards.
//   - 8 and 9: replay -expect, whose run no longer fails (8) or fails
//     otherwise than expected (9); it exits 0 when the run shows what was
//     expected.
//   - 130 or 143: a run or a campaign stopped by SIGINT or SIGTERM, its
//     summary printed and a campaign's state and report saved.
package simrun
