package harness

import (
	"fmt"
	"slices"
	"strings"
)

// Catalog is the scenarios a program knows, by name: the list a program
// hands to simrun.Main, and what `simrun replay FILE` resolves a
// reproducer's scenario in. It is a value, built once from lists; there is
// no global registry, so a program knows exactly the scenarios it was
// given.
type Catalog struct {
	list   []Scenario
	byName map[string]int
}

// NewCatalog returns the catalog of the scenarios given, in that order.
// Every scenario needs a name and a Build function, and names are unique.
func NewCatalog(scs ...Scenario) (*Catalog, error) {
	c := &Catalog{byName: make(map[string]int, len(scs))}
	for _, s := range scs {
		if err := c.Add(s); err != nil {
			return nil, err
		}
	}
	return c, nil
}

// Add adds a scenario at the end of the catalog; its name must be new.
func (c *Catalog) Add(s Scenario) error {
	if s.Name == "" || s.Build == nil {
		return fmt.Errorf("harness: a scenario needs a name and a Build function (got name %q)", s.Name)
	}
	if _, dup := c.byName[s.Name]; dup {
		return fmt.Errorf("harness: two scenarios are called %q", s.Name)
	}
	if c.byName == nil {
		c.byName = map[string]int{}
	}
	c.byName[s.Name] = len(c.list)
	c.list = append(c.list, s)
	return nil
}

// Lookup returns the scenario called name. The error for an unknown name
// suggests the names close to it.
func (c *Catalog) Lookup(name string) (Scenario, error) {
	if i, ok := c.byName[name]; ok {
		return c.list[i], nil
	}
	hint := ""
	if close := Suggest(name, c.Names()); len(close) > 0 {
		hint = fmt.Sprintf("; did you mean %s?", strings.Join(close, " or "))
	}
	return Scenario{}, fmt.Errorf("unknown scenario %q%s", name, hint)
}

// Names returns the names of the catalog's scenarios, sorted.
func (c *Catalog) Names() []string {
	names := make([]string, len(c.list))
	for i, s := range c.list {
		names[i] = s.Name
	}
	slices.Sort(names)
	return names
}

// Scenarios returns the catalog's scenarios in the order they were given.
func (c *Catalog) Scenarios() []Scenario { return slices.Clone(c.list) }

// Resolve returns the scenario a reproducer names; an unknown one is an
// error wrapping ErrBadReproducer.
func (c *Catalog) Resolve(r *Reproducer) (Scenario, error) {
	sc, err := c.Lookup(r.Scenario)
	if err != nil {
		return Scenario{}, badRepro("%v", err)
	}
	return sc, nil
}

// Suggest returns the names close to name, for a "did you mean" message:
// those within a small edit distance (two letters swapped count as one
// edit), or that contain it or are contained in it, quoted, at most three.
func Suggest(name string, names []string) []string {
	var out []string
	for _, n := range names {
		d := editDistance(name, n)
		if d <= max(1, len(name)/4) || len(name) >= 3 && (strings.Contains(n, name) || strings.Contains(name, n)) {
			out = append(out, fmt.Sprintf("%q", n))
			if len(out) == 3 {
				break
			}
		}
	}
	return out
}

// editDistance is the edit distance between a and b, in bytes: letters
// inserted, removed, replaced, or two adjacent ones swapped (the optimal
// string alignment distance).
func editDistance(a, b string) int {
	before, prev, cur := make([]int, len(b)+1), make([]int, len(b)+1), make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], before[j-2]+1)
			}
		}
		before, prev, cur = prev, cur, before
	}
	return prev[len(b)]
}
