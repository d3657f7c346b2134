package sim

import (
	"runtime"
	"strconv"
	"strings"
)

// goroutine is one goroutine of a runtime.Stack dump.
type goroutine struct {
	id, creator uint64
	state       string // "chan receive", "coroutine", "sleep", ...
	text        string
}

// maxOtherStacks bounds how much of the run's parked goroutines a blocked
// failure shows after the stuck ones.
const maxOtherStacks = 64 << 10

// runStacks returns the stacks of the goroutines of the run whose worker is
// goroutine worker, the stuck ones first: those that are not parked in the
// simulator. It is called only when a run is blocked, so it can afford a
// dump of every goroutine. The run's goroutines are found by their ancestry:
// every task's coroutine was started by the worker (its pool's coroutines
// are created on it), and a goroutine of a go statement by the task that
// ran it.
func runStacks(worker uint64) string {
	all := dumpGoroutines()
	children := map[uint64][]int{}
	root := -1
	for i, g := range all {
		children[g.creator] = append(children[g.creator], i)
		if g.id == worker {
			root = i
		}
	}
	var run []int
	if root >= 0 {
		run = append(run, root)
		for k := 0; k < len(run); k++ {
			run = append(run, children[all[run[k]].id]...)
		}
	} else {
		// The worker ended meanwhile, or the dump's format changed: show
		// every task, of any run.
		for i, g := range all {
			if strings.Contains(g.text, "(*coro).run") {
				run = append(run, i)
			}
		}
	}
	var stuck, parked []string
	for _, i := range run {
		if g := all[i]; strings.HasPrefix(g.state, "coroutine") {
			if strings.Contains(g.text, "(*coro).run") {
				parked = append(parked, g.text) // an idle coroutine of the pool runs no task
			}
		} else {
			stuck = append(stuck, g.text)
		}
	}
	if len(stuck) == 0 {
		// The stuck task descends from a task that has ended, which broke
		// the chain: show every task of the process that is not parked.
		for _, g := range all {
			if !strings.HasPrefix(g.state, "coroutine") && strings.Contains(g.text, "(*coro).run") {
				stuck = append(stuck, g.text)
			}
		}
	}
	var b strings.Builder
	b.WriteString(strings.Join(stuck, "\n\n"))
	if len(parked) > 0 {
		b.WriteString("\n\nThe run's other goroutines, parked in the simulator:\n\n")
		for i, s := range parked {
			if b.Len() > maxOtherStacks {
				b.WriteString("... and " + strconv.Itoa(len(parked)-i) + " more\n")
				break
			}
			b.WriteString(s + "\n\n")
		}
	}
	return b.String()
}

// goroutineID returns the calling goroutine's id, from the first line of its
// stack ("goroutine 42 [running]:").
func goroutineID() uint64 {
	var buf [64]byte
	g, _ := parseGoroutine(string(buf[:runtime.Stack(buf[:], false)]))
	return g.id
}

// dumpGoroutines returns every goroutine's stack.
func dumpGoroutines() []goroutine {
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			buf = buf[:n]
			break
		}
		buf = make([]byte, 2*len(buf))
	}
	var gs []goroutine
	for _, block := range strings.Split(strings.TrimSpace(string(buf)), "\n\n") {
		if g, ok := parseGoroutine(block); ok {
			gs = append(gs, g)
		}
	}
	return gs
}

// parseGoroutine reads one goroutine's block of a dump: its header
// "goroutine 42 [chan receive, 2 minutes]:" and its last line but one,
// "created by f in goroutine 7".
func parseGoroutine(block string) (goroutine, bool) {
	g := goroutine{text: block}
	header, rest, _ := strings.Cut(block, "\n")
	idText, ok := strings.CutPrefix(header, "goroutine ")
	if !ok {
		return g, false
	}
	idText, state, _ := strings.Cut(idText, " [")
	id, err := strconv.ParseUint(idText, 10, 64)
	if err != nil {
		return g, false
	}
	g.id = id
	state, _, _ = strings.Cut(state, "]")
	g.state, _, _ = strings.Cut(state, ",")
	if i := strings.LastIndex(rest, "created by "); i >= 0 {
		line, _, _ := strings.Cut(rest[i:], "\n")
		if j := strings.LastIndex(line, " in goroutine "); j >= 0 {
			g.creator, _ = strconv.ParseUint(line[j+len(" in goroutine "):], 10, 64)
		}
	}
	return g, true
}
