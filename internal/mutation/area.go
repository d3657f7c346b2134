package mutation

import (
	"go/ast"
	"go/token"
	"go/types"
	"slices"
	"strings"
)

// Area is the part of the package a mutant lies in: the election path,
// which the swarm's checkers judge, or the code that only reports on it.
type Area string

// The areas; the package documentation says what each holds.
const (
	AreaElection      Area = "election"
	AreaObservability Area = "observability"
	AreaReal          Area = "real"
	AreaConfig        Area = "config"
)

// Areas lists the areas in the order reports give them.
var Areas = []Area{AreaElection, AreaConfig, AreaObservability, AreaReal}

// Scope names the code of a package whose only effect is what it reports
// (AreaObservability). Names of functions and fields are as Mutant.Func
// writes them: "Elector.to" for a method, "causeOf" for a function,
// "Elector.progress" for a field of type Elector.
type Scope struct {
	// Files lie wholly in the area (paths relative to the module root).
	Files []string
	// Funcs are declarations wholly in the area.
	Funcs []string
	// Sinks are functions and methods whose calls only report: a call of
	// one as a statement, with its arguments, is in the area.
	Sinks []string
	// Fields are fields read only by reporting code: an assignment to
	// them alone is in the area (its right-hand side is taken to have no
	// other effect).
	Fields []string
	// Hooks are struct types whose function-typed fields are reporting
	// hooks: `if f := x.Metrics.Request; f != nil { f(...) }` is in the
	// area.
	Hooks []string
	// Config are the declarations (as Mutant.Func names them: a method,
	// a function, "const X") wholly in AreaConfig.
	Config []string
	// RealDirective marks, in the doc comment of a function or a type,
	// code that never runs under the simulator (AreaReal; the methods of
	// such a type too): "simvet:real".
	RealDirective string
}

// ProtocolScope is the reporting code of package protocol (its
// metrics, health, phase machine and observations of who leads), its
// configuration rules, and its code that never runs under the simulator. Every
// statement it names only reports (each was read to check that it feeds
// no decision of the elector); mutants elsewhere whose only effect is a
// reported value are moved here one by one by the triage table (Judgement.Area).
var ProtocolScope = Scope{
	Files: []string{"protocol/health.go", "protocol/metrics.go", "protocol/transitions.go"},
	Funcs: []string{"Elector.Leader", "Elector.Phase", "Elector.observe", "Elector.to", "Elector.followPhase", "Elector.markProgress",
		"Elector.reportRequest", "Elector.announce"},
	Sinks:  []string{"Elector.observe", "Elector.to", "Elector.markProgress", "Elector.reportRequest", "Elector.announce"},
	Fields: []string{"Elector.progress", "Elector.lingering", "Record.RenewTime"},
	Hooks:  []string{"Metrics"},
	Config: []string{"Config.validate", "ConfigError.Error", "ConfigError.Unwrap", "const DefaultLeaseDuration",
		"const DefaultRenewDeadline", "const DefaultRetryPeriod", "const MaxClockDriftPPM"},
	RealDirective: "simvet:real",
}

// SetAreas sets the Area of every mutant of ms: AreaConfig,
// AreaObservability or AreaReal for one that lies wholly within code that
// scope names as such, AreaElection otherwise.
//
// Beyond the files and declarations scope names, reporting code is found
// statement by statement: a call of a sink or of a hook as a statement; an
// assignment whose every target is a reporting field, or a local variable
// whose every use is in a reporting call or as such a target (the start
// instant of a request whose latency is reported, say); an if statement
// whose condition calls nothing (but Err) and whose branches only report
// or log; a block of such statements; the last clauses of a switch
// without a tag, if they and their conditions are so.
func (p *Package) SetAreas(ms []Mutant, scope Scope) {
	ranges := map[string][][2]int{}     // file (relative) -> byte ranges of reporting code
	realRanges := map[string][][2]int{} // the same for code the simulator replaces
	real := map[string]bool{}           // types marked with scope.RealDirective
	for _, f := range p.Files {
		for _, d := range p.syntax[f].Decls {
			if gd, ok := d.(*ast.GenDecl); ok && gd.Tok == token.TYPE && scope.RealDirective != "" {
				for _, sp := range gd.Specs {
					ts := sp.(*ast.TypeSpec)
					if hasDirective(ts.Doc, scope.RealDirective) || len(gd.Specs) == 1 && hasDirective(gd.Doc, scope.RealDirective) {
						real[ts.Name.Name] = true
					}
				}
			}
		}
	}
	for _, f := range p.Files {
		rel := p.Rel(f)
		if slices.Contains(scope.Files, rel) {
			ranges[rel] = append(ranges[rel], [2]int{0, len(p.Sources[f])})
			continue
		}
		a := &areaFinder{p: p, scope: scope, hooks: map[types.Object]bool{}, vars: map[types.Object]bool{}}
		var bodies []*ast.BlockStmt
		for _, d := range p.syntax[f].Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Body == nil {
				continue
			}
			name := fd.Name.Name
			recv := ""
			if fd.Recv != nil && len(fd.Recv.List) == 1 {
				recv = recvName(fd.Recv.List[0].Type)
				name = recv + "." + name
			}
			if scope.RealDirective != "" && (hasDirective(fd.Doc, scope.RealDirective) || real[recv]) {
				realRanges[rel] = append(realRanges[rel], a.span(fd))
				continue
			}
			if slices.Contains(scope.Funcs, name) {
				a.add(fd)
				continue
			}
			bodies = append(bodies, fd.Body)
		}
		// First the reporting statements without local variables, then
		// the variables only they use, then every reporting statement.
		decls := len(a.ranges)
		a.find(bodies)
		a.findVars(bodies)
		a.ranges = a.ranges[:decls]
		a.find(bodies)
		ranges[rel] = a.ranges
	}
	in := func(m Mutant, rs [][2]int) bool {
		for _, r := range rs {
			if r[0] <= m.Start && m.End <= r[1] {
				return true
			}
		}
		return false
	}
	for i := range ms {
		switch m := ms[i]; {
		case slices.Contains(scope.Config, m.Func):
			ms[i].Area = AreaConfig
		case in(m, realRanges[m.File]):
			ms[i].Area = AreaReal
		case in(m, ranges[m.File]):
			ms[i].Area = AreaObservability
		default:
			ms[i].Area = AreaElection
		}
	}
}

// hasDirective reports whether doc has a line //directive (followed by
// nothing or a space).
func hasDirective(doc *ast.CommentGroup, directive string) bool {
	if doc == nil {
		return false
	}
	for _, c := range doc.List {
		if t, ok := strings.CutPrefix(c.Text, "//"+directive); ok && (t == "" || t[0] == ' ') {
			return true
		}
	}
	return false
}

// find adds the ranges of the outermost reporting statements of bodies.
func (a *areaFinder) find(bodies []*ast.BlockStmt) {
	for _, b := range bodies {
		ast.Inspect(b, func(n ast.Node) bool {
			s, ok := n.(ast.Stmt)
			if !ok {
				return true
			}
			if sw, ok := s.(*ast.SwitchStmt); ok {
				a.switchTail(sw)
			}
			if !a.reports(s) {
				return true
			}
			a.add(s)
			return false
		})
	}
}

// switchTail adds the clauses at the end of a switch without a tag that
// only report (or log), with their conditions, if those call nothing: a
// change to one of them only moves control among them, since the clauses
// before them are tried first as before.
func (a *areaFinder) switchTail(sw *ast.SwitchStmt) {
	if sw.Tag != nil || sw.Init != nil {
		return
	}
	clauses := sw.Body.List
	i := len(clauses)
	for i > 0 {
		cc := clauses[i-1].(*ast.CaseClause)
		pure := true
		for _, x := range cc.List {
			pure = pure && a.pure(x)
		}
		if !pure || !a.onlyReports(cc.Body, true) {
			break
		}
		i--
	}
	if i == len(clauses) {
		return
	}
	for _, c := range clauses[i:] {
		a.add(c)
	}
}

// findVars marks as reporting the local variables of bodies whose every
// use lies in a range found so far or is the target of an assignment.
func (a *areaFinder) findVars(bodies []*ast.BlockStmt) {
	written := map[*ast.Ident]bool{}
	local := map[types.Object]bool{}
	for _, b := range bodies {
		ast.Inspect(b, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.AssignStmt:
				for _, l := range n.Lhs {
					if id, ok := l.(*ast.Ident); ok {
						written[id] = true
					}
				}
			case *ast.Ident:
				if v, ok := a.p.info.Defs[n].(*types.Var); ok && !v.IsField() {
					local[v] = true
				}
			}
			return true
		})
	}
	used := map[types.Object]bool{}
	bad := map[types.Object]bool{}
	for id, obj := range a.p.info.Uses {
		if !local[obj] {
			continue
		}
		used[obj] = true
		if !written[id] && !a.within(id) {
			bad[obj] = true
		}
	}
	for v := range used {
		if !bad[v] {
			a.vars[v] = true
		}
	}
}

// within reports whether n lies in a range found so far.
func (a *areaFinder) within(n ast.Node) bool {
	from, to := a.p.fset.Position(n.Pos()).Offset, a.p.fset.Position(n.End()).Offset
	for _, r := range a.ranges {
		if r[0] <= from && to <= r[1] {
			return true
		}
	}
	return false
}

type areaFinder struct {
	p      *Package
	scope  Scope
	hooks  map[types.Object]bool // variables holding a hook, in scope
	vars   map[types.Object]bool // local variables only reporting code uses
	ranges [][2]int
}

func (a *areaFinder) add(n ast.Node) { a.ranges = append(a.ranges, a.span(n)) }

func (a *areaFinder) span(n ast.Node) [2]int {
	return [2]int{a.p.fset.Position(n.Pos()).Offset, a.p.fset.Position(n.End()).Offset}
}

// reports reports whether statement s only reports: a call of a sink or
// of a hook, an assignment to reporting fields, an if statement whose
// condition calls nothing (but Err) and whose branches only report or log,
// or a block of such statements. Logging alone does not make a statement
// reporting code (Enumerate makes no mutant of it anyway).
func (a *areaFinder) reports(s ast.Stmt) bool {
	switch s := s.(type) {
	case *ast.ExprStmt:
		call, ok := s.X.(*ast.CallExpr)
		return ok && a.sinkCall(call)
	case *ast.AssignStmt:
		if s.Tok != token.ASSIGN && s.Tok != token.DEFINE {
			return false
		}
		for _, l := range s.Lhs {
			switch l := l.(type) {
			case *ast.SelectorExpr:
				if !slices.Contains(a.scope.Fields, a.fieldName(l)) {
					return false
				}
			case *ast.Ident:
				obj := a.p.info.Defs[l]
				if obj == nil {
					obj = a.p.info.Uses[l]
				}
				if !a.vars[obj] {
					return false
				}
			default:
				return false
			}
		}
		return true
	case *ast.DeferStmt:
		lit, ok := s.Call.Fun.(*ast.FuncLit)
		return ok && len(s.Call.Args) == 0 && a.onlyReports(lit.Body.List, true)
	case *ast.BlockStmt:
		return a.onlyReports(s.List, false)
	case *ast.IfStmt:
		if s.Init != nil && !a.hookInit(s.Init) {
			return false
		}
		if !a.pure(s.Cond) || !a.onlyReports(s.Body.List, true) {
			return false
		}
		switch e := s.Else.(type) {
		case nil:
			return true
		case *ast.BlockStmt:
			return a.onlyReports(e.List, true)
		case *ast.IfStmt:
			return a.reports(e)
		}
	}
	return false
}

// onlyReports reports whether every statement of list reports (or, with
// logs, only logs) and at least one reports.
func (a *areaFinder) onlyReports(list []ast.Stmt, logs bool) bool {
	some := false
	for _, s := range list {
		switch {
		case a.reports(s):
			some = true
		case logs && a.logOnly(s):
		default:
			return false
		}
	}
	return some
}

func (a *areaFinder) logOnly(s ast.Stmt) bool { return (&enumerator{p: a.p}).logOnly(s) }

// sinkCall reports whether call calls a sink or a hook variable.
func (a *areaFinder) sinkCall(call *ast.CallExpr) bool {
	switch f := ast.Unparen(call.Fun).(type) {
	case *ast.Ident:
		obj := a.p.info.Uses[f]
		if a.hooks[obj] {
			return true
		}
		fn, ok := obj.(*types.Func)
		return ok && fn.Pkg() == a.p.types && slices.Contains(a.scope.Sinks, f.Name)
	case *ast.SelectorExpr:
		s, ok := a.p.info.Selections[f]
		if !ok || s.Kind() != types.MethodVal {
			return false
		}
		fn, ok := s.Obj().(*types.Func)
		if !ok || fn.Pkg() != a.p.types {
			return false
		}
		return slices.Contains(a.scope.Sinks, typeName(s.Recv())+"."+fn.Name())
	}
	return false
}

// hookInit reports whether init is `f := x.H.F` for a hook type H, and
// records f as a hook.
func (a *areaFinder) hookInit(init ast.Stmt) bool {
	as, ok := init.(*ast.AssignStmt)
	if !ok || as.Tok != token.DEFINE || len(as.Lhs) != 1 || len(as.Rhs) != 1 {
		return false
	}
	sel, ok := as.Rhs[0].(*ast.SelectorExpr)
	if !ok {
		return false
	}
	s, ok := a.p.info.Selections[sel]
	if !ok || s.Kind() != types.FieldVal || !slices.Contains(a.scope.Hooks, typeName(s.Recv())) {
		return false
	}
	id, ok := as.Lhs[0].(*ast.Ident)
	if !ok || a.p.info.Defs[id] == nil {
		return false
	}
	a.hooks[a.p.info.Defs[id]] = true
	return true
}

// pure reports whether x calls nothing but Err methods and conversions.
func (a *areaFinder) pure(x ast.Expr) bool { return callsOnlyErr(a.p.info, x, true) }

// callsOnlyErr reports whether x calls nothing but Err methods (and, with
// conversions, type conversions).
func callsOnlyErr(info *types.Info, x ast.Expr, conversions bool) bool {
	ok := true
	ast.Inspect(x, func(n ast.Node) bool {
		if call, isCall := n.(*ast.CallExpr); isCall {
			if tv, conv := info.Types[call.Fun]; conversions && conv && tv.IsType() {
				return ok
			}
			sel, isSel := call.Fun.(*ast.SelectorExpr)
			ok = ok && isSel && sel.Sel.Name == "Err" && len(call.Args) == 0
		}
		return ok
	})
	return ok
}

// fieldName is "Type.field" for a selector of a field of a named struct
// type (or a pointer to one), "" otherwise.
func (a *areaFinder) fieldName(sel *ast.SelectorExpr) string {
	s, ok := a.p.info.Selections[sel]
	if !ok || s.Kind() != types.FieldVal {
		return ""
	}
	return typeName(s.Recv()) + "." + sel.Sel.Name
}

// typeName is the name of a named type, or of the type a pointer points
// to; "" for other types.
func typeName(t types.Type) string {
	if p, ok := t.(*types.Pointer); ok {
		t = p.Elem()
	}
	if n, ok := types.Unalias(t).(*types.Named); ok {
		return n.Obj().Name()
	}
	return ""
}
