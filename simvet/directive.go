package simvet

import (
	"go/ast"
	"go/token"
	"go/types"
	"strings"

	"golang.org/x/tools/go/analysis"
)

const (
	directivePrefix = "//simvet:"
	directiveReal   = "simvet:real"

	noReasonMessage  = "//simvet:real needs a reason: //simvet:real <why this code never runs under the simulator>"
	misplacedMessage = "//simvet:real has no effect here: put it in the doc comment of a func or type declaration"
	unusedMessage    = "//simvet:real exempts nothing; remove it"
	unknownMessage   = "unknown directive; the only simvet directive is //simvet:real <reason>"
)

// A directive is one valid //simvet:real comment.
type directive struct {
	pos  token.Pos
	used bool // some finding inside what it exempts was suppressed
}

// directives holds a package's valid //simvet:real directives by what they
// exempt: a function or method declaration, or a named type's methods.
type directives struct {
	funcs map[*ast.FuncDecl]*directive
	types map[*types.TypeName]*directive
	all   []*directive // in source order, to report unused ones
}

// collectDirectives finds the //simvet: comments of files and reports those
// that are malformed or misplaced.
func collectDirectives(pass *analysis.Pass, files []*ast.File) *directives {
	ds := &directives{
		funcs: make(map[*ast.FuncDecl]*directive),
		types: make(map[*types.TypeName]*directive),
	}
	for _, f := range files {
		placed := make(map[*ast.Comment]bool)
		// fromDoc returns the first valid directive of doc, reporting
		// malformed ones and marking all as placed.
		fromDoc := func(doc *ast.CommentGroup) *directive {
			if doc == nil {
				return nil
			}
			var first *directive
			for _, c := range doc.List {
				if !strings.HasPrefix(c.Text, directivePrefix) {
					continue
				}
				placed[c] = true
				d := parseDirective(pass, c)
				if d == nil {
					continue
				}
				ds.all = append(ds.all, d)
				if first == nil {
					first = d // any further one stays unused and is reported
				}
			}
			return first
		}
		for _, decl := range f.Decls {
			switch decl := decl.(type) {
			case *ast.FuncDecl:
				if d := fromDoc(decl.Doc); d != nil {
					ds.funcs[decl] = d
				}
			case *ast.GenDecl:
				if decl.Tok != token.TYPE {
					continue
				}
				var groupDoc *directive
				if len(decl.Specs) == 1 { // type T ...: the doc is the GenDecl's
					groupDoc = fromDoc(decl.Doc)
				}
				for _, spec := range decl.Specs {
					spec := spec.(*ast.TypeSpec)
					d := fromDoc(spec.Doc)
					if d == nil {
						d = groupDoc
					}
					if tn, ok := pass.TypesInfo.Defs[spec.Name].(*types.TypeName); ok && d != nil {
						ds.types[tn] = d
					}
				}
			}
		}
		for _, g := range f.Comments {
			for _, c := range g.List {
				if strings.HasPrefix(c.Text, directivePrefix) && !placed[c] {
					if parseDirective(pass, c) != nil {
						pass.Reportf(c.Pos(), "%s", misplacedMessage)
					}
				}
			}
		}
	}
	return ds
}

// parseDirective returns the directive that c, a comment starting with
// //simvet:, is, or reports it and returns nil if it is not a valid one.
func parseDirective(pass *analysis.Pass, c *ast.Comment) *directive {
	name, reason := strings.TrimPrefix(c.Text, "//"), ""
	if i := strings.IndexAny(name, " \t"); i >= 0 {
		name, reason = name[:i], strings.TrimSpace(name[i:])
	}
	switch {
	case name != directiveReal:
		pass.Reportf(c.Pos(), "%s", unknownMessage)
		return nil
	case reason == "":
		pass.Reportf(c.Pos(), "%s", noReasonMessage)
		return nil
	}
	return &directive{pos: c.Pos()}
}

// exemption returns the directive that exempts decl, or nil.
func (ds *directives) exemption(pass *analysis.Pass, decl ast.Decl) *directive {
	fd, ok := decl.(*ast.FuncDecl)
	if !ok {
		return nil
	}
	if d := ds.funcs[fd]; d != nil {
		return d
	}
	if fd.Recv == nil {
		return nil
	}
	fn, ok := pass.TypesInfo.Defs[fd.Name].(*types.Func)
	if !ok {
		return nil
	}
	t := types.Unalias(fn.Signature().Recv().Type())
	if p, ok := t.(*types.Pointer); ok {
		t = types.Unalias(p.Elem())
	}
	if named, ok := t.(*types.Named); ok {
		return ds.types[named.Origin().Obj()]
	}
	return nil
}

// reportUnused reports the valid directives that suppressed no finding.
func (ds *directives) reportUnused(pass *analysis.Pass) {
	for _, d := range ds.all {
		if !d.used {
			pass.Reportf(d.pos, "%s", unusedMessage)
		}
	}
}
