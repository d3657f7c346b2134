package faults

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// nameSpellings are identities a deployment's tooling gives and a lock
// record must carry exactly, each with %d for the node: quotes and
// backslashes, non-ASCII letters and a symbol beyond the Basic
// Multilingual Plane, the characters encoding/json escapes for HTML, and
// control characters and line separators, which JSON must escape.
var nameSpellings = []string{
	`pod-%d "quoted" \back\slash`,
	"nœud-%d-éλ-💡",
	"n%d<script>&amp;</script>",
	"n%d\u2028tab\there\x01\x1f",
}

// lateNameSpellings are more identities: a name of printable ASCII with
// one control character and nothing else JSON escapes (the unit
// separator, 0x1f, the last control character, as a tool that joins
// fields with it leaves it; the spellings above put control characters
// only beside non-ASCII ones, which send the whole name to a generic
// encoder), and a name that ends in a backslash (a Windows directory
// joined to a name, a line continuation left in a config), which JSON
// writes as an escape at the very end of the string.
var lateNameSpellings = [...]string{
	"n%d\x1fshard",
	`n%d-host\`,
}

// drawNames draws the nodes' identities, for a protocol that states the
// longest it accepts (Bounds.MaxIdentityLen; else none are drawn). On four
// draws in five none: the nodes are n0, n1, .... Otherwise each node
// takes, at random, n<i>, one of nameSpellings, or a name of exactly the
// longest length that ends in a character of several bytes (which a
// record's link to the previous holder must carry whole); and one node in
// ten instead one of lateNameSpellings. The names are then fitted to the
// identities the plan's restarts give (FitNames).
func drawNames(d *drawing, s stream) {
	maxLen := d.b.MaxIdentityLen
	if maxLen <= 0 || !s.OneIn(5) {
		return
	}
	names := make([]string, d.nodes)
	for i := range names {
		k := (s.Pick(earlyNameKinds) + earlyNameKinds - 1) % earlyNameKinds // n<i> the simplest
		if s.OneIn(10) {
			k = earlyNameKinds + s.Pick(len(lateNameSpellings))
		}
		names[i] = SwarmName(i, k, maxLen)
	}
	d.plan.Names = names
	FitNames(d.plan, maxLen)
}

// NameKinds is the number of kinds of name SwarmName gives:
// earlyNameKinds and lateNameSpellings.
const NameKinds = 8

// earlyNameKinds is the number of kinds before lateNameSpellings: the
// spellings of nameSpellings, the longest name and n<node>.
const earlyNameKinds = 6

// SwarmName is node's name of kind k (0 <= k < NameKinds), at most maxLen
// bytes: one of nameSpellings, the longest name (exactly maxLen bytes),
// n<node>, or one of lateNameSpellings.
func SwarmName(node, k, maxLen int) string {
	name := fmt.Sprintf("n%d", node)
	switch {
	case k >= 0 && k < len(nameSpellings):
		name = fmt.Sprintf(nameSpellings[k], node)
	case k == len(nameSpellings):
		name = longName(node, maxLen)
	case k >= earlyNameKinds && k < NameKinds:
		name = fmt.Sprintf(lateNameSpellings[k-earlyNameKinds], node)
	}
	if len(name) > maxLen {
		return fmt.Sprintf("n%d", node)
	}
	return name
}

// longName is a name for node i of exactly maxLen bytes (or as close as
// whole characters allow, when maxLen is tiny), ending in "é" or "💡" so
// that a cut at any byte before the end would split a character.
func longName(i, maxLen int) string {
	head := fmt.Sprintf("n%d-", i)
	tail := "💡"
	if (maxLen-len(head))%2 == 0 {
		tail = "é"
	}
	pad := maxLen - len(head) - len(tail)
	if pad < 0 {
		return head[:min(len(head), maxLen)]
	}
	return head + strings.Repeat("x", pad) + tail
}

// FitNames shortens the nodes' names (Plan.Names) so that a name with the
// longest suffix a restart gives it (Event.Identity: a restart, or a crash
// or stop that restarts, of a node or of whichever node plays a role when
// it fires) is no longer than maxLen: a name of exactly maxLen bytes would
// otherwise make the restarted node's identity one the protocol refuses,
// and the node would be lost to the run (with every node so named, no
// leader again). Names are cut on a character boundary.
func FitNames(p *Plan, maxLen int) {
	suffix := 0
	for _, e := range p.Events {
		suffix = max(suffix, len(e.Identity))
	}
	n := maxLen - suffix
	for i, name := range p.Names {
		if len(name) <= n {
			continue
		}
		cut := max(n, 0)
		for cut > 0 && !utf8.RuneStart(name[cut]) {
			cut--
		}
		if cut == 0 {
			p.Names[i] = fmt.Sprintf("n%d", i) // as SwarmName names a node no spelling fits
			continue
		}
		p.Names[i] = name[:cut]
	}
}
