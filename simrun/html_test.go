package simrun

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/s3lease/s3lease/harness"
)

// TestHTMLWritesThePage: simrun html writes a failing seed's page and
// exits with its verdict's status; without -o, or with a FILE and -seed,
// it is a usage error.
func TestHTMLWritesThePage(t *testing.T) {
	page := filepath.Join(t.TempDir(), "page.html")
	var out, errOut bytes.Buffer
	code := run([]string{"html", "-scenario", "naive-skew", "-seed", "1", "-o", page}, &out, &errOut)
	if code != harness.Unsafe.ExitCode() {
		t.Fatalf("exit %d, want %d\n%s%s", code, harness.Unsafe.ExitCode(), out.String(), errOut.String())
	}
	b, err := os.ReadFile(page)
	if err != nil || !bytes.Contains(b, []byte(`id="verdict">unsafe<`)) {
		t.Fatalf("no page with the verdict at %s: %v", page, err)
	}
	for _, args := range [][]string{{"html", "-seed", "1"}, {"html", "x.json", "-seed", "1", "-o", page}} {
		errOut.Reset()
		if code := run(args, &out, &errOut); code != exitUsage || !strings.Contains(errOut.String(), "html") {
			t.Errorf("simrun %q: exit %d, stderr %q; want a usage error", args, code, errOut.String())
		}
	}
}
