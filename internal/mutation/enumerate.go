package mutation

import (
	"cmp"
	"fmt"
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"slices"
	"strconv"
	"strings"
)

// Enumerate returns every mutant of the package's non-test files, sorted by
// file, position and operator, with signatures, occurrences and IDs set.
// It is deterministic: the same sources give the same list. Code that only
// logs (a call of a *slog.Logger method, or an if statement whose body only
// logs) is not mutated, since no checker observes logs; nor are the
// arguments of such calls.
func (p *Package) Enumerate() []Mutant {
	var all []Mutant
	for _, f := range p.Files {
		e := &enumerator{p: p, file: f, rel: p.Rel(f), src: p.Sources[f], af: p.syntax[f]}
		e.run()
		all = append(all, e.out...)
	}
	opIndex := func(o Operator) int { return slices.Index(Operators, o) }
	slices.SortStableFunc(all, func(a, b Mutant) int {
		return cmp.Or(cmp.Compare(a.File, b.File), cmp.Compare(a.Start, b.Start),
			cmp.Compare(opIndex(a.Operator), opIndex(b.Operator)), cmp.Compare(a.End, b.End),
			cmp.Compare(a.Replacement, b.Replacement))
	})
	// The same change twice (two operators that agree) is one mutant.
	all = slices.CompactFunc(all, func(a, b Mutant) bool {
		return a.File == b.File && a.Start == b.Start && a.End == b.End && a.Replacement == b.Replacement
	})
	seen := map[string]int{}
	ids := map[string]int{}
	for i := range all {
		m := &all[i]
		k := strings.Join([]string{m.File, m.Func, string(m.Operator), fold(m.Original), fold(m.Replacement)}, "\x00")
		seen[k]++
		m.Occurrence = seen[k]
		m.ID = makeID(m.File, m.Signature())
		if ids[m.ID]++; ids[m.ID] > 1 { // a 32-bit collision: keep IDs unique
			m.ID = fmt.Sprintf("%s.%d", m.ID, ids[m.ID])
		}
	}
	return all
}

type enumerator struct {
	p    *Package
	file string
	rel  string
	src  []byte
	af   *ast.File
	fn   string             // the declaration being walked
	sigs []*types.Signature // the enclosing functions' signatures, innermost last
	out  []Mutant
}

func (e *enumerator) run() {
	for _, d := range e.af.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			e.fn = d.Name.Name
			if d.Recv != nil && len(d.Recv.List) == 1 {
				e.fn = recvName(d.Recv.List[0].Type) + "." + d.Name.Name
			}
			if d.Body == nil {
				continue
			}
			sig, _ := e.p.info.Defs[d.Name].Type().(*types.Signature)
			e.function(sig, d.Body)
		case *ast.GenDecl:
			if d.Tok != token.CONST && d.Tok != token.VAR {
				continue
			}
			for _, s := range d.Specs {
				vs := s.(*ast.ValueSpec)
				e.fn = d.Tok.String() + " " + vs.Names[0].Name
				for _, v := range vs.Values {
					e.walk(v)
				}
			}
		}
	}
}

func recvName(x ast.Expr) string {
	for {
		switch t := x.(type) {
		case *ast.StarExpr:
			x = t.X
		case *ast.IndexExpr:
			x = t.X
		case *ast.IndexListExpr:
			x = t.X
		case *ast.Ident:
			return t.Name
		default:
			return "?"
		}
	}
}

// function walks the body of a function with signature sig, after making
// the mutants that need all of its return statements at once.
func (e *enumerator) function(sig *types.Signature, body *ast.BlockStmt) {
	e.sigs = append(e.sigs, sig)
	e.returnOther(body)
	e.walk(body)
	e.sigs = e.sigs[:len(e.sigs)-1]
}

func (e *enumerator) off(p token.Pos) int { return e.p.fset.Position(p).Offset }

func (e *enumerator) text(n ast.Node) string {
	return string(e.src[e.off(n.Pos()):e.off(n.End())])
}

// add records the mutant replacing [from, to) by repl.
func (e *enumerator) add(op Operator, from, to token.Pos, repl string) {
	pos := e.p.fset.Position(from)
	start, end := pos.Offset, e.off(to)
	e.out = append(e.out, Mutant{File: e.rel, Line: pos.Line, Col: pos.Column, Func: e.fn, Operator: op,
		Start: start, End: end, Original: string(e.src[start:end]), Replacement: repl})
}

// replaceOp records the mutant of binary-like node n whose operator at
// opPos (of length opLen) becomes newOp.
func (e *enumerator) replaceOp(op Operator, n ast.Node, opPos token.Pos, opLen int, newOp string) {
	t := e.text(n)
	i := e.off(opPos) - e.off(n.Pos())
	e.add(op, n.Pos(), n.End(), t[:i]+newOp+t[i+opLen:])
}

var flipped = map[token.Token]token.Token{
	token.LSS: token.LEQ, token.LEQ: token.LSS,
	token.GTR: token.GEQ, token.GEQ: token.GTR,
	token.EQL: token.NEQ, token.NEQ: token.EQL,
}

func (e *enumerator) walk(root ast.Node) {
	ast.Inspect(root, func(n ast.Node) bool {
		if n == nil || e.logOnly(n) {
			return false
		}
		switch n := n.(type) {
		case *ast.FuncLit:
			sig, _ := e.p.info.TypeOf(n).(*types.Signature)
			e.function(sig, n.Body)
			return false
		case *ast.BinaryExpr:
			if f, ok := flipped[n.Op]; ok {
				e.replaceOp(OpCompare, n, n.OpPos, len(n.Op.String()), f.String())
			}
			if (n.Op == token.ADD || n.Op == token.SUB) && e.numeric(n) {
				e.replaceOp(OpArith, n, n.OpPos, 1, map[token.Token]string{token.ADD: "-", token.SUB: "+"}[n.Op])
			}
		case *ast.AssignStmt:
			if (n.Tok == token.ADD_ASSIGN || n.Tok == token.SUB_ASSIGN) && len(n.Lhs) == 1 && e.numeric(n.Lhs[0]) {
				e.replaceOp(OpArith, n, n.TokPos, 2, map[token.Token]string{token.ADD_ASSIGN: "-=", token.SUB_ASSIGN: "+="}[n.Tok])
			}
		case *ast.IncDecStmt:
			x := e.text(n.X)
			if n.Tok == token.INC {
				e.add(OpOffByOne, n.Pos(), n.End(), x+" += 2")
			} else {
				e.add(OpOffByOne, n.Pos(), n.End(), x+" -= 2")
			}
			e.add(OpOffByOne, n.Pos(), n.End(), "")
		case *ast.BasicLit:
			if n.Kind == token.INT {
				e.offByOne(n)
			}
		case *ast.IfStmt:
			e.negate(n.Cond)
			if e.isErrCheck(n.Cond) {
				e.errPath(n.Body.List)
			}
		case *ast.ForStmt:
			if n.Cond != nil {
				e.negate(n.Cond)
			}
		case *ast.SwitchStmt:
			if n.Tag == nil {
				for _, c := range n.Body.List {
					cc := c.(*ast.CaseClause)
					for _, x := range cc.List {
						e.negate(x)
					}
					if len(cc.List) == 1 && e.isErrCheck(cc.List[0]) {
						e.errPath(cc.Body)
					}
				}
			}
		case *ast.CallExpr:
			e.clock(n)
		case *ast.ReturnStmt:
			e.returns(n)
		case *ast.ExprStmt:
			if call, ok := n.X.(*ast.CallExpr); ok && e.isCancel(call) {
				e.add(OpCancel, n.Pos(), n.End(), "_ = "+e.text(call.Fun))
			}
		case *ast.DeferStmt:
			if e.isCancel(n.Call) {
				e.add(OpCancel, n.Pos(), n.End(), "_ = "+e.text(n.Call.Fun))
			}
		}
		return true
	})
}

// numeric reports whether x has a numeric type (so + is not concatenation).
func (e *enumerator) numeric(x ast.Expr) bool {
	t := e.p.info.TypeOf(x)
	if t == nil {
		return false
	}
	b, ok := t.Underlying().(*types.Basic)
	return ok && b.Info()&types.IsNumeric != 0
}

func (e *enumerator) offByOne(lit *ast.BasicLit) {
	v, err := strconv.ParseUint(lit.Value, 0, 64)
	if err != nil {
		return // too large to mutate simply
	}
	if v < 1<<63-1 {
		e.add(OpOffByOne, lit.Pos(), lit.End(), strconv.FormatUint(v+1, 10))
	}
	e.add(OpOffByOne, lit.Pos(), lit.End(), strconv.FormatInt(int64(v)-1, 10))
}

func (e *enumerator) negate(cond ast.Expr) {
	if b, ok := ast.Unparen(cond).(*ast.BinaryExpr); ok && (b.Op == token.EQL || b.Op == token.NEQ) {
		return // OpCompare makes the same change
	}
	e.add(OpNegate, cond.Pos(), cond.End(), "!("+e.text(cond)+")")
}

var errorType = types.Universe.Lookup("error").Type().Underlying().(*types.Interface)

// isErrCheck reports whether x is "v != nil" for a v whose type is an
// error.
func (e *enumerator) isErrCheck(x ast.Expr) bool {
	b, ok := ast.Unparen(x).(*ast.BinaryExpr)
	if !ok || b.Op != token.NEQ {
		return false
	}
	if tv, ok := e.p.info.Types[b.Y]; !ok || !tv.IsNil() {
		return false
	}
	t := e.p.info.TypeOf(b.X)
	return t != nil && types.Implements(t, errorType)
}

// errPath makes the mutants of the body of an error path.
func (e *enumerator) errPath(body []ast.Stmt) {
	var removable []ast.Stmt
	for _, s := range body {
		if _, ok := s.(*ast.ReturnStmt); ok || e.logOnly(s) {
			continue
		}
		removable = append(removable, s)
		e.add(OpErrStmt, s.Pos(), s.End(), "")
	}
	if len(removable) < 2 {
		return
	}
	if ret, ok := body[len(body)-1].(*ast.ReturnStmt); ok {
		e.add(OpErrReturn, body[0].Pos(), body[len(body)-1].End(), e.text(ret))
	}
}

// clock makes the mutants of a call of the Clock interface's Monotonic or
// Now, in a file that imports package time as time.
func (e *enumerator) clock(call *ast.CallExpr) {
	sel, ok := call.Fun.(*ast.SelectorExpr)
	if !ok || len(call.Args) != 0 || !e.importsTime() {
		return
	}
	s, ok := e.p.info.Selections[sel]
	if !ok || s.Kind() != types.MethodVal || !e.isClock(s.Recv()) {
		return
	}
	x := e.text(sel.X)
	switch sel.Sel.Name {
	case "Monotonic":
		e.add(OpClock, call.Pos(), call.End(), "time.Duration("+x+".Now().UnixNano())")
	case "Now":
		e.add(OpClock, call.Pos(), call.End(), "time.Unix(0, int64("+x+".Monotonic()))")
	}
}

// isClock reports whether t is an interface type of the package (or a
// type whose method set includes one) with the methods Now() time.Time
// and Monotonic() time.Duration.
func (e *enumerator) isClock(t types.Type) bool {
	obj := e.p.types.Scope().Lookup("Clock")
	if obj == nil {
		return false
	}
	iface, ok := obj.Type().Underlying().(*types.Interface)
	if !ok {
		return false
	}
	has := func(name, result string) bool {
		o, _, _ := types.LookupFieldOrMethod(obj.Type(), false, e.p.types, name)
		f, ok := o.(*types.Func)
		if !ok {
			return false
		}
		r := f.Signature().Results()
		return r.Len() == 1 && r.At(0).Type().String() == result
	}
	if !has("Now", "time.Time") || !has("Monotonic", "time.Duration") {
		return false
	}
	return types.Identical(t, obj.Type()) || types.Implements(t, iface)
}

func (e *enumerator) importsTime() bool {
	for _, imp := range e.af.Imports {
		if imp.Path.Value == `"time"` && (imp.Name == nil || imp.Name.Name == "time") {
			return true
		}
	}
	return false
}

// isCancel reports whether call calls a context.CancelFunc.
func (e *enumerator) isCancel(call *ast.CallExpr) bool {
	return isNamed(e.p.info.TypeOf(call.Fun), "context", "CancelFunc")
}

// isNamed reports whether t, or the type it points to, is the named type
// name of the package with path pkg.
func isNamed(t types.Type, pkg, name string) bool {
	if p, ok := t.(*types.Pointer); ok {
		t = p.Elem()
	}
	n, ok := t.(*types.Named)
	return ok && n.Obj().Pkg() != nil && n.Obj().Pkg().Path() == pkg && n.Obj().Name() == name
}

// returns makes the return-bool and return-zero mutants of r.
func (e *enumerator) returns(r *ast.ReturnStmt) {
	if len(e.sigs) == 0 || e.sigs[len(e.sigs)-1] == nil {
		return
	}
	res := e.sigs[len(e.sigs)-1].Results()
	if len(r.Results) != res.Len() {
		return // a naked return, or return f() of several results
	}
	for i, x := range r.Results {
		tv := e.p.info.Types[x]
		if tv.Value != nil && tv.Value.Kind() == constant.Bool {
			e.add(OpReturnBool, x.Pos(), x.End(), strconv.FormatBool(!constant.BoolVal(tv.Value)))
			continue
		}
		if isZero(tv, x) {
			continue
		}
		if z := e.zero(res.At(i).Type()); z != "" {
			e.add(OpReturnZero, x.Pos(), x.End(), z)
		}
	}
}

func isZero(tv types.TypeAndValue, x ast.Expr) bool {
	if tv.IsNil() {
		return true
	}
	if v := tv.Value; v != nil {
		switch v.Kind() {
		case constant.Int, constant.Float, constant.Complex:
			return constant.Sign(v) == 0
		case constant.String:
			return constant.StringVal(v) == ""
		case constant.Bool:
			return !constant.BoolVal(v)
		}
	}
	c, ok := ast.Unparen(x).(*ast.CompositeLit)
	return ok && len(c.Elts) == 0
}

// zero is the text of the zero value of t in the package, "" if there is
// none simple to write.
func (e *enumerator) zero(t types.Type) string {
	switch u := t.Underlying().(type) {
	case *types.Basic:
		switch {
		case u.Info()&types.IsBoolean != 0:
			return "false"
		case u.Info()&types.IsNumeric != 0:
			return "0"
		case u.Info()&types.IsString != 0:
			return `""`
		}
		return "nil"
	case *types.Pointer, *types.Slice, *types.Map, *types.Chan, *types.Signature, *types.Interface:
		return "nil"
	case *types.Struct, *types.Array:
		return types.TypeString(t, func(p *types.Package) string {
			if p == e.p.types {
				return ""
			}
			return p.Name()
		}) + "{}"
	}
	return ""
}

// returnOther makes the return-other mutants of the return statements of a
// function body (not those of function literals inside it).
func (e *enumerator) returnOther(body *ast.BlockStmt) {
	var rets []*ast.ReturnStmt
	ast.Inspect(body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.ReturnStmt:
			if len(n.Results) > 0 && !e.logOnly(n) {
				rets = append(rets, n)
			}
		}
		return true
	})
	results := func(r *ast.ReturnStmt) (token.Pos, token.Pos) {
		return r.Results[0].Pos(), r.Results[len(r.Results)-1].End()
	}
	for i, r := range rets {
		from, to := results(r)
		mine := fold(string(e.src[e.off(from):e.off(to)]))
		for k := 1; k < len(rets); k++ {
			o := rets[(i+k)%len(rets)]
			if len(o.Results) != len(r.Results) {
				continue
			}
			of, ot := results(o)
			theirs := string(e.src[e.off(of):e.off(ot)])
			if fold(theirs) != mine {
				e.add(OpReturnOther, from, to, theirs)
				break
			}
		}
	}
}

// logOnly reports whether n only logs: a call of a method of *slog.Logger
// as a statement, or an if statement without init or else whose condition
// calls nothing but Err methods and whose body only logs.
func (e *enumerator) logOnly(n ast.Node) bool {
	switch n := n.(type) {
	case *ast.ExprStmt:
		call, ok := n.X.(*ast.CallExpr)
		if !ok {
			return false
		}
		sel, ok := call.Fun.(*ast.SelectorExpr)
		if !ok {
			return false
		}
		s, ok := e.p.info.Selections[sel]
		return ok && isNamed(s.Recv(), "log/slog", "Logger")
	case *ast.IfStmt:
		if n.Init != nil || n.Else != nil || len(n.Body.List) == 0 || !callsOnlyErr(e.p.info, n.Cond, false) {
			return false
		}
		for _, s := range n.Body.List {
			if !e.logOnly(s) {
				return false
			}
		}
		return true
	}
	return false
}
