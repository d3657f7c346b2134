package simvet

import (
	"go/ast"
	"go/token"
	"go/types"
	"strings"

	"golang.org/x/tools/go/analysis"
)

// Analyzer reports code that waits, reads the time, draws randomness or
// starts goroutines behind the deterministic simulator's back. See the
// package documentation for the rules and the //simvet:real directive.
var Analyzer = &analysis.Analyzer{
	Name: "simvet",
	Doc: "report protocol code that bypasses the simulator\n\n" +
		"simvet flags real-clock calls (time.Now, time.Sleep, ...), global randomness " +
		"(math/rand, crypto/rand), go statements, and blocking channel operations, " +
		"selects without default (but a protocol.Ticker's select on ctx.Done() and Next(ctx)), " +
		"sync.WaitGroup.Wait and sync.Cond.Wait in code that " +
		"runs under the simulator. A declaration whose doc comment holds " +
		"//simvet:real <reason> is exempt.",
	Run: run,
}

func run(pass *analysis.Pass) (any, error) {
	files := sourceFiles(pass)
	ds := collectDirectives(pass, files)
	for _, f := range files {
		w := &walker{pass: pass, commOps: make(map[ast.Node]bool)}
		for _, decl := range f.Decls {
			w.exempt = ds.exemption(pass, decl)
			ast.Inspect(decl, w.visit)
		}
	}
	ds.reportUnused(pass)
	return nil, nil
}

// sourceFiles returns the package's files other than _test.go files.
func sourceFiles(pass *analysis.Pass) []*ast.File {
	var files []*ast.File
	for _, f := range pass.Files {
		if !strings.HasSuffix(pass.Fset.File(f.Pos()).Name(), "_test.go") {
			files = append(files, f)
		}
	}
	return files
}

// A walker reports the findings in one file's declarations.
type walker struct {
	pass *analysis.Pass
	// exempt is the directive that exempts the declaration being walked,
	// or nil: findings inside it are counted against it, not reported.
	exempt *directive
	// commOps holds the send statements and receive expressions that are
	// the communications of select cases: the select decides whether they
	// block, so they are not findings of their own.
	commOps map[ast.Node]bool
}

func (w *walker) report(pos token.Pos, msg string) {
	if w.exempt != nil {
		w.exempt.used = true
		return
	}
	w.pass.Reportf(pos, "%s", msg)
}

func (w *walker) visit(n ast.Node) bool {
	info := w.pass.TypesInfo
	switch n := n.(type) {
	case *ast.GoStmt:
		w.report(n.Pos(), goStmtMessage)

	case *ast.SelectStmt:
		hasDefault := false
		for _, c := range n.Body.List {
			cc := c.(*ast.CommClause)
			if cc.Comm == nil {
				hasDefault = true
			} else if op := commOp(cc.Comm); op != nil {
				w.commOps[op] = true
			}
		}
		if !hasDefault && !tickerSelect(info, n) {
			w.report(n.Pos(), selectMessage)
		}

	case *ast.SendStmt:
		if !w.commOps[n] {
			w.report(n.Pos(), sendMessage)
		}

	case *ast.UnaryExpr:
		if n.Op == token.ARROW && !w.commOps[n] {
			w.report(n.Pos(), receiveMessage)
		}

	case *ast.RangeStmt:
		if isChan(info.TypeOf(n.X)) {
			w.report(n.Pos(), rangeChanMessage)
		}

	case *ast.SelectorExpr:
		if id, ok := n.X.(*ast.Ident); ok {
			if _, ok := info.Uses[id].(*types.PkgName); ok { // pkg.Name
				if obj := info.Uses[n.Sel]; obj != nil {
					if msg := packageLevelMessage(obj); msg != "" {
						w.report(n.Pos(), msg)
					}
				}
				return false
			}
		}
		if fn, ok := info.Uses[n.Sel].(*types.Func); ok {
			if msg := methodMessage(fn); msg != "" {
				w.report(n.Pos(), msg)
			}
		}

	case *ast.Ident: // a dot-imported name; qualified ones are handled above
		if obj := info.Uses[n]; obj != nil && obj.Pkg() != w.pass.Pkg {
			if msg := packageLevelMessage(obj); msg != "" {
				w.report(n.Pos(), msg)
			}
		}
	}
	return true
}

// commOp returns the send statement or receive expression of a select
// case's communication, or nil.
func commOp(comm ast.Stmt) ast.Node {
	var x ast.Expr
	switch comm := comm.(type) {
	case *ast.SendStmt:
		return comm
	case *ast.ExprStmt: // case <-ch:
		x = comm.X
	case *ast.AssignStmt: // case v, ok := <-ch:
		if len(comm.Rhs) == 1 {
			x = comm.Rhs[0]
		}
	}
	if u, ok := ast.Unparen(x).(*ast.UnaryExpr); ok && u.Op == token.ARROW {
		return u
	}
	return nil
}

// isChan reports whether t is a channel type, or a type parameter whose
// constraint admits only channel types.
func isChan(t types.Type) bool {
	if t == nil {
		return false
	}
	tp, ok := types.Unalias(t).(*types.TypeParam)
	if !ok {
		_, ok := t.Underlying().(*types.Chan)
		return ok
	}
	iface, ok := tp.Constraint().Underlying().(*types.Interface)
	if !ok || iface.NumEmbeddeds() == 0 {
		return false
	}
	for e := range iface.EmbeddedTypes() {
		if u, ok := e.(*types.Union); ok {
			for term := range u.Terms() {
				if !isChan(term.Type()) {
					return false
				}
			}
		} else if !isChan(e) {
			return false
		}
	}
	return true
}
