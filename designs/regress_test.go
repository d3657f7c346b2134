// Package designs_test replays the seed designs' regression corpus.
package designs_test

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/s3lease/s3lease/designs/epochfile"
	"github.com/s3lease/s3lease/designs/leadermgr"
	"github.com/s3lease/s3lease/designs/relaxedlog"
	"github.com/s3lease/s3lease/harness"
)

// TestRegressCorpus: every reproducer in testdata/regress (the format of
// `simrun replay -o`, with an "expect") replays to exactly its expected
// verdict and signature. The corpus holds the campaign seeds on which the
// designs' safe forms once failed: a suspended VM whose term, resumed, ran
// on for a term and its application's last write beyond the window the
// judge excused, and an epoch created beside a live one after a refused
// create. Add one with
//
//	go run ./cmd/simrun replay -scenario epochfile/safe -seed S -o designs/testdata/regress/NAME.json
func TestRegressCorpus(t *testing.T) {
	paths, err := filepath.Glob(filepath.Join("testdata", "regress", "*.json"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no reproducers in testdata/regress (%v)", err)
	}
	designs, err := harness.NewCatalog(slices.Concat(epochfile.Scenarios(), leadermgr.Scenarios(), relaxedlog.Scenarios())...)
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range paths {
		t.Run(filepath.Base(path), func(t *testing.T) {
			f, err := os.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			r, err := harness.LoadReproducer(f)
			if err != nil || r.Expect == nil {
				t.Fatalf("malformed reproducer (an expectation is required): %v", err)
			}
			sc, err := designs.Resolve(r)
			if err != nil {
				t.Fatal(err)
			}
			o, err := r.Run(sc, false)
			if err != nil {
				t.Fatal(err)
			}
			if got := harness.SignatureOf(o); !got.Equal(*r.Expect) {
				t.Errorf("shows %q, expects %q (replay: go run ./cmd/simrun replay designs/%s)", got, *r.Expect, path)
			}
		})
	}
}
