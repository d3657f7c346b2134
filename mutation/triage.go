package mutation

// Kind is a triage judgement of a mutant the swarm does not kill.
type Kind string

// The kinds of judgement.
const (
	// KindEquivalent: the mutant cannot change what the elector does
	// under any schedule the protocol's assumptions allow (or at all). It
	// is not run and not counted in any score; Reason says why.
	KindEquivalent Kind = "equivalent"
	// KindGap: the mutant changes behaviour the swarm does not reach or
	// does not check. It is run and counted; the report prints Reason
	// (what fault or draw would catch it) beside it.
	KindGap Kind = "gap"
)

// A Judgement triages the mutants it matches: the same file, function,
// operator, original and replacement text (compared with white space
// folded), and occurrence (0 matches any). Line numbers play no part, so
// edits elsewhere leave it valid.
type Judgement struct {
	Kind        Kind
	File        string
	Func        string
	Operator    Operator
	Original    string
	Replacement string
	Occurrence  int
	Reason      string
	// Area, if set, moves the mutant to that area: a mutant of election
	// code whose only effect is a value the elector reports (a cause in a
	// transition, a hold time) is AreaObservability, and Reason says
	// what it changes.
	Area Area
}

// Matches reports whether j judges m.
func (j Judgement) Matches(m Mutant) bool {
	return j.File == m.File && j.Func == m.Func && j.Operator == m.Operator &&
		fold(j.Original) == fold(m.Original) && fold(j.Replacement) == fold(m.Replacement) &&
		(j.Occurrence == 0 || j.Occurrence == m.Occurrence)
}

// Judge returns the first judgement of triage that matches m.
func Judge(triage []Judgement, m Mutant) (Judgement, bool) {
	for _, j := range triage {
		if j.Matches(m) {
			return j, true
		}
	}
	return Judgement{}, false
}

// Triage is the project's judgement of the protocol/ mutants that survive
// the swarm: equivalent ones, excluded from the score, and known gaps of
// the swarm. Keep it sorted by file and function.
var Triage = []Judgement{}
