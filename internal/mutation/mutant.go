package mutation

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"path"
	"strings"
)

// An Operator names one kind of mutation.
type Operator string

// The operators, in the order Enumerate tries them at each node; the
// package documentation says what each changes.
const (
	OpCompare     Operator = "cmp-flip"
	OpNegate      Operator = "negate-cond"
	OpErrStmt     Operator = "err-stmt-remove"
	OpErrReturn   Operator = "err-branch-return"
	OpOffByOne    Operator = "off-by-one"
	OpClock       Operator = "clock-swap"
	OpReturnBool  Operator = "return-bool"
	OpReturnZero  Operator = "return-zero"
	OpReturnOther Operator = "return-other"
	OpCancel      Operator = "cancel-remove"
	OpArith       Operator = "arith-swap"
)

// Operators lists every operator.
var Operators = []Operator{OpCompare, OpNegate, OpErrStmt, OpErrReturn, OpOffByOne, OpClock,
	OpReturnBool, OpReturnZero, OpReturnOther, OpCancel, OpArith}

// A Mutant is one small change to one source file: the bytes
// [Start, End) of File replaced by Replacement.
type Mutant struct {
	// ID is stable while the mutant's Signature is: the file's name
	// without .go and 8 hex digits of the signature's SHA-256.
	ID string `json:"id"`
	// File is the file's path relative to the module root, with slashes.
	File string `json:"file"`
	// Line and Col are where the change begins (1-based).
	Line int `json:"line"`
	Col  int `json:"col"`
	// Func names the declaration the change lies in: "Elector.renew" for a
	// method, "classify" for a function, "const maxWrites" or "var
	// classNames" outside any function.
	Func     string   `json:"func"`
	Operator Operator `json:"operator"`
	// Start and End are byte offsets in the file.
	Start int `json:"start"`
	End   int `json:"end"`
	// Original is the text replaced, Replacement the text put instead.
	Original    string `json:"original"`
	Replacement string `json:"replacement"`
	// Occurrence counts the mutants of the same Func, Operator, Original
	// and Replacement in the file up to this one, from 1: it tells apart
	// the same change at two places of one function.
	Occurrence int `json:"occurrence"`
	// Area is the part of the package the mutant lies in (SetAreas, or
	// the triage table's Judgement.Area). It is no part of the Signature.
	Area Area `json:"area"`
}

// Signature identifies a mutant independently of line numbers, so that
// edits elsewhere in the file leave it unchanged: file, function,
// operator, original and replacement text (whitespace runs folded to one
// space) and occurrence, separated by " | ".
func (m Mutant) Signature() string {
	return strings.Join([]string{m.File, m.Func, string(m.Operator), fold(m.Original), fold(m.Replacement),
		fmt.Sprint(m.Occurrence)}, " | ")
}

// Pos is "file:line:col".
func (m Mutant) Pos() string { return fmt.Sprintf("%s:%d:%d", m.File, m.Line, m.Col) }

// Apply returns src with the mutation made. src must be the file the
// mutant was enumerated from.
func (m Mutant) Apply(src []byte) ([]byte, error) {
	if m.Start < 0 || m.End > len(src) || m.Start > m.End || string(src[m.Start:m.End]) != m.Original {
		return nil, fmt.Errorf("mutation: %s: %s does not hold %q at %d:%d", m.ID, m.File, m.Original, m.Start, m.End)
	}
	out := make([]byte, 0, len(src)-len(m.Original)+len(m.Replacement))
	out = append(out, src[:m.Start]...)
	out = append(out, m.Replacement...)
	return append(out, src[m.End:]...), nil
}

// Snippet is the change for a reader: "original → replacement", each
// folded to one line and cut to about 60 characters.
func (m Mutant) Snippet() string {
	return short(fold(m.Original)) + " → " + short(fold(m.Replacement))
}

// makeID is the ID of a mutant of file with signature sig.
func makeID(file, sig string) string {
	sum := sha256.Sum256([]byte(sig))
	return strings.TrimSuffix(path.Base(file), ".go") + "-" + hex.EncodeToString(sum[:4])
}

// fold replaces every run of white space by one space.
func fold(s string) string { return strings.Join(strings.Fields(s), " ") }

func short(s string) string {
	if s == "" {
		return "(nothing)"
	}
	r := []rune(s)
	if len(r) > 60 {
		return string(r[:57]) + "..."
	}
	return s
}
