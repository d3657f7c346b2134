// Package simvet is a static check, in the manner of go vet, for code that
// runs under the deterministic simulator (package sim): the protocol package
// and anything else the simulator runs as a node's code.
//
// The simulator runs that code as coroutines and owns every way it may wait:
// the protocol.Clock (Sleep, WithTimeout, Go) and the ObjectStore calls. Code
// that reads the real clock, draws randomness of its own, starts a goroutine
// or blocks in any other way either hangs the simulator or makes a run depend
// on the machine instead of the seed, and a failure found that way cannot be
// replayed. simvet finds such code before a run does.
//
// # What is reported
//
// Real time. A use of time.Now, time.Since, time.Until, time.Sleep,
// time.After, time.AfterFunc, time.Tick, time.NewTimer or time.NewTicker,
// called or not, and of context.WithTimeout, context.WithDeadline and their
// Cause variants, which start real timers. Use the protocol.Clock: Now for
// wall-clock time written for humans, Monotonic for durations, Sleep to
// wait, WithTimeout for a deadline, NewTicker for a ticker. Methods of a time.Timer or time.Time and
// arithmetic on time.Duration are not time sources and are not reported.
//
// Global randomness. A use of a package-level function of math/rand or
// math/rand/v2 (rand.Intn, rand.Float64, rand.Shuffle, rand.N, rand.Seed,
// ...) and of anything package-level in crypto/rand (rand.Read, rand.Reader,
// rand.Int, rand.Prime, rand.Text). Take randomness from an io.Reader passed
// in, as protocol.Config.Entropy is. The constructors rand.New,
// rand.NewSource, rand.NewPCG, ... are not reported: a generator built from
// an explicit seed is deterministic (a seed taken from time.Now is reported
// as a use of time.Now).
//
// Goroutines. Every go statement, and sync.WaitGroup.Go. Use Clock.Go, which
// the simulator schedules.
//
// Blocking. A channel receive (<-ch, including <-ctx.Done()), a channel send,
// a for-range loop over a channel, a select statement without a default
// clause (reported once, at the select), sync.WaitGroup.Wait and
// sync.Cond.Wait. Wait with Clock.Sleep(ctx, d); to join a goroutine, let it
// cancel a context as it returns and Sleep on that context. A select with a
// default clause never blocks, and neither its cases nor the select are
// reported. Nor is the select that waits for a protocol.Ticker's tick:
// exactly two cases, <-c.Done() and <-t.Next(c), with the same c, since
// Next waits in the simulator and returns a ready channel or nil
// (protocol.Ticker); a receive from the ticker's C is reported as any
// other.
//
// Each finding names what was used and what to use instead, for example
//
//	protocol/lead.go:42:9: time.Now reads the real clock; use the protocol.Clock (Now/Monotonic/Sleep/WithTimeout/NewTicker)
//
// # What is not detected
//
// simvet looks at one package at a time and at the operations above only.
// It does not see:
//
//   - a sync.Mutex or sync.RWMutex held across a Clock or ObjectStore call.
//     Only one simulated goroutine runs at a time, so a mutex is fine as
//     long as it is never held across a blocking call; one that is blocks
//     the next goroutine outside the simulator, and the simulator catches
//     that only at run time (the run ends with the verdict "blocked");
//   - blocking or time reads inside a function of another package that the
//     checked code calls (simvet does not follow calls);
//   - other ways of reaching the machine: files, the network, os/signal,
//     runtime.Gosched, reflection, cgo;
//   - _test.go files, which are never analysed.
//
// # The //simvet:real directive
//
// Some code in a simulated package is the production implementation of what
// the simulator replaces, and never runs under it: protocol.RealClock reads
// the time package and starts real goroutines. Exempt such a declaration
// with a directive line in its doc comment:
//
//	// RealClock is the Clock of a real process.
//	//
//	//simvet:real the production Clock; under the simulator Config.Clock is the simulator's own.
//	type RealClock struct{ ... }
//
// On a func or method declaration the directive exempts its whole body,
// function literals included. On a type declaration (type T ..., not a
// grouped type ( ... ) block unless the directive is in that spec's own
// comment) it exempts every method of T in the package, not functions that
// merely return a T: a constructor needs its own directive. As with other Go
// directives there is no space after the //, and gofmt separates the line
// from the doc text with an empty // line; go doc does not show it.
//
// The text after //simvet:real is the reason, and it is required: say why
// the code never runs under the simulator. simvet reports a directive
// without a reason (and then exempts nothing), an unknown //simvet: name, a
// directive that is not in the doc comment of a func or type declaration,
// and a valid directive that exempts nothing, so that the exemptions stay as
// few and as small as the code needs.
//
// # Running it
//
// From the command line:
//
//	simrun vet [packages]
//
// checks the packages, go list patterns relative to the current directory
// ("." if none are given), and prints one line per finding. It exits 0
// when there are none, 1 when there are findings, and 2 when the packages
// could not be loaded (a pattern matching no package, a syntax or type
// error).
//
// From Go, [Main] does the same with a directory and a writer ("./..." if
// no pattern is given) and returns the count and the error for the command
// to map to its exit status; [Check] returns the findings as values, each
// a [Finding]. [Analyzer] is an ordinary
// golang.org/x/tools/go/analysis analyzer: analysistest drives it in this
// package's tests, and a main that calls singlechecker.Main(simvet.Analyzer)
// builds a tool for go vet -vettool.
package simvet
