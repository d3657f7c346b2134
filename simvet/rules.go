package simvet

import (
	"go/ast"
	"go/types"
	"strings"
)

// The advice that ends each kind of finding.
const (
	clockAdvice   = "use the protocol.Clock (Now/Monotonic/Sleep/WithTimeout/NewTicker)"
	entropyAdvice = "take randomness from an io.Reader passed in (as protocol.Config.Entropy does)"
	goAdvice      = "use Clock.Go"
	waitAdvice    = "wait with Clock.Sleep(ctx, d) (a context cancelled elsewhere is a join)"
)

// realClock maps the package-level functions that read the real clock or
// wait on a real timer, by package path and name, to what they do.
var realClock = map[string]map[string]string{
	"time": {
		"Now": readsClock, "Since": readsClock, "Until": readsClock,
		"Sleep": realTimer, "After": realTimer, "AfterFunc": realTimer,
		"Tick": realTimer, "NewTimer": realTimer, "NewTicker": realTimer,
	},
	"context": {
		"WithTimeout": realTimer, "WithTimeoutCause": realTimer,
		"WithDeadline": realTimer, "WithDeadlineCause": realTimer,
	},
}

const (
	readsClock = "reads the real clock"
	realTimer  = "waits on a real timer"
)

// packageLevelMessage returns the finding for a use of obj, an object
// declared at package level in another package, or "" if the use is allowed.
func packageLevelMessage(obj types.Object) string {
	pkg := obj.Pkg()
	if pkg == nil || pkg.Scope().Lookup(obj.Name()) != obj {
		return "" // a method, field or local: not a package-level object
	}
	path, name := pkg.Path(), obj.Name()
	switch path {
	case "time", "context":
		what := realClock[path][name]
		switch {
		case what == "":
			return ""
		case path == "context":
			return path + "." + name + " " + what + "; use Clock.WithTimeout"
		}
		return path + "." + name + " " + what + "; " + clockAdvice
	case "math/rand", "math/rand/v2":
		// Constructors (rand.New, rand.NewSource, rand.NewPCG, ...) build a
		// local generator from an explicit seed, which is deterministic.
		if _, isFunc := obj.(*types.Func); !isFunc || strings.HasPrefix(name, "New") {
			return ""
		}
		return path + "." + name + " draws from the global generator; " + entropyAdvice
	case "crypto/rand":
		switch obj.(type) {
		case *types.Func, *types.Var: // Read, Int, Prime, Text, Reader
			return path + "." + name + " draws real randomness; " + entropyAdvice
		}
	}
	return ""
}

// methodMessage returns the finding for a use of fn, a method, or "" if the
// use is allowed.
func methodMessage(fn *types.Func) string {
	if fn.Pkg() == nil || fn.Pkg().Path() != "sync" {
		return ""
	}
	recv := fn.Signature().Recv()
	if recv == nil {
		return ""
	}
	t := recv.Type()
	if p, ok := t.(*types.Pointer); ok {
		t = p.Elem()
	}
	named, ok := t.(*types.Named)
	if !ok {
		return ""
	}
	switch named.Obj().Name() + "." + fn.Name() {
	case "WaitGroup.Wait":
		return "sync.WaitGroup.Wait blocks outside the simulator; " + waitAdvice
	case "Cond.Wait":
		return "sync.Cond.Wait blocks outside the simulator; " + waitAdvice
	case "WaitGroup.Go":
		return "sync.WaitGroup.Go starts a goroutine the simulator does not schedule; " + goAdvice
	}
	return ""
}

// Messages for statements and operators.
const (
	goStmtMessage    = "go statement starts a goroutine the simulator does not schedule; " + goAdvice
	receiveMessage   = "channel receive blocks outside the simulator; " + waitAdvice
	sendMessage      = "channel send blocks outside the simulator; " + waitAdvice
	rangeChanMessage = "range over a channel blocks outside the simulator; " + waitAdvice
	selectMessage    = "select without a default clause blocks outside the simulator; " + waitAdvice +
		", or select on ctx.Done() and a protocol.Ticker's Next(ctx) alone"
)

// protocolPath is the import path of package protocol, whose Ticker the
// simulator drives.
const protocolPath = "github.com/s3lease/s3lease/protocol"

// tickerSelect reports whether sel is the select that waits for a tick of
// a protocol.Ticker: exactly two cases, receives from c.Done() and from
// t.Next(c), c the same expression in both. Next waits in the simulator
// until the tick or the end of c, and returns a channel that is ready or
// nil, so the select never blocks there and only one case is ready.
func tickerSelect(info *types.Info, sel *ast.SelectStmt) bool {
	if len(sel.Body.List) != 2 {
		return false
	}
	var done, next string
	for _, c := range sel.Body.List {
		u, ok := commOp(c.(*ast.CommClause).Comm).(*ast.UnaryExpr)
		if !ok {
			return false
		}
		call, ok := ast.Unparen(u.X).(*ast.CallExpr)
		if !ok {
			return false
		}
		f, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr)
		if !ok {
			return false
		}
		fn, ok := info.Uses[f.Sel].(*types.Func)
		if !ok {
			return false
		}
		switch {
		case fn.Name() == "Done" && len(call.Args) == 0 && implementsContext(info.TypeOf(f.X)):
			done = types.ExprString(f.X)
		case fn.Name() == "Next" && len(call.Args) == 1 && isTicker(fn):
			next = types.ExprString(call.Args[0])
		default:
			return false
		}
	}
	return done != "" && done == next
}

// isTicker reports whether fn is a method of protocol.Ticker.
func isTicker(fn *types.Func) bool {
	recv := fn.Signature().Recv()
	if recv == nil || fn.Pkg() == nil || fn.Pkg().Path() != protocolPath {
		return false
	}
	t := recv.Type()
	if p, ok := t.(*types.Pointer); ok {
		t = p.Elem()
	}
	named, ok := t.(*types.Named)
	return ok && named.Obj().Name() == "Ticker"
}

// implementsContext reports whether t has context.Context's Done method
// (a context.Context or a type that implements it).
func implementsContext(t types.Type) bool {
	if t == nil {
		return false
	}
	obj, _, _ := types.LookupFieldOrMethod(t, true, nil, "Err")
	_, ok := obj.(*types.Func)
	return ok
}
