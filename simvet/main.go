package simvet

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/checker"
	"golang.org/x/tools/go/packages"
)

// loadMode is what Analyzer needs: syntax and types of the packages named,
// export data for their dependencies (it uses no facts).
const loadMode = packages.NeedName | packages.NeedFiles | packages.NeedCompiledGoFiles |
	packages.NeedImports | packages.NeedTypes | packages.NeedTypesSizes |
	packages.NeedSyntax | packages.NeedTypesInfo | packages.NeedModule

// A Finding is one diagnostic of Analyzer.
type Finding struct {
	File    string // relative to the directory given to Check where it lies under it
	Line    int
	Column  int
	Message string
}

// String formats f as "file:line:col: message".
func (f Finding) String() string {
	return fmt.Sprintf("%s:%d:%d: %s", f.File, f.Line, f.Column, f.Message)
}

// Main checks the packages matching patterns (go list patterns such as
// "./protocol/..." resolved in dir; "./..." if there are none; dir "" is the
// current directory) and writes each finding to stdout as one line
// "file:line:col: message", sorted by file, line, column and message, file
// names relative to dir where they lie under it. It returns the number of
// findings.
//
// err is non-nil if the packages could not be loaded or checked: a pattern
// that matches no package, a package that does not parse or type-check, a
// failed write to stdout. Then nothing is written and findings is 0. A
// command maps findings > 0 to exit status 1 and err != nil to exit status 2.
func Main(ctx context.Context, patterns []string, dir string, stdout io.Writer) (findings int, err error) {
	fs, err := Check(ctx, patterns, dir)
	if err != nil {
		return 0, err
	}
	var b strings.Builder
	for _, f := range fs {
		b.WriteString(f.String())
		b.WriteByte('\n')
	}
	if _, err := io.WriteString(stdout, b.String()); err != nil {
		return 0, fmt.Errorf("simvet: write findings: %w", err)
	}
	return len(fs), nil
}

// Check is Main without the printing: it returns the findings, sorted and
// without duplicates.
func Check(ctx context.Context, patterns []string, dir string) ([]Finding, error) {
	if len(patterns) == 0 {
		patterns = []string{"./..."}
	}
	cfg := &packages.Config{Context: ctx, Mode: loadMode, Dir: dir}
	pkgs, err := packages.Load(cfg, patterns...)
	if err != nil {
		return nil, fmt.Errorf("simvet: load %s: %w", strings.Join(patterns, " "), err)
	}
	if len(pkgs) == 0 {
		return nil, fmt.Errorf("simvet: load %s: no packages match", strings.Join(patterns, " "))
	}
	if err := loadErrors(pkgs); err != nil {
		return nil, fmt.Errorf("simvet: load %s: %w", strings.Join(patterns, " "), err)
	}

	graph, err := checker.Analyze([]*analysis.Analyzer{Analyzer}, pkgs, nil)
	if err != nil {
		return nil, fmt.Errorf("simvet: %w", err)
	}
	base := dir
	if abs, err := filepath.Abs(dir); err == nil {
		base = abs
	}
	var fs []Finding
	var errs []error
	for _, act := range graph.Roots {
		if act.Err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", act.Package.PkgPath, act.Err))
			continue
		}
		for _, d := range act.Diagnostics {
			pos := act.Package.Fset.Position(d.Pos)
			fs = append(fs, Finding{relative(base, pos.Filename), pos.Line, pos.Column, d.Message})
		}
	}
	if len(errs) > 0 {
		return nil, fmt.Errorf("simvet: %w", errors.Join(errs...))
	}
	slices.SortFunc(fs, func(a, b Finding) int {
		return cmp.Or(strings.Compare(a.File, b.File), cmp.Compare(a.Line, b.Line),
			cmp.Compare(a.Column, b.Column), strings.Compare(a.Message, b.Message))
	})
	return slices.Compact(fs), nil
}

// loadErrors joins the errors of pkgs and their dependencies, each once: a
// package's parse and type errors, or its go list errors if it has none
// (which then repeat the compiler's view of the same errors).
func loadErrors(pkgs []*packages.Package) error {
	var errs []error
	seen := make(map[string]bool)
	packages.Visit(pkgs, nil, func(p *packages.Package) {
		onlyList := true
		for _, e := range p.Errors {
			onlyList = onlyList && e.Kind == packages.ListError
		}
		for _, e := range p.Errors {
			if e.Kind == packages.ListError && !onlyList {
				continue
			}
			s := e.Msg
			if e.Pos != "" && e.Pos != "-" {
				s = e.Pos + ": " + e.Msg
			}
			if !seen[s] {
				seen[s] = true
				errs = append(errs, errors.New(s))
			}
		}
	})
	return errors.Join(errs...)
}

// relative returns name relative to base if it lies under base, and name
// otherwise.
func relative(base, name string) string {
	rel, err := filepath.Rel(base, name)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return name
	}
	return rel
}
