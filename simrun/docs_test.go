package simrun

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestCampaignUsageListsItsFiles: every kind of file a campaign keeps of a
// failing seed (reproducer, trace, page) is listed in campaign -h.
func TestCampaignUsageListsItsFiles(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "c")
	if code, out, errOut := simrun("campaign", "-out", dir, "-scenario", "naive-skew", "-seeds", "2", "-workers", "1", "-quiet"); code == exitUsage || code == exitCrashed {
		t.Fatalf("campaign: exit %d\n%s%s", code, out, errOut)
	}
	_, _, usage := simrun("campaign", "-h")
	seedFile := regexp.MustCompile(`^seed-[0-9]+(\..+)$`)
	kinds := map[string]bool{}
	err := filepath.WalkDir(filepath.Join(dir, "failures"), func(path string, d fs.DirEntry, err error) error {
		if m := seedFile.FindStringSubmatch(d.Name()); err == nil && m != nil {
			kinds[m[1]] = true
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(kinds) < 3 {
		t.Fatalf("the campaign kept %v of its failures, want a reproducer, a trace and a page", kinds)
	}
	for ext := range kinds {
		if !strings.Contains(usage, "DIR/failures/<signature>/seed-S"+ext) {
			t.Errorf("campaign -h does not list the seed-S%s files a campaign writes:\n%s", ext, usage)
		}
	}
}

// TestEnvironmentVariablesDocumented: every S3LEASE_ environment variable
// the project reads, in its code or its tests, is documented where a user
// reads (the README or a package's doc.go), not only in a test's comment.
func TestEnvironmentVariablesDocumented(t *testing.T) {
	read := regexp.MustCompile(`(?:Getenv|LookupEnv)\("(S3LEASE_[A-Z0-9_]+)"\)`)
	var docs strings.Builder
	vars := map[string]string{}
	err := filepath.WalkDir("..", func(path string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			return err
		case d.IsDir() && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".") && path != ".."):
			return filepath.SkipDir
		case d.IsDir() || !strings.HasSuffix(path, ".go") && path != filepath.Join("..", "README.md"):
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if d.Name() == "doc.go" || d.Name() == "README.md" {
			docs.Write(data)
		}
		for _, m := range read.FindAllStringSubmatch(string(data), -1) {
			vars[m[1]] = path
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(vars) == 0 {
		t.Fatal("no S3LEASE_ variable found: the test reads nothing")
	}
	for v, where := range vars {
		if !strings.Contains(docs.String(), v) {
			t.Errorf("%s reads %s, which no doc.go and not the README documents", where, v)
		}
	}
}
