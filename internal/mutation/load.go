package mutation

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"golang.org/x/tools/go/packages"
)

// Package is the package whose mutants are made: its non-test files as
// they are on disk, parsed and type-checked.
type Package struct {
	// Root is the module root (absolute); Dir the package's directory.
	Root, Dir string
	// Path is the import path.
	Path string
	// Files are the absolute paths of the non-test .go files, sorted.
	Files []string
	// Sources holds the bytes of each file of Files.
	Sources map[string][]byte

	fset    *token.FileSet
	syntax  map[string]*ast.File
	info    *types.Info
	types   *types.Package
	imports map[string]*types.Package
	goVer   string
}

// loadMode asks for syntax and types of the package, export data for its
// dependencies.
const loadMode = packages.NeedName | packages.NeedFiles | packages.NeedCompiledGoFiles |
	packages.NeedImports | packages.NeedTypes | packages.NeedTypesSizes |
	packages.NeedSyntax | packages.NeedTypesInfo | packages.NeedModule

// Load parses and type-checks the package in dir (a directory under a
// module root). It fails if the package has errors: mutants of a package
// that does not build mean nothing.
func Load(ctx context.Context, dir string) (*Package, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("mutation: %w", err)
	}
	cfg := &packages.Config{Context: ctx, Mode: loadMode, Dir: abs, Tests: false}
	pkgs, err := packages.Load(cfg, ".")
	if err != nil {
		return nil, fmt.Errorf("mutation: load %s: %w", dir, err)
	}
	if len(pkgs) != 1 {
		return nil, fmt.Errorf("mutation: load %s: %d packages, want 1", dir, len(pkgs))
	}
	lp := pkgs[0]
	if len(lp.Errors) > 0 {
		return nil, fmt.Errorf("mutation: load %s: %w", dir, errors.New(lp.Errors[0].Error()))
	}
	if lp.Module == nil {
		return nil, fmt.Errorf("mutation: %s is not in a module", dir)
	}
	p := &Package{
		Root:    lp.Module.Dir,
		Dir:     abs,
		Path:    lp.PkgPath,
		Sources: map[string][]byte{},
		fset:    lp.Fset,
		syntax:  map[string]*ast.File{},
		info:    lp.TypesInfo,
		types:   lp.Types,
		imports: map[string]*types.Package{},
		goVer:   lp.Module.GoVersion,
	}
	for i, f := range lp.CompiledGoFiles {
		if filepath.Ext(f) != ".go" || filepath.Dir(f) != abs {
			return nil, fmt.Errorf("mutation: %s: file %s is generated elsewhere (cgo?), which is not supported", dir, f)
		}
		src, err := os.ReadFile(f)
		if err != nil {
			return nil, fmt.Errorf("mutation: %w", err)
		}
		p.Files = append(p.Files, f)
		p.Sources[f] = src
		p.syntax[f] = lp.Syntax[i]
	}
	slices.Sort(p.Files)
	for _, imp := range lp.Types.Imports() {
		p.imports[imp.Path()] = imp
	}
	return p, nil
}

// Rel is file's path relative to the module root, with slashes.
func (p *Package) Rel(file string) string {
	r, err := filepath.Rel(p.Root, file)
	if err != nil {
		return filepath.ToSlash(file)
	}
	return filepath.ToSlash(r)
}

// abs is the absolute path of a file named relative to the module root.
func (p *Package) abs(rel string) string { return filepath.Join(p.Root, filepath.FromSlash(rel)) }

// SourceHash is the SHA-256, in hex, of the package's non-test sources
// (their names relative to the module root and their bytes): results
// recorded for another hash are of other code.
func (p *Package) SourceHash() string {
	h := sha256.New()
	for _, f := range p.Files {
		fmt.Fprintf(h, "%s %d\n", p.Rel(f), len(p.Sources[f]))
		h.Write(p.Sources[f])
	}
	return hex.EncodeToString(h.Sum(nil))
}

// Mutate returns the mutated source of m's file.
func (p *Package) Mutate(m Mutant) ([]byte, error) {
	src, ok := p.Sources[p.abs(m.File)]
	if !ok {
		return nil, fmt.Errorf("mutation: %s: no file %s in package %s", m.ID, m.File, p.Path)
	}
	return m.Apply(src)
}

// TypeCheck reports whether the package type-checks with m applied: nil,
// or an error naming the first problem. Imports resolve to the packages
// the package already imports, so a mutant cannot add one.
func (p *Package) TypeCheck(m Mutant) error {
	mutated, err := p.Mutate(m)
	if err != nil {
		return err
	}
	fset := token.NewFileSet()
	var files []*ast.File
	for _, f := range p.Files {
		src := p.Sources[f]
		if f == p.abs(m.File) {
			src = mutated
		}
		af, err := parser.ParseFile(fset, f, src, parser.SkipObjectResolution)
		if err != nil {
			return fmt.Errorf("does not parse: %w", err)
		}
		files = append(files, af)
	}
	var first error
	cfg := types.Config{
		GoVersion: "go" + strings.TrimPrefix(p.goVer, "go"),
		Importer: importerFunc(func(path string) (*types.Package, error) {
			if imp, ok := p.imports[path]; ok {
				return imp, nil
			}
			return nil, fmt.Errorf("package %s is not imported by %s", path, p.Path)
		}),
		Error: func(err error) {
			if first == nil {
				first = err
			}
		},
	}
	if p.goVer == "" {
		cfg.GoVersion = ""
	}
	_, _ = cfg.Check(p.Path, fset, files, nil)
	if first != nil {
		return fmt.Errorf("does not type-check: %w", first)
	}
	return nil
}

type importerFunc func(path string) (*types.Package, error)

func (f importerFunc) Import(path string) (*types.Package, error) { return f(path) }
