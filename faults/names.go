package faults

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// streamNames is the stream that draws the nodes' identities.
const streamNames = 0x6e616d65_73212121

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

// SwarmNames draws the nodes' identities for a seed, for a protocol that
// accepts identities of up to maxLen bytes (0: it takes none of these, and
// nil is returned). On four seeds in five nil: the nodes are n0, n1, ....
// Otherwise each node takes, at random, n<i>, one of the spellings above,
// or a name of exactly maxLen bytes that ends in a character of several
// bytes (the longest identity the protocol accepts, which a record's link
// to the previous holder must carry whole).
func SwarmNames(seed uint64, nodes, maxLen int) []string {
	if maxLen <= 0 {
		return nil
	}
	s := newStream(seed, streamNames, SwarmSpace{Nodes: nodes})
	if !s.on(5) {
		return nil
	}
	out := make([]string, nodes)
	for i := range out {
		switch k := s.pick(len(nameSpellings) + 2); {
		case k < len(nameSpellings):
			out[i] = fmt.Sprintf(nameSpellings[k], i)
		case k == len(nameSpellings):
			out[i] = longName(i, maxLen)
		default:
			out[i] = fmt.Sprintf("n%d", i)
		}
		if len(out[i]) > maxLen {
			out[i] = fmt.Sprintf("n%d", i)
		}
	}
	return out
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
	name := head + strings.Repeat("x", pad) + tail
	if !utf8.ValidString(name) {
		return head
	}
	return name
}
