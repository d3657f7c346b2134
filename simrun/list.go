package simrun

import (
	"fmt"
	"io"

	"github.com/s3lease/s3lease/harness"
)

func cmdList(args []string, stdout, stderr io.Writer) (int, error) {
	fs := newFlags("list", stderr)
	if err := parse(fs, args); err != nil {
		return 0, err
	}
	for _, name := range harness.Names() {
		sc, _ := harness.Lookup(name)
		fmt.Fprintf(stdout, "%-22s %-28s %s\n", sc.Name, "["+string(sc.Expect)+"]", sc.Doc)
	}
	return exitOK, nil
}
