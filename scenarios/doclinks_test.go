package scenarios

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// publicPackages are the packages a user imports, whose documentation is
// an index of their names by topic.
var publicPackages = []string{
	"protocol", "sim", "faults", "linearizability", "harness", "harness/elector",
	"scenarios", "zoo", "simrun", "sdkhttp", "simvet",
}

// docLink is a doc link of a Go comment: [Name], [Name.Member],
// [pkg.Name] or [pkg.Name.Member], with an optional * before it.
var docLink = regexp.MustCompile(`\[\*?([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*){0,2})\]`)

// TestPackageDocLinks checks that every doc link in the package
// documentation of the public packages names what exists: an exported name
// of the package, a method or field of one, or a name of another of these
// packages. (go doc prints a link to nothing as plain text, silently.)
// Links to packages outside the module are not checked.
func TestPackageDocLinks(t *testing.T) {
	names := map[string]map[string]bool{} // package name -> its names
	for _, dir := range publicPackages {
		pkg, set := packageNames(t, filepath.Join("..", filepath.FromSlash(dir)))
		names[pkg] = set
	}
	for _, dir := range publicPackages {
		path := filepath.Join("..", filepath.FromSlash(dir), "doc.go")
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ParseComments)
		if err != nil {
			t.Fatal(err)
		}
		if f.Doc == nil {
			t.Errorf("%s: no package documentation", path)
			continue
		}
		local := names[f.Name.Name]
		var prose []string // the documentation but its code blocks, which hold no links
		for _, l := range strings.Split(f.Doc.Text(), "\n") {
			if !strings.HasPrefix(l, "\t") {
				prose = append(prose, l)
			}
		}
		text := strings.Join(prose, "\n")
		for _, i := range docLink.FindAllStringSubmatchIndex(text, -1) {
			m := []string{text[i[0]:i[1]], text[i[2]:i[3]]}
			if i[1] < len(text) && isWordByte(text[i[1]]) {
				t.Errorf("%s: %s is followed by %q, so go doc does not make it a link", path, m[0], text[i[1]])
				continue
			}
			parts := strings.Split(m[1], ".")
			switch {
			case local[parts[0]]:
				if !local[strings.Join(parts, ".")] {
					t.Errorf("%s: [%s] names nothing of package %s", path, m[1], f.Name.Name)
				}
			case names[parts[0]] != nil && len(parts) > 1:
				if !names[parts[0]][strings.Join(parts[1:], ".")] {
					t.Errorf("%s: [%s] names nothing of package %s", path, m[1], parts[0])
				}
			case len(parts) == 1:
				t.Errorf("%s: [%s] names nothing of package %s", path, m[1], f.Name.Name)
			}
		}
	}
}

// isWordByte reports whether c is a letter, a digit or '_'.
func isWordByte(c byte) bool {
	return c == '_' || '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}

// packageNames returns the name of the package in dir and its exported
// names: types, functions, variables and constants, and Type.Member for
// the methods and fields of its types.
func packageNames(t *testing.T, dir string) (string, map[string]bool) {
	t.Helper()
	pkgs, err := parser.ParseDir(token.NewFileSet(), dir, func(fi os.FileInfo) bool {
		return !strings.HasSuffix(fi.Name(), "_test.go")
	}, 0)
	if err != nil || len(pkgs) != 1 {
		t.Fatalf("%s: %v (%d packages)", dir, err, len(pkgs))
	}
	set := map[string]bool{}
	var name string
	for n, pkg := range pkgs {
		name = n
		for _, f := range pkg.Files {
			for _, d := range f.Decls {
				switch d := d.(type) {
				case *ast.FuncDecl:
					if d.Recv == nil {
						set[d.Name.Name] = true
					} else if recv := receiverName(d.Recv.List[0].Type); recv != "" {
						set[recv+"."+d.Name.Name] = true
					}
				case *ast.GenDecl:
					for _, s := range d.Specs {
						switch s := s.(type) {
						case *ast.TypeSpec:
							set[s.Name.Name] = true
							addMembers(set, s.Name.Name, s.Type)
						case *ast.ValueSpec:
							for _, n := range s.Names {
								set[n.Name] = true
							}
						}
					}
				}
			}
		}
	}
	return name, set
}

// addMembers adds the fields of a struct type and the methods of an
// interface type as typ.Member.
func addMembers(set map[string]bool, typ string, e ast.Expr) {
	var fields *ast.FieldList
	switch e := e.(type) {
	case *ast.StructType:
		fields = e.Fields
	case *ast.InterfaceType:
		fields = e.Methods
	default:
		return
	}
	for _, f := range fields.List {
		for _, n := range f.Names {
			set[typ+"."+n.Name] = true
		}
		if len(f.Names) == 0 { // an embedded type: its name is the field's
			if n := receiverName(f.Type); n != "" {
				set[typ+"."+n] = true
			}
		}
	}
}

// receiverName returns the name of the type of a receiver or embedded
// field: T, *T, T[P] or pkg.T.
func receiverName(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.StarExpr:
		return receiverName(e.X)
	case *ast.IndexExpr:
		return receiverName(e.X)
	case *ast.SelectorExpr:
		return e.Sel.Name
	case *ast.Ident:
		return e.Name
	}
	return ""
}
