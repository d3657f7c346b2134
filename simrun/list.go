package simrun

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/s3lease/s3lease/harness"
	"github.com/s3lease/s3lease/internal/cmdline"
)

// listWidth is the width `simrun list` fits its lines in.
const listWidth = 100

// cmdList prints one line per scenario: its name, what it expects and the
// start of its story, in listWidth columns; -v prints each story whole.
func (cli *program) cmdList(args []string, stdout, stderr io.Writer) (int, error) {
	fs := cmdline.NewFlags("list", stderr)
	verbose := fs.Bool("v", false, "print each scenario's whole story")
	if err := cmdline.Parse(fs, args); err != nil {
		return 0, err
	}
	for _, name := range cli.catalog.Names() {
		sc, _ := cli.catalog.Lookup(name)
		if *verbose {
			fmt.Fprintf(stdout, "%s [%s]\n    %s\n", sc.Name, sc.Expect, sc.Doc)
			continue
		}
		head := fmt.Sprintf("%-26s %-10s ", sc.Name, shortExpect(sc.Expect))
		fmt.Fprintln(stdout, head+clip(sc.Doc, listWidth-utf8.RuneCountInString(head)))
	}
	return exitOK, nil
}

// shortExpect names an expectation in a word.
func shortExpect(e harness.Expectation) string {
	switch e {
	case harness.Survives:
		return "survives"
	case harness.Fenced:
		return "fenced"
	case harness.Either:
		return "either"
	case harness.Caught:
		return "caught"
	}
	return string(e)
}

// clip cuts s to at most n characters at a word, marking the cut with "...".
func clip(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)[:max(n-3, 0)]
	cut := string(r)
	if i := strings.LastIndexByte(cut, ' '); i > n/2 {
		cut = cut[:i]
	}
	return strings.TrimRight(cut, " ,;:(") + "..."
}
